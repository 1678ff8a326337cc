"""Players' names: a record's names are shown safely, and a seat's name is checked."""

from __future__ import annotations

import json
import unicodedata
from pathlib import Path

import pytest
from typer.testing import CliRunner

from noreturn.cli import app
from noreturn.records.names import NAME_LENGTH, shown_name
from noreturn.table import make_seats

SHARED = Path(__file__).parent / "shared" / "s03_score_whole_row_and_result.json"
ESCAPES = "\x1b[2J\x1b]0;owned\x07\x1b[31mEve"
"""Clear the screen, retitle the window, paint it red: what a name could do to a terminal."""


def test_a_shown_name_has_no_control_character_and_a_bounded_length() -> None:
    assert shown_name(ESCAPES, 0) == "?[2J?]0;owned??[31mEve"
    assert shown_name("Ada \t Lovelace\n", 1) == "Ada Lovelace"
    assert shown_name("Zoë\u200b", 1) == "Zoë?"  # a zero-width space is a format character
    assert shown_name("", 2) == "P2" and shown_name(None, 3) == "P3"
    long = shown_name("B" * 10_000, 0)
    assert len(long) == NAME_LENGTH and long.endswith("…")


def test_a_seat_name_is_checked_for_length_and_control_characters() -> None:
    assert make_seats(2, ["A" * NAME_LENGTH], ["easy"])[0].name == "A" * NAME_LENGTH
    with pytest.raises(ValueError, match="at most 40 characters"):
        make_seats(2, ["A" * (NAME_LENGTH + 1)], ["easy"])
    with pytest.raises(ValueError, match="no control characters"):
        make_seats(2, [ESCAPES], ["easy"])
    result = CliRunner().invoke(app, ["play", "--plain", "--seat-name", "A" * 41])
    assert result.exit_code == 2 and "at most 40 characters" in result.output


@pytest.mark.parametrize("command", [["replay"], ["review", "--iterations", "2",
                                                   "--workers", "1"], ["validate"]])
def test_printing_a_record_never_prints_its_names_raw(command: list[str],
                                                      tmp_path: Path) -> None:
    record = json.loads(SHARED.read_text())
    record["players"][0]["name"] = ESCAPES
    record["players"][1]["name"] = "B" * 100_000
    path = tmp_path / "evil.json"
    path.write_text(json.dumps(record))
    result = CliRunner().invoke(app, [command[0], str(path), *command[1:]])
    assert result.exit_code == 0, result.output
    shown = result.output.replace("\n", "")
    assert not any(unicodedata.category(c) == "Cc" for c in shown)
    assert "B" * (NAME_LENGTH + 1) not in shown
