"""The plan fishes before it builds, early in a two-player game (``plan.fishing``): with at
least ``fish_junk`` hand tiles that fit no row and start none, and no placement worth
``fish_bar`` (``fish_worth`` early, falling to nothing at ``fish_left`` turns left), it
exchanges them."""

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
        assert left > p.fish_left and worth < plan.fish_bar(p, left) <= p.fish_worth
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


def test_the_bar_a_placement_must_clear_falls_as_the_game_runs_out() -> None:
    p = plan.params_for(2)
    bars = [plan.fish_bar(p, left) for left in (40.0, 20.0, 18.0, 17.0, 16.0, p.fish_left)]
    assert bars[0] == bars[1] == p.fish_worth
    assert bars == sorted(bars, reverse=True) and bars[2] > bars[3] > bars[4] > 0 >= bars[5]


def test_later_on_only_a_poorer_placement_gives_way_to_fishing() -> None:
    p = plan.params_for(2)
    step = dataclasses.replace(p, fish_slope=1e9, fish_left=18.0)  # the bar of before
    fished = 0
    for state in _phase_one(2, range(40)):
        left = plan.turns_left(state, p)
        if not p.fish_left < left <= 18.0:
            continue
        worth, _ = plan.best_place(state, p, left)
        junk = plan.fishing(state, p, worth, left)
        assert plan.fishing(state, step, worth, left) == ()  # the step had closed by now
        enough = len(plan.exchange_tiles(state, p)) >= max(p.fish_junk, 2)
        assert bool(junk) == (enough and worth < plan.fish_bar(p, left))
        assert plan.fish_bar(p, left) < p.fish_worth  # here the bar has fallen already
        fished += bool(junk)
    assert fished, "no position where the falling bar fished after the step had closed"
