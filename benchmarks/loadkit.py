"""The parts of the load benchmark (``load.py``) that stand on their own: the database the
servers share, the ``noreturn serve`` processes, and the simulated people with their tables.

``load.py`` is the command: its options, the run with its warm-up and measured window, and
the figures it prints. Kept apart so that each stays a readable length; the module docstring
of ``load.py`` says what the run does and measures.
"""

from __future__ import annotations

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
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from random import Random
from typing import Any
from urllib.parse import quote

import httpx
from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed, WebSocketException

ANSWER_TIMEOUT = 10.0
"""Seconds a person waits for the answer to an action before counting a timeout."""
START_TIMEOUT = 60.0
"""Seconds a server process may take to answer its first request."""
SETUP_CONCURRENCY = 16
"""Tables being made (HTTP create, join, start) at the same time."""
TEARDOWN_SECONDS = 10.0
"""Seconds a stopping server or the cancelled clients get before they are ended."""


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
