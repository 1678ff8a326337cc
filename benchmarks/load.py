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
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import ctypes
import json
import os
import re
import secrets
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from random import Random
from typing import Any
from urllib.parse import quote

import httpx
from rich.console import Console
from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table
from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed, WebSocketException

from noreturn.server.service import ServiceError, check_level

DEFAULT_PG = "postgresql://postgres@127.0.0.1:5432/test"
DEFAULT_REDIS = "redis://127.0.0.1:6379/0"
ANSWER_TIMEOUT = 10.0
"""Seconds a person waits for the answer to an action before counting a timeout."""
START_TIMEOUT = 60.0
"""Seconds a server process may take to answer its first request."""
SETUP_CONCURRENCY = 16
"""Tables being made (HTTP create, join, start) at the same time."""
TEARDOWN_SECONDS = 10.0
SETTLE_SECONDS = 2.0
"""The warm-up goes on this long after the first tables are all made: the requests of
that burst still queued, and the first moves of its last games, belong to it (measured:
of a 30-s window's 13 answers over 60 ms, 11 came in its first second without it)."""


# ------------------------------------------------------------------------------ database
@dataclass
class Database:
    """The database the servers share, and how to clean it up."""

    url: str
    """What the servers get (``--db``)."""
    kind: str
    schema: str | None = None
    admin_url: str | None = None

    def drop(self) -> None:
        """Drop this run's schema (PostgreSQL); a temporary SQLite file goes with its folder."""
        if self.schema and self.admin_url:
            import psycopg  # noqa: PLC0415 - PostgreSQL only

            with psycopg.connect(self.admin_url, autocommit=True, connect_timeout=5) as conn:
                conn.execute(f"drop schema if exists {self.schema} cascade")


def prepare_database(spec: str, folder: Path) -> Database:
    """The database for ``--db``: ``sqlite`` (a new file), ``sqlite:///PATH`` or a PostgreSQL
    URL, in which a fresh schema is made for this run.

    Raises:
        SystemExit: PostgreSQL is unreachable or the URL is of another kind (says what to do).
    """
    if spec == "sqlite":
        return Database(f"sqlite:///{folder / 'load.db'}", "sqlite")
    if spec.startswith("sqlite:"):
        return Database(spec, "sqlite")
    if not spec.startswith(("postgresql:", "postgresql+psycopg:", "postgres:")):
        raise SystemExit(f"--db {spec!r}: use a postgresql://USER@HOST:PORT/DB URL, "
                         "sqlite:///PATH, or sqlite for a temporary file")
    admin = spec.replace("postgresql+psycopg:", "postgresql:").replace("postgres:",
                                                                     "postgresql:", 1)
    try:
        import psycopg  # noqa: PLC0415 - PostgreSQL only
    except ImportError as exc:
        raise SystemExit("PostgreSQL needs psycopg: pip install 'psycopg[binary]', or run "
                         "with --db sqlite --processes 1") from exc
    schema = f"nr_load_{secrets.token_hex(6)}"
    try:
        with psycopg.connect(admin, autocommit=True, connect_timeout=5) as conn:
            conn.execute(f"create schema {schema}")
    except psycopg.Error as exc:
        reason = " ".join(str(exc).split())
        shown = re.sub(r"//([^:@/]+):[^@/]*@", r"//\1:***@", admin)
        raise SystemExit(f"PostgreSQL at {shown} is unreachable ({reason}): start it, pass "
                         "--db postgresql://USER@HOST:PORT/DB, or use --db sqlite with "
                         "--processes 1") from exc
    separator = "&" if "?" in admin else "?"
    url = f"{admin}{separator}options={quote(f'-csearch_path={schema}')}"
    return Database(url, "postgresql", schema, admin)


# ------------------------------------------------------------------------------- servers
def free_port() -> int:
    """A TCP port free on the loopback right now."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _die_with_parent() -> None:  # pragma: no cover - runs in the child before exec
    """Linux: the server gets SIGTERM if this script dies, even by SIGKILL."""
    with contextlib.suppress(Exception):
        ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG


@dataclass
class Server:
    """One ``noreturn serve`` process on the loopback."""

    process: subprocess.Popen[bytes]
    port: int
    log: Path

    @property
    def http(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def ws(self) -> str:
        return f"ws://127.0.0.1:{self.port}"

    def cpu_seconds(self) -> float:
        """User + system CPU time of the process so far (Linux /proc; 0 elsewhere)."""
        try:
            fields = Path(f"/proc/{self.process.pid}/stat").read_text().rsplit(")", 1)[1].split()
            return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
        except (OSError, ValueError, IndexError):
            return 0.0

    def tail(self, lines: int = 15) -> str:
        """The end of the server's output (to say why it failed)."""
        try:
            return "\n".join(self.log.read_text(errors="replace").splitlines()[-lines:])
        except OSError:
            return "(no output)"

    def stop(self) -> None:
        """SIGTERM, then SIGKILL after a few seconds; waits for the process."""
        if self.process.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                self.process.terminate()
            try:
                self.process.wait(timeout=TEARDOWN_SECONDS)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()


