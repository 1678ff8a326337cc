"""Several ``noreturn serve`` processes on one PostgreSQL and one Redis (docs/deploy.md).

Real processes on free ports share a fresh PostgreSQL schema (the conftest's search_path
trick) and Redis; clients are ``websockets`` connections over TCP. What is shown: a game
whose seats sit on different processes; a process killed with SIGKILL mid-game, its clients
finishing on the other one with every acknowledged move kept; simultaneous actions at one
table (through two processes, a double click, eight threads on two services) applying
exactly once; a stale bot move refused quietly; the sweep that moves the bots of a game
nobody drives; the Redis broadcaster carrying notices between processes and recovering
from a lost connection and from an outage; migrations of processes that start at once;
deploy/nginx.conf in front of two processes (when nginx is installed).

Each test is skipped, with the reason, when the PostgreSQL or Redis it needs is
unreachable.
"""

from __future__ import annotations

import asyncio
import json
import os
import secrets
import shutil
import signal
import subprocess
import sys
import threading
import time
from collections.abc import AsyncIterator, Callable, Iterator
from contextlib import asynccontextmanager, contextmanager, suppress
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from random import Random
from typing import Any

import httpx
import pytest
from srvkit import (
    SMALL,
    StateReader,
    free_port,
    newer_than,
    scan,
    settle,
    spawn_serve,
    states_by_version,
    stop_process,
    wait_serving,
)
from typer.testing import CliRunner

from conftest import PG_URL, _with_schema, pg_problem
from noreturn.cli import app
from noreturn.engine import parse_action
from noreturn.records import check_record, replay_states
from noreturn.server.broadcast import BroadcastError, RedisBroadcaster, redis_problem
from noreturn.server.db import Base, make_engine, migrate
from noreturn.server.schemas import CreateTable, RulesIn, SeatIn
from noreturn.server.service import ConflictError, TableService, hash_token

ws_client = pytest.importorskip("websockets.sync.client",
                                reason="the websockets package is not installed")

REDIS_URL = os.environ.get("NORETURN_TEST_REDIS_URL", "redis://127.0.0.1:6379/0")
TIMEOUT = 20.0
TAKEOVER = 1.0
"""The test processes take over a game that waited on a bot this long (seconds)."""


@cache
def _redis_problem() -> str | None:
    return redis_problem(REDIS_URL, timeout=2)


def need_postgres() -> None:
    problem = pg_problem()
    if problem:
        pytest.skip(f"needs PostgreSQL: {problem}")


def pg() -> Any:
    """The psycopg module (the test is skipped without a reachable PostgreSQL)."""
    need_postgres()
    import psycopg  # noqa: PLC0415 - the SQLite-only tests run without it

    return psycopg


def need_redis() -> None:
    problem = _redis_problem()
    if problem:
        pytest.skip(f"needs Redis: {problem}")


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


@pytest.fixture(scope="module")
def cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Cluster]:
    """Two ``noreturn serve`` processes (started together) on a fresh schema and Redis."""
    need_postgres()
    need_redis()
    with fresh_schema() as (schema, url):
        found = Cluster(schema, url, tmp_path_factory.mktemp("cluster"))
        try:
            found.start(2)
            yield found
        finally:
            for server in found.servers:
                server.stop()


