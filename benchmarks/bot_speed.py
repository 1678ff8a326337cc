"""Decision time per move of each player-facing level, on positions from real games.

    python benchmarks/bot_speed.py [--positions 30] [--levels easy,medium,hard] [--players 2]
                                   [--json]

Positions come from heuristic self-play (default rules, ``--players`` players), spread over
the mulligan, phase 1 and phase 2 (with three and four players medium thinks near its
switch: its worst times are there). Each bot decides every position once; the table shows the
mean, 95th percentile and worst time per decision on the wall clock, and the mean CPU time
(the search bots budget CPU time, so on a busy machine their wall time grows while their
CPU time, and their strength, stays); for a search, the playouts it played per CPU second
(its strength grows with them). A figure, not a test: this machine is shared and
noisy, so thresholds would be flaky.
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from random import Random

from rich.console import Console
from rich.progress import track
from rich.table import Table

from noreturn.bots import make_bot
from noreturn.bots.base import LEVELS
from noreturn.bots.yardsticks.heuristic_v1 import HeuristicV1Bot as HeuristicBot
from noreturn.engine import GameState, Rules, compiled, legal_actions, new_game, view


def positions(count: int, players: int = 2, seed: int = 0) -> list[GameState]:
    """Decision positions from heuristic self-play games, every few turns."""
    rng = Random(seed)
    found: list[GameState] = []
    bot = HeuristicBot()
    while len(found) < count:
        state = new_game(Rules(players=players), rng)
        while not state.is_over() and len(found) < count:
            if state.is_chance():
                state.apply(state.sample_draw(rng))
                continue
            if rng.random() < 0.2:
                found.append(state.clone())
            state.apply(bot.act(view(state, state.to_move), legal_actions(state), rng))
    return found


def time_level(level: str, states: list[GameState]) -> dict[str, float]:
    """Milliseconds per decision of ``level`` over ``states``."""
    rng = Random(1)
    times, cpu = [], []
    playouts = 0
    for state in track(states, description=f"{level:>8}", transient=True):
        bot = make_bot(level)
        seen, legal = view(state, state.to_move), legal_actions(state)
        begin, began_cpu = time.perf_counter(), time.process_time()
        bot.act(seen, legal, rng)
        times.append((time.perf_counter() - begin) * 1000)
        cpu.append((time.process_time() - began_cpu) * 1000)
        playouts += getattr(bot, "last_playouts", 0)
    times.sort()
    return {"mean_ms": statistics.fmean(times), "p95_ms": times[int(0.95 * (len(times) - 1))],
            "max_ms": times[-1], "cpu_mean_ms": statistics.fmean(cpu), "positions": len(times),
            "playouts_per_cpu_s": playouts / max(sum(cpu) / 1000, 1e-9)}


def main() -> None:
    """Time each level and print a table (or JSON)."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--positions", type=int, default=30)
    parser.add_argument("--levels", default="easy,medium,hard")
    parser.add_argument("--players", type=int, default=2, choices=(2, 3, 4))
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    states = positions(args.positions, args.players)
    results = {level: time_level(level, states) for level in args.levels.split(",")}
    if args.json:
        print(json.dumps(results))
        return
    build = "compiled" if compiled() else "pure Python"
    table = Table(title=f"decision time per move, {len(states)} positions, "
                        f"{args.players} players ({build})")
    for column in ("level", "bot", "mean ms", "p95 ms", "max ms", "CPU ms", "playouts/CPU s"):
        table.add_column(column, justify="right")
    for level, r in results.items():
        table.add_row(level, LEVELS.get(level, level), f"{r['mean_ms']:.1f}",
                      f"{r['p95_ms']:.1f}", f"{r['max_ms']:.1f}", f"{r['cpu_mean_ms']:.1f}",
                      f"{r['playouts_per_cpu_s']:,.0f}" if r["playouts_per_cpu_s"] else "")
    Console().print(table)


if __name__ == "__main__":
    main()