def serve_supports_redis() -> bool:
    """Whether ``noreturn serve`` has the ``--redis`` option (issue 7)."""
    out = subprocess.run([sys.executable, "-m", "noreturn", "serve", "--help"],
                         capture_output=True, text=True, timeout=60, check=False)
    return "--redis" in out.stdout


def start_server(db_url: str, redis_url: str | None, folder: Path, index: int) -> Server:
    """Start one server process and wait until it answers.

    Raises:
        SystemExit: it exited or did not answer within ``START_TIMEOUT`` (with its output).
    """
    port = free_port()
    command = [sys.executable, "-m", "noreturn", "serve", "--host", "127.0.0.1",
               "--port", str(port), "--bot-delay", "0", "--db", db_url,
               # every simulated person comes from this one address: no per-address caps
               "--socket-limit", "0", "--seat-limit", "0"]
    if redis_url:
        command += ["--redis", redis_url]
    log = folder / f"server{index}.log"
    with log.open("wb") as out:
        process = subprocess.Popen(
            command, stdout=out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
            start_new_session=True,  # Ctrl+C reaches this script, which stops it in order
            # no thread runs yet when the servers start: preexec_fn is safe here
            preexec_fn=_die_with_parent if sys.platform == "linux" else None)  # noqa: PLW1509
    server = Server(process, port, log)
    deadline = time.monotonic() + START_TIMEOUT
    while True:
        try:
            if httpx.get(f"{server.http}/api/tables", params={"limit": 1}, timeout=2,
                         trust_env=False).status_code == 200:
                return server
        except httpx.TransportError:
            pass
        if process.poll() is not None or time.monotonic() > deadline:
            server.stop()
            what = "exited" if process.returncode is not None else "did not answer in time"
            raise SystemExit(f"server {index} ({' '.join(command[2:])}) {what}:\n"
                             f"{server.tail()}")
        time.sleep(0.2)


# -------------------------------------------------------------------------------- clients
@dataclass
class Stats:
    """What the simulated people saw: figures of the measured window, the warm-up apart."""

    latencies_ms: list[float] = field(default_factory=list)
    """Action -> update times answered in the measured window."""
    warmup_ms: list[float] = field(default_factory=list)
    """Action -> update times answered during the warm-up (shown apart, not hidden)."""
    human_moves: int = 0
    """Actions of the simulated people answered by a newer state in the measured window."""
    finished_moves: int = 0
    """Moves of the tables whose slot moved on (the highest version each reached)."""
    live_moves: dict[int, int] = field(default_factory=dict)
    """Versions reached so far by the tables in play, by slot."""
    errors: Counter[str] = field(default_factory=Counter)
    games_finished: int = 0
    tables_made: int = 0
    tables_ready_s: float | None = None
    """Seconds into the run when the first ``--tables`` tables were all made."""
    measuring: bool = False

    def all_moves(self) -> int:
        """Moves stored so far by every table made (humans and bots), as the clients saw."""
        return self.finished_moves + sum(self.live_moves.values())


