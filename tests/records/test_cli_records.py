"""``noreturn validate`` and ``noreturn replay`` as a user runs them."""

from __future__ import annotations

import errno
import gzip
import json
import os
import re
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import pytest
from recordkit import VARIANTS, recorded_game
from typer.testing import CliRunner

from noreturn.cli import app
from noreturn.records import write_record

RECORDS = Path(__file__).parent
SHARED = RECORDS / "shared"
S03 = SHARED / "s03_score_whole_row_and_result.json"
S10 = SHARED / "s10_3p_trigger_first_position_exchange_empty_bag.json"
S20 = SHARED / "s20_dense_ranks_are_wrong.json"
S21 = SHARED / "s21_last_mulligan_cannot_redraw_set_aside.json"
TILE = re.compile(r"\b[ROYGBP]\d{1,2}\b")

runner = CliRunner()


def run(*args: str) -> tuple[int, list[str]]:
    result = runner.invoke(app, list(args))
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    assert "Traceback" not in result.output
    return result.exit_code, result.output.splitlines()


def test_validate_ok_with_scores() -> None:
    code, lines = run("validate", str(S03), str(S10))
    assert code == 0
    assert lines == [f"OK {S03} scores=[8, -3]", f"OK {S10} scores=[0, 0, -7]"]


def test_validate_every_shared_example() -> None:
    paths = sorted(p for p in SHARED.glob("*.json") if ".expect." not in p.name)
    code, lines = run("validate", *map(str, paths))
    assert code == 1 and len(lines) == len(paths)
    for path, line in zip(paths, lines, strict=True):
        expect = json.loads(path.with_suffix(".expect.json").read_text(encoding="utf-8"))
        if expect["valid"]:
            assert line == f"OK {path} scores={expect['scores']}"
        else:
            assert line.startswith(f"INVALID {path} event {expect['event']}: ")
            assert line.endswith(f"[{expect['why']}]")


def test_validate_invalid_names_the_event() -> None:
    code, lines = run("validate", str(S21))
    assert code == 1
    assert lines == [f"INVALID {S21} event 4: draw R4 O1 by player 1: R4 is not in the bag "
                     f"[tile-not-in-bag]"]
    code, lines = run("validate", str(S20))
    assert code == 1 and lines[0].startswith(f"INVALID {S20} event 10: result: ranks")


def test_validate_game_in_progress(tmp_path: Path) -> None:
    record = json.loads(S03.read_text(encoding="utf-8"))
    del record["result"]
    record["events"] = record["events"][:7]
    path = write_record(record, tmp_path / "open.json")
    code, lines = run("validate", str(path))
    assert code == 0
    assert lines == [f"OK {path} in progress: player 1 to draw 2 tiles"]
    code, lines = run("--lang", "de", "validate", str(path))  # a format for programs
    assert code == 0 and lines == [f"OK {path} in progress: player 1 to draw 2 tiles"]
    code, lines = run("--lang", "de", "replay", str(path))  # a person's account
    assert lines[-1] == "Das Spiel läuft noch: Spieler 1 zieht als Nächstes 2 Steine."


def test_validate_errors_for_files_that_are_not_records(tmp_path: Path) -> None:
    text = tmp_path / "notes.json"
    text.write_text("this is not JSON", encoding="utf-8")
    array = tmp_path / "array.json"
    array.write_text("[1, 2, 3]", encoding="utf-8")
    other = tmp_path / "other.json"
    other.write_text('{"format": "chess", "moves": []}', encoding="utf-8")
    missing = tmp_path / "missing.json"
    empty = tmp_path / "empty.json"
    empty.write_text("  \n", encoding="utf-8")
    code, lines = run("validate", str(S03), str(text), str(array), str(other), str(missing),
                      str(empty))
    assert code == 1
    assert lines[0] == f"OK {S03} scores=[8, -3]"
    assert lines[1].startswith(f"ERROR {text}: not JSON: ")
    assert lines[2] == f"ERROR {array}: not a record: a record is a JSON object, not a list"
    assert lines[3].startswith(f"ERROR {other}: ")
    assert lines[4] == f"ERROR {missing}: cannot read {missing}: no such file; check the path"
    assert lines[5].startswith(f"ERROR {empty}: {empty} is empty: a record is one JSON object")
    assert len(lines) == 6


def test_validate_a_folder_is_an_error_not_a_crash(tmp_path: Path) -> None:
    code, lines = run("validate", str(tmp_path))
    assert code == 1 and lines == [f"ERROR {tmp_path}: cannot read {tmp_path}: it is a folder; "
                                   f"name a record file"]


