#!/usr/bin/env python3
"""OpenSpiel's ISMCTS bot plays No Return against noreturn's ``random`` and ``heuristic-v1`` bots.

The search is OpenSpiel's own (``open_spiel.python.algorithms.ismcts.ISMCTSBot``); it sees
the game only through its information state: every simulation starts from
``state.resample_from_infostate``, which deals the tiles it cannot see anew. (OpenSpiel's
perfect-information ``MCTSBot`` would search the true state and so look at the hidden
tiles: it is not a fair player of this game.)

Below the tree, positions are valued by playing the imagined state to the end with a
rollout policy (``--rollout``): ``heuristic`` (noreturn's heuristic strategy on every
seat, the default), ``engine`` (the engine's fast random policy) or ``random``
(OpenSpiel's ``RandomRolloutEvaluator``: uniform over the legal ids, which are mostly
exchanges, so it rarely sees a row scored). Returns are in points (a seat's score minus
the mean of the others), so ``--uct-c`` is in points too.

Games come in sets, one per seat of the ISMCTS bot, all on the same shuffled bag
(``noreturn.bots.Deck``), so every seat order meets the same luck. A win is a strictly
highest score; a shared highest counts half. The table gives the win rate with its 95%
Wilson interval.

Run::

    python examples/openspiel_ismcts.py                 # about 2 minutes on 2 cores
    python examples/openspiel_ismcts.py --games 4 --simulations 50 --seed 3
    python examples/openspiel_ismcts.py --variant players=3,colors=3,max_value=6,hand_size=5
"""

from __future__ import annotations

import argparse
import sys
import time
from dataclasses import dataclass
from random import Random
from typing import Any

import numpy as np

try:
    import pyspiel
    from open_spiel.python.algorithms import ismcts, mcts
except ImportError as exc:
    sys.exit(f"this example needs OpenSpiel ({exc}): pip install -e '.[openspiel]'")

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

import noreturn.rl.openspiel  # noqa: F401  (importing it registers the game with OpenSpiel)
from noreturn.bots import Deck, make_bot
from noreturn.bots.yardsticks import policy_v1 as heuristic_policy
from noreturn.engine import encode_action, legal_actions, playout, view
from noreturn.rl import features
from noreturn.rl.openspiel_observer import SHORT_NAME
from noreturn.sim.stats import wilson_interval

DEFAULT_VARIANT = "colors=3,max_value=6,hand_size=5"
OPPONENTS = ("random", "heuristic-v1")


class PlayoutEvaluator(mcts.Evaluator):  # type: ignore[misc]
    """Values a position by playing it to the end with one of noreturn's policies.

    ISMCTS evaluates only states it made with ``resample_from_infostate`` (and their
    children), so the engine state read here is an imagined one: no hidden tile of the real
    game reaches the search.
    """

    def __init__(self, policy: str, rng: Random) -> None:
        """``policy``: ``heuristic`` or ``engine`` (the engine's random rollout policy)."""
        self.policy = heuristic_policy.choose if policy == "heuristic" else None
        self.rng = rng

    def evaluate(self, state: Any) -> np.ndarray[Any, np.dtype[np.float64]]:
        """The returns of one playout of ``state``."""
        game = state.engine.clone()
        playout(game, self.rng, self.policy)
        return np.array(features.rewards(game))

    def prior(self, state: Any) -> list[tuple[int, float]]:
        """Uniform over the legal actions (chance: the draw probabilities)."""
        if state.is_chance_node():
            return state.chance_outcomes()  # type: ignore[no-any-return]
        actions = state.legal_actions()
        return [(a, 1.0 / len(actions)) for a in actions]


@dataclass
class Tally:
    """Results of the ISMCTS bot against one opponent."""

    games: int = 0
    wins: float = 0.0
    ties: int = 0
    margin: float = 0.0


def make_searcher(game: Any, args: argparse.Namespace, seed: int) -> Any:
    """OpenSpiel's ISMCTS bot with a seeded evaluator and resampler."""
    rng = Random(f"search:{seed}")
    if args.rollout == "random":
        evaluator = mcts.RandomRolloutEvaluator(random_state=np.random.RandomState(seed))
    else:
        evaluator = PlayoutEvaluator(args.rollout, rng)
    bot = ismcts.ISMCTSBot(
        game, evaluator, uct_c=args.uct_c, max_simulations=args.simulations,
        random_state=np.random.RandomState(seed),
    )
    # The default resampler seeds itself from the clock; this one makes runs repeatable.
    bot.set_resampler(lambda state, player: state.resample_from_infostate(player, rng.random))
    return bot


