"""The record checker on records broken one way each: every rule a record can break.

A broken record is made from a valid generated game (``recordkit.py``'s games)
by one change (``BREAKERS``); the checker must name the first offending event, tag the
problem with the right code, and give back the state of just before that event. The
hand-written fixtures, malformed events and the header: ``test_records_validate.py``.
"""

from __future__ import annotations

import copy
import json
from collections import Counter
from collections.abc import Callable
from typing import Any

import pytest
from recordkit import VARIANTS, Game, snapshot_game

from noreturn.engine import PLAY, GameState, tile_code, value_of
from noreturn.records import Record, check_record, parse_record

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


def _not_held(game: Game, kind: str, key: str, highest: bool) -> Broken:
    """The first ``kind`` event of play, its ``key`` tiles replaced by one tile of their
    colour that the player does not hold: the lowest such, or the highest (a payment, so
    that its sum would do and only the tile's absence is wrong)."""
    i = _first(game, _play_event(kind))
    event = game.record["events"][i]
    hand = game.befores[i].hands[event["player"]]
    colour = event[key][0][0]
    same = [t for t in game.state.rules.kinds() if tile_code(t)[0] == colour]
    record = _edit(game)
    record["events"][i][key] = [tile_code(_missing_kind(hand, same[::-1] if highest else same))]
    return record, i, "not-in-hand"


def place_not_in_hand(game: Game) -> Broken:
    return _not_held(game, "place", "tiles", highest=False)


def pay_not_in_hand(game: Game) -> Broken:
    return _not_held(game, "score", "pay", highest=True)


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


def _swap_in(game: Game, pick: Callable[[dict[str, Any], GameState], int | None],
             key: str) -> Broken:
    """The first event for which ``pick`` finds an illegal tile, its ``key`` tiles replaced
    by that one tile (the breakers of a row's order and of a payment differ only in it)."""
    i = _first(game, lambda _i, event, state: pick(event, state) is not None)
    record = _edit(game)
    record["events"][i][key] = [tile_code(pick(record["events"][i], game.befores[i]) or 0)]
    return record, i, "illegal-action"


def place_above_lowest(game: Game) -> Broken:
    return _swap_in(game, _place_above, "tiles")


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
    return _swap_in(game, _cheap_tile, "pay")


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
