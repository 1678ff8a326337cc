"""Is the plan's switch where it should be? A switch rule fitted to simulation, and its games.

    python benchmarks/switch_fit.py --players 2 --games 600 --worlds 24 --deals 300

1. **Labels.** The plan plays itself. At each phase-1 turn near its switch (the rows need
   at least ``left - margin - 6`` scoring turns), the seat's view is sampled ``--worlds``
   times and both lines, declaring now and the plan's best move that stays in phase 1, are
   played to the end by the plan in every seat on the same draws. The label is the mean
   difference of the search's reward (``search.reward``: half the win, half the clipped
   margin), so a positive label says declaring now is worth more.
2. **Fit.** Ridge least squares of the label on a few public features (``FEATURES``);
   five-fold cross-validation gives the gain a position over always waiting, for the plan's
   own rule, the fitted rule and the labels themselves (an upper bound that their noise
   inflates).
3. **Games.** The plan with the fitted rule against the plan, and against random play, on
   paired deals (each deal under every rotation of the seats).

It needs numpy (the ``dev`` extra). The fitted rule is not shipped: see docs/bot-studies.md.
"""

from __future__ import annotations

import argparse
import statistics
import sys
from collections.abc import Callable
from random import Random

import numpy as np

from noreturn.bots import Deck, plan
from noreturn.bots.search import reward
from noreturn.bots.switch import both_lines
from noreturn.engine import (
    DECLARE,
    PLAY,
    Action,
    Declare,
    GameState,
    Rules,
    to_action,
    view,
)
from noreturn.sim.simulate import uniform_action

FEATURES = ("gap", "left", "power", "lead", "row_value", "place_worth", "others2", "bag")
"""What the fitted rule reads, all public or the seat's own: the plan's gap (scoring turns
needed less turns left), the turns left, the hand's paying power, the lead in projected
score, the rows' value, the worth of the plan's best placement, the rivals in phase 2 and
the bag."""

Policy = Callable[[GameState, Random], Action]


def features(state: GameState) -> dict[str, float] | None:
    """The features of the mover's position, or ``None`` outside the switch window."""
    seat, n = state.to_move, state.rules.players
    if not plan.near_switch(state):  # labels are taken, and the fitted rule decides, there
        return None
    p = plan.params_for(n)
    needed, left = plan.needed_and_left(state)
    worth, _ = plan.best_place(state, p, left)
    return {"gap": needed - left, "left": left,
            "power": plan.paying_power(state.hands[seat]),
            "lead": plan.lead(state),
            "row_value": state.row_sum(seat), "place_worth": worth,
            "others2": sum(1 for s in range(n) if s != seat and state.phases[s] == 2),
            "bag": len(state.bag)}


def label(state: GameState, worlds: int, rng: Random) -> float:
    """Declaring now less waiting, in the search's reward, over ``worlds`` sampled worlds
    (the switch advisor's paired lines, ``switch.both_lines``)."""
    seat = state.to_move
    seen = view(state, seat)
    total = 0.0
    for _ in range(worlds):
        declared, waited = both_lines(seen, rng)
        total += reward(declared, seat, 0.5) - reward(waited, seat, 0.5)
    return total / worlds


def waiting(state: GameState) -> Action:
    """The plan's move, but never a declaration: the rule under test decides those."""
    if state.stage == PLAY and state.phases[state.to_move] == 1:
        return to_action(plan.decide(state, plan.params_for(state.rules.players),
                                     may_declare=False))
    return to_action(plan.choose(state))


def play(rules: Rules, deal: str, act: Callable[[GameState], Action]) -> GameState:
    """One game of ``deal`` (a paired deal: the same tiles whatever the moves), every
    decision by ``act``."""
    deck = Deck(rules, deal)
    state = GameState(rules, deck.start_player)
    while not state.is_over():
        state.play(deck.next_draw(state) if state.is_chance() else act(state))
    return state


def collect(players: int, games: int, worlds: int) -> tuple[np.ndarray, np.ndarray,
                                                             np.ndarray]:
    """Features, labels and the plan's own choice (declare or not) from plan self-play."""
    rows: list[list[float]] = []
    labels: list[float] = []
    base: list[bool] = []
    for game in range(games):
        rng = Random(f"label:{game}")

        def act(state: GameState, rng: Random = rng) -> Action:
            found = features(state)
            if found is not None:
                rows.append([found[k] for k in FEATURES])
                labels.append(label(state, worlds, rng))
                base.append(plan.choose(state)[0] == DECLARE)
            return to_action(plan.choose(state))

        play(Rules(players=players), f"switch:{game}", act)
        print(f"\rlabels: game {game + 1}/{games}, {len(labels)} positions", end="",
              file=sys.stderr, flush=True)
    print(file=sys.stderr)
    return np.array(rows, float), np.array(labels), np.array(base)


