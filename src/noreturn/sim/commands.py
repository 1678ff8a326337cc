"""What ``noreturn simulate`` and ``noreturn bench`` show: progress, tables, JSON."""

from __future__ import annotations

import json
import time
from pathlib import Path

from rich.console import Console
from rich.markup import escape
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn
from rich.table import Table

from noreturn.engine import Rules
from noreturn.files import OutputDir, OutputError
from noreturn.sim.bench import run_bench
from noreturn.sim.simulate import Summary, simulate


def simulate_command(
    rules: Rules, games: int, seed: int, policy: str, out_dir: Path | None,
    console: Console | None = None,
) -> int:
    """Run ``simulate`` with a progress bar, then print the per-seat summary table."""
    console = console or Console()
    summary = Summary(rules.players)
    out = None if out_dir is None else OutputDir(out_dir, "simulate")
    begin = time.perf_counter()
    columns = (TextColumn("simulating"), BarColumn(), MofNCompleteColumn(), TimeRemainingColumn())
    with Progress(*columns, console=console, transient=True) as progress:
        task = progress.add_task("games", total=games)
        try:
            for state in simulate(rules, games, seed, policy, out):
                summary.add(state)
                progress.advance(task)
        except OutputError as exc:
            console.print(f"[red]error:[/] {escape(str(exc))}", markup=True, highlight=False)
            return 1
    elapsed = time.perf_counter() - begin
    console.print(summary_table(summary, policy, rules))
    console.print(f"{summary.games} games, {summary.turns / max(summary.games, 1):.1f} turns "
                  f"per game, {summary.games / elapsed:.0f} games/s")
    if out is not None:
        console.print(f"{out.note('records')} (check: noreturn validate {out.folder}/*.json)",
                      markup=False, highlight=False)
    return 0


def summary_table(summary: Summary, policy: str, rules: Rules) -> Table:
    """Mean score and win rate per seat (a shared first place is a win for each)."""
    table = Table(title=f"{summary.games} games, {rules.players} players, policy {policy}")
    table.add_column("seat", justify="right")
    table.add_column("mean score", justify="right")
    table.add_column("win rate", justify="right")
    for seat in range(rules.players):
        table.add_row(str(seat), f"{summary.mean_score(seat):.2f}",
                      f"{100 * summary.win_rate(seat):.1f}%")
    table.caption = ("a shared first place counts as a win for each, so the win rates "
                     "may add up to more than 100%")
    return table


def bench_command(
    players: int, seconds: float, as_json: bool, console: Console | None = None
) -> int:
    """Run the benchmark; a table for people, or one JSON object with ``--json``."""
    console = console or Console()
    if not as_json:
        console.print(f"benchmarking {players}-player games and the hot paths, about "
                      f"{seconds:g} s in all ...")
    result = run_bench(players, seconds)
    if as_json:
        print(json.dumps(result))
        return 0
    table = Table(title=f"noreturn engine, {players} players, one process "
                        f"(Python {result['python']})")
    table.add_column("measure")
    table.add_column("value", justify="right")
    table.add_row("games per second (rollout policy, deal to result)",
                  f"{result['games_per_s']:,.0f}")
    table.add_row("turns per second", f"{result['turns_per_s']:,.0f}")
    table.add_row("legal actions: µs per full generation",
                  f"{result['legal_actions_us']:.1f}")
    table.add_row("legal actions per position (mean / max)",
                  f"{result['legal_actions_mean']:.0f} / {result['legal_actions_max']}")
    table.add_row("apply: µs per action", f"{result['apply_us']:.2f}")
    table.add_row("clone: µs per state", f"{result['clone_us']:.2f}")
    table.add_row("build (compare like with like)",
                  "compiled" if result["compiled"] else "pure Python")
    console.print(table)
    return 0