def percentile(values: list[float], share: float) -> float:
    """The nearest-rank percentile of sorted ``values`` (0 when there are none)."""
    if not values:
        return 0.0
    rank = max(1, int(-(-share * len(values) // 1)))  # ceil(share * n), at least 1
    return values[min(rank, len(values)) - 1]


class SetupError(Exception):
    """Making a table failed; the message is the error's code (``http_409`` ...)."""

    def __init__(self, code: str, retry_after: float = 1.0) -> None:
        super().__init__(code)
        self.retry_after = retry_after


def _checked(answer: httpx.Response, status: int) -> httpx.Response:
    """``answer`` if it has ``status``, else a ``SetupError`` (429: after Retry-After)."""
    if answer.status_code != status:
        try:
            wait = float(answer.headers.get("Retry-After", "1"))
        except ValueError:
            wait = 1.0
        raise SetupError(f"http_{answer.status_code}", min(max(wait, 0.1), 10.0))
    return answer


class Load:
    """The simulated people and their tables, all in this asyncio process."""

    def __init__(self, servers: list[Server], tables: int, think: float, bots: str,
                 seed: int) -> None:
        self.servers = servers
        self.tables = tables
        self.think = think
        self.bots = bots
        self.rng = Random(seed)
        self.stats = Stats()
        self._seats = 0  # round-robin over the servers, seat by seat
        self._made = 0
        self._setup = asyncio.Semaphore(SETUP_CONCURRENCY)

    def _next_server(self) -> Server:
        server = self.servers[self._seats % len(self.servers)]
        self._seats += 1
        return server

    def _seats_spec(self) -> list[dict[str, Any]]:
        """2-4 seats: 1 or 2 people (at least one bot), the rest bots, in random order."""
        players = self.rng.choice((2, 2, 3, 4))
        people = 1 if players == 2 else self.rng.choice((1, 2))
        seats: list[dict[str, Any]] = [{"kind": "human", "name": f"P{i + 1}"}
                                       for i in range(people)]
        seats += [{"kind": "bot", "level": self.bots} for _ in range(players - people)]
        self.rng.shuffle(seats)
        return seats

    async def _make_table(self, client: httpx.AsyncClient) -> tuple[str, list[str]]:
        """Create, join and start a table over HTTP; its id and the people's tokens."""
        async with self._setup:
            created = _checked(await client.post("/api/tables",
                                                 json={"seats": self._seats_spec()}), 201).json()
            table_id = created["table"]["id"]
            tokens = [link["token"] for link in created["seat_links"]]
            for token in tokens:
                _checked(await client.post(f"/api/tables/{table_id}/join",
                                           json={"token": token}), 200)
            _checked(await client.post(f"/api/tables/{table_id}/start",
                                       json={"token": tokens[0]}), 200)
        self.stats.tables_made += 1
        return table_id, tokens

    async def slot(self, index: int, clients: list[httpx.AsyncClient]) -> None:
        """Keep one table in play: a new one each time a game ends (or breaks)."""
        while True:
            server = self._made % len(self.servers)
            self._made += 1
            try:
                await self._one_table(index, clients[server])
            except SetupError as exc:
                self.stats.errors[str(exc)] += 1
                await asyncio.sleep(exc.retry_after)
            except (httpx.HTTPError, OSError, WebSocketException, TimeoutError) as exc:
                self.stats.errors[type(exc).__name__] += 1
                await asyncio.sleep(1.0)

    async def _one_table(self, index: int, client: httpx.AsyncClient) -> None:
        """Make a table and play its people until the game ends or a seat's socket closes."""
        table_id, tokens = await self._make_table(client)
        self.stats.live_moves[index] = 0
        seats = [asyncio.create_task(self._person(self._next_server(), table_id, token, index))
                 for token in tokens]
        try:
            for seat in asyncio.as_completed(seats):
                if not await seat:
                    return  # a socket closed: the game would wait on it forever
            self.stats.games_finished += 1
        finally:
            for seat in seats:
                seat.cancel()
            await asyncio.gather(*seats, return_exceptions=True)
            self.stats.finished_moves += self.stats.live_moves.pop(index, 0)

    def _seen(self, index: int, version: int,
              sent: tuple[float, int] | None) -> tuple[float, int] | None:
        """Note a state at ``version``; an action it answers is timed (returns None then)."""
        stats = self.stats
        if version > stats.live_moves.get(index, 0):
            stats.live_moves[index] = version
        if sent is None or version <= sent[1]:
            return sent
        took = (time.perf_counter() - sent[0]) * 1000
        if stats.measuring:
            stats.latencies_ms.append(took)
            stats.human_moves += 1
        else:
            stats.warmup_ms.append(took)
        return None

    async def _person(self, server: Server, table_id: str, token: str, index: int) -> bool:
        """Play one seat until the game ends (True) or the socket closes (False)."""
        rng = Random(self.rng.random())
        stats = self.stats
        async with connect(f"{server.ws}/ws/tables/{table_id}", proxy=None, open_timeout=10,
                           close_timeout=2, max_size=1 << 22) as ws:
            await ws.send(json.dumps({"type": "hello", "token": token}))
            sent: tuple[float, int] | None = None
            legal: list[str] = []
            version = 0
            retry = False  # after an error: act again on the last state unless a new one comes
            while True:
                wait = ANSWER_TIMEOUT if sent else (self.think + 0.1 if retry else None)
                try:
                    raw = await asyncio.wait_for(ws.recv(), wait)
                except TimeoutError:
                    if sent is not None:
                        stats.errors["timeout"] += 1
                        sent = None
                    retry = False
                    raw = None
                except ConnectionClosed as exc:
                    code = exc.rcvd.code if exc.rcvd else "none"
                    stats.errors[f"closed_{code}"] += 1
                    return False
                if raw is not None:
                    message = json.loads(raw)
                    kind = message.get("type")
                    if kind == "error":
                        stats.errors[str(message.get("code"))] += 1
                        if sent is not None:
                            sent, retry = None, True
                        continue
                    if kind != "state":
                        continue
                    retry = False
                    version = message["version"]
                    sent = self._seen(index, version, sent)
                    if message["status"] == "finished":
                        return True
                    legal = message["legal"]
                if legal and sent is None:
                    await asyncio.sleep(self.think * rng.uniform(0.5, 1.5))
                    action = rng.choice(legal)
                    sent = (time.perf_counter(), version)
                    await ws.send(json.dumps({"type": "action", "action": action,
                                              "version": version}))


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
