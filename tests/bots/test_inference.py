"""The search's inference about the other hands (``bots/inference.py``): it reads the others'
moves right, never rules out the truth, and favours worlds like it."""

from __future__ import annotations

import statistics
from collections import Counter
from random import Random

import pytest

from noreturn.bots import Deck, inference, plan
from noreturn.bots.search import SearchBot
from noreturn.engine import (
    DECLARE,
    EXCHANGE,
    PLACE,
    PLAY,
    SCORE,
    GameState,
    Rules,
    sample_world,
    to_action,
    view,
)


def _plan_games(players: int, games: int):  # type: ignore[no-untyped-def]
    """(true state, seat to move, its tracker's moves) at every decision of plan games."""
    rules = Rules(players=players)
    for game in range(games):
        deck = Deck(rules, f"infer:{game}")
        state = GameState(rules, deck.start_player)
        trackers = [inference.Tracker() for _ in range(players)]
        while not state.is_over():
            if state.is_chance():
                state.play(deck.next_draw(state))
                continue
            if state.stage == PLAY:
                seat = state.to_move
                yield state, seat, trackers[seat].update(view(state, seat))
            state.play(to_action(plan.choose(state)))


@pytest.mark.parametrize("players", [2, 3, 4])
def test_the_truth_is_never_ruled_out_and_fits_better_than_a_sample(players: int) -> None:
    """The plan's own hands always fit its moves (the likelihood is never 0 for the true
    world), and fit them better than the hands ``sample_world`` deals at random."""
    rng = Random(1)
    truth, sampled, kinds = [], [], Counter[str]()
    for state, seat, moves in _plan_games(players, 6):
        if not moves:
            continue
        kinds.update(m.kind for m in moves)
        truth.append(inference.likelihood(state, moves))
        sampled.append(inference.likelihood(sample_world(view(state, seat), rng), moves))
    assert min(truth) > 0
    assert statistics.fmean(truth) > statistics.fmean(sampled) + 0.2
    assert kinds[inference.PLACE] and kinds[inference.SCORE]


def test_the_moves_read_are_the_moves_made() -> None:
    """Each move read names the seat, the kind and the tiles the plan really played."""
    rules = Rules(players=3)
    deck = Deck(rules, "read")
    state = GameState(rules, deck.start_player)
    tracker = inference.Tracker()
    made: dict[int, tuple[int, tuple[int, ...]]] = {}
    checked = 0
    while not state.is_over() and checked < 20:
        if state.is_chance():
            state.play(deck.next_draw(state))
            continue
        if state.stage == PLAY and state.to_move == 0:
            for move in tracker.update(view(state, 0)):
                kind, tiles = made[move.seat]
                assert move.kind == {PLACE: inference.PLACE, SCORE: inference.SCORE,
                                     EXCHANGE: inference.EXCHANGE}[kind]
                if move.kind == inference.PLACE:
                    assert move.placed == tiles
                checked += 1
        decision = plan.choose(state)
        if decision[0] != DECLARE:  # a declaration is followed by the turn's real move
            made[state.to_move] = (decision[0], decision[3])
        state.play(to_action(decision))
    assert checked >= 10


def test_a_sampled_world_agrees_with_the_view() -> None:
    """``sample`` only chooses among the engine's worlds: each agrees with the view."""
    rng = Random(2)
    for count, (state, seat, moves) in enumerate(_plan_games(3, 1)):
        if count % 7 or not moves:
            continue
        seen = view(state, seat)
        assert view(inference.sample(seen, moves, rng), seat) == seen


def test_a_search_without_inference_reads_nothing() -> None:
    bot = SearchBot(iterations=4, infer=False)
    state = next(s for s, _, moves in _plan_games(3, 1) if moves)
    bot.observe(view(state, state.to_move))
    assert bot.tracker.previous is None
