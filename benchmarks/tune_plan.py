"""Tune the plan's constants (``noreturn.bots.plan.Params``) by self-play on paired deals.

    python benchmarks/tune_plan.py --players 2 [--deals 150] [--rounds 2] [--seed 0]
    python benchmarks/tune_plan.py --players 4 --deals 600 --seed 7 --evaluate prior_weight=1
    python benchmarks/tune_plan.py --players 2 --deals 400 --seed 7 --solo

Coordinate search: from the constants in ``PARAMS`` for the table size, each
constant in turn takes each value of its grid below; a value is kept when it raises the
objective by more than ``--min-gain``. The objective is the plan's win rate against the
frozen ``heuristic-v1`` policy (the plan in each seat in turn, the other seats v1), plus
its win rate against the shipped plan (``PARAMS``) in the same way, plus its mean score
against uniform random play divided by 150, so that 15 points against random count as
much as 10% of wins: a plan that only beat v1 would have learned v1's habits, not the
game (several changes did, and lost to the plan itself: docs/bot-studies.md). Every try plays
the same deals (``--seed``), so two tries differ by their constants alone. It prints every
improvement and the final constants, which go into ``PARAMS`` by hand, with the figures
into docs/bots.md. ``--evaluate`` measures one change instead: the three yardsticks
(win rates against v1 and the shipped plan, mean score against random play) on ``--deals``
deals each, and beside them the win rate against the greedy racer of ``examples/racer.py``
(``racer``: the script itself, asked in-process), a plain style that is strong with two
players.
``--solo`` searches the constants the plan plays by when far ahead (``solo``, from a lead
of ``solo_lead``) for the one thing that counts there, the seat's own score:
the mean score against random play, where such leads arise, from the base constants and a
lead of 40.

Fast: the policies play on the game state directly (no views, no bot protocol).
"""

from __future__ import annotations

import argparse
import dataclasses
import importlib.util
import sys
from collections.abc import Callable
from functools import cache
from pathlib import Path
from random import Random
from types import ModuleType
from typing import Any

from noreturn.bots import Deck, plan
from noreturn.bots.viewjson import view_to_json
from noreturn.bots.yardsticks import policy_v1
from noreturn.engine import (
    OVER,
    Action,
    GameState,
    Rules,
    legal_actions,
    to_action,
    view,
)
from noreturn.sim.simulate import uniform_action

Policy = Callable[[GameState, Random], Action]

GRID: dict[str, list[Any]] = {
    "margin": [0, 1, 2, 3, 4, 5], "typical": [12, 14, 15, 16, 18, 20],
    "mulligan_max": [3, 4, 5], "mulligan_colours": [0, 2, 3], "mulligan_weak": [5, 7, 9],
    "start_min": [5, 6, 7], "max_gap": [3, 4, 5, 6, 11],
    "start_gain": [1.0, 2.0, 3.0], "step_cost": [0.5, 1.0, 1.5, 2.5],
    "step_gain": [1.0, 3.0, 5.0], "value_gain": [0.0, 0.25, 0.5], "late": [4.0, 6.0, 9.0, 12.0],
    "keep_power": [0.0, 0.3, 0.6], "prior_rate": [2.0, 2.5, 3.0], "completion": [0.5, 1.0],
    "idle_rate": [3.0, 4.0], "safe_lead": [30.0, 40.0, 1000.0], "dump_max": [0, 5, 11],
}


def v1(state: GameState, rng: Random) -> Action:
    """The frozen ``heuristic-v1`` policy."""
    return to_action(policy_v1.choose(state, rng))


RACER_BUILD = 9
"""The racer's own turns of building before it declares (``examples/racer.py``)."""
RACER = Path(__file__).resolve().parents[1] / "examples" / "racer.py"


