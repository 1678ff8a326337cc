"""The plan fishes before it builds, early in a two-player game (``plan.fishing``): with at
least ``fish_junk`` hand tiles that fit no row and start none, and no placement worth
``fish_worth``, it exchanges them while more than ``fish_left`` turns are left."""

from __future__ import annotations

import dataclasses

from botgames import bot_game

from noreturn.bots import plan
from noreturn.bots.planner import PlanBot
from noreturn.engine import EXCHANGE, PLACE, PLAY, GameState, Rules


def _phase_one(players: int, seeds: range) -> list[GameState]:
    return [s for seed in seeds for s in bot_game(Rules(players=players), seed,
                                                   PlanBot(worlds=0))
            if s.stage == PLAY and s.phases[s.to_move] == 1]


def test_early_on_the_plan_exchanges_its_junk_instead_of_a_poor_placement() -> None:
    p = plan.params_for(2)
    without = dataclasses.replace(p, fish_junk=0, solo=None)
    fished = 0
    for state in _phase_one(2, range(12)):
        left = plan.turns_left(state, p)
        worth, _ = plan.best_place(state, p, left)
        junk = plan.fishing(state, p, worth, left)
        if not junk:
            continue
        rows = state.rows[state.to_move]
        assert left > p.fish_left and worth < p.fish_worth
        assert len(junk) >= p.fish_junk
        assert all(plan.keep_value(rows, t, p) < 1.0 for t in junk)
        if plan.lead(state) < p.solo_lead and not plan.should_declare(state, p, left):
            assert plan.decide(state, p) == (EXCHANGE, 0, 0, junk)
            if worth > 0:  # without fishing, the same hand builds
                assert plan.decide(state, without)[0] == PLACE
                fished += 1
    assert fished, "no position where fishing replaced a placement"


def test_the_plan_never_fishes_late_or_where_it_is_turned_off() -> None:
    for players in (2, 3, 4):
        p = plan.params_for(players)
        for state in _phase_one(players, range(4)):
            left = plan.turns_left(state, p)
            worth, _ = plan.best_place(state, p, left)
            if left <= p.fish_left or not p.fish_junk:
                assert plan.fishing(state, p, worth, left) == ()
    assert plan.params_for(3).fish_junk == 0 and plan.params_for(4).fish_junk == 0
