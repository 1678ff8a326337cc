"""Does a rival's whole public history tell what it holds? The plan as the model of it.

    python benchmarks/hand_inference.py --players 4 --positions 150 --worlds 150 --latents 10

A search samples the other hands uniformly from the unseen tiles (``sample_world``).
Knowing each other seat's paying power would add half again to what a four-player search
gains near the switch (+0.0355 win share a decision against +0.0232: docs/bot-studies.md,
"The hidden hands"), and the last public move did not tell it. This asks whether the whole
history does, in the best case for inference: every seat plays the plan, the very model
the inference assumes.

Positions are phase-1 decisions near the switch (``plan.near_switch``) from plan self-play,
each with the game's history. For each other seat, ``--worlds`` worlds are sampled from the
mover's view; in each, that seat's history is walked backward from the hand the world gives
it: the tiles it drew are taken out of the hand again (which of its tiles came when is not
public: a random choice, the "latent"), the tiles it placed or paid are put back, and its
exchanged tiles come back from those the world gives its exchanges. At each of its decisions
(the mulligan aside) the plan decides with the hand so rebuilt, and the world is weighed by
``eps`` to the power of the decisions the plan would have made otherwise, averaged over
``--latents`` random latents (a likelihood in which the seat strays from the plan with
chance ``eps``). It prints the squared error of each other seat's paying power (its
strongest colour's sum) and of its colour counts, as uniform worlds guess them (their
mean) and as the weighed worlds do, with the weighed worlds' effective number; and, as a
check, how many decisions the true hand misfits with random latents against a uniform
world's hand.

It answers a question about inference, not about a bot: a bot would need the history,
which a ``View`` does not hold.
"""

from __future__ import annotations

import argparse
import statistics
import sys
from dataclasses import dataclass
from random import Random

from noreturn.bots import Deck, plan
from noreturn.engine import (
    PLAY,
    TILE_COLOUR,
    Action,
    Draw,
    Exchange,
    GameState,
    Place,
    Rules,
    Score,
    sample_world,
    to_action,
    view,
)

EPS = (0.02, 0.1, 0.3)
"""The chances of straying from the plan the likelihood is tried with."""


@dataclass(frozen=True)
class Step:
    """One event of a game: a seat's decision (``before``: the state it was made in) or a
    draw (``before`` None)."""

    seat: int
    before: GameState | None
    action: Action


def positions(players: int, count: int, seed: int) -> list[tuple[GameState, list[Step]]]:
    """``count`` phase-1 positions near the switch from plan self-play, each with the
    history of its game so far."""
    rules = Rules(players=players)
    found: list[tuple[GameState, list[Step]]] = []
    game = 0
    while len(found) < count:
        deck = Deck(rules, f"inference:{seed}:{game}")
        pick = Random(f"pick:{seed}:{game}")
        state = GameState(rules, deck.start_player)
        history: list[Step] = []
        while not state.is_over() and len(found) < count:
            if state.is_chance():
                draw = deck.next_draw(state)
                history.append(Step(state.to_move, None, draw))
                state.play(draw)
                continue
            if plan.near_switch(state) and pick.random() < 0.35:
                found.append((state.clone(), list(history)))
            action = to_action(plan.choose(state))
            history.append(Step(state.to_move, state.clone(), action))
            state.play(action)
        game += 1
    return found


def misfits(history: list[Step], seat: int, hand: list[int], exchanged: list[int],
            rng: Random, true_draws: bool = False) -> tuple[int, int]:
    """How many of ``seat``'s decisions in ``history`` the plan would have made otherwise,
    with the hands rebuilt backward from ``hand`` and ``exchanged`` (which drawn tile came
    when: at random, or with ``true_draws`` as it did), and how many decisions there were."""
    held = list(hand)
    pool = list(exchanged)
    rng.shuffle(pool)
    wrong = decisions = 0
    for step in reversed(history):
        if step.seat != seat:
            continue
        if step.before is None:  # it drew a tile: one of those held came now
            assert isinstance(step.action, Draw)
            if true_draws:
                held.remove(step.action.tile)
            else:
                held.pop(rng.randrange(len(held)))
            continue
        if step.before.stage != PLAY:
            break  # the mulligan: set-aside tiles went back to the bag, unseen
        if isinstance(step.action, Place):
            held += step.action.tiles
        elif isinstance(step.action, Score):
            held += step.action.pay
        elif isinstance(step.action, Exchange):
            held += pool[: len(step.action.tiles)]
            del pool[: len(step.action.tiles)]
        state = step.before.clone()
        state.hands[seat] = list(held)
        decisions += 1
        wrong += to_action(plan.choose(state)) != step.action
    return wrong, decisions


