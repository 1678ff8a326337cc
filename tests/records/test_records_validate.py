"""The record checker on hand-written records: the shared and broken fixtures, malformed
events, the header, and text or files that are not a record at all.

Each fixture in ``shared/`` and ``broken/`` carries its expected verdict beside it (the first
offending event and its code); records broken one way each from generated games are in
``test_records_breakers.py``.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from noreturn.engine import Rules
from noreturn.records import RecordError, check_record, parse_record, read_record

RECORDS = Path(__file__).parent


def _fixtures(folder: str) -> list[Path]:
    return sorted(p for p in (RECORDS / folder).glob("*.json") if ".expect." not in p.name)


def _expect(path: Path) -> dict[str, Any]:
    return json.loads(path.with_suffix(".expect.json").read_text(encoding="utf-8"))  # type: ignore[no-any-return]


# ------------------------------------------------------------------------------ fixtures
def test_the_fixture_folders_are_complete() -> None:
    shared = {p.name for p in (RECORDS / "shared").iterdir()}
    assert "README.md" in shared and len(_fixtures("shared")) == 8
    assert len(_fixtures("broken")) >= 25
    for path in _fixtures("shared") + _fixtures("broken"):
        assert path.with_suffix(".expect.json").exists(), path


@pytest.mark.parametrize("path", _fixtures("shared") + _fixtures("broken"), ids=lambda p: p.stem)
def test_fixture_gives_its_expected_verdict(path: Path) -> None:
    expect = _expect(path)
    if expect.get("why") == "not-a-record":
        with pytest.raises(RecordError):
            read_record(path)
        return
    verdict = check_record(read_record(path))
    assert verdict.valid is expect["valid"], verdict.reason
    if expect["valid"]:
        assert verdict.scores == tuple(expect["scores"])
        assert verdict.event is None and verdict.code == "ok"
    else:
        assert (verdict.event, verdict.code) == (expect["event"], expect["why"]), verdict.reason
        assert verdict.scores is None


def test_reasons_read_like_record_md() -> None:
    verdict = check_record(read_record(RECORDS / "broken" / "b10_place_above_row_lowest.json"))
    assert verdict.reason == ("place O3 by player 1: O3 is higher than O1, the lowest tile of "
                              "your orange row; a row only ever goes down")
    verdict = check_record(read_record(RECORDS / "shared" /
                                       "s21_last_mulligan_cannot_redraw_set_aside.json"))
    assert verdict.reason == "draw R4 O1 by player 1: R4 is not in the bag"


# ------------------------------------------------------------------------ malformed events
S03 = RECORDS / "shared" / "s03_score_whole_row_and_result.json"

MALFORMED: list[tuple[str, Any, str]] = [
    ("not an object", ["place", 1], "malformed-event"),
    ("unknown type", {"type": "steal", "player": 0}, "malformed-event"),
    ("type not text", {"type": 3, "player": 0}, "malformed-event"),
    ("no player", {"type": "declare"}, "malformed-event"),
    ("player as text", {"type": "declare", "player": "0"}, "malformed-event"),
    ("player true", {"type": "declare", "player": True}, "malformed-event"),
    ("player out of range", {"type": "declare", "player": 2}, "malformed-event"),
    ("no tiles", {"type": "place", "player": 0}, "malformed-event"),
    ("tiles not a list", {"type": "place", "player": 0, "tiles": "R4"}, "malformed-event"),
    ("tile as number", {"type": "place", "player": 0, "tiles": [4]}, "malformed-event"),
    ("tile code lower case", {"type": "place", "player": 0, "tiles": ["r4"]}, "bad-tile"),
    ("tile code zero-padded", {"type": "place", "player": 0, "tiles": ["R04"]}, "bad-tile"),
    ("tile value too high", {"type": "place", "player": 0, "tiles": ["R5"]}, "bad-tile"),
    ("colour not in game", {"type": "place", "player": 0, "tiles": ["Y1"]}, "bad-tile"),
    ("not a tile", {"type": "place", "player": 0, "tiles": ["XX"]}, "bad-tile"),
    ("superscript digit", {"type": "place", "player": 0, "tiles": ["R\u00b2"]}, "bad-tile"),
    ("thousands of digits", {"type": "place", "player": 0, "tiles": ["R" + "1" * 5000]},
     "bad-tile"),
    ("score row letter", {"type": "score", "player": 0, "row": "X", "count": 1, "pay": ["R4"]},
     "malformed-event"),
    ("score count text", {"type": "score", "player": 0, "row": "R", "count": "1",
                          "pay": ["R4"]}, "malformed-event"),
    ("score without pay", {"type": "score", "player": 0, "row": "R", "count": 1},
     "malformed-event"),
    ("extra key", {"type": "declare", "player": 0, "phase": 2}, "malformed-event"),
]


@pytest.mark.parametrize(("event", "code"), [(e, c) for _, e, c in MALFORMED],
                         ids=[n for n, _, _ in MALFORMED])
def test_malformed_event_is_rejected(event: Any, code: str) -> None:
    record = read_record(S03)
    record["events"][4] = event
    verdict = check_record(record)
    assert (verdict.valid, verdict.event, verdict.code) == (False, 4, code), verdict.reason
    assert "\n" not in verdict.reason


HUGE = "x" * 100_000


@pytest.mark.parametrize("event", [
    {"type": HUGE, "player": 0}, {"type": "declare", "player": HUGE},
    {"type": "declare", "player": 0, HUGE: 1}, {"type": "place", "player": 0, "tiles": [HUGE]},
    {"type": "score", "player": 0, "row": HUGE, "count": 1, "pay": ["R4"]},
    {"type": "score", "player": 0, "row": "R", "count": HUGE, "pay": ["R4"]},
], ids=["type", "player", "key", "tile", "row", "count"])
def test_a_hostile_value_is_quoted_by_its_start(event: Any) -> None:
    """A reason quotes the record's bad value; one of 100,000 characters came back whole."""
    record = read_record(S03)
    record["events"][4] = event
    verdict = check_record(record)
    assert not verdict.valid and "xxx..." in verdict.reason and len(verdict.reason) < 300


