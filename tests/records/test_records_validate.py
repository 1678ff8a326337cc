"""The record checker: shared and broken fixtures, records broken one way each, the header.

A broken record is made from a valid generated game by one change (``BREAKERS``); the checker
must name the first offending event, tag the problem with the right code, and give back the
state of just before that event.
"""

from __future__ import annotations

import copy
import json
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from test_records_roundtrip import VARIANTS, Game, snapshot_game

from noreturn.engine import PLAY, GameState, Rules, tile_code, value_of
from noreturn.records import Record, RecordError, check_record, parse_record, read_record

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


# -------------------------------------------------------------------- broken one way each
Broken = tuple[Record, int, str]
Breaker = Callable[[Game], Broken]


class NotApplicableError(Exception):
    """This game has no event that the breaker can break."""


def _first(game: Game, test: Callable[[int, dict[str, Any], GameState], bool]) -> int:
    for index, event in enumerate(game.record["events"]):
        if test(index, event, game.befores[index]):
            return index
    raise NotApplicableError


def _edit(game: Game) -> Record:
    return copy.deepcopy(game.record)


def _play_event(kind: str) -> Callable[[int, dict[str, Any], GameState], bool]:
    return lambda _i, event, state: event["type"] == kind and state.stage == PLAY


def _missing_kind(held: list[int], kinds: list[int]) -> int:
    counts = Counter(held)
    for tile in kinds:
        if not counts[tile]:
            return tile
    raise NotApplicableError


def wrong_player(game: Game) -> Broken:
    i = _first(game, lambda _i, e, s: e["type"] in ("place", "exchange", "declare", "score"))
    record = _edit(game)
    record["events"][i]["player"] = (record["events"][i]["player"] + 1) % game.state.n
    return record, i, "wrong-player"


def wrong_player_draws(game: Game) -> Broken:
    i = _first(game, _play_event("draw"))
    record = _edit(game)
    record["events"][i]["player"] = (record["events"][i]["player"] + 1) % game.state.n
    return record, i, "wrong-player"


def exchange_not_in_hand(game: Game) -> Broken:
    i = _first(game, _play_event("exchange"))
    event = game.record["events"][i]
    hand = game.befores[i].hands[event["player"]]
    record = _edit(game)
    record["events"][i]["tiles"][0] = tile_code(_missing_kind(hand, game.state.rules.kinds()))
    return record, i, "not-in-hand"


def place_not_in_hand(game: Game) -> Broken:
    i = _first(game, _play_event("place"))
    event = game.record["events"][i]
    hand = game.befores[i].hands[event["player"]]
    colour = event["tiles"][0][0]
    same = [t for t in game.state.rules.kinds() if tile_code(t)[0] == colour]
    record = _edit(game)
    record["events"][i]["tiles"] = [tile_code(_missing_kind(hand, same))]
    return record, i, "not-in-hand"


def pay_not_in_hand(game: Game) -> Broken:
    i = _first(game, _play_event("score"))
    event = game.record["events"][i]
    hand = game.befores[i].hands[event["player"]]
    colour = event["pay"][0][0]
    same = [t for t in game.state.rules.kinds() if tile_code(t)[0] == colour]
    record = _edit(game)
    record["events"][i]["pay"] = [tile_code(_missing_kind(hand, same[::-1]))]
    return record, i, "not-in-hand"


def draw_not_in_bag(game: Game) -> Broken:
    i = _first(game, _play_event("draw"))
    record = _edit(game)
    missing = _missing_kind(game.befores[i].bag, game.state.rules.kinds())
    record["events"][i]["tiles"][-1] = tile_code(missing)
    return record, i, "tile-not-in-bag"


def draw_too_many(game: Game) -> Broken:
    i = _first(game, _play_event("draw"))
    record = _edit(game)
    record["events"][i]["tiles"].append(record["events"][i]["tiles"][0])
    return record, i, "draw-count"


def draw_too_few(game: Game) -> Broken:
    i = _first(game, _play_event("draw"))
    record = _edit(game)
    record["events"][i]["tiles"].pop()
    return record, i, "draw-count"