def test_a_file_larger_than_any_record_is_refused_unread(tmp_path: Path) -> None:
    # /dev/zero never ends: read whole, it took all the memory; a huge file too.
    huge = tmp_path / "huge.json"
    with huge.open("wb") as file:
        file.truncate(16 * 2**20 + 1)
    code, lines = run("validate", str(huge), "/dev/zero")
    assert code == 1
    assert lines == [f"ERROR {path}: cannot read {path}: it is larger than 16 MB, and no game "
                     "record is; name a record file" for path in (huge, "/dev/zero")]


def test_a_named_pipe_nobody_writes_into_is_refused_at_once(tmp_path: Path) -> None:
    """Opening a pipe for reading waits for a writer, which may never come: it is opened
    without waiting, and with no writer it reads as empty at once."""
    pipe = tmp_path / "pipe.json"
    os.mkfifo(pipe)
    for command in ("validate", "replay"):
        code, lines = run(command, str(pipe))
        assert code == 1
        assert lines == [f"ERROR {pipe}: cannot read {pipe}: it is a pipe and nothing was "
                         "written into it; start its writer first, or name a record file"]


def test_a_pipe_with_a_writer_is_read_as_it_comes() -> None:
    """``noreturn replay <(zcat game.json.gz)`` was refused as a pipe."""
    text = S03.read_bytes()
    reading, writing = os.pipe()

    def write() -> None:
        with os.fdopen(writing, "wb") as pipe:
            for at in range(0, len(text), 100):  # in pieces, as a slow writer would:
                pipe.write(text[at:at + 100])  # the reader waits for the rest
                pipe.flush()
                time.sleep(0.02)

    writer = threading.Thread(target=write)
    writer.start()
    try:
        code, lines = run("validate", f"/dev/fd/{reading}")
    finally:
        writer.join()
        os.close(reading)
    assert code == 0 and lines == [f"OK /dev/fd/{reading} scores=[8, -3]"]


