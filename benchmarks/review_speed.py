"""How long a review of both seats of a two-player game takes, at the default budget.

    python benchmarks/review_speed.py [--games 3] [--iterations N] [--workers K] [--json]

The games are the plan against itself on fixed deals (decks 1, 2, ...; some 20 to 30
decisions a seat, like a game between people), or the records named with ``--record``. Each is
reviewed as ``noreturn review FILE`` does by default: every seat, every core, the default
playouts per decision. The table gives the wall-clock time, and the CPU time of all the
processes together, which does not depend on what else the machine is running: on a
shared machine the wall clock can be twice what a quiet one would show.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import time
from pathlib import Path
from statistics import fmean
from typing import Any

from rich.console import Console
from rich.table import Table

from noreturn.analysis import DEFAULT_PLAYOUTS, Budget, review_record
from noreturn.bots import Deck, make_bot, play_game
from noreturn.engine import Rules
from noreturn.records import Record, read_record


def games(count: int, records: list[Path]) -> list[tuple[str, Record]]:
    """The records to review: the files given, else ``count`` plan self-play games."""
    if records:
        return [(str(path), read_record(path)) for path in records]
    rules = Rules(players=2)
    found = []
    for deck in range(1, count + 1):
        result = play_game(rules, [make_bot("plan"), make_bot("plan")], Deck(rules, deck),
                           seed=deck, keep_record=True)
        assert result.record is not None
        found.append((f"plan self-play, deck {deck}", result.record))
    return found


def cpu_seconds() -> float:
    """CPU time of this process and of its finished children (the review's workers)."""
    total = 0.0
    for who in (resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN):
        usage = resource.getrusage(who)
        total += usage.ru_utime + usage.ru_stime
    return total


def time_review(record: Record, playouts: int, workers: int) -> dict[str, Any]:
    """Review every seat of ``record``; the seconds it took and the decisions judged."""
    cpu, wall = cpu_seconds(), time.perf_counter()
    review = review_record(record, budget=Budget(playouts=playouts), workers=workers)
    return {"decisions": sum(len(s.decisions) for s in review.seats),
            "draws": sum(len(s.draws) for s in review.seats),
            "wall_s": time.perf_counter() - wall, "cpu_s": cpu_seconds() - cpu}


def main() -> None:
    """Review the games, print the table (or JSON)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=3)
    parser.add_argument("--record", type=Path, action="append", default=[])
    parser.add_argument("--iterations", type=int, default=DEFAULT_PLAYOUTS,
                        help="playouts per decision")
    parser.add_argument("--workers", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    rows = [{"game": name, **time_review(record, args.iterations, args.workers)}
            for name, record in games(args.games, args.record)]
    summary = {"iterations": args.iterations, "workers": args.workers,
               "cores": os.cpu_count(), "load_1min": os.getloadavg()[0],
               "mean_wall_s": fmean(r["wall_s"] for r in rows),
               "mean_cpu_s": fmean(r["cpu_s"] for r in rows), "games": rows}
    if args.json:
        print(json.dumps(summary))
        return
    table = Table(title=f"noreturn review, both seats, {args.iterations} playouts a "
                        f"decision, {args.workers} workers on {os.cpu_count()} cores")
    for header in ("game", "decisions", "draws", "wall s", "CPU s"):
        table.add_column(header, justify="left" if header == "game" else "right")
    for row in rows:
        table.add_row(row["game"], str(row["decisions"]), str(row["draws"]),
                      f"{row['wall_s']:.1f}", f"{row['cpu_s']:.1f}")
    table.add_row("mean", "", "", f"{summary['mean_wall_s']:.1f}",
                  f"{summary['mean_cpu_s']:.1f}")
    console = Console()
    console.print(table)
    console.print(f"load average over the last minute when done: {summary['load_1min']:.1f} "
                  f"(the wall clock grows with it, the CPU time does not)")


if __name__ == "__main__":
    main()