def deal_too_few(game: Game) -> Broken:
    record = _edit(game)
    record["events"][0]["tiles"].pop()
    return record, 0, "draw-count"


def missing_draw(game: Game) -> Broken:
    last = len(game.record["events"]) - 1
    i = _first(game, lambda i, e, s: _play_event("draw")(i, e, s) and i < last)
    record = _edit(game)
    del record["events"][i]
    return record, i, "missing-draw"


def missing_deal(game: Game) -> Broken:
    record = _edit(game)
    record["events"][1] = {"type": "mulligan", "player": record["events"][1]["player"],
                           "tiles": []}
    return record, 1, "missing-deal"


def deal_in_play(game: Game) -> Broken:
    i = _first(game, lambda _i, e, s: s.stage == PLAY and not s.is_chance())
    record = _edit(game)
    record["events"].insert(i, {"type": "deal", "player": game.befores[i].to_move,
                                "tiles": record["events"][0]["tiles"]})
    return record, i, "unexpected-deal"


def event_after_end(game: Game) -> Broken:
    record = _edit(game)
    record["events"].append({"type": "pass", "player": game.state.to_move})
    return record, len(game.record["events"]), "after-end"


def wrong_score(game: Game) -> Broken:
    record = _edit(game)
    record["result"]["scores"][-1] += 1
    return record, len(record["events"]), "result-mismatch"


def dense_ranks(game: Game) -> Broken:
    scores = game.state.scores()
    dense = [1 + len({s for s in scores if s > mine}) for mine in scores]
    if dense == game.state.ranks():
        raise NotApplicableError
    record = _edit(game)
    record["result"]["ranks"] = dense
    return record, len(record["events"]), "result-mismatch"


def result_but_not_over(game: Game) -> Broken:
    record = _edit(game)
    record["events"].pop()
    return record, len(record["events"]), "game-not-over"


def unknown_event_key(game: Game) -> Broken:
    i = len(game.record["events"]) // 2
    record = _edit(game)
    record["events"][i]["note"] = "hello"
    return record, i, "malformed-event"


def bad_tile_code(game: Game) -> Broken:
    i = _first(game, _play_event("place"))
    record = _edit(game)
    record["events"][i]["tiles"][0] = record["events"][i]["tiles"][0].lower()
    return record, i, "bad-tile"


def tile_of_another_game(game: Game) -> Broken:
    i = _first(game, _play_event("draw"))
    record = _edit(game)
    record["events"][i]["tiles"][0] = f"R{game.state.rules.max_value + 1}"
    return record, i, "bad-tile"


def place_above_lowest(game: Game) -> Broken:
    def fits(_i: int, event: dict[str, Any], state: GameState) -> bool:
        return _place_above(event, state) is not None

    i = _first(game, fits)
    record = _edit(game)
    record["events"][i]["tiles"] = [tile_code(_place_above(record["events"][i],
                                                           game.befores[i]) or 0)]
    return record, i, "illegal-action"


def _place_above(event: dict[str, Any], state: GameState) -> int | None:
    if event["type"] != "place":
        return None
    player: int = event["player"]
    rows = state.rows[player]
    for tile in state.hands[player]:
        row = rows[tile >> 5]
        if row and value_of(tile) > row[-1]:
            return tile
    return None


def score_underpaid(game: Game) -> Broken:
    def fits(_i: int, event: dict[str, Any], state: GameState) -> bool:
        return _cheap_tile(event, state) is not None

    i = _first(game, fits)
    record = _edit(game)
    record["events"][i]["pay"] = [tile_code(_cheap_tile(record["events"][i],
                                                        game.befores[i]) or 0)]
    return record, i, "illegal-action"


def _cheap_tile(event: dict[str, Any], state: GameState) -> int | None:
    if event["type"] != "score":
        return None
    row = state.rows[event["player"]]["ROYGBP".index(event["row"])]
    due = sum(row[-event["count"]:])
    return min((t for t in state.hands[event["player"]] if value_of(t) < due), default=None)


def declare_twice(game: Game) -> Broken:
    i = _first(game, lambda _i, e, s: e["type"] == "declare")
    record = _edit(game)
    record["events"].insert(i + 1, dict(record["events"][i]))
    return record, i + 1, "illegal-action"


