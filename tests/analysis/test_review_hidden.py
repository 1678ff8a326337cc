"""A review reads only what its seat knew: re-dealt hidden tiles give the same review."""

from __future__ import annotations

from random import Random

import pytest
from redeal import redeal

from noreturn.analysis import Budget, review_record
from noreturn.bots import Deck, make_bot, play_game
from noreturn.engine import Rules, view
from noreturn.records import Record, check_record, replay_states

BUDGET = Budget(playouts=20)


def _game(rules: Rules, seed: int) -> Record:
    bots = [make_bot("plan") for _ in range(rules.players)]
    result = play_game(rules, bots, Deck(rules, seed), seed=seed, keep_record=True)
    assert result.record is not None
    return result.record


def _seat_views(record: Record, seat: int) -> list[object]:
    return [view(step.state, seat) for step in replay_states(record)]


@pytest.mark.parametrize(("rules", "seed"), [(Rules(), 11), (Rules(players=3), 12)],
                         ids=["2 players", "3 players"])
def test_a_seat_is_reviewed_alike_whatever_the_hidden_tiles(rules: Rules, seed: int) -> None:
    record = _game(rules, seed)
    for seat in range(rules.players):
        other = redeal(record, seat, Random(seed + seat))
        verdict = check_record(other)
        assert verdict.valid and verdict.scores == check_record(record).scores, verdict.reason
        hidden = [e["tiles"] for e in other["events"]
                  if e["player"] != seat and e["type"] in ("deal", "draw", "exchange")]
        truth = [e["tiles"] for e in record["events"]
                 if e["player"] != seat and e["type"] in ("deal", "draw", "exchange")]
        assert hidden != truth, "the re-deal changed no hidden tile: the test would prove nothing"
        assert _seat_views(other, seat) == _seat_views(record, seat)
        first = review_record(record, [seat], budget=BUDGET, seed=3, workers=2)
        second = review_record(other, [seat], budget=BUDGET, seed=3, workers=2)
        assert first.seats == second.seats


def test_the_other_seats_see_the_difference() -> None:
    """The re-deal is not a no-op for anyone who could see the hidden tiles: the seat
    whose hand changed gets another review."""
    record = _game(Rules(), 13)
    other = redeal(record, 0, Random(1))
    assert _seat_views(other, 1) != _seat_views(record, 1)