def play(game: Any, searcher: Any, seat: int, opponent: str, deck: Deck,
         rng: Random) -> tuple[list[float], float]:
    """One game, the searcher at ``seat``; returns the returns and its thinking seconds."""
    state = game.new_initial_state()
    others = [make_bot(opponent) for _ in range(game.num_players())]
    thinking = 0.0
    while not state.is_terminal():
        engine = state.engine
        if state.choosing_start:
            state.apply_action(deck.start_player)
        elif state.is_chance_node():
            tile = deck.next_draw(engine).tile
            state.apply_action(features.tile_index(engine.rules, tile))
        elif state.current_player() == seat:
            begin = time.perf_counter()
            state.apply_action(searcher.step(state))
            thinking += time.perf_counter() - begin
        else:
            mover = engine.to_move
            choice = others[mover].act(view(engine, mover), legal_actions(engine), rng)
            state.apply_action(encode_action(engine, choice))
    return state.returns(), thinking


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=40,
                        help="games against each opponent, rounded up to whole seat sets "
                             "(default 40)")
    parser.add_argument("--seed", type=int, default=1, help="seed of deals and search")
    parser.add_argument("--variant", default=DEFAULT_VARIANT,
                        help="OpenSpiel parameters of python_no_return, such as "
                             f"players=3,colors=4 (default {DEFAULT_VARIANT})")
    parser.add_argument("--simulations", type=int, default=300,
                        help="ISMCTS simulations per decision (default 300)")
    parser.add_argument("--uct-c", type=float, default=10.0,
                        help="UCT exploration constant, in points (default 10)")
    parser.add_argument("--rollout", choices=("heuristic", "engine", "random"),
                        default="heuristic", help="rollout policy (default heuristic)")
    parser.add_argument("--opponents", default=",".join(OPPONENTS),
                        help="noreturn bot specs, comma-separated (default random,heuristic-v1)")
    args = parser.parse_args(argv)
    if args.games < 1 or args.simulations < 1:
        parser.error("--games and --simulations must be at least 1")
    return args


def main(argv: list[str] | None = None) -> None:
    args = parse_args(argv)
    console = Console()
    try:
        game = pyspiel.load_game(f"{SHORT_NAME}({args.variant})")
    except (ValueError, pyspiel.SpielError) as exc:
        sys.exit(f"--variant {args.variant!r}: {exc}")
    rules = game.rules
    seats = rules.players
    sets = -(-args.games // seats)
    opponents = [o.strip() for o in args.opponents.split(",") if o.strip()]
    for spec in opponents:
        make_bot(spec)  # a bad name stops here, with the list of names
    tallies = {o: Tally() for o in opponents}
    rng = Random(f"bots:{args.seed}")
    thinking, decisions_start = 0.0, time.perf_counter()
    console.print(f"{SHORT_NAME}({args.variant}), {seats} players: OpenSpiel "
                  f"ISMCTS, {args.simulations} simulations, {args.rollout} rollouts, "
                  f"uct_c {args.uct_c:g}, seed {args.seed}")
    with Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
                  TimeElapsedColumn(), console=console, transient=True) as progress:
        task = progress.add_task("games", total=len(opponents) * sets * seats)
        for opponent in opponents:
            tally = tallies[opponent]
            for deal in range(sets):
                for seat in range(seats):
                    searcher = make_searcher(game, args,
                                             (args.seed * 100_003 + deal * 7 + seat) % 2**32)
                    deck = Deck(rules, f"{args.seed}:{deal}")
                    returns, seconds = play(game, searcher, seat, opponent, deck, rng)
                    thinking += seconds
                    best = max(returns)
                    if returns[seat] == best:
                        shared = returns.count(best)
                        tally.wins += 1.0 if shared == 1 else 0.5
                        tally.ties += shared > 1
                    tally.games += 1
                    tally.margin += returns[seat]
                    progress.advance(task)
    elapsed = time.perf_counter() - decisions_start
    table = Table(title="OpenSpiel ISMCTS against noreturn bots")
    for column in ("opponent", "games", "wins", "ties", "win rate", "95% interval",
                   "mean return"):
        table.add_column(column, justify="left" if column == "opponent" else "right")
    for opponent, tally in tallies.items():
        low, high = wilson_interval(tally.wins, tally.games)
        table.add_row(opponent, str(tally.games), f"{tally.wins:g}", str(tally.ties),
                      f"{tally.wins / tally.games:.0%}", f"{low:.0%} - {high:.0%}",
                      f"{tally.margin / tally.games:+.1f}")
    console.print(table)
    console.print(f"{sum(t.games for t in tallies.values())} games in {elapsed:.1f} s "
                  f"({thinking:.1f} s of ISMCTS search)")


if __name__ == "__main__":
    main()
