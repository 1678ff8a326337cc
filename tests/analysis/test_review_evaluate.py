"""The Monte Carlo underneath a review (``noreturn.analysis.evaluate``)."""

from __future__ import annotations

from collections import Counter
from random import Random

import pytest

from noreturn.analysis import Budget
from noreturn.analysis.evaluate import _streams, evaluate_moves, view_value
from noreturn.analysis.review import noise_bound
from noreturn.bots import Deck, plan
from noreturn.bots.candidates import candidates
from noreturn.bots.search import outcome
from noreturn.engine import Declare, GameState, Rules, legal_actions, to_action, view


def _play_to(rules: Rules, seed: int, turns: int | None) -> GameState:
    """The plan in every seat, up to the first decision after ``turns`` turns (None: the
    end of the game)."""
    deck = Deck(rules, seed)
    state = GameState(rules, deck.start_player)
    while not state.is_over():
        if state.draws_due:
            state.apply(deck.next_draw(state))
        elif turns is not None and state.turns >= turns and state.stage == 2:
            return state
        else:
            state.apply(to_action(plan.choose(state)))
    return state


def test_a_budget_is_playouts_or_seconds() -> None:
    for bad in ({}, {"playouts": 10, "seconds": 1.0}, {"playouts": 0}, {"seconds": 0.0}):
        with pytest.raises(ValueError, match=r"playouts|seconds"):
            Budget(**bad)
    assert Budget(playouts=500).scaled(0.25) == Budget(playouts=125)
    assert Budget(seconds=2.0).scaled(0.25) == Budget(seconds=0.5)
    assert Budget(playouts=1).scaled(0.25) == Budget(playouts=1)


def test_the_streams_deal_the_whole_bag_evenly() -> None:
    bag = Rules().all_tiles()[:101]
    streams = _streams(bag, 3, Random(1))
    assert Counter(t for s in streams for t in s) == Counter(bag)
    assert sorted(len(s) for s in streams) == [33, 34, 34]
    assert _streams(list(reversed(bag)), 3, Random(1)) == streams  # the bag's order is no clue


def test_a_finished_game_is_worth_its_margin_exactly() -> None:
    state = _play_to(Rules(), 3, None)
    line = view_value(view(state, 0), Budget(playouts=5), Random(0))
    assert line.mean == outcome(state, 0)[0] and line.stderr == 0.0


def test_the_final_round_plays_the_pinned_moves_in_the_same_fresh_worlds() -> None:
    state = _play_to(Rules(), 4, 12)
    seen = view(state, state.to_move)
    moves = candidates(state, legal_actions(state))
    played = moves[-1]
    found = evaluate_moves(seen, moves, [played, Declare()], Budget(playouts=300), Random(2))
    ranked = [moves[i] for i in found.ranked]
    assert played in ranked and Declare() in ranked
    assert 3 <= len(ranked) <= 4  # the leader, the best move not pinned, the pinned ones
    for index in found.ranked:
        assert set(found.final) <= set(found.lines[index].margins)
    values = [found.value(i) for i in found.ranked]
    assert values == sorted(values, reverse=True)
    earlier = set().union(*(line.margins for line in found.lines)) - set(found.final)
    assert earlier and not earlier & set(found.final)


def test_the_noise_bound_widens_for_few_worlds() -> None:
    assert noise_bound(1.0, 1000) == pytest.approx(2.0, abs=0.01)
    assert noise_bound(1.0, 10) > noise_bound(1.0, 30) > noise_bound(1.0, 100) > 2.0
    assert noise_bound(0.0, 10) == 0.0