# ------------------------------------------------------------------------- clients
@dataclass
class Client(StateReader):
    """One seat over a real WebSocket; survives reconnections (to any process).

    ``messages`` is srvkit's format (version seen before, text last sent, message), for
    ``srvkit.scan``; every state's version is checked never to go back, over all of this
    seat's connections.
    """

    seat: int
    token: str
    ws: Any = None
    state: dict[str, Any] = field(default_factory=dict)
    messages: list[tuple[int, str, dict[str, Any]]] = field(default_factory=list)
    sent: str = ""
    acked: list[tuple[int, int, str]] = field(default_factory=list)

    def connect(self, server: Server, table_id: str) -> None:
        self.close()
        self.ws = ws_client.connect(server.ws(table_id), open_timeout=10).__enter__()
        self.ws.send(json.dumps({"type": "hello", "token": self.token}))
        welcome = self.next()
        assert welcome["type"] == "welcome" and welcome["seat"] == self.seat, welcome
        self.next_state()

    def close(self) -> None:
        if self.ws is not None:
            with suppress(Exception):
                self.ws.close()
            self.ws = None

    def send(self, message: dict[str, Any]) -> None:
        if message.get("type") == "action":
            self.sent = str(message["action"])
        self.ws.send(json.dumps(message))

    def next(self, timeout: float = TIMEOUT) -> dict[str, Any]:
        message: dict[str, Any] = json.loads(self.ws.recv(timeout=timeout))
        before = self.state.get("version", 0)
        self.messages.append((before, self.sent, message))
        if message["type"] == "state":
            assert message["version"] >= before, (
                f"seat {self.seat}: version went back from {before} to {message['version']}")
            self.state = message
        return message

    def sync(self, version: int) -> dict[str, Any]:
        if self.state.get("version", -1) >= version:
            return self.state
        return self.next_state(lambda s: s["version"] >= version)

    def flush(self, version: int) -> list[dict[str, Any]]:
        """Ping, and read up to the pong and a state of ``version`` or newer: the other
        messages (errors) received meanwhile. Messages of one connection keep their order,
        so anything the server says about what was sent before the ping comes first."""
        self.ws.send(json.dumps({"type": "ping"}))
        others: list[dict[str, Any]] = []
        ponged = False
        while not ponged or self.state.get("version", -1) < version:
            message = self.next()
            if message["type"] == "pong":
                ponged = True
            elif message["type"] != "state":
                others.append(message)
        return others


def play(clients: dict[int, Client], rng: Random, moves: int = 10_000,
         stop: Callable[[dict[str, Any]], bool] = lambda _s: False) -> dict[str, Any]:
    """The people play random legal actions (bots move on the servers) for ``moves``
    actions, to the end, or until ``stop(ack)`` on a state acknowledging an action.

    Each acknowledged action is noted in its client's ``acked``: (version, seat, text).
    """
    humans = set(clients)
    newest = max(clients.values(), key=lambda c: c.state.get("version", -1))
    state = settle(newest, humans)
    made = 0
    while state["status"] != "finished" and made < moves:
        mover = clients[state["view"]["to_move"]]
        mover.sync(state["version"])
        assert mover.state["version"] == state["version"] and mover.state["legal"], mover.state
        action = rng.choice(mover.state["legal"])
        old = state["version"]
        mover.send({"type": "action", "action": action, "version": old})
        ack = mover.next_state(newer_than(old))
        mover.acked.append((old, mover.seat, action))
        made += 1
        if stop(ack):
            return ack
        state = settle(mover, humans)
    for client in clients.values():
        client.sync(state["version"])
    return state


def record_moves(record: dict[str, Any]) -> list[tuple[int, str]]:
    """The record's actions in version order: (seat, text); deals and draws left out."""
    moves = [(step.move.player, str(step.move))
             for step in replay_states(record)
             if step.event["type"] not in ("deal", "draw")]
    return moves


def canonical(text: str) -> str:
    return str(parse_action(text))


def create_table(server: Server, seats: list[dict[str, Any]]) -> tuple[str, dict[int, str]]:
    answer = httpx.post(f"{server.base}/api/tables", json={"seats": seats, "rules": SMALL},
                        timeout=10)
    assert answer.status_code == 201, answer.text
    data = answer.json()
    return data["table"]["id"], {link["seat"]: link["token"] for link in data["seat_links"]}


def start_table(server: Server, table_id: str, tokens: dict[int, str]) -> None:
    for token in tokens.values():
        assert httpx.post(f"{server.base}/api/tables/{table_id}/join",
                          json={"token": token}, timeout=10).status_code == 200
    answer = httpx.post(f"{server.base}/api/tables/{table_id}/start",
                        json={"token": tokens[min(tokens)]}, timeout=10)
    assert answer.status_code == 200, answer.text