@cache
def _racer_script() -> ModuleType:
    """``examples/racer.py`` as a module: a standalone script, so loaded by its path."""
    spec = importlib.util.spec_from_file_location("racer_example", RACER)
    if spec is None or spec.loader is None:
        raise SystemExit(f"cannot load {RACER}")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def racer(state: GameState, _rng: Random) -> Action:
    """``examples/racer.py`` itself, asked in-process (no program to start) with the view
    and the legal moves as the protocol sends them: a plain, greedy style that took about
    a quarter of its two-player games from medium (docs/bot-studies.md)."""
    legal = legal_actions(state)
    texts = [str(action) for action in legal]
    seen = view_to_json(view(state, state.to_move))
    return legal[texts.index(_racer_script().choose(seen, texts, RACER_BUILD))]


def play(rules: Rules, seats: list[Policy], deal: str) -> list[int]:
    """One game of ``seats`` on the deal ``deal``: the final scores."""
    deck = Deck(rules, deal)
    state = GameState(rules, deck.start_player)
    rngs = [Random(f"{deal}:{seat}") for seat in range(rules.players)]
    while state.stage != OVER:
        if state.draws_due:
            state.apply(deck.next_draw(state))
            continue
        seat = state.to_move
        state.apply(seats[seat](state, rngs[seat]))
    return state.scores()


def rotated(mine: Policy, other: Policy, rules: Rules, deals: int, seed: int) -> tuple[
        float, float]:
    """``mine`` in each seat in turn against ``other`` in the rest, on ``deals`` deals:
    its win rate (a shared first place shared) and its mean score."""
    wins, total, games = 0.0, 0, 0
    for deal in range(deals):
        for seat in range(rules.players):
            seats = [other] * rules.players
            seats[seat] = mine
            scores = play(rules, seats, f"tune:{seed}:{deal}")
            top = max(scores)
            wins += 1 / scores.count(top) if scores[seat] == top else 0.0
            total += scores[seat]
            games += 1
    return wins / games, total / games


def yardsticks(p: plan.Params, rules: Rules, deals: int, random_deals: int, seed: int
               ) -> tuple[float, float, float, float]:
    """``p`` in each seat in turn: its win rate and mean score against v1, its win rate
    against the shipped plan (``deals`` deals each), its mean score against random play
    (``random_deals``)."""

    def mine(state: GameState, _rng: Random) -> Action:
        return to_action(plan.decide(state, p))

    def shipped(state: GameState, _rng: Random) -> Action:
        return to_action(plan.choose(state))

    win, score = rotated(mine, v1, rules, deals, seed)
    against_plan, _ = rotated(mine, shipped, rules, deals, seed)
    _, against_random = rotated(mine, uniform_action, rules, random_deals, seed)
    return win, score, against_plan, against_random