def colour_counts(hand: list[int]) -> list[int]:
    """How many tiles of each colour ``hand`` holds."""
    counts = [0] * 6
    for tile in hand:
        counts[TILE_COLOUR[tile]] += 1
    return counts


def squared_error(guesses: list[list[float]], weights: list[float],
                  truth: list[int]) -> float:
    """The squared error of the ``weights``-weighed mean of ``guesses`` against ``truth``."""
    total = sum(weights)
    return sum((sum(w * g[k] for w, g in zip(weights, guesses, strict=True)) / total
                - truth[k]) ** 2 for k in range(len(truth)))


@dataclass
class Tally:
    """The squared errors and effective numbers of worlds, per way of weighing."""

    power: dict[float, list[float]]
    colours: dict[float, list[float]]
    effective: dict[float, list[float]]
    true_misfits: list[int]
    uniform_misfits: list[int]
    decisions: list[int]

    def line(self) -> str:
        """The tally so far, one line per way of weighing (0: uniform worlds)."""
        rows = [f"{len(self.decisions)} other seats, {statistics.fmean(self.decisions):.1f} "
                f"decisions each; misfits: the true hand {statistics.fmean(self.true_misfits):.2f}"
                f", a uniform world's {statistics.fmean(self.uniform_misfits):.2f}"]
        for eps in self.power:
            name = "uniform worlds" if eps == 0 else f"weighed, eps {eps:g}"
            rows.append(f"  {name}: power error {statistics.fmean(self.power[eps]):.2f}, "
                        f"colour counts error {statistics.fmean(self.colours[eps]):.3f}, "
                        f"effective worlds {statistics.fmean(self.effective[eps]):.0f}")
        return "\n".join(rows)


def judge(tally: Tally, state: GameState, history: list[Step], worlds: int,
          latents: int, rng: Random) -> None:
    """Add the errors of the uniform and the weighed worlds at one position."""
    me = state.to_move
    sampled = [sample_world(view(state, me), rng) for _ in range(worlds)]
    for other in range(state.n):
        if other == me:
            continue
        wrong = [[misfits(history, other, w.hands[other], w.exchanged[other], rng)[0]
                  for _ in range(latents)] for w in sampled]
        true_wrong, decisions = misfits(history, other, state.hands[other],
                                        state.exchanged[other], rng)
        tally.true_misfits.append(true_wrong)
        tally.uniform_misfits.append(wrong[0][0])
        tally.decisions.append(decisions)
        powers = [[float(plan.paying_power(w.hands[other]))] for w in sampled]
        colours = [[float(c) for c in colour_counts(w.hands[other])] for w in sampled]
        for eps in tally.power:
            weights = [statistics.fmean(eps ** m for m in ms) if eps else 1.0 for ms in wrong]
            tally.power[eps].append(squared_error(powers, weights,
                                                  [plan.paying_power(state.hands[other])]))
            tally.colours[eps].append(squared_error(colours, weights,
                                                    colour_counts(state.hands[other])))
            tally.effective[eps].append(sum(weights) ** 2 / sum(w * w for w in weights))


def main(argv: list[str] | None = None) -> int:
    """Weigh worlds by the others' histories at each position; print the errors."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--positions", type=int, default=150)
    parser.add_argument("--worlds", type=int, default=150)
    parser.add_argument("--latents", type=int, default=10)
    parser.add_argument("--seed", type=int, default=5)
    args = parser.parse_args(argv)
    ways = (0.0, *EPS)
    tally = Tally({e: [] for e in ways}, {e: [] for e in ways}, {e: [] for e in ways},
                  [], [], [])
    found = positions(args.players, args.positions, args.seed)
    for index, (state, history) in enumerate(found):
        judge(tally, state, history, args.worlds, args.latents, Random(f"worlds:{index}"))
        if (index + 1) % 50 == 0 or index + 1 == len(found):
            print(f"{index + 1} positions:\n{tally.line()}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