def final_record(server: Server, table_id: str) -> dict[str, Any]:
    answer = httpx.get(f"{server.base}/api/tables/{table_id}/record", timeout=10)
    assert answer.status_code == 200, answer.text
    record: dict[str, Any] = answer.json()
    verdict = check_record(record)
    assert verdict.valid, verdict
    return record


def assert_consistent(clients: list[Client], record: dict[str, Any]) -> None:
    """Every view a seat received is exactly the true game's at that version, seen from
    that seat (srvkit's leak scan), and the final states agree."""
    states = states_by_version(record)
    names = [p["name"] for p in record["players"]]
    for client in clients:
        assert scan(client, states, names) == []  # type: ignore[arg-type]
        assert client.state["status"] == "finished"
        assert client.state["result"]["scores"] == record["result"]["scores"]


def wait_finished(server: Server, table_id: str, seconds: float = 40) -> dict[str, Any]:
    deadline = time.monotonic() + seconds
    while True:
        table: dict[str, Any] = httpx.get(f"{server.base}/api/tables/{table_id}",
                                          timeout=10).json()
        if table["status"] == "finished":
            return table
        assert time.monotonic() < deadline, f"table {table_id} did not finish: {table}"
        time.sleep(0.2)


# --------------------------------------------------------------------------- games
def test_a_game_whose_seats_are_on_two_processes(cluster: Cluster) -> None:
    one, two = cluster.servers[:2]
    table_id, tokens = create_table(one, [{"kind": "human", "name": "Ada"},
                                          {"kind": "human", "name": "Bo"},
                                          {"kind": "bot", "level": "greedy"}])
    start_table(two, table_id, tokens)
    ada, bo = Client(0, tokens[0]), Client(1, tokens[1])
    ada.connect(one, table_id)
    bo.connect(two, table_id)
    try:
        final = play({0: ada, 1: bo}, Random(3))
    finally:
        ada.close()
        bo.close()
    assert final["status"] == "finished"
    record = final_record(one, table_id)
    assert_consistent([ada, bo], record)
    moves = record_moves(record)
    assert len(moves) == final["version"]
    for version, seat, text in ada.acked + bo.acked:
        assert moves[version] == (seat, canonical(text))
    assert {seat for seat, _text in moves} == {0, 1, 2}  # the bot moved too


def test_killing_a_process_mid_game_loses_no_accepted_move(cluster: Cluster) -> None:
    survivor = cluster.servers[0]
    (doomed,) = cluster.start(1)
    table_id, tokens = create_table(doomed, [{"kind": "human", "name": "Ada"},
                                             {"kind": "bot", "level": "ismcts:iterations=200"},
                                             {"kind": "human", "name": "Bo"}])
    start_table(doomed, table_id, tokens)
    clients = {0: Client(0, tokens[0]), 2: Client(2, tokens[2])}
    for client in clients.values():
        client.connect(doomed, table_id)
    rng = Random(5)
    play(clients, rng, moves=3)

    def bot_thinking(ack: dict[str, Any]) -> bool:
        return bool(ack["status"] == "playing" and ack["view"]["to_move"] == 1)

    state = play(clients, rng, stop=bot_thinking)
    assert bot_thinking(state), "the game ended before the bot's turn came"
    # A table of bots only, in progress on the doomed process: only the sweep saves it.
    bots_id, _ = create_table(doomed, [{"kind": "bot", "level": "ismcts:iterations=300"},
                                       {"kind": "bot", "level": "random"}])
    while len(cluster.moves(bots_id)) < 2:
        time.sleep(0.02)
    doomed.kill()  # while the bots think
    assert cluster.status(bots_id) == "playing"  # so a survivor must take it over
    acked_before = sum(len(c.acked) for c in clients.values())
    for client in clients.values():
        client.connect(survivor, table_id)
        assert client.state["version"] >= state["version"]
    try:
        final = play(clients, rng)
    finally:
        for client in clients.values():
            client.close()
    assert final["status"] == "finished"
    assert sum(len(c.acked) for c in clients.values()) > acked_before  # played on
    record = final_record(survivor, table_id)
    assert_consistent(list(clients.values()), record)
    moves = record_moves(record)
    for client in clients.values():
        for version, seat, text in client.acked:
            assert moves[version] == (seat, canonical(text)), (version, moves[version])
    assert wait_finished(survivor, bots_id)["status"] == "finished"
    bots_record = final_record(survivor, bots_id)
    assert len(record_moves(bots_record)) == len(cluster.moves(bots_id))


