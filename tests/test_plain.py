"""``noreturn play --plain``: a whole game fed on standard input."""

from __future__ import annotations

import io
import json
from pathlib import Path

from noreturn.plain import run_plain


def play_fed(lines: str, tmp_path: Path, seed: int = 5) -> tuple[str, dict[str, object]]:
    out: list[str] = []
    code = run_plain(players=2, name="Ada", seed=seed, stdin=io.StringIO(lines),
                     save_dir=tmp_path, write=out.append)
    assert code == 0
    saved = list(tmp_path.glob("*.json"))
    assert len(saved) == 1
    return "\n".join(out), json.loads(saved[0].read_text())


def test_whole_game_on_standard_input_ends_with_scores_and_a_saved_record(
    tmp_path: Path,
) -> None:
    # "1" is always legal for the human: at the mulligan it sets aside the lowest tile,
    # in phase 1 (0 is declare) it exchanges the lowest tile.
    text, record = play_fed("1\n" * 400, tmp_path)
    assert "final scores:" in text
    assert "result" in record
    assert record["players"][0] == {"name": "Ada", "kind": "human"}
    assert f"record saved: {tmp_path}" in text


def test_illegal_and_garbled_moves_are_explained_and_change_nothing(tmp_path: Path) -> None:
    text, record = play_fed("\nplace Q3\nscore R x1 pay R1\nquit\n", tmp_path)
    assert "is not a tile" in text
    assert "not allowed: you are in phase 1" in text
    assert "game stopped." in text
    mine = [e["type"] for e in record["events"] if e["player"] == 0]
    assert mine == ["deal", "mulligan"]
    assert "result" not in record


def test_declare_asks_for_confirmation(tmp_path: Path) -> None:
    text, record = play_fed("\ndeclare\nn\nquit\n", tmp_path)
    assert "declare phase 2? You can never place again." in text
    assert not any(e["type"] == "declare" and e["player"] == 0 for e in record["events"])
