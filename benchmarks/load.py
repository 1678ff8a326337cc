"""Load on the online server: many concurrent tables of bots and simulated people.

    python benchmarks/load.py --tables 200 --processes 1|2 --seconds 30 [--json]
        [--db postgresql://USER@HOST/DB | sqlite] [--redis redis://HOST:PORT/N]
        [--think SECONDS] [--warmup SECONDS] [--bots LEVEL] [--seed N]

What it does. It starts ``--processes`` ``noreturn serve`` processes itself, on free
loopback ports, with ``--bot-delay 0`` (bots move as fast as the server lets them), on one
database: by default the local PostgreSQL in a fresh schema made for this run and dropped at
the end (``--db sqlite``: a temporary SQLite file, one process only). Two processes share a
Redis (``--redis``, default the local one) that fans the "table changed" notices out. Then,
from this one asyncio process, it keeps exactly ``--tables`` tables in play for ``--seconds``:
each table has 2-4 seats, 1 or 2 of them simulated people and the others bots of a fast
level (``--bots``, default ``easy``), made, joined and started through the HTTP API; each
person connects over the WebSocket, spread round-robin over the processes (so the two people
of a table may sit on different processes). When a game ends its slot makes a new table, so
the load stays at ``--tables`` tables (never more) the whole time.

A simulated person, on its turn (a ``state`` with a non-empty ``legal`` list), thinks
``--think`` seconds (jittered: uniformly 0.5x-1.5x), sends a random action from ``legal``
with the version it saw, and measures the time from that send to the first ``state`` with a
higher version: the client's action -> update latency, which includes the server's
transaction, its broadcast and building and sending that seat's view (and, on a table where
bots move next, whatever state the server had reached by then). An ``error`` answer ends the
wait too; it is counted by its code and left out of the percentiles. No answer within 10 s
counts as a ``timeout`` error.

What it prints, for the measured window: human moves (actions of the simulated people
answered by a newer state), bot moves (every other stored move: the versions the tables
reached, as their people saw them, minus the human moves), moves per second of all moves
(humans + bots), the latency's 50th/90th/99th percentile and maximum in milliseconds, errors
by code, games finished and tables made, and CPU: each server process's (100 = one core),
the server CPU per move, this client's, and the whole machine's (the cores are shared by
the servers, this client, PostgreSQL and Redis). ``--json`` prints one JSON object instead
(``moves_per_s``, ``p50_ms``, ``p99_ms`` and the rest).

The window: the run lasts ``--seconds`` from the moment the servers answer; its warm-up,
in which every table is made at once and starts, is left out of the figures, since a real
server never gets all its tables in the same second. The warm-up lasts ``--warmup`` seconds
(default 5, at most a third of the run) and, if making the first ``--tables`` tables takes
longer (a slow machine), until 2 s after they are all made, but at most half the run:
``tables_ready_s`` says when they were. Its latency is not hidden: ``warmup_p99_ms`` shows
it.

The offered load is set by ``--think``: a table's people move about once per think time and
its bots right after, so 200 tables at ``--think 1`` ask for some 400 moves/s (people who
think a second per move: a stress test), at ``--think 5`` (closer to people at a real
table) some 90.

Bounded: loopback only, at most ``--tables`` tables at once, every wait has a timeout, and
the run stops after ``--seconds`` plus a short teardown. Every process it starts is ended
(SIGTERM, then SIGKILL), and the schema dropped, also on Ctrl+C or an error. A figure, not
a test: this machine is shared and noisy.

This file is the command (its options, the run, the figures); the database, the server
processes and the simulated people are in ``loadkit.py`` beside it.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import signal
import sys
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
from loadkit import (
    TEARDOWN_SECONDS,
    Database,
    Load,
    Server,
    Stats,
    percentile,
    prepare_database,
    serve_supports_redis,
    start_server,
)
from rich.console import Console
from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from noreturn.server.service import ServiceError, check_level

DEFAULT_PG = "postgresql://postgres@127.0.0.1:5432/test"
DEFAULT_REDIS = "redis://127.0.0.1:6379/0"
SETTLE_SECONDS = 2.0
"""The warm-up goes on this long after the first tables are all made: the requests of
that burst still queued, and the first moves of its last games, belong to it (measured:
of a 30-s window's 13 answers over 60 ms, 11 came in its first second without it)."""


# ------------------------------------------------------------------------------- running
def machine_cpu() -> tuple[float, float]:
    """(busy, all) CPU seconds of the whole machine so far, every core (Linux; else 0)."""
    try:
        fields = [int(x) for x in Path("/proc/stat").read_text().split("\n")[0].split()[1:]]
    except (OSError, ValueError):
        return 0.0, 0.0
    tick = os.sysconf("SC_CLK_TCK")
    idle = fields[3] + (fields[4] if len(fields) > 4 else 0)
    return (sum(fields) - idle) / tick, sum(fields) / tick


@dataclass
class Window:
    """The measured window: while open, the moves and CPU times at its start; once closed,
    its length and the moves and CPU seconds within it."""

    begin: float = 0.0
    after: float = 0.0
    """Seconds into the run when the window opened (the warm-up's length)."""
    seconds: float = 0.0
    moves: int = 0
    server_cpu: list[float] = field(default_factory=list)
    client_cpu: float = 0.0
    machine: tuple[float, float] = (0.0, 0.0)

    def open(self, load: Load) -> None:
        """Start measuring: note the moves and CPU times so far."""
        self.begin = time.perf_counter()
        self.moves = load.stats.all_moves()
        self.server_cpu = [s.cpu_seconds() for s in load.servers]
        self.client_cpu = time.process_time()
        self.machine = machine_cpu()
        load.stats.measuring = True

    def close(self, load: Load) -> None:
        """Stop measuring: the window's length, moves and CPU seconds (used since ``open``)."""
        self.seconds = time.perf_counter() - self.begin
        self.moves = load.stats.all_moves() - self.moves
        self.server_cpu = [s.cpu_seconds() - b
                           for s, b in zip(load.servers, self.server_cpu, strict=True)]
        self.client_cpu = time.process_time() - self.client_cpu
        busy, total = machine_cpu()
        self.machine = (busy - self.machine[0], total - self.machine[1])
        load.stats.measuring = False


async def run_load(load: Load, seconds: float, warmup: float, console: Console,
                   show_progress: bool) -> Window:
    """Run the load for ``seconds`` in all; the warm-up (at least ``warmup`` seconds, see
    the module docstring) is not measured."""
    clients = [httpx.AsyncClient(base_url=s.http, timeout=30, trust_env=False)
               for s in load.servers]
    window = Window()
    begin = time.perf_counter()
    tasks = [asyncio.create_task(load.slot(i, clients)) for i in range(load.tables)]
    try:
        with Progress(TextColumn("[bold]load"), BarColumn(), TimeElapsedColumn(),
                      TextColumn("{task.fields[status]}"), console=console,
                      disable=not show_progress, transient=True) as progress:
            bar = progress.add_task("load", total=seconds, status="warming up")
            while (elapsed := time.perf_counter() - begin) < seconds:
                for task in tasks:
                    if task.done() and not task.cancelled() and task.exception():
                        raise RuntimeError("a table's client failed") from task.exception()
                stats = load.stats
                if stats.tables_ready_s is None and stats.tables_made >= load.tables:
                    stats.tables_ready_s = round(elapsed, 2)
                settled = (stats.tables_ready_s is not None
                           and elapsed >= stats.tables_ready_s + SETTLE_SECONDS)
                if not stats.measuring and elapsed >= warmup and (
                        settled or elapsed >= seconds / 2):
                    window.open(load)
                    window.after = elapsed
                if stats.measuring:
                    moves = stats.all_moves() - window.moves
                    recent = sorted(stats.latencies_ms[-2000:])
                    status = (f"moves {moves} ({moves / max(elapsed - window.after, 1e-9):.0f}/s), "
                              f"recent p99 {percentile(recent, 0.99):.0f} ms, errors "
                              f"{sum(stats.errors.values())}, games {stats.games_finished}")
                else:
                    status = f"warming up: {stats.tables_made} tables made"
                progress.update(bar, completed=elapsed, status=status)
                next_stop = seconds if stats.measuring else (
                    warmup if elapsed < warmup else elapsed + 0.1)
                await asyncio.sleep(min(0.5, max(0.0, next_stop - elapsed)))
        if not load.stats.measuring:
            window.open(load)
            window.after = time.perf_counter() - begin
        window.close(load)
        return window
    finally:
        for task in tasks:
            task.cancel()
        await asyncio.wait(tasks, timeout=TEARDOWN_SECONDS)
        for client in clients:
            await client.aclose()


def results(args: argparse.Namespace, db: Database, stats: Stats,
            window: Window) -> dict[str, Any]:
    """The figures of the measured window, as the JSON object."""
    seconds = max(window.seconds, 1e-9)
    latencies = sorted(stats.latencies_ms)
    warmup = sorted(stats.warmup_ms)
    moves, server_cpu, (busy, total) = window.moves, window.server_cpu, window.machine
    return {
        "tables": args.tables, "processes": args.processes, "seconds": args.seconds,
        "warmup_s": round(window.after, 2),
        "measured_s": round(window.seconds, 2), "tables_ready_s": stats.tables_ready_s,
        "db": db.kind, "broadcast": "redis" if args.redis else "local",
        "think_s": args.think, "bots": args.bots, "seed": args.seed,
        "moves": moves, "human_moves": stats.human_moves,
        "bot_moves": moves - stats.human_moves,
        "moves_per_s": round(moves / seconds, 1),
        "human_moves_per_s": round(stats.human_moves / seconds, 1),
        "actions_timed": len(latencies),
        "p50_ms": round(percentile(latencies, 0.50), 1),
        "p90_ms": round(percentile(latencies, 0.90), 1),
        "p99_ms": round(percentile(latencies, 0.99), 1),
        "max_ms": round(latencies[-1], 1) if latencies else 0.0,
        "warmup_actions": len(warmup),
        "warmup_p99_ms": round(percentile(warmup, 0.99), 1),
        "errors": dict(stats.errors.most_common()),
        "games_finished": stats.games_finished, "tables_made": stats.tables_made,
        "server_cpu_pct": [round(100 * c / seconds, 1) for c in server_cpu],
        "server_cpu_ms_per_move": round(1000 * sum(server_cpu) / moves, 2) if moves else 0.0,
        "client_cpu_pct": round(100 * window.client_cpu / seconds, 1),
        "machine_cpu_pct": round(100 * busy / total, 1) if total else 0.0,
        "cores": os.cpu_count(),
    }


def show(data: dict[str, Any], console: Console) -> None:
    """The figures as a table."""
    table = Table(title=f"noreturn load: {data['tables']} tables, {data['processes']} "
                        f"server process(es), {data['db']}")
    table.add_column("measure")
    table.add_column("value", justify="right")
    rows = [
        ("tables in play (all the time)", str(data["tables"])),
        ("server processes", f"{data['processes']} (notices: {data['broadcast']})"),
        ("seconds measured", f"{data['measured_s']} (after {data['warmup_s']:g} s warm-up)"),
        ("human moves", str(data["human_moves"])),
        ("bot moves", str(data["bot_moves"])),
        ("moves/s, humans + bots", f"{data['moves_per_s']}"),
        ("human moves/s", f"{data['human_moves_per_s']}"),
        ("action -> update p50 ms", f"{data['p50_ms']}"),
        ("action -> update p90 ms", f"{data['p90_ms']}"),
        ("action -> update p99 ms", f"{data['p99_ms']}"),
        ("action -> update max ms", f"{data['max_ms']}"),
        ("warm-up p99 ms", f"{data['warmup_p99_ms']} ({data['warmup_actions']} actions)"),
        ("errors by code", ", ".join(f"{k} {v}" for k, v in data["errors"].items()) or "none"),
        ("games finished", str(data["games_finished"])),
        ("tables made", f"{data['tables_made']} (the first {data['tables']} after "
                        f"{data['tables_ready_s']} s)"),
        ("server CPU % (one core = 100)", ", ".join(f"{c}" for c in data["server_cpu_pct"])),
        ("server CPU ms per move", f"{data['server_cpu_ms_per_move']}"),
        ("client CPU %", f"{data['client_cpu_pct']}"),
        (f"machine CPU % ({data['cores']} cores)", f"{data['machine_cpu_pct']}"),
    ]
    for name, value in rows:
        table.add_row(name, value)
    console.print(table)
    console.print(f"think {data['think_s']} s (x0.5-1.5), bots {data['bots']}, 2-4 seats with "
                  "1-2 people; latency: a person's action sent -> first state with a higher "
                  "version")


@contextlib.contextmanager
def sigterm_as_interrupt() -> Iterator[None]:
    """SIGTERM stops the run like Ctrl+C does (so the cleanup runs)."""
    previous = signal.signal(signal.SIGTERM, signal.default_int_handler)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    """The command line (see the module docstring)."""
    parser = argparse.ArgumentParser(
        description="Load on noreturn serve: concurrent tables of bots and simulated people.")
    parser.add_argument("--tables", type=int, default=200, help="concurrent tables (1-2000)")
    parser.add_argument("--processes", type=int, choices=(1, 2), default=1,
                        help="server processes (2 share PostgreSQL and Redis)")
    parser.add_argument("--seconds", type=float, default=30.0,
                        help="length of the run, warm-up included (1-3600)")
    parser.add_argument("--warmup", type=float, default=None,
                        help="seconds at the start (making the first tables) left out of the "
                             "figures; default 5 (a third of a shorter run), at most half")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument("--db", default=DEFAULT_PG,
                        help="PostgreSQL URL (a fresh schema is made and dropped), or sqlite "
                             "(a temporary file; one process only)")
    parser.add_argument("--redis", default=None,
                        help=f"Redis URL for the notices (default with 2 processes: "
                             f"{DEFAULT_REDIS})")
    parser.add_argument("--think", type=float, default=1.0,
                        help="a person's mean thinking time in seconds (jittered x0.5-1.5)")
    parser.add_argument("--bots", default="easy", help="bot level of the bot seats")
    parser.add_argument("--seed", type=int, default=0, help="seed of seats and choices")
    args = parser.parse_args(argv)
    if not 1 <= args.tables <= 2000:
        parser.error("--tables: between 1 and 2000")
    if not 1 <= args.seconds <= 3600:
        parser.error("--seconds: between 1 and 3600")
    if not 0 <= args.think <= 60:
        parser.error("--think: between 0 and 60 seconds")
    try:
        args.bots = check_level(args.bots)
    except ServiceError as exc:
        parser.error(f"--bots: {exc.message}")
    if args.processes > 1 and args.db.startswith("sqlite"):
        parser.error("--processes 2 share one database: use PostgreSQL (--db postgresql://...)")
    if args.warmup is None:
        args.warmup = round(min(5.0, args.seconds / 3), 2)
    if not 0 <= args.warmup <= args.seconds / 2:
        parser.error("--warmup: between 0 and half of --seconds")
    if args.processes > 1 and args.redis is None:
        args.redis = DEFAULT_REDIS
    return args


def raise_file_limit(tables: int) -> None:
    """Let this process open a socket per person (up to two per table) and then some."""
    try:
        import resource  # noqa: PLC0415 - POSIX only

        soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
        want = 4 * tables + 256
        if soft != resource.RLIM_INFINITY and soft < want:
            top = want if hard == resource.RLIM_INFINITY else min(want, hard)
            resource.setrlimit(resource.RLIMIT_NOFILE, (top, hard))
    except (ImportError, ValueError, OSError):
        pass  # the default limit then; connections over it fail and are counted as errors


def main(argv: list[str] | None = None) -> int:
    """Start the servers, run the load, print the figures, clean up."""
    args = parse_args(argv)
    raise_file_limit(args.tables)
    console = Console(stderr=args.json)
    if args.redis and not serve_supports_redis():
        raise SystemExit("this noreturn serve has no --redis option: update noreturn, or run "
                         "with --processes 1")
    servers: list[Server] = []
    with tempfile.TemporaryDirectory(prefix="noreturn-load-") as tmp, sigterm_as_interrupt():
        folder = Path(tmp)
        db = prepare_database(args.db, folder)
        try:
            for index in range(args.processes):
                # one at a time: the first migrates the fresh schema
                with console.status(f"starting server {index + 1} of {args.processes}"):
                    servers.append(start_server(db.url, args.redis, folder, index))
            load = Load(servers, args.tables, args.think, args.bots, args.seed)
            window = asyncio.run(run_load(load, args.seconds, args.warmup, console,
                                          show_progress=console.is_terminal))
            data = results(args, db, load.stats, window)
            for server in servers:
                if server.process.poll() is not None:
                    raise SystemExit(f"server on port {server.port} exited during the run:\n"
                                     f"{server.tail()}")
        finally:
            for server in servers:
                server.stop()
            db.drop()
    if args.json:
        print(json.dumps(data))
    else:
        show(data, console)
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except KeyboardInterrupt:  # the servers were stopped and the schema dropped already
        print("interrupted: the servers were stopped and the run's data removed",
              file=sys.stderr)
        sys.exit(130)