def test_a_gzip_record_is_unpacked_and_a_broken_or_huge_one_refused(tmp_path: Path) -> None:
    packed = tmp_path / "game.json.gz"
    packed.write_bytes(gzip.compress(S03.read_bytes()))
    cut = tmp_path / "cut.json.gz"
    cut.write_bytes(packed.read_bytes()[:40])
    damaged = bytearray(packed.read_bytes())
    damaged[len(damaged) // 2] ^= 0xFF  # said "is empty" when the unpacking failed midway
    flipped = tmp_path / "flipped.json.gz"
    flipped.write_bytes(damaged)
    bomb = tmp_path / "bomb.json.gz"  # 40 KB that unpack to 40 MB
    bomb.write_bytes(gzip.compress(b" " * (40 * 2**20)))
    code, lines = run("validate", str(packed), str(cut), str(flipped), str(bomb))
    assert code == 1
    assert lines == [
        f"OK {packed} scores=[8, -3]",
        f"ERROR {cut}: cannot read {cut}: it starts as a gzip file but does not unpack; "
        "is it whole?",
        f"ERROR {flipped}: cannot read {flipped}: it starts as a gzip file but does not "
        "unpack; is it whole?",
        f"ERROR {bomb}: cannot read {bomb}: it is larger than 16 MB, and no game record is; "
        "name a record file",
    ]


@pytest.mark.parametrize(("change", "said"), [
    (lambda text: text.replace("{", '{"format": "x", ', 1),
     "not a record: the key 'format' appears twice in one object; keep one"),
    (lambda text: text.replace('"start_player": 0', '"start_player": 1, "start_player": 0'),
     "not a record: the key 'start_player' appears twice in one object; keep one"),
    (lambda text: text.replace('"start_player": 0', '"start_player": NaN'),
     "not JSON: NaN is no JSON value; write a number"),
    (lambda text: text.replace("{", '{"meta": {"x": -Infinity}, ', 1),
     "not JSON: -Infinity is no JSON value; write a number"),
])
def test_keys_twice_and_nan_are_no_record(tmp_path: Path, change: Any, said: str) -> None:
    """Readers that keep the first of two keys, or refuse NaN, would read another game (or
    none): such a file is no record, whatever Python's own reader would make of it."""
    text = S03.read_text(encoding="utf-8")
    assert '"start_player": 0' in text
    path = tmp_path / "odd.json"
    path.write_text(change(text), encoding="utf-8")
    code, lines = run("validate", str(path))
    assert (code, lines) == (1, [f"ERROR {path}: {said}"])


def test_a_verdict_never_quotes_a_huge_list_of_tiles(tmp_path: Path) -> None:
    """A deal of two million tiles made a verdict line of 6 MB."""
    record = json.loads(S03.read_text(encoding="utf-8"))
    deal = next(e for e in record["events"] if e["type"] == "deal")
    deal["tiles"] = ["R1"] * 2_000_000
    path = tmp_path / "huge.json"
    path.write_text(json.dumps(record, separators=(",", ":")), encoding="utf-8")
    code, lines = run("validate", str(path))
    assert code == 1 and len(lines) == 1 and len(lines[0]) < 300, lines[0][:300]
    assert "'tiles' lists 2,000,000 tiles, more than the game's" in lines[0]
    record["rules"] = {"players": 2}  # the published game: 132 tiles
    deal["tiles"] = [f"{c}{v}" for c in "ROYGBP" for v in range(1, 12)] * 2
    path = write_record(record, tmp_path / "long.json")  # no deal of 8, all of them: cut short
    code, lines = run("validate", str(path))
    assert code == 1 and len(lines) == 1 and len(lines[0]) < 400, lines[0]
    assert "... by player" in lines[0]


def test_replay_for_a_seat_survives_an_event_type_that_is_no_text(tmp_path: Path) -> None:
    record = json.loads(S03.read_text(encoding="utf-8"))
    kinds: list[object] = [[], {"a": 1}]
    for kind in kinds:
        record["events"][0]["type"] = kind
        path = write_record(record, tmp_path / "odd.json")
        code, lines = run("replay", str(path), "--seat", "1")
        assert code == 1
        assert lines[-1].startswith("INVALID record: event 0: refused [malformed-event]; the "
                                    "details would show tiles"), lines[-1]


def test_a_record_saved_with_a_byte_order_mark_is_read(tmp_path: Path) -> None:
    """An editor that writes a UTF-8 byte order mark made the record "not JSON"."""
    game = write_record(recorded_game(VARIANTS[0], 1).record, tmp_path / "game.json")
    marked = tmp_path / "marked.json"
    marked.write_bytes(b"\xef\xbb\xbf" + game.read_bytes())
    code, lines = run("validate", str(marked))
    assert code == 0 and lines[0].startswith(f"OK {marked}"), lines
    assert not game.read_bytes().startswith(b"\xef\xbb\xbf")  # none is written
    utf16 = tmp_path / "utf16.json"
    utf16.write_bytes(game.read_text(encoding="utf-8").encode("utf-16"))
    assert run("validate", str(utf16)) == (1, [f"ERROR {utf16}: cannot read {utf16}: not "
                                               "UTF-8 text; a record is JSON text"])


def test_a_save_that_fails_midway_leaves_the_record_before_it_whole(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
) -> None:
    # The play commands save a game again at every turn: a full disk (or a kill) in the
    # middle of a write must not leave half a record where the last turn's was.
    first, later = recorded_game(VARIANTS[0], 1).record, recorded_game(VARIANTS[1], 2).record
    path = write_record(first, tmp_path / "game.json")
    before = path.read_text(encoding="utf-8")
    real = Path.write_text

    def half_then_full(self: Path, text: str, *args: Any, **kwargs: Any) -> int:
        real(self, text[: len(text) // 2], *args, **kwargs)
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(Path, "write_text", half_then_full)
    with pytest.raises(OSError, match="No space left"):
        write_record(later, path)
    monkeypatch.undo()
    assert path.read_text(encoding="utf-8") == before
    assert [p.name for p in tmp_path.iterdir()] == ["game.json"]  # no temporary file left
    assert write_record(later, path).read_text(encoding="utf-8") != before


def test_validate_generated_games(tmp_path: Path) -> None:
    paths = []
    for i, rules in enumerate(VARIANTS[:6]):
        game = recorded_game(rules, i)
        paths.append(write_record(game.record, tmp_path / f"g{i}.json"))
    code, lines = run("validate", *map(str, paths))
    assert code == 0
    assert all(line.startswith("OK ") and " scores=[" in line for line in lines)


def test_replay_without_seat_tells_everything() -> None:
    code, lines = run("replay", str(S03))
    assert code == 0
    assert "  P1 was dealt O4 O3 O1" in lines
    assert "  P1: 1 - 4 = -3, rank 2" in lines


def test_replay_with_seat_hides_the_other_hand() -> None:
    code, lines = run("replay", str(S03), "--seat", "0")
    assert code == 0
    assert "  P0 was dealt R4 R3 R1" in lines
    assert "  P1 was dealt 3 tiles" in lines
    assert "  P1 drew 2 tiles" in lines
    assert "  P1 exchanged 1 tile" in lines
    assert not any(line.strip().startswith("P1's hand") for line in lines)
    assert any(line.strip() == "your hand: R1 R2 R2" for line in lines)


def test_replay_seat_never_shows_the_other_players_dealt_or_drawn_tiles(tmp_path: Path) -> None:
    names = [{"name": n, "kind": "bot"} for n in ("Ada", "Bea", "Cy")]
    for seed in range(3):
        game = recorded_game(VARIANTS[1], seed, players=names)
        path = write_record(game.record, tmp_path / f"g{seed}.json")
        code, lines = run("replay", str(path), "--seat", "2")
        assert code == 0
        for line in lines:
            if line.strip().startswith(("Ada ", "Bea ")) and any(
                verb in line for verb in (" was dealt ", " drew ", " set aside ", " exchanged ")
            ):
                assert not TILE.search(line), line
        assert sum(" was dealt 8 tiles" in line for line in lines) == 2


def test_replay_invalid_record_exits_1_after_the_problem() -> None:
    code, lines = run("replay", str(S21))
    assert code == 1
    assert lines[-1] == ("INVALID record: event 4: draw R4 O1 by player 1: R4 is not in the bag "
                         "[tile-not-in-bag]")
    code, lines = run("replay", str(S21), "--seat", "0")
    assert code == 1 and "R4" not in lines[-1]


def test_replay_errors(tmp_path: Path) -> None:
    code, lines = run("replay", str(tmp_path / "none.json"))
    assert code == 1 and lines[0].startswith("ERROR ") and "no such file" in lines[0]
    code, lines = run("replay", str(S03), "--seat", "5")
    assert code == 2 and lines == ["ERROR --seat 5: this game has seats 0 to 1"]


ENGLISH_FRAME = ("Setup", "Turn ", "table after", "'s hand", "Game over", "rank ", "starts.",
                 "INVALID", "ERROR", "in progress")


def test_replay_tells_the_game_in_the_readers_language() -> None:
    code, lines = run("--lang", "de", "replay", str(S03))
    assert code == 0
    for expected in [
        "No Return: P0 (Platz 0), P1 (Platz 1)",
        "P0 beginnt. Dieser Bericht zeigt alles, was die Aufzeichnung enthält.",
        "Spielvorbereitung",
        "  P1 erhielt O4 O3 O1",
        "  -- Tisch nach 0 Zügen, P0 ist am Zug:",
        "  -- Tisch nach 1 Zug, P1 ist am Zug:",
        "Zug 1: P0",
        "    Hand von P1: R4 O1",
        "Spielende nach 6 Zügen. Stand = Punktestapel - Reihen:",
        "  P1: 1 - 4 = -3, Rang 2",
    ]:
        assert expected in lines, expected
    assert not [line for line in lines if any(word in line for word in ENGLISH_FRAME)]
    code, lines = run("replay", "--lang", "de", str(S03), "--seat", "0")
    assert code == 0
    assert "P0 beginnt. Dieser Bericht zeigt nur, was P0 (Platz 0) sehen konnte." in lines


def test_replay_says_its_errors_and_an_unfinished_game_in_the_readers_language(
        tmp_path: Path) -> None:
    code, lines = run("--lang", "de", "replay", str(tmp_path / "none.json"))
    assert code == 1 and lines == [f"FEHLER {tmp_path / 'none.json'}: {tmp_path / 'none.json'} "
                                   "lässt sich nicht lesen: diese Datei gibt es nicht; prüfe "
                                   "den Pfad"]
    code, lines = run("--lang", "de", "replay", str(S03), "--seat", "5")
    assert code == 2 and lines == ["FEHLER --seat 5: dieses Spiel hat die Plätze 0 bis 1"]
    code, lines = run("--lang", "de", "replay", str(S21))
    assert code == 1
    assert lines[-1].startswith("UNGÜLTIGE Aufzeichnung: Ereignis 4: ")  # the reason: English
    game = recorded_game(VARIANTS[0], 9)
    unfinished = {**game.record, "events": game.record["events"][:30]}
    del unfinished["result"]
    path = write_record(unfinished, tmp_path / "unfinished.json")
    code, lines = run("--lang", "de", "replay", str(path))
    assert code == 0 and lines[-1].startswith("Das Spiel läuft noch: Spieler ")


def test_console_script_validate() -> None:
    result = subprocess.run(
        [sys.executable, "-m", "noreturn", "validate", str(S03), str(S21)],
        capture_output=True, text=True, check=False,
    )
    assert result.returncode == 1, result.stderr
    assert result.stdout.splitlines()[0] == f"OK {S03} scores=[8, -3]"
    assert result.stdout.splitlines()[1].startswith(f"INVALID {S21} event 4:")
    assert result.stderr == ""
