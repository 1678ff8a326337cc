"""How far the plan is from the best play against random play: a search with the right model.

    python benchmarks/headroom.py --players 2 --deals 30 --worlds 40 [--first 0]

Medium's score against ``random`` (its mean score, a goal of issue 15) is a solitaire: the
rival hardly interferes, and what counts is how much the plan builds and scores before the
bag runs out. Is a higher score there to be had, or is the plan at the game's ceiling? This
plays each deal twice in seat 0 against uniform random play: once by the plan, once by a
search that knows its rival is random. At each of its decisions the search samples
``--worlds`` worlds from its own view (``sample_world``), plays every candidate move of
the search bot (``candidates.candidates``) in each, then the plan for its own seat and uniform
random play for the others to the end, on the same draws for every candidate, and plays
the move with the best mean own score. It prints both means and their paired difference
with its standard error.

It answers a question about the plan, not about a bot to ship: the search is slow (seconds
a decision), and it is right only against random play.
"""

from __future__ import annotations

import argparse
import math
import statistics
import sys
from random import Random

from noreturn.bots import Deck, plan
from noreturn.bots.candidates import candidates
from noreturn.engine import (
    MULLIGAN,
    OVER,
    Action,
    GameState,
    Rules,
    legal_actions,
    sample_world,
    to_action,
    view,
)
from noreturn.sim.simulate import uniform_action


def finish(state: GameState, rng: Random, seat: int) -> int:
    """Play ``state`` to the end (the plan for ``seat``, random play for the others, draws
    from ``rng``); ``seat``'s final score."""
    while state.stage != OVER:
        if state.draws_due:
            state.apply(state.sample_draw(rng))
        elif state.to_move == seat:
            state.apply(to_action(plan.choose(state)))
        else:
            state.apply(uniform_action(state, rng))
    return state.scores()[seat]


def searched(state: GameState, rng: Random, worlds: int) -> Action:
    """The candidate with the best mean own score over ``worlds`` sampled worlds."""
    seat = state.to_move
    seen = view(state, seat)
    options = candidates(sample_world(seen, rng), legal_actions(state))
    if len(options) == 1:
        return options[0]
    totals = [0] * len(options)
    for _ in range(worlds):
        world, seed = sample_world(seen, rng), rng.random()
        for index, action in enumerate(options):
            trial = world.clone()
            trial.apply(action)
            totals[index] += finish(trial, Random(seed), seat)
    return options[max(range(len(options)), key=lambda i: (totals[i], -i))]


def play(rules: Rules, deal: int, worlds: int) -> int:
    """Seat 0's score on ``deal`` against random play: by the plan (``worlds`` 0) or by
    the search."""
    deck = Deck(rules, f"headroom:{deal}")
    state = GameState(rules, deck.start_player)
    rivals, search_rng = Random(f"rivals:{deal}"), Random(f"search:{deal}")
    while state.stage != OVER:
        if state.draws_due:
            state.apply(deck.next_draw(state))
        elif state.to_move != 0:
            state.apply(uniform_action(state, rivals))
        elif worlds and state.stage != MULLIGAN:
            state.apply(searched(state, search_rng, worlds))
        else:
            state.apply(to_action(plan.choose(state)))
    return state.scores()[0]


def main(argv: list[str] | None = None) -> int:
    """Play every deal by the plan and by the search; print the means as they come."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--players", type=int, default=2)
    parser.add_argument("--deals", type=int, default=30)
    parser.add_argument("--first", type=int, default=0, help="the first deal's number: "
                        "runs over other deals can be split across processes and pooled")
    parser.add_argument("--worlds", type=int, default=40)
    args = parser.parse_args(argv)
    rules = Rules(players=args.players)
    plans: list[int] = []
    searches: list[int] = []
    for deal in range(args.first, args.first + args.deals):
        plans.append(play(rules, deal, 0))
        searches.append(play(rules, deal, args.worlds))
        differences = [s - p for s, p in zip(searches, plans, strict=True)]
        error = (statistics.stdev(differences) / math.sqrt(len(differences))
                 if len(differences) > 1 else math.nan)
        print(f"{len(plans)} deals: plan {statistics.fmean(plans):.1f}, search "
              f"{statistics.fmean(searches):.1f}, difference "
              f"{statistics.fmean(differences):+.1f} (SE {error:.1f})", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
