"""Can a fast move ranker, learned from playout values, play better than the plan?

    python benchmarks/ranker_study.py --players 2 --games 600 --worlds 12 --rivals plan
    python benchmarks/ranker_study.py --players 2 --games 600 --worlds 12 --rivals true

The search bot (hard) is bounded by the plan that plays its playouts (docs/bot-studies.md), so
the lever it needs is a policy better than the plan and still fast enough for a playout.
This asks whether a linear ranker over a few features of each candidate move can be one.

1. **Positions**: one plan seat plays games against rivals that cycle over the plan,
   ``heuristic-v1`` and uniform random play; each of its decisions is kept with chance
   ``--sample``.
2. **Labels**: every candidate of the search bot (``candidates.candidates``; the plan's own
   choice first) is played in ``--worlds`` worlds sampled from the seat's view, then the
   plan for the seat to the end, on the same draws for every candidate. The rivals in
   these playouts are the plan (``--rivals plan``: the model hard uses) or the rival
   policy the game really has (``--rivals true``: a privileged teacher). A candidate's
   value is the seat's margin over the best other seat, or its own score against random
   play (the random rival's score is noise there).
3. **Fit**: ridge regression of each candidate's value over the plan choice's on the
   difference of their features (``features``: the seat's rows, hand and pile after the
   move, the plan's turn budget, the rivals' pace), on the first three quarters of the
   positions; the rest are held out: the mean gain of the ranker's pick over the plan's
   there, with its standard error.
   With ``--rounds`` above 1, each later round plays its games with the ranker learned so
   far and adds its positions (the states the ranker itself reaches, where a ranker
   learned on the plan's states alone may be wrong), and the ranker is fitted again.
4. **Games**: the ranker (the plan's choice unless another candidate scores above 0) in
   each seat in turn against the plan, ``heuristic-v1`` and random play, beside the plan
   itself on the same deals (``tune_plan.rotated``).

Needs numpy (the ``rl`` or ``dev`` extra). Its answer is in docs/bot-studies.md.
"""

from __future__ import annotations

import argparse
import math
import statistics
import sys
from collections.abc import Callable
from pathlib import Path
from random import Random

import numpy as np

sys.path.insert(0, str(Path(__file__).parent))
from learned_policy import FEATURES, rival_pace
from tune_plan import rotated, v1

from noreturn.bots import Deck, plan
from noreturn.bots.candidates import candidates
from noreturn.bots.search import outcome
from noreturn.engine import (
    MULLIGAN,
    OVER,
    TILE_COLOUR,
    TILE_VALUE,
    Action,
    Declare,
    GameState,
    Rules,
    colour_sums,
    fits_row,
    legal_actions,
    sample_world,
    tiles_value,
    to_action,
    view,
)
from noreturn.sim.simulate import uniform_action

Policy = Callable[[GameState, Random], Action]
Position = tuple[list[list[float]], list[float]]
"""A position's candidates: their features (the plan's choice first) and their values."""

# Features alike for every candidate (the rivals' pace, their phases) count only through
# their products with a move's own ones: the ranker compares the moves of one position.

NAMES = FEATURES
"""What ``features`` describes a move by (``learned_policy.py`` reads the same off the
move itself, for the distilled policy)."""


def shipped(state: GameState, _rng: Random) -> Action:
    """The plan, as medium plays it."""
    return to_action(plan.choose(state))


RIVALS: tuple[Policy, ...] = (shipped, v1, uniform_action)