def test_row_outside_the_game_is_the_engines_refusal() -> None:
    record = read_record(S03)
    record["events"][9]["row"] = "B"
    verdict = check_record(record)
    assert (verdict.event, verdict.code) == (9, "illegal-action")
    assert "there is no such row" in verdict.reason


# ------------------------------------------------------------------------------ the header
def _header_error(change: Callable[[dict[str, Any]], object]) -> str:
    record = json.loads(S03.read_text(encoding="utf-8"))
    change(record)
    with pytest.raises(RecordError) as caught:
        parse_record(json.dumps(record))
    message = str(caught.value)
    assert "\n" not in message
    with pytest.raises(RecordError):
        check_record(record)
    return message


HEADERS: list[tuple[str, Callable[[dict[str, Any]], object], str]] = [
    ("wrong format", lambda r: r.update(format="chess-pgn"), "'format'"),
    ("version 2", lambda r: r.update(version=2), "version 2"),
    ("version true", lambda r: r.update(version=True), "version True"),
    ("version text", lambda r: r.update(version="1"), "version '1'"),
    ("no events", lambda r: r.pop("events"), "'events' is missing"),
    ("events not a list", lambda r: r.update(events={}), "'events' must be a list"),
    ("unknown key", lambda r: r.update(comment="x"), "unknown top-level key 'comment'"),
    ("rules not an object", lambda r: r.update(rules=2), "'rules' must be an object"),
    ("rules without players", lambda r: r["rules"].pop("players"), "'players' is required"),
    ("rules unknown key", lambda r: r["rules"].update(speed=2), "unknown key 'speed'"),
    ("rules bad value", lambda r: r["rules"].update(colors=9), "colors must be"),
    ("rules too few tiles", lambda r: r["rules"].update(hand_size=8), "more tiles"),
    ("too few players", lambda r: r["players"].pop(), "one object per seat"),
    ("players not a list", lambda r: r.update(players="Ada"), "one object per seat"),
    ("player not an object", lambda r: r["players"].__setitem__(0, "Ada"), "players[0]"),
    ("player without name", lambda r: r["players"][1].pop("name"), "players[1] needs a 'name'"),
    ("player kind", lambda r: r["players"][1].update(kind="robot"), "'kind' must be"),
    ("start player out of range", lambda r: r.update(start_player=2), "'start_player'"),
    ("start player text", lambda r: r.update(start_player="0"), "'start_player'"),
    ("meta not an object", lambda r: r.update(meta="x"), "'meta' must be"),
    ("result not an object", lambda r: r.update(result=[8, -3]), "'result' must be"),
    ("result extra key", lambda r: r["result"].update(winner=0), "'result' must be"),
    ("result too short", lambda r: r["result"].update(scores=[8]), "result.scores"),
    ("result ranks text", lambda r: r["result"].update(ranks=["1", "2"]), "result.ranks"),
]


@pytest.mark.parametrize(("change", "words"), [(c, w) for _, c, w in HEADERS],
                         ids=[n for n, _, _ in HEADERS])
def test_bad_header_is_not_a_record(change: Callable[[dict[str, Any]], object],
                                    words: str) -> None:
    assert words in _header_error(change)


def test_other_player_keys_and_meta_are_allowed() -> None:
    record = read_record(S03)
    record["players"][0]["rating"] = 1500
    record["meta"] = {"table": "t1", "anything": [1, 2]}
    assert check_record(parse_record(json.dumps(record))).valid


def test_missing_rules_take_the_defaults() -> None:
    record = read_record(S03)
    record["rules"] = {"players": 2}
    verdict = check_record(record)
    assert verdict.state.rules == Rules(players=2)
    assert not verdict.valid  # the tiles were dealt from a smaller game's hands


@pytest.mark.parametrize(("text", "words"), [
    ("", "not JSON"), ("{", "not JSON"), ("[1, 2]", "a JSON object, not a list"),
    ('"record"', "a JSON object, not text"), ("{}", "'format' is missing"),
    ("[" * 100_000, "nested too deeply"), ('{"n": 1' + "0" * 5000 + "}", "too many digits"),
])
def test_text_that_is_not_a_record(text: str, words: str) -> None:
    with pytest.raises(RecordError) as caught:
        parse_record(text)
    assert words in str(caught.value)


def test_files_that_cannot_be_read(tmp_path: Path) -> None:
    with pytest.raises(RecordError, match="no such file"):
        read_record(tmp_path / "missing.json")
    with pytest.raises(RecordError, match="folder"):
        read_record(tmp_path)
    binary = tmp_path / "binary.json"
    binary.write_bytes(b"\xff\xfe\x00{")
    with pytest.raises(RecordError, match="UTF-8"):
        read_record(binary)


def test_read_record_takes_a_path_or_text() -> None:
    text = S03.read_text(encoding="utf-8")
    assert read_record(text) == read_record(S03) == read_record(str(S03))


def test_finished_game_without_result_is_valid_with_scores() -> None:
    record = read_record(S03)
    del record["result"]
    verdict = check_record(record)
    assert verdict.valid and verdict.over and verdict.scores == (8, -3)