# ---------------------------------------------------------------------- concurrency
def two_people(cluster: Cluster) -> tuple[str, dict[int, Client]]:
    """A started table of two people (no bot: the version moves only when they act),
    both connected to the first process; its id and the clients."""
    table_id, tokens = create_table(cluster.servers[0], [{"kind": "human", "name": "Ada"},
                                                         {"kind": "human", "name": "Bo"}])
    start_table(cluster.servers[0], table_id, tokens)
    clients = {seat: Client(seat, token) for seat, token in tokens.items()}
    for client in clients.values():
        client.connect(cluster.servers[0], table_id)
    return table_id, clients


def finish(cluster: Cluster, table_id: str, clients: dict[int, Client], rng: Random) -> None:
    """Play to the end; the record must be exactly the acknowledged actions, each once."""
    final = play(clients, rng)
    assert final["status"] == "finished"
    record = final_record(cluster.servers[1], table_id)
    acked = sorted(a for client in clients.values() for a in client.acked)
    assert [version for version, _seat, _text in acked] == list(range(final["version"]))
    assert record_moves(record) == [(seat, canonical(text)) for _v, seat, text in acked]


def test_the_same_action_through_two_processes_applies_once(cluster: Cluster) -> None:
    table_id, clients = two_people(cluster)
    ada = clients[0]
    ada_elsewhere = Client(0, ada.token)
    ada_elsewhere.connect(cluster.servers[1], table_id)  # the same seat, another process
    rng = Random(11)
    try:
        state = play(clients, rng, moves=0)
        while state["view"]["to_move"] != 0:
            state = play(clients, rng, moves=1)
        version = state["version"]
        ada.sync(version)
        ada_elsewhere.sync(version)
        action = rng.choice(ada.state["legal"])
        barrier = threading.Barrier(2)

        def fire(client: Client) -> None:
            barrier.wait()
            client.send({"type": "action", "action": action, "version": version})

        threads = [threading.Thread(target=fire, args=(c,)) for c in (ada, ada_elsewhere)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        errors = ada.flush(version + 1) + ada_elsewhere.flush(version + 1)
        assert [e.get("code") for e in errors] == ["stale"], errors
        ada.acked.append((version, 0, action))
        assert ada.state["version"] == ada_elsewhere.state["version"] == version + 1
        assert cluster.moves(table_id)[version:] == [(version, 0, canonical(action))]
        ada_elsewhere.close()
        finish(cluster, table_id, clients, rng)
    finally:
        for client in (*clients.values(), ada_elsewhere):
            client.close()


def test_a_double_click_applies_once(cluster: Cluster) -> None:
    table_id, clients = two_people(cluster)
    rng = Random(12)
    try:
        state = play(clients, rng, moves=2)
        mover = clients[state["view"]["to_move"]]
        version = mover.sync(state["version"])["version"]
        action = rng.choice(mover.state["legal"])
        for _ in range(2):
            mover.send({"type": "action", "action": action, "version": version})
        errors = mover.flush(version + 1)
        assert [e.get("code") for e in errors] == ["stale"], errors
        mover.acked.append((version, mover.seat, action))
        assert mover.state["version"] == version + 1
        assert cluster.moves(table_id)[version:] == [(version, mover.seat, canonical(action))]
        finish(cluster, table_id, clients, rng)
    finally:
        for client in clients.values():
            client.close()


@pytest.fixture
def two_services() -> Iterator[tuple[TableService, TableService]]:
    """Two services (as two processes would have) on one fresh PostgreSQL schema."""
    need_postgres()
    with fresh_schema() as (_schema, url):
        engines = [make_engine(url), make_engine(url)]
        migrate(engines[0])
        try:
            yield TableService(engines[0]), TableService(engines[1])
        finally:
            for engine in engines:
                engine.dispose()


def test_eight_threads_on_two_services_apply_one_action(
        two_services: tuple[TableService, TableService]) -> None:
    first, second = two_services
    created = first.create(CreateTable(seats=[SeatIn(kind="human", name="Ada"),
                                              SeatIn(kind="human", name="Bo")],
                                       rules=RulesIn(**SMALL)))
    table_id = created["table"]["id"]
    tokens = {link["seat"]: link["token"] for link in created["seat_links"]}
    for token in tokens.values():
        first.join(table_id, token, None)
    first.start(table_id, tokens[0])
    rng = Random(2)
    for _round in range(6):
        state = second.state_message(table_id, None)
        if state["status"] == "finished":
            break
        seat = state["view"]["to_move"]
        mine = first.state_message(table_id, seat, hash_token(tokens[seat]))
        version, action = mine["version"], rng.choice(mine["legal"])
        barrier = threading.Barrier(8)
        outcomes: list[int | str] = []
        guard = threading.Lock()

        def act(service: TableService, action: str = action, version: int = version,
                seat: int = seat, barrier: threading.Barrier = barrier,
                outcomes: list[int | str] = outcomes, guard: threading.Lock = guard) -> None:
            barrier.wait()
            try:
                outcome: int | str = service.act(table_id, seat, action, version).version
            except ConflictError as exc:
                outcome = exc.code
            with guard:
                outcomes.append(outcome)

        threads = [threading.Thread(target=act, args=(first if i % 2 else second,))
                   for i in range(8)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(timeout=30)
        assert sorted(outcomes, key=str) == sorted([version + 1] + ["stale"] * 7, key=str)
        for service in (first, second):
            assert service.get(table_id)["version"] == version + 1
            assert service.state_message(table_id, None)["version"] == version + 1


def test_processes_starting_at_once_migrate_one_after_the_other() -> None:
    need_postgres()
    # Each process imports and connects, says so, then migrates when told: all at once
    # (without the advisory lock, all but one fail on the duplicate CREATE TABLE).
    script = ("import sys; from noreturn.server.db import make_engine, migrate; "
              "engine = make_engine(sys.argv[1]); engine.connect().close(); "
              "print('ready', flush=True); sys.stdin.readline(); migrate(engine)")
    with fresh_schema() as (schema, url):
        processes = [subprocess.Popen([sys.executable, "-c", script, url],
                                      stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                      stderr=subprocess.STDOUT, text=True) for _ in range(3)]
        for process in processes:
            assert process.stdout is not None and process.stdin is not None
            assert process.stdout.readline().strip() == "ready"
        for process in processes:
            assert process.stdin is not None
            process.stdin.write("go\n")
            process.stdin.flush()
        outputs = [process.communicate(timeout=60)[0] for process in processes]
        assert [p.returncode for p in processes] == [0] * 3, outputs
        with pg().connect(PG_URL, autocommit=True) as conn:
            rows = conn.execute(f"select version_num from {schema}.alembic_version").fetchall()
            tables = conn.execute("select count(*) from information_schema.tables where "
                                  "table_schema = %s", (schema,)).fetchone()
        assert len(rows) == 1
        # every table of the models, and alembic_version
        assert tables is not None and tables[0] == len(Base.metadata.tables) + 1


# -------------------------------------------------------------------- the broadcaster
@asynccontextmanager
async def broadcasters(url_one: str = REDIS_URL) -> AsyncIterator[
        tuple[RedisBroadcaster, RedisBroadcaster]]:
    """Two started broadcasters (as two processes have) on a fresh prefix, closed at the
    end; the first reaches Redis at ``url_one``, the second at ``REDIS_URL``."""
    prefix = f"nrtest-{secrets.token_hex(4)}:"
    one, two = RedisBroadcaster(url_one, prefix), RedisBroadcaster(REDIS_URL, prefix)
    await one.start()
    await two.start()
    try:
        yield one, two
    finally:
        await one.close()
        await two.close()


def test_a_notice_reaches_a_subscriber_of_another_process() -> None:
    need_redis()

    async def scenario() -> None:
        import redis.asyncio  # noqa: PLC0415

        async with broadcasters() as (one, two):
            admin = redis.asyncio.Redis.from_url(REDIS_URL)
            channel = one.channel("t1")
            try:
                async with one.subscribe("t1") as sub, one.subscribe("t1") as sub2:
                    assert one.channels() == {channel}  # one Redis subscription for both
                    assert dict(await admin.pubsub_numsub(channel)) == {channel.encode(): 1}
                    await two.publish("t1")
                    await asyncio.wait_for(sub.wait(), 5)
                    await asyncio.wait_for(sub2.wait(), 5)
                    await two.publish("t2")  # another table's notice wakes nobody here
                    with pytest.raises(TimeoutError):
                        await asyncio.wait_for(sub.wait(), 0.3)
                    await one.publish("t1")  # a local publish wakes at once, and only once
                    await asyncio.wait_for(sub.wait(), 0.5)
                    with pytest.raises(TimeoutError):
                        await asyncio.wait_for(sub.wait(), 0.3)
                deadline = time.monotonic() + 5
                while one.channels() or dict(await admin.pubsub_numsub(channel))[channel.encode()]:
                    assert time.monotonic() < deadline, "the last subscriber left: unsubscribe"
                    await asyncio.sleep(0.05)
                assert one.subscribers("t1") == 0
            finally:
                await admin.aclose()

    asyncio.run(scenario())


def test_the_broadcaster_reconnects_after_losing_redis() -> None:
    need_redis()

    async def scenario() -> None:
        import redis.asyncio  # noqa: PLC0415

        async with broadcasters() as (one, two):
            admin = redis.asyncio.Redis.from_url(REDIS_URL, decode_responses=True)
            try:
                async with one.subscribe("t1") as sub:
                    ids = [c["id"] for c in await admin.client_list() if
                           c.get("name") == one.client_name]
                    assert len(ids) == 1
                    await admin.client_kill_filter(_id=ids[0])  # Redis drops the connection
                    # After reconnecting, every local subscriber is woken (notices may be lost).
                    await asyncio.wait_for(sub.wait(), 10)
                    assert one.connects == 2
                    await two.publish("t1")  # and notices flow again
                    await asyncio.wait_for(sub.wait(), 5)
            finally:
                await admin.aclose()

    asyncio.run(scenario())


def test_an_unreachable_redis_is_a_clear_error() -> None:
    async def scenario() -> None:
        with pytest.raises(BroadcastError, match="unreachable"):
            await RedisBroadcaster(f"redis://127.0.0.1:{free_port()}/0").start()

    asyncio.run(scenario())
    assert "not a Redis URL" in (redis_problem("http://example.org/") or "")


def plain(output: str) -> str:
    """A command's output without the error box's frame and line breaks."""
    return " ".join(output.translate(str.maketrans("│╭╮╰╯─", "      ")).split())


def test_serve_refuses_redis_with_sqlite(tmp_path: Path) -> None:
    result = CliRunner().invoke(app, ["serve", "--db", f"sqlite:///{tmp_path / 'x.db'}",
                                      "--redis", REDIS_URL])
    assert result.exit_code != 0
    assert "several processes need PostgreSQL: --db postgresql://" in plain(result.output)
    from_env = CliRunner().invoke(app, ["serve", "--db", f"sqlite:///{tmp_path / 'x.db'}"],
                                  env={"NORETURN_REDIS_URL": REDIS_URL})
    assert "several processes need PostgreSQL" in plain(from_env.output)
    assert not (tmp_path / "x.db").exists() or (tmp_path / "x.db").stat().st_size == 0


def test_serve_says_when_redis_is_unreachable() -> None:
    result = CliRunner().invoke(app, ["serve", "--db", "postgresql://nobody@127.0.0.1:1/x",
                                      "--redis", f"redis://127.0.0.1:{free_port()}/0"])
    assert result.exit_code != 0
    assert "unreachable" in plain(result.output) and "--redis" in plain(result.output)


# ------------------------------------------------------------- taking a table over
def test_the_sweep_moves_the_bots_of_a_game_nobody_drives(tmp_path: Path) -> None:
    from fastapi.testclient import TestClient  # noqa: PLC0415

    from noreturn.server import create_app  # noqa: PLC0415

    server_app = create_app(f"sqlite:///{tmp_path / 'sweep.db'}", takeover_after=0.5)
    with TestClient(server_app) as client:
        service: TableService = client.app.state.service  # type: ignore[attr-defined]
        # Made behind the app's back: no runner was kicked, as if its process had died.
        created = service.create(CreateTable(seats=[SeatIn(kind="bot", level="random"),
                                                    SeatIn(kind="bot", level="random")],
                                             rules=RulesIn(**SMALL)))
        waiting = service.create(CreateTable(seats=[SeatIn(kind="human"),
                                                    SeatIn(kind="bot", level="random")],
                                             rules=RulesIn(**SMALL)))
        token = waiting["seat_links"][0]["token"]
        service.start(waiting["table"]["id"], token)
        table_id = created["table"]["id"]
        deadline = time.monotonic() + 30
        while service.get(table_id)["status"] != "finished":
            assert time.monotonic() < deadline, "the sweep did not take the game over"
            time.sleep(0.1)
        assert check_record(service.record(table_id)).valid
        # A game that waits on a person (once its bot moved, if it was first) is left alone.
        while not (state := service.state_message(waiting["table"]["id"], 0,
                                                  hash_token(token)))["legal"]:
            assert time.monotonic() < deadline, "the sweep did not move the bot"
            time.sleep(0.1)
        time.sleep(0.6)
        assert service.stalled_games(0.5) == []
        assert service.get(waiting["table"]["id"])["version"] == state["version"]


def test_a_bot_move_made_stale_by_another_process_is_refused_quietly(
        two_services: tuple[TableService, TableService],
        monkeypatch: pytest.MonkeyPatch) -> None:
    from noreturn.table import LocalTable  # noqa: PLC0415

    first, second = two_services
    created = first.create(CreateTable(seats=[SeatIn(kind="bot", level="random"),
                                              SeatIn(kind="bot", level="random")],
                                       rules=RulesIn(**SMALL)))
    table_id = created["table"]["id"]
    original = LocalTable.bot_job
    raced: list[bool] = []

    def job_with_a_race(game: LocalTable) -> Callable[[], Any]:
        decide = original(game)

        def slow_decision() -> Any:
            move = decide()
            if not raced:  # the other process moves while this bot thinks
                raced.append(False)
                raced[0] = second.bot_step(table_id)
            return move

        return slow_decision

    monkeypatch.setattr(LocalTable, "bot_job", job_with_a_race)
    with pytest.raises(ConflictError) as stale:
        first.bot_step(table_id)
    assert stale.value.code == "stale" and raced == [True]
    assert first.get(table_id)["version"] == 1  # the other process's move only
    assert first.bot_step(table_id)  # looking again, it plays on
    assert second.get(table_id)["version"] == 2


class Outage:
    """A TCP proxy to Redis that can go down (every connection cut, new ones refused)."""

    def __init__(self, target_port: int) -> None:
        self.target_port = target_port
        self.port = free_port()
        self.server: asyncio.Server | None = None
        self.writers: set[asyncio.StreamWriter] = set()

    async def up(self) -> None:
        self.server = await asyncio.start_server(self._serve, "127.0.0.1", self.port)

    async def down(self) -> None:
        assert self.server is not None
        self.server.close()
        for writer in list(self.writers):
            writer.close()
        self.writers.clear()
        await self.server.wait_closed()

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            up_reader, up_writer = await asyncio.open_connection("127.0.0.1", self.target_port)
        except OSError:
            writer.close()
            return
        self.writers |= {writer, up_writer}

        async def pipe(source: asyncio.StreamReader, sink: asyncio.StreamWriter) -> None:
            with suppress(OSError):
                while data := await source.read(65536):
                    sink.write(data)
                    await sink.drain()
            sink.close()

        await asyncio.gather(pipe(reader, up_writer), pipe(up_reader, writer))


def test_the_broadcaster_survives_a_redis_outage() -> None:
    need_redis()
    from redis.asyncio.connection import parse_url  # noqa: PLC0415

    async def scenario() -> None:
        outage = Outage(int(parse_url(REDIS_URL).get("port", 6379)))
        await outage.up()
        try:
            async with broadcasters(f"redis://127.0.0.1:{outage.port}/0") as (one, two), \
                    one.subscribe("t1") as sub:
                await outage.down()
                await asyncio.sleep(0.3)
                await two.publish("t1")  # lost for ``one``: it cannot hear Redis
                began = time.monotonic()
                await one.publish("t1")  # local subscribers still hear at once
                assert time.monotonic() - began < 5  # and the move does not hang
                await asyncio.wait_for(sub.wait(), 1)
                await outage.up()
                # Back: every local subscriber is woken, as notices may have been missed.
                await asyncio.wait_for(sub.wait(), 15)
                assert one.connects >= 2
                await two.publish("t1")
                await asyncio.wait_for(sub.wait(), 5)
        finally:
            await outage.down()

    asyncio.run(scenario())


# ------------------------------------------------------------------- the proxy example
DEPLOY = Path(__file__).resolve().parents[2] / "deploy"


def test_the_nginx_example_spreads_a_game_over_both_processes(cluster: Cluster,
                                                              tmp_path: Path) -> None:
    """deploy/nginx.conf as shipped, its upstream pointed at the two test processes."""
    nginx = shutil.which("nginx") or ("/usr/sbin/nginx" if Path("/usr/sbin/nginx").exists()
                                      else None)
    if nginx is None:
        pytest.skip("nginx is not installed (apt-get install nginx-light) to try "
                    "deploy/nginx.conf")
    one, two = cluster.servers[:2]
    port = free_port()
    site = (DEPLOY / "nginx.conf").read_text()
    site = site.replace("noreturn1:8000", f"127.0.0.1:{one.port}")
    site = site.replace("noreturn2:8000", f"127.0.0.1:{two.port}")
    site = site.replace("listen 80;", f"listen 127.0.0.1:{port};")
    temp = {name: tmp_path / name for name in ("body", "proxy", "fastcgi", "uwsgi", "scgi")}
    (tmp_path / "nginx.conf").write_text("\n".join([
        "user root;" if os.geteuid() == 0 else "",
        f"pid {tmp_path / 'nginx.pid'};",
        f"error_log {tmp_path / 'error.log'};",
        "events {}",
        "http {",
        "access_log off;",
        *(f"{name}_temp_path {path};" if name != "body" else f"client_body_temp_path {path};"
          for name, path in temp.items()),
        site,
        "}",
    ]))
    process = subprocess.Popen([nginx, "-p", str(tmp_path), "-c", str(tmp_path / "nginx.conf"),
                                "-g", "daemon off;"], stdout=subprocess.DEVNULL,
                               stderr=subprocess.STDOUT, text=True)
    proxy = Server.__new__(Server)
    proxy.port, proxy.base, proxy.process = port, f"http://127.0.0.1:{port}", process
    proxy.log = tmp_path / "error.log"
    try:
        proxy.ready()
        table_id, tokens = create_table(proxy, [{"kind": "human", "name": "Ada"},
                                                {"kind": "human", "name": "Bo"},
                                                {"kind": "bot", "level": "random"}])
        start_table(proxy, table_id, tokens)
        clients = {seat: Client(seat, token) for seat, token in tokens.items()}
        for client in clients.values():
            client.connect(proxy, table_id)
        # least_conn sent the second socket to the other process: both listen to the table.
        import redis  # noqa: PLC0415

        with redis.Redis.from_url(REDIS_URL) as admin:
            channel = f"noreturn:table:{table_id}"
            assert dict(admin.pubsub_numsub(channel)) == {channel.encode(): 2}
        final = play(clients, Random(21))
        for client in clients.values():
            client.close()
        assert final["status"] == "finished"
        assert_consistent(list(clients.values()), final_record(proxy, table_id))
    finally:
        process.terminate()
        process.wait(timeout=10)