def mulligan_twice(game: Game) -> Broken:
    i = _first(game, lambda _i, e, s: s.stage == PLAY)
    record = _edit(game)
    record["events"].insert(i, {"type": "mulligan", "player": game.befores[i].to_move,
                                "tiles": []})
    return record, i, "illegal-action"


def pass_with_moves(game: Game) -> Broken:
    i = _first(game, lambda _i, e, s: s.stage == PLAY and not s.is_chance())
    record = _edit(game)
    record["events"][i] = {"type": "pass", "player": game.befores[i].to_move}
    return record, i, "illegal-action"


def exchange_over_limit(game: Game) -> Broken:
    limit = game.state.rules.exchange_limit

    def fits(_i: int, event: dict[str, Any], state: GameState) -> bool:
        return (event["type"] == "exchange" and state.stage == PLAY
                and len(state.hands[event["player"]]) > limit)

    i = _first(game, fits)
    record = _edit(game)
    hand = game.befores[i].hands[record["events"][i]["player"]]
    record["events"][i]["tiles"] = [tile_code(t) for t in hand[:limit + 1]]
    return record, i, "illegal-action"


def cut_in_a_draw(game: Game) -> Broken:
    i = _first(game, lambda _i, e, s: e["type"] == "draw" and len(e["tiles"]) > 1)
    record = _edit(game)
    del record["result"]
    record["events"][i + 1:] = []
    record["events"][i]["tiles"].pop()
    return record, i, "draw-count"


BREAKERS: list[Breaker] = [
    wrong_player, wrong_player_draws, exchange_not_in_hand, place_not_in_hand, pay_not_in_hand,
    draw_not_in_bag, draw_too_many, draw_too_few, deal_too_few, missing_draw, missing_deal,
    deal_in_play, event_after_end, wrong_score, dense_ranks, result_but_not_over,
    unknown_event_key, bad_tile_code, tile_of_another_game, place_above_lowest,
    score_underpaid, declare_twice, mulligan_twice, pass_with_moves, exchange_over_limit,
    cut_in_a_draw,
]

GAMES = [(rules, seed) for rules in VARIANTS for seed in range(4)]


@pytest.mark.parametrize("breaker", BREAKERS, ids=lambda b: b.__name__)
def test_broken_record_is_rejected_at_its_first_offending_event(breaker: Breaker) -> None:
    applied = 0
    for rules, seed in GAMES:
        game = snapshot_game(rules, seed)
        try:
            record, index, code = breaker(game)
        except NotApplicableError:
            continue
        applied += 1
        verdict = check_record(parse_record(json.dumps(record)))
        assert not verdict.valid
        assert (verdict.event, verdict.code) == (index, code), (rules, seed, verdict.reason)
        assert verdict.scores is None
        before = game.befores[index] if index < len(game.befores) else game.state
        assert verdict.state == before, "the verdict's state is the one before the event"
        assert verdict.reason
    assert applied >= 2, f"{breaker.__name__} applied to only {applied} games"


def _first_broken(breaker: Breaker) -> Broken:
    for rules, seed in GAMES:
        try:
            return breaker(snapshot_game(rules, seed))
        except NotApplicableError:
            continue
    raise NotApplicableError(breaker.__name__)


def test_refusals_name_the_broken_rule() -> None:
    words = {
        place_above_lowest: "is higher than", score_underpaid: "less than",
        declare_twice: "already in phase 2", mulligan_twice: "mulligan is over",
        pass_with_moves: "you may pass only", exchange_not_in_hand: "you do not hold",
        draw_not_in_bag: "is not in the bag", missing_draw: "must first draw",
        wrong_player: "'s turn", event_after_end: "already over",
    }
    for breaker, word in words.items():
        record, index, _ = _first_broken(breaker)
        verdict = check_record(record)
        event = record["events"][index]
        assert verdict.reason.startswith(f"{event['type']}"), verdict.reason
        assert f"by player {event['player']}: " in verdict.reason
        assert word in verdict.reason


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
