"""What the hidden hands cost a search in games won: the search against itself with the truth.

    python benchmarks/hidden_ceiling.py --players 4 --deals 100 [--first 0 --step 1]

``search_regret.py`` measures what knowing the other hands is worth a decision; this plays
whole games. Each deal is played twice with the same search (``--bot``, hard by default)
in one seat (deal by deal in turn) among ``--rivals`` (medium): once as shipped, once
with the true hands and exchanged tiles in every world it samples (a cheat no player can
have: the bag's order stays unknown). The rivals and the draws are the same both times,
so the two games differ only by what the search knew. It prints, as the deals come, both
win shares (a shared first place counts 1/k) and their paired difference with its
standard error, and the mean scores: the most that a better model of the hidden hands could
gain in games against these rivals.

``--first`` and ``--step`` split the deals across processes (``--first 0 --step 2`` and
``--first 1 --step 2``); the lines of the runs can be pooled.
"""

from __future__ import annotations

import argparse
import contextlib
import math
import statistics
import sys
from collections.abc import Callable
from random import Random
from unittest import mock

from noreturn.bots import Deck, make_bot, search
from noreturn.engine import GameState, Rules, View, legal_actions, view


def truth(state: GameState, shuffler: Random) -> Callable[..., GameState]:
    """A stand-in for ``sample_world`` that deals the true hands and exchanged tiles of
    the game ``state`` as it is when asked (the bag's order shuffled: nobody knows it)."""

    def world(_view: View, _rng: Random, _weights: object = None) -> GameState:
        copy = state.clone()
        shuffler.shuffle(copy.bag)
        return copy

    return world


def play(rules: Rules, deal: int, bot: str, rivals: str, cheat: bool) -> tuple[float, int]:
    """The searching seat's win share and score on ``deal``, with or without the truth."""
    deck = Deck(rules, f"cheat:{deal}")
    state = GameState(rules, deck.start_player)
    me = deal % rules.players
    bots = [make_bot(bot if seat == me else rivals) for seat in range(rules.players)]
    rngs = [Random(f"bot:{deal}:{seat}") for seat in range(rules.players)]
    true_world = truth(state, Random(f"bag:{deal}"))
    while not state.is_over():
        if state.is_chance():
            state.play(deck.next_draw(state))
            continue
        seat = state.to_move
        with (mock.patch.object(search, "sample_world", true_world) if cheat and seat == me
              else contextlib.nullcontext()):
            action = bots[seat].act(view(state, seat), legal_actions(state), rngs[seat])
        state.play(action)
    scores = state.scores()
    top = max(scores)
    return (1.0 / scores.count(top) if scores[me] == top else 0.0), scores[me]


def main(argv: list[str] | None = None) -> int:
    """Play each deal without and with the truth; print the pooled figures as they come."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--deals", type=int, default=100)
    parser.add_argument("--first", type=int, default=0)
    parser.add_argument("--step", type=int, default=1)
    parser.add_argument("--bot", default="hard")
    parser.add_argument("--rivals", default="medium")
    args = parser.parse_args(argv)
    rules = Rules(players=args.players)
    plain: list[tuple[float, int]] = []
    cheat: list[tuple[float, int]] = []
    for deal in range(args.first, args.first + args.deals * args.step, args.step):
        plain.append(play(rules, deal, args.bot, args.rivals, cheat=False))
        cheat.append(play(rules, deal, args.bot, args.rivals, cheat=True))
        gains = [c[0] - p[0] for p, c in zip(plain, cheat, strict=True)]
        error = (statistics.stdev(gains) / math.sqrt(len(gains)) if len(gains) > 1
                 else math.nan)
        shipped = statistics.fmean(p[0] for p in plain)
        print(f"deal {deal}: {len(plain)} deals, win share {shipped:.3f} as shipped, "
              f"{statistics.fmean(c[0] for c in cheat):.3f} with the true "
              f"hands, difference {statistics.fmean(gains):+.3f} (SE {error:.3f}); mean "
              f"score {statistics.fmean(p[1] for p in plain):.1f} against "
              f"{statistics.fmean(c[1] for c in cheat):.1f}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