def features(state: GameState, action: Action, left: float, p: plan.Params) -> list[float]:
    """What ``action`` leaves the seat to move (before the refill), as the plan sees it:
    only the seat's own hand and the public table; ``left`` is the plan's turns left."""
    seat = state.to_move
    after = state.clone()
    after.apply(action)
    rows, hand = after.rows[seat], after.hands[seat]
    powers = [*sorted(colour_sums(hand).values(), reverse=True), 0, 0]
    phase2 = float(after.phases[seat] == 2)
    declares = float(isinstance(action, Declare))
    needed = plan.scoring_turns(rows, powers[0], p.typical)
    scored = after.pile_sums[seat] - state.pile_sums[seat]
    paid = tiles_value(after.paid[seat]) - tiles_value(state.paid[seat])
    keep = sum(plan.keep_value(rows, t, p) for t in hand) if not phase2 else 0.0
    fitting = sum(1 for t in hand if rows[TILE_COLOUR[t]]
                  and fits_row(rows[TILE_COLOUR[t]], TILE_VALUE[t]))
    late = 1.0 - min(left / 12.0, 1.0)
    row_points = sum(map(sum, rows))  # rows hold values
    exchanged = len(after.exchanged[seat]) - len(state.exchanged[seat])
    lead = plan.projected(after, seat) - max(
        plan.projected(after, s) for s in range(after.n) if s != seat)
    pace = rival_pace(state, seat)
    others_in_2 = sum(state.phases[s] == 2 for s in range(state.n) if s != seat)
    return [declares, phase2, row_points, sum(map(len, rows)), scored, powers[0], powers[1],
            len(hand), needed, max(0.0, needed - left), max(0.0, left - needed), fitting,
            keep, sum(1 for r in rows if r), sum(r[-1] for r in rows if r),
            late * row_points, phase2 * powers[0], (1 - phase2) * late * powers[0],
            max(0, paid - scored) if scored else 0, exchanged, declares * left, lead,
            declares * lead, pace, declares * pace, others_in_2 / (state.n - 1),
            exchanged * pace]


def finish(state: GameState, rng: Random, seat: int, rival: Policy) -> None:
    """Play ``state`` to the end: the plan for ``seat``, ``rival`` for the others."""
    while state.stage != OVER:
        if state.draws_due:
            state.apply(state.sample_draw(rng))
        elif state.to_move == seat:
            state.apply(shipped(state, rng))
        else:
            state.apply(rival(state, rng))


def label(state: GameState, rng: Random, worlds: int, rival: Policy) -> Position | None:
    """The candidates' features and values at ``state`` (None: only one candidate)."""
    seat = state.to_move
    seen = view(state, seat)
    options = candidates(sample_world(seen, rng), legal_actions(state))
    if len(options) < 2:
        return None
    p = plan.params_for(state.rules.players)
    left = plan.turns_left(state, p)
    totals = [0.0] * len(options)
    for _ in range(worlds):
        world, seed = sample_world(seen, rng), rng.random()
        for index, action in enumerate(options):
            trial = world.clone()
            trial.apply(action)
            finish(trial, Random(seed), seat, rival)
            totals[index] += (trial.scores()[seat] if rival is uniform_action
                              else outcome(trial, seat)[0])
    return [features(state, a, left, p) for a in options], [t / worlds for t in totals]


def positions(rules: Rules, games: int, worlds: int, sample: float, true_rivals: bool,
              seed: int, player: Policy = shipped) -> list[Position]:
    """Labelled positions from ``games`` games of one seat played by ``player`` (the
    plan, or a ranker of an earlier round) against cycled rivals."""
    found: list[Position] = []
    for game in range(games):
        rng = Random(f"ranker:{seed}:{game}")
        rival = RIVALS[game % len(RIVALS)]
        model = rival if true_rivals else shipped
        mine = game % rules.players
        deck = Deck(rules, f"ranker:{seed}:{game}")
        state = GameState(rules, deck.start_player)
        while state.stage != OVER:
            if state.draws_due:
                state.apply(deck.next_draw(state))
            elif state.to_move != mine:
                state.apply(rival(state, rng))
            else:
                if state.stage != MULLIGAN and rng.random() < sample:
                    position = label(state, rng, worlds, model)
                    if position is not None:
                        found.append(position)
                state.apply(player(state, rng))
        if (game + 1) % 50 == 0:
            print(f"  {game + 1} games, {len(found)} positions", flush=True)
    return found


