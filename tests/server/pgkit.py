"""PostgreSQL for the tests of several processes: skip without it, a fresh schema, and the
``noreturn serve`` processes (with Redis) that share one.

``Server`` and ``Cluster`` live here rather than in their test module so that it stays a
readable length; ``test_server_cluster.py`` uses them, ``srvkit.py`` spawns the processes.
"""

from __future__ import annotations

import secrets
import signal
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import pytest
from srvkit import REDIS_URL, free_port, spawn_serve, stop_process, wait_serving

from conftest import PG_URL, _with_schema, pg_problem


def need_postgres() -> None:
    """Skip the calling test, saying why, when PostgreSQL is unreachable."""
    problem = pg_problem()
    if problem:
        pytest.skip(f"needs PostgreSQL: {problem}")


def pg() -> Any:
    """The psycopg module (the test is skipped without a reachable PostgreSQL)."""
    need_postgres()
    import psycopg  # noqa: PLC0415 - the SQLite-only tests run without it

    return psycopg


@contextmanager
def fresh_schema() -> Iterator[tuple[str, str]]:
    """A new PostgreSQL schema (dropped afterwards): its name and a URL that uses it."""
    schema = f"nr_cluster_{secrets.token_hex(6)}"
    with pg().connect(PG_URL, autocommit=True) as conn:
        conn.execute(f"create schema {schema}")
    try:
        yield schema, _with_schema(PG_URL, schema)
    finally:
        with pg().connect(PG_URL, autocommit=True) as conn:
            conn.execute(f"drop schema if exists {schema} cascade")


TAKEOVER = 1.0
"""The test processes take over a game that waited on a bot this long (seconds)."""


class Server:
    """One ``noreturn serve`` process with Redis, output in a log file."""

    def __init__(self, db_url: str, log_dir: Path, name: str) -> None:
        self.port = free_port()
        self.base = f"http://127.0.0.1:{self.port}"
        self.log = log_dir / f"{name}.log"
        with self.log.open("w") as out:
            self.process = spawn_serve(self.port, db_url, "--redis", REDIS_URL,
                                       "--takeover-after", str(TAKEOVER), output=out)

    def ready(self) -> None:
        """Wait until the process answers HTTP (it migrated and connected to Redis)."""
        try:
            wait_serving(self.base, self.process)
        except httpx.TransportError:
            raise AssertionError(f"the server did not start:\n{self.output()}") from None

    def ws(self, table_id: str) -> str:
        return self.base.replace("http://", "ws://") + f"/ws/tables/{table_id}"

    def output(self) -> str:
        return self.log.read_text()[-4000:]

    def kill(self) -> None:
        """SIGKILL: no shutdown, no cleanup, sockets cut."""
        self.process.send_signal(signal.SIGKILL)
        self.process.wait(timeout=10)

    def stop(self) -> None:
        stop_process(self.process)


@dataclass
class Cluster:
    """Two processes on one schema; more can be started on it."""

    schema: str
    db_url: str
    log_dir: Path
    servers: list[Server] = field(default_factory=list)

    def start(self, count: int = 1) -> list[Server]:
        """``count`` more processes, started at once (so they migrate at once)."""
        new = [Server(self.db_url, self.log_dir, f"serve{len(self.servers) + i}")
               for i in range(count)]
        self.servers += new
        for server in new:
            server.ready()
        return new

    def status(self, table_id: str) -> str:
        """The table's status in the database."""
        with pg().connect(PG_URL, autocommit=True) as conn:
            row = conn.execute(f"select status from {self.schema}.game_tables where id = %s",
                               (table_id,)).fetchone()
        assert row is not None
        return str(row[0])

    def moves(self, table_id: str) -> list[tuple[int, int, str]]:
        """The stored moves of a table: (index, seat, text)."""
        with pg().connect(PG_URL, autocommit=True) as conn:
            rows = conn.execute(f"select index, seat, text from {self.schema}.table_moves "
                                "where table_id = %s order by index", (table_id,)).fetchall()
        return [(int(i), int(s), str(t)) for i, s, t in rows]
