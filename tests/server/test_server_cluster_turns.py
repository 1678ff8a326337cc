"""Turn timers and the chat with several server processes (PostgreSQL and Redis, as
docs/deploy.md sets them up): both processes watch the same timers, yet each timed-out turn
is played once; one process killed, the other plays on; a chat message written on one
process reaches a player connected to the other.

Skipped without a reachable PostgreSQL and Redis (``test_server_cluster.py``'s checks).
"""

from __future__ import annotations

import json
import signal
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest
from pgkit import fresh_schema, need_postgres, pg
from srvkit import REDIS_URL, SMALL, free_port, need_redis, spawn_serve, stop_process, wait_serving

from conftest import PG_URL

ws_client = pytest.importorskip("websockets.sync.client",
                                reason="the websockets package is not installed")
LINE = "time ran out: medium played for"


@dataclass
class Process:
    """One ``noreturn serve`` with Redis and a 1-second timer on offer."""

    base: str
    process: Any
    log: Path


@pytest.fixture(scope="module")
def two(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, list[Process]]]:
    """Two processes on a fresh schema: the schema's name and the processes."""
    need_postgres()
    need_redis()
    logs = tmp_path_factory.mktemp("cluster-turns")
    with fresh_schema() as (schema, url):
        found: list[Process] = []
        try:
            for i in range(2):
                port = free_port()
                log = logs / f"serve{i}.log"
                with log.open("w") as out:
                    process = spawn_serve(port, url, "--redis", REDIS_URL,
                                          "--extra-turn-seconds", "1", output=out)
                found.append(Process(f"http://127.0.0.1:{port}", process, log))
            for server in found:
                wait_serving(server.base, server.process)
            yield schema, found
        finally:
            for server in found:
                stop_process(server.process)


def table(base: str, turn_seconds: int | None = None) -> tuple[str, dict[int, str]]:
    """Ada and Bo's table, started: its id and their tokens."""
    body: dict[str, Any] = {"seats": [{"kind": "human", "name": "Ada"},
                                      {"kind": "human", "name": "Bo"}], "rules": SMALL}
    if turn_seconds:
        body["turn_seconds"] = turn_seconds
    made = httpx.post(f"{base}/api/tables", json=body, timeout=10).json()
    table_id = made["table"]["id"]
    tokens = {link["seat"]: link["token"] for link in made["seat_links"]}
    for token in tokens.values():
        assert httpx.post(f"{base}/api/tables/{table_id}/join", json={"token": token},
                          timeout=10).status_code == 200
    assert httpx.post(f"{base}/api/tables/{table_id}/start", json={"token": tokens[0]},
                      timeout=10).status_code == 200
    return table_id, tokens


def socket(base: str, table_id: str, token: str | None) -> Any:
    """A connection that said hello (its welcome read)."""
    ws = ws_client.connect(base.replace("http://", "ws://") + f"/ws/tables/{table_id}",
                           open_timeout=10).__enter__()
    ws.send(json.dumps({"type": "hello", "token": token} if token else {"type": "hello"}))
    assert json.loads(ws.recv(timeout=10))["type"] == "welcome"
    return ws


def until(ws: Any, done: Any, seconds: float = 30.0) -> dict[str, Any]:
    """Read messages until one satisfies ``done``."""
    deadline = time.monotonic() + seconds
    while True:
        message: dict[str, Any] = json.loads(ws.recv(timeout=max(0.1, deadline - time.monotonic())))
        if done(message):
            return message


def timeouts(schema: str, table_id: str) -> list[tuple[int, int]]:
    with pg().connect(PG_URL, autocommit=True) as conn:
        rows = conn.execute(f"select index, seat from {schema}.table_moves where table_id = %s "
                            "and kind = 'timeout' order by index", (table_id,)).fetchall()
    return [(int(i), int(s)) for i, s in rows]


def test_two_processes_play_each_timed_out_turn_once(
        two: tuple[str, list[Process]]) -> None:
    schema, (one, other) = two
    table_id, _tokens = table(one.base, turn_seconds=1)
    watcher = socket(other.base, table_id, None)
    # nobody moves: turn after turn runs out, both processes watching
    state = until(watcher, lambda m: m["type"] == "state"
                  and sum(LINE in line for line in m["log"]) >= 4)
    played = timeouts(schema, table_id)
    assert len(played) >= 4
    versions = [i for i, _seat in played]
    assert versions == sorted(set(versions))  # one move per version: none played twice
    assert sum(LINE in line for line in state["log"]) <= len(played)
    # one process killed: the other plays on (the deadlines are in the database)
    one.process.send_signal(signal.SIGKILL)
    one.process.wait(timeout=10)
    before = len(timeouts(schema, table_id))
    until(watcher, lambda m: m["type"] == "state"
          and sum(LINE in line for line in m["log"]) >= before + 2)
    watcher.close()
    for server in (one, other):
        assert "Traceback" not in server.log.read_text(), server.log.read_text()[-3000:]


def test_a_chat_message_reaches_a_player_on_the_other_process(
        two: tuple[str, list[Process]]) -> None:
    _schema, servers = two
    alive = [s for s in servers if s.process.poll() is None]
    first, second = alive[0], alive[-1]
    table_id, tokens = table(first.base)
    ada = socket(first.base, table_id, tokens[0])
    bo = socket(second.base, table_id, tokens[1])
    ada.send(json.dumps({"type": "chat", "text": "<i>hi</i> Bo"}))
    said = until(bo, lambda m: m["type"] == "chat")
    assert [(m["name"], m["text"]) for m in said["messages"]] == [("Ada", "<i>hi</i> Bo")]
    ada.close()
    bo.close()