def fit(train: list[Position], ridge: float) -> np.ndarray:
    """Weights of the feature differences that best predict the value differences."""
    x = np.vstack([np.array(f[1:]) - np.array(f[0]) for f, _ in train])
    y = np.concatenate([np.array(q[1:]) - q[0] for _, q in train])
    scale = x.std(axis=0) + 1e-9
    z = x / scale
    weights = np.linalg.solve(z.T @ z + ridge * np.eye(z.shape[1]), z.T @ y) / scale
    return np.asarray(weights, dtype=float)


def pick(features_: list[list[float]], weights: np.ndarray) -> int:
    """The candidate the ranker plays: the best predicted gain over the plan's, if any."""
    gains = (np.array(features_) - np.array(features_[0])) @ weights
    best = int(np.argmax(gains))
    return best if gains[best] > 0 else 0


def held_out_gain(test: list[Position], weights: np.ndarray) -> tuple[float, float]:
    """The mean value of the ranker's pick over the plan's, and its standard error."""
    gains = [q[pick(f, weights)] - q[0] for f, q in test]
    return statistics.fmean(gains), statistics.stdev(gains) / math.sqrt(len(gains))


def picking(best: Callable[[GameState, list[Action]], int]) -> Policy:
    """A policy that plays the search's candidate (``candidates.candidates``) of index
    ``best(state, candidates)``; the plan at the mulligan, the one move if there is one."""

    def policy(state: GameState, rng: Random) -> Action:
        if state.stage == MULLIGAN:
            return shipped(state, rng)
        options = candidates(state, legal_actions(state))
        return options[0] if len(options) == 1 else options[best(state, options)]

    return policy


def ranker(weights: np.ndarray) -> Policy:
    """The ranker as a policy (the plan at the mulligan)."""

    def best(state: GameState, options: list[Action]) -> int:
        p = plan.params_for(state.rules.players)
        left = plan.turns_left(state, p)
        return pick([features(state, a, left, p) for a in options], weights)

    return picking(best)


def main(argv: list[str] | None = None) -> int:
    """Label positions, fit the ranker, judge it on held-out positions and in games."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--players", type=int, default=2)
    parser.add_argument("--games", type=int, default=600)
    parser.add_argument("--worlds", type=int, default=12)
    parser.add_argument("--sample", type=float, default=0.3)
    parser.add_argument("--rivals", choices=("plan", "true"), default="plan")
    parser.add_argument("--ridge", type=float, default=10.0)
    parser.add_argument("--deals", type=int, default=100, help="deals of the games played")
    parser.add_argument("--rounds", type=int, default=1, help="rounds after the first "
                        "take their positions from games of the ranker learned so far")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    if args.rounds < 1:
        parser.error(f"--rounds {args.rounds}: at least one round is needed")
    rules = Rules(players=args.players)
    train: list[Position] = []
    player: Policy = shipped
    for round_ in range(args.rounds):
        found = positions(rules, args.games, args.worlds, args.sample, args.rivals == "true",
                          args.seed + 1000 * round_, player)
        cut = len(found) * 3 // 4
        if cut < 2 or len(found) - cut < 2:
            parser.error(f"{len(found)} positions are too few: play more --games")
        train += found[:cut]
        weights = fit(train, args.ridge)
        gain, error = held_out_gain(found[cut:], weights)
        print(f"round {round_ + 1}: {len(train)} positions to learn from; on {len(found) - cut}"
              f" held out: the ranker's pick gains {gain:+.2f} points a decision over the "
              f"plan's (SE {error:.2f})", flush=True)
        player = ranker(weights)
    for name, weight in sorted(zip(NAMES, weights, strict=True), key=lambda nw: -abs(nw[1])):
        print(f"  {name:28s} {weight:+.3f}")
    mine = player
    for name, rival in (("the plan", shipped), ("heuristic-v1", v1),
                        ("random", uniform_action)):
        ranked = rotated(mine, rival, rules, args.deals, args.seed + 1)
        planned = rotated(shipped, rival, rules, args.deals, args.seed + 1)
        print(f"against {name}: ranker {ranked[0]:.1%} (mean {ranked[1]:.1f}), plan "
              f"{planned[0]:.1%} (mean {planned[1]:.1f}); {args.deals * rules.players} "
              f"games each", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
