"""A fingerprint of the bots' decisions: one hash over the records of fixed games.

    python benchmarks/fingerprint.py [--deals 12] [--players 2,3,4]

A change meant to make a bot faster, not different (a cheaper hot path, a compiled
module), must leave every decision alone: run this before and after, and the two hashes
must agree. The games cover the plan and medium (with its sampled worlds near the switch),
the search under an iteration budget (so the same seed gives the same moves), and the
frozen heuristic-v1, at each table size: with odd deals a mixed lineup, with even ones
medium in every seat. The time it took is printed too, a rough speed figure.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import time

from rich.console import Console
from rich.progress import track

from noreturn.bots import Deck, make_bot, play_game
from noreturn.engine import Rules

MIXED = ("plan", "medium", "search:iterations=30", "heuristic-v1")
"""The lineup of the odd deals, cut to the table size."""


def fingerprint(deals: int, sizes: list[int]) -> str:
    """The SHA-256 of the records of ``deals`` games at each table size in ``sizes``."""
    digest = hashlib.sha256()
    games = [(players, deal) for players in sizes for deal in range(deals)]
    for players, deal in track(games, description="games", transient=True):
        rules = Rules(players=players)
        names = MIXED[:players] if deal % 2 else ("medium",) * players
        result = play_game(rules, [make_bot(name) for name in names], Deck(rules, deal),
                           seed=deal, keep_record=True)
        digest.update(json.dumps(result.record, sort_keys=True, default=str).encode())
    return digest.hexdigest()


def main() -> None:
    """Print the fingerprint and the time the games took."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--deals", type=int, default=12, help="games per table size")
    parser.add_argument("--players", default="2,3,4", help="table sizes, comma-separated")
    args = parser.parse_args()
    sizes = [int(p) for p in args.players.split(",")]
    began = time.perf_counter()
    digest = fingerprint(args.deals, sizes)
    Console().print(f"{digest}  ({args.deals} deals at {args.players} players, "
                    f"{time.perf_counter() - began:.1f} s)")


if __name__ == "__main__":
    main()