def fit(x: np.ndarray, y: np.ndarray, ridge: float = 1.0) -> tuple[float, np.ndarray]:
    """Ridge least squares on standardized features, returned in raw units: declare when
    ``bias + weights @ features > 0`` (the predicted gain of declaring is positive)."""
    mean, spread = x.mean(0), x.std(0) + 1e-9
    z = np.c_[np.ones(len(x)), (x - mean) / spread]
    gram = z.T @ z + ridge * np.eye(z.shape[1])
    gram[0, 0] -= ridge  # the bias is not shrunk
    w = np.linalg.solve(gram, z.T @ y)
    weights = w[1:] / spread
    return float(w[0] - weights @ mean), weights


def cross_validated(x: np.ndarray, y: np.ndarray, folds: int = 5) -> np.ndarray:
    """Each position's predicted gain from a fit on the other folds."""
    order = np.random.default_rng(0).permutation(len(y))
    predicted = np.zeros(len(y))
    for part in np.array_split(order, folds):
        train = np.setdiff1d(order, part)
        bias, weights = fit(x[train], y[train])
        predicted[part] = bias + x[part] @ weights
    return predicted


def fitted_policy(bias: float, weights: np.ndarray) -> Policy:
    """The plan, with the fitted rule deciding the switch inside the window (and no
    declaring below it)."""
    def act(state: GameState, rng: Random) -> Action:
        found = features(state)
        if found is not None and bias + float(
                weights @ np.array([found[k] for k in FEATURES])) > 0:
            return Declare()
        return waiting(state)
    return act


def rollout_policy(worlds: int) -> Policy:
    """The plan, with the labels themselves deciding the switch inside the window: declare
    when ``worlds`` sampled worlds say it beats waiting (some 30 ms a call for 30 worlds;
    what a medium that thinks at its switch would do)."""
    def act(state: GameState, rng: Random) -> Action:
        if features(state) is not None and label(state, worlds, rng) > 0:
            return Declare()
        return waiting(state)
    return act


def plan_policy(state: GameState, rng: Random) -> Action:
    """The plan as shipped (medium)."""
    return to_action(plan.choose(state))


def match(players: int, deals: int, tried: Policy, other: Policy) -> tuple[float, float,
                                                                           float]:
    """``tried`` in one seat, ``other`` in the rest, every rotation of every deal: its win
    share (a shared first place counts as a win), the standard error, its mean score."""
    wins: list[float] = []
    scores: list[int] = []
    for deal in range(deals):
        for seat in range(players):
            rng = Random(f"bots:{deal}:{seat}")

            def act(state: GameState, seat: int = seat, rng: Random = rng) -> Action:
                return (tried if state.to_move == seat else other)(state, rng)

            final = play(Rules(players=players), f"games:{deal}", act).scores()
            wins.append(float(final[seat] == max(final)))
            scores.append(final[seat])
    share = statistics.fmean(wins)
    return share, (share * (1 - share) / len(wins)) ** 0.5, statistics.fmean(scores)


def main(argv: list[str] | None = None) -> int:
    """Label, fit, cross-validate, then play the fitted rule; print every figure."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--players", type=int, default=2)
    parser.add_argument("--games", type=int, default=600, help="self-play games to label")
    parser.add_argument("--worlds", type=int, default=24, help="sampled worlds a label")
    parser.add_argument("--deals", type=int, default=300, help="paired deals to play")
    parser.add_argument("--rollouts", type=int, default=0,
                        help="also play the switch decided by this many worlds' labels")
    args = parser.parse_args(argv)
    x, y, base = collect(args.players, args.games, args.worlds)
    predicted = cross_validated(x, y)
    n = len(y)
    print(f"{args.players} players: {n} positions near the switch; the plan declares at "
          f"{base.mean():.1%} of them, the labels favour declaring at {(y > 0).mean():.1%}")
    for name, declares in (("the plan's rule", base), ("the fitted rule (cross-validated)",
                           predicted > 0), ("the labels themselves", y > 0)):
        print(f"  {name}: {float(y @ declares) / n:+.4f} reward a position over always "
              f"waiting (declares at {declares.mean():.1%})")
    bias, weights = fit(x, y)
    print("  fitted: declare when " + f"{bias:+.3f} " + " ".join(
        f"{w:+.4f}*{k}" for k, w in zip(FEATURES, weights, strict=True)) + " > 0")
    tried = {"the fitted rule": fitted_policy(bias, weights)}
    if args.rollouts:
        tried[f"the switch by {args.rollouts} worlds"] = rollout_policy(args.rollouts)
    for name, other in (("the plan", plan_policy), ("random play", uniform_action)):
        share, _, score = match(args.players, args.deals, plan_policy, other)
        print(f"  against {name}: the plan's rule wins {share:.1%}, score {score:.1f}")
        for rule, policy in tried.items():
            share, error, score = match(args.players, args.deals, policy, other)
            print(f"    {rule}: wins {share:.1%} (SE {error:.1%}), score {score:.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
