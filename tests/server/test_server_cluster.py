"""Several ``noreturn serve`` processes on one PostgreSQL and one Redis (docs/deploy.md).

Real processes on free ports share a fresh PostgreSQL schema (the conftest's search_path
trick) and Redis; clients are ``websockets`` connections over TCP. Shown: a game whose
seats sit on different processes; a process killed with SIGKILL mid-game, its clients
finishing on the other one with every acknowledged move kept; one action sent through two
processes, and a double click, applied once; deploy/nginx.conf in front of two processes
(when nginx is installed). Skipped, with the reason, without PostgreSQL or Redis. Services
on one database: test_server_services.py; the Redis broadcaster: test_server_broadcast.py.
The processes and their shared schema (``Server``, ``Cluster``) come from ``pgkit.py``.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import suppress
from dataclasses import dataclass, field
from pathlib import Path
from random import Random
from typing import Any

import httpx
import pytest
from pgkit import Cluster, Server, fresh_schema, need_postgres
from srvkit import (
    REDIS_URL,
    SMALL,
    StateReader,
    free_port,
    need_redis,
    newer_than,
    scan,
    settle,
    states_by_version,
)

from noreturn.engine import parse_action
from noreturn.records import check_record, replay_states

ws_client = pytest.importorskip("websockets.sync.client",
                                reason="the websockets package is not installed")

TIMEOUT = 20.0


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