def objective(p: plan.Params, rules: Rules, deals: int, seed: int) -> tuple[float, str]:
    """The tuning objective of ``p`` and a line that shows its parts."""
    win, score, against_plan, against_random = yardsticks(p, rules, deals,
                                                          max(20, deals // 4), seed)
    return win + against_plan + against_random / 150, (
        f"{win:.1%} against v1 (mean {score:.1f}), {against_plan:.1%} against the shipped "
        f"plan, {against_random:.1f} against random")


def evaluate(p: plan.Params, rules: Rules, deals: int, seed: int) -> str:
    """The three yardsticks of ``p`` on ``deals`` deals each (random play too), and the
    racer beside them: a line."""
    win, _, against_plan, against_random = yardsticks(p, rules, deals, deals, seed)

    def mine(state: GameState, _rng: Random) -> Action:
        return to_action(plan.decide(state, p))

    against_racer = rotated(mine, racer, rules, deals, seed)[0]
    return (f"{win:.1%} against v1, {against_plan:.1%} against the shipped plan, "
            f"{against_random:.2f} against random, {against_racer:.1%} against the racer")


SOLO_LEADS = [10.0, 20.0, 30.0, 40.0, 60.0]


def solo_score(base: plan.Params, solo: plan.Params, solo_lead: float, rules: Rules,
               deals: int, seed: int) -> float:
    """The mean score against random play of ``base`` playing ``solo`` from ``solo_lead``."""
    p = dataclasses.replace(base, solo=solo, solo_lead=solo_lead)

    def mine(state: GameState, _rng: Random) -> Action:
        return to_action(plan.decide(state, p))

    return rotated(mine, uniform_action, rules, deals, seed)[1]


def search_solo(base: plan.Params, rules: Rules, deals: int, seed: int, rounds: int,
                min_gain: float) -> None:
    """Coordinate search of the solo constants and their lead (``--solo``): prints each
    improvement (points against random play) and the result."""
    solo = dataclasses.replace(base, solo=None, solo_lead=1000.0)
    lead = 40.0
    best = solo_score(base, solo, lead, rules, deals, seed)
    print(f"start: {best:.2f} against random", flush=True)
    grid = {name: values for name, values in GRID.items()
            if name not in ("safe_lead", "mulligan_max", "mulligan_colours",
                            "mulligan_weak")}  # (no solo lead at the mulligan)
    for round_ in range(rounds):
        for value in SOLO_LEADS:
            score = solo_score(base, solo, value, rules, deals, seed)
            if score > best + min_gain:
                best, lead = score, value
                print(f"round {round_ + 1}: solo_lead={value}: {best:.2f}", flush=True)
        for name, values in grid.items():
            for value in values:
                if getattr(solo, name) == value:
                    continue
                trial = dataclasses.replace(solo, **{name: value})
                score = solo_score(base, trial, lead, rules, deals, seed)
                if score > best + min_gain:
                    best, solo = score, trial
                    print(f"round {round_ + 1}: {name}={value}: {best:.2f}", flush=True)
    changed = {field.name: getattr(solo, field.name) for field in dataclasses.fields(solo)
               if getattr(solo, field.name) != getattr(base, field.name)
               and field.name not in ("solo", "solo_lead")}
    print(f"final: {best:.2f} against random, solo_lead={lead}, solo changes {changed}")


def overrides(pairs: list[str], base: plan.Params) -> plan.Params:
    """``base`` with the constants of ``pairs`` ("name=value") changed."""
    names = [field.name for field in dataclasses.fields(base)]
    changes: dict[str, Any] = {}
    for pair in pairs:
        name, _, value = pair.partition("=")
        if name not in names:
            raise SystemExit(f"no constant {name!r}: try one of {', '.join(names)}")
        try:
            number = float(value)
        except ValueError:
            raise SystemExit(f"{name}={value}: the value must be a number") from None
        changes[name] = int(number) if number.is_integer() else number
    return dataclasses.replace(base, **changes)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--players", type=int, default=2)
    parser.add_argument("--deals", type=int, default=150)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--min-gain", type=float, default=None,
                        help="a change is kept when it gains more than this (default 0.01 "
                        "of the objective; 0.2 points with --solo)")
    parser.add_argument("--solo", action="store_true",
                        help="search the constants played when far ahead (see above)")
    parser.add_argument("--evaluate", nargs="*", metavar="NAME=VALUE", default=None,
                        help="no search: the shipped constants with these changed, on "
                        "--deals deals of each yardstick")
    args = parser.parse_args(argv)
    rules = Rules(players=args.players)
    current = plan.params_for(args.players)
    if args.solo:
        search_solo(current, rules, args.deals, args.seed, args.rounds,
                    0.2 if args.min_gain is None else args.min_gain)
        return 0
    min_gain = 0.01 if args.min_gain is None else args.min_gain
    if args.evaluate is not None:
        print(evaluate(overrides(args.evaluate, current), rules, args.deals, args.seed))
        return 0
    best, line = objective(current, rules, args.deals, args.seed)
    print(f"start: {line}", flush=True)
    for round_ in range(args.rounds):
        for name, values in GRID.items():
            for value in values:
                if getattr(current, name) == value:
                    continue
                trial = dataclasses.replace(current, **{name: value})
                score, trial_line = objective(trial, rules, args.deals, args.seed)
                if score > best + min_gain:
                    best, line, current = score, trial_line, trial
                    print(f"round {round_ + 1}: {name}={value}: {line}", flush=True)
    print(f"final: {line}\n{current}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
