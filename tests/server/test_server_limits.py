"""Abuse limits (docs/server-protocol.md, "Limits"): a flood is dropped unread, told of
rarely and finally cut off (1008), and changes nothing; a person's pace is never limited;
other tables keep their pace during a flood; a too-long message gets a clear error; table
creation per address is capped with 429 and ``Retry-After`` when configured.
"""

from __future__ import annotations

import json
import math
import statistics
import threading
import time
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from random import Random
from typing import Any

import httpx
import pytest
from fastapi.testclient import TestClient
from srvkit import (
    SMALL,
    FakeClock,
    Player,
    connect,
    create,
    newer_than,
    receive,
    serving,
    settle,
    start,
)
from starlette.websockets import WebSocketDisconnect

from noreturn.server import create_app
from noreturn.server.limits import (
    MAX_MESSAGE,
    WS_MAX_SIZE,
    CreateLimiter,
    MessageLimiter,
    MessageLimits,
    Verdict,
)

LIMITS = MessageLimits()
SEATS = [{"kind": "human", "name": "Ada"}, {"kind": "bot", "level": "random"}]


# ------------------------------------------------------------------ the buckets alone
def verdicts(limiter: MessageLimiter, clock: FakeClock, times: list[float]) -> list[Verdict]:
    """The limiter's verdict on a message at each moment of ``times`` (ascending)."""
    out = []
    for moment in times:
        clock.now = 1000.0 + moment
        out.append(limiter.admit())
    return out


def test_a_fast_players_hour_is_never_limited() -> None:
    """The browser's worst case, far above a person's: every second three clicks that each
    ask three checks, an action and a hint; every 5 s a new state asks 15 checks at once; a
    ping every 20 s; and a scripted game's 90 messages at once to begin with."""
    clock = FakeClock()
    limiter = MessageLimiter(LIMITS, clock)
    times = [0.0] * 90 + [2.0] * 10
    for second in range(3, 3600):
        times += [second + i / 11 for i in range(11)]
        if second % 5 == 0:
            times += [second + 0.95] * 15
        if second % 20 == 0:
            times.append(second + 0.99)
    assert set(verdicts(limiter, clock, sorted(times))) == {Verdict.ACCEPT}
    assert limiter.dropped == 0


def test_a_flood_is_dropped_told_once_a_second_and_closed_when_it_persists() -> None:
    clock = FakeClock()
    limiter = MessageLimiter(LIMITS, clock)
    # 150 a second for a minute: over the rate, under the flood limit (200 a second).
    seen = verdicts(limiter, clock, [i / 150 for i in range(150 * 60)])
    assert Verdict.CLOSE not in seen
    accepted = seen.count(Verdict.ACCEPT)
    assert 100 + 20 * 60 - 2 <= accepted <= 100 + 20 * 60 + 2  # the burst, then the rate
    assert 59 <= seen.count(Verdict.WARN) <= 61  # one error a second, not one per message
    assert limiter.dropped == len(seen) - accepted
    # 400 a second (twice the flood limit): the flood bucket (1000) lasts 1000/(400-200) s.
    clock = FakeClock()
    limiter = MessageLimiter(LIMITS, clock)
    seen = verdicts(limiter, clock, [i / 400 for i in range(400 * 10)])
    closed_at = seen.index(Verdict.CLOSE) / 400
    assert 4.5 <= closed_at <= 5.5
    assert limiter.close_reason().startswith("flooding: over 200 messages per second")
    assert len(limiter.close_reason().encode()) <= 123  # a close frame's reason


def test_the_rate_limited_message_says_the_limit_and_when_to_retry() -> None:
    clock = FakeClock()
    limiter = MessageLimiter(LIMITS, clock)
    assert verdicts(limiter, clock, [0.0] * 101)[-1] is Verdict.WARN
    text = limiter.warning()
    assert "slow down: at most 20 messages per second" in text
    assert text.endswith("try again in 0.1 s")  # one token comes back in 1/20 s
    clock.now += 0.051
    assert limiter.admit() is Verdict.ACCEPT


def test_message_limits_refuse_nonsense() -> None:
    for bad in ({"rate": 0}, {"burst": 0}, {"flood_factor": 1}, {"flood_seconds": 0}):
        with pytest.raises(ValueError, match="out of range"):
            MessageLimits(**bad)


def test_the_create_limiter_counts_each_address_alone_and_refills() -> None:
    clock = FakeClock()
    limiter = CreateLimiter(3, max_clients=2, clock=clock)
    assert [limiter.take("a") for _ in range(3)] == [None, None, None]
    wait = limiter.take("a")
    assert wait is not None and math.isclose(wait, 20.0)  # 3 a minute: one each 20 s
    assert limiter.take("b") is None
    clock.now += 20
    assert limiter.take("a") is None
    limiter.take("c")  # a third address: the least recent one ("b") is forgotten
    assert set(limiter._buckets) == {"a", "c"}
    with pytest.raises(ValueError, match="at least 1"):
        CreateLimiter(0)


# ------------------------------------------------------------------ over a socket
def ada_to_move(client: TestClient) -> tuple[str, int, str]:
    """A started game against a bot, waiting on Ada: its id, version and Ada's token."""
    table_id, tokens = create(client, SEATS, SMALL)
    start(client, table_id, tokens)
    with connect(client, table_id, 0, tokens[0]) as ada:
        state = settle(ada, {0})
    assert state["status"] == "playing"
    return table_id, state["version"], tokens[0]


def drain(player: Player, seconds: float = 1.0) -> list[dict[str, Any]]:
    """Ping until the pong comes (messages are answered in order, so everything sent
    before was judged by then); every message received meanwhile."""
    got: list[dict[str, Any]] = []
    for _ in range(30):
        player.ws.send_json({"type": "ping"})
        try:
            while True:
                message = receive(player.ws, seconds)
                got.append(message)
                if message["type"] == "pong":
                    return got
        except TimeoutError:
            continue  # that ping was dropped too: the flood is still being read
    raise AssertionError(f"no pong after 30 pings; got {len(got)} messages")


def test_a_flood_is_told_rarely_changes_nothing_and_is_cut_off(db_url: str) -> None:
    with TestClient(create_app(db_url)) as client:
        table_id, version, token = ada_to_move(client)
        with connect(client, table_id, 0, token) as ada:
            began = time.monotonic()
            for _ in range(500):  # actions at a version long gone: each is refused
                ada.ws.send_json({"type": "action", "action": "pass", "version": version + 99})
            got = drain(ada)
            took = time.monotonic() - began
            codes = [m.get("code") for m in got if m["type"] == "error"]
            limited = [m for m in got if m.get("code") == "rate_limited"]
            # The burst (100) and the rate (20 a second) were judged: stale, nothing changed.
            assert 100 <= codes.count("stale") <= 100 + math.ceil(20 * took) + 1
            # The rest was dropped unanswered; the client was told at most once a second.
            assert 1 <= len(limited) <= math.ceil(took) + 1
            assert len(got) < 200
            assert "at most 20 messages per second" in limited[0]["message"]
            assert "try again in" in limited[0]["message"]
            assert not [m for m in got if m["type"] == "state"]
            # Keeping on flooding closes the socket: 1008 with the reason.
            for _ in range(3000):
                ada.ws.send_json({"type": "ping"})
            read = 0
            with pytest.raises(WebSocketDisconnect) as closed:
                while True:
                    receive(ada.ws, 10)
                    read += 1
            assert closed.value.code == 1008
            assert "flooding" in closed.value.reason
            assert read < 400  # pongs of the admitted pings and a few errors, not 3000
        table = client.get(f"/api/tables/{table_id}").json()
        assert table["version"] == version
        with connect(client, table_id, 0, token) as again:  # the seat is not banned
            assert again.state["version"] == version
            assert again.answer({"type": "ping"}) == {"type": "pong"}


def test_a_persons_pace_is_never_limited(tmp_path: Path) -> None:
    """A person clicking fast: per turn a burst of checks, a hint and a ping, then the
    action, with 0.4 s to think (a real person takes seconds)."""
    with TestClient(create_app(f"sqlite:///{tmp_path / 'pace.db'}")) as client:
        table_id, _version, token = ada_to_move(client)
        rng = Random(3)
        with connect(client, table_id, 0, token) as ada:
            for _turn in range(8):
                state = settle(ada, {0})
                if state["status"] == "finished":
                    break
                for action in state["legal"][:5]:
                    assert ada.answer({"type": "check", "action": action})["legal"] is True
                assert ada.answer({"type": "hint"})["type"] == "hint"
                assert ada.answer({"type": "ping"}) == {"type": "pong"}
                time.sleep(0.4)
                ada.send({"type": "action", "action": rng.choice(state["legal"]),
                          "version": state["version"]})
                ada.next_state(newer_than(state["version"]))
            errors = [m for _v, _s, m in ada.messages if m["type"] == "error"]
            assert errors == []


def test_a_too_long_message_gets_a_clear_error_and_the_socket_stays(tmp_path: Path) -> None:
    with TestClient(create_app(f"sqlite:///{tmp_path / 'long.db'}")) as client:
        table_id, _version, token = ada_to_move(client)
        with connect(client, table_id, 0, token) as ada:
            message = {"type": "check", "action": "x" * MAX_MESSAGE}
            answer = ada.answer(message)
            assert answer["type"] == "error" and answer["code"] == "too_large"
            length = len(json.dumps(message, separators=(",", ":")))
            assert answer["message"].startswith(
                f"message too long ({length} characters, at most {MAX_MESSAGE}): send")
            assert ada.answer({"type": "ping"}) == {"type": "pong"}
        with client.websocket_connect(f"/ws/tables/{table_id}") as ws:
            ws.send_text(json.dumps({"type": "hello", "token": "t" * MAX_MESSAGE}))
            assert ws.receive_json()["code"] == "too_large"
            with pytest.raises(WebSocketDisconnect) as closed:
                ws.receive_json()
            assert closed.value.code == 4400


# ------------------------------------------------------------------ table creation
def test_table_creation_is_capped_per_address_when_configured(tmp_path: Path) -> None:
    app = create_app(f"sqlite:///{tmp_path / 'create.db'}", create_limit_per_minute=3)
    body = {"seats": [{"kind": "human", "name": "Ada"}, {"kind": "bot"}]}
    with TestClient(app) as client, TestClient(app, client=("192.0.2.7", 4242)) as other:
        assert [client.post("/api/tables", json=body).status_code for _ in range(3)] == [201] * 3
        answer = client.post("/api/tables", json=body)
        assert answer.status_code == 429
        assert 1 <= int(answer.headers["retry-after"]) <= 20
        assert answer.json()["detail"] == ("too many new tables from your address: at most 3 "
                                           f"per minute; try again in "
                                           f"{answer.headers['retry-after']} s")
        assert len(client.get("/api/tables").json()) == 3  # nothing was created; reads go on
        assert other.post("/api/tables", json=body).status_code == 201  # another address
    documented = app.openapi()["paths"]["/api/tables"]["post"]["responses"]["429"]
    assert "Retry-After" in documented["headers"]


def test_table_creation_is_not_capped_by_default(tmp_path: Path) -> None:
    app = create_app(f"sqlite:///{tmp_path / 'free.db'}")
    body = {"seats": [{"kind": "bot"}, {"kind": "bot"}]}
    with TestClient(app) as client:
        app.state.bots.kick = lambda _table_id: None  # the bots need not play
        assert {client.post("/api/tables", json=body).status_code for _ in range(70)} == {201}


# ------------------------------------------------------------------ a real server
@pytest.fixture
def server(tmp_path: Path) -> Iterator[str]:
    """``noreturn serve`` on SQLite (the default limits, uvicorn's frame limit); its URL."""
    with serving(f"sqlite:///{tmp_path / 'serve.db'}") as base:
        yield base


def new_game(base: str) -> tuple[str, str]:
    """A started game of a person against a fast bot: its WebSocket URL and the token."""
    created = httpx.post(f"{base}/api/tables", json={"seats": SEATS, "rules": SMALL}).json()
    table_id, token = created["table"]["id"], created["seat_links"][0]["token"]
    assert httpx.post(f"{base}/api/tables/{table_id}/start",
                      json={"token": token}).status_code == 200
    return base.replace("http://", "ws://") + f"/ws/tables/{table_id}", token


def flood(url: str, token: str, stop: threading.Event, counts: Counter[str]) -> None:
    """Send stale actions as fast as the socket takes them; reconnect when closed.

    ``counts``: messages sent, answers by error code, closes by code.
    """
    from websockets.exceptions import ConnectionClosed  # noqa: PLC0415
    from websockets.sync.client import connect as ws_connect  # noqa: PLC0415

    junk = json.dumps({"type": "action", "action": "pass", "version": 10**6})
    while not stop.is_set():
        try:
            with ws_connect(url) as ws:
                ws.send(json.dumps({"type": "hello", "token": token}))
                while not stop.is_set():
                    for _ in range(100):
                        ws.send(junk)
                    counts["sent"] += 100
                    while True:  # read what came back, without waiting
                        try:
                            counts[json.loads(ws.recv(timeout=0)).get("code", "other")] += 1
                        except TimeoutError:
                            break
        except ConnectionClosed as exc:
            if exc.rcvd is not None:
                counts[f"closed {exc.rcvd.code}"] += 1
            time.sleep(0.05)


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))]


def round_trips(url: str, token: str, rounds: int) -> tuple[list[float], list[float]]:
    """Seconds from a ping to its pong, and from an action to the state it makes."""
    from websockets.sync.client import connect as ws_connect  # noqa: PLC0415

    pings: list[float] = []
    moves: list[float] = []
    rng = Random(5)
    with ws_connect(url) as ws:
        ws.send(json.dumps({"type": "hello", "token": token}))
        state: dict[str, Any] = {}
        while len(pings) < rounds:
            began = time.monotonic()
            ws.send(json.dumps({"type": "ping"}))
            while (message := json.loads(ws.recv(timeout=30)))["type"] != "pong":
                if message["type"] == "state":
                    state = message
            pings.append(time.monotonic() - began)
            while not state.get("legal") and state.get("status") != "finished":
                message = json.loads(ws.recv(timeout=30))
                assert message["type"] == "state", message
                state = message
            if state["status"] == "finished":
                break
            began = time.monotonic()
            ws.send(json.dumps({"type": "action", "action": rng.choice(state["legal"]),
                                "version": state["version"]}))
            while True:
                message = json.loads(ws.recv(timeout=30))
                assert message["type"] == "state", message
                if message["version"] > state["version"]:
                    state = message
                    break
            moves.append(time.monotonic() - began)
    return pings, moves


@pytest.mark.timing
def test_a_flood_does_not_slow_another_table(server: str) -> None:
    """One client floods its table while a person plays at another one, on one process.

    On this 2-core machine a ping takes about 1 ms alone and a few ms during the flood; a
    move and its state about 5-10 ms (measured); the bounds are far above, only a server
    that reads a flood's messages as if they were a person's would miss them.
    """
    url, token = new_game(server)
    alone_pings, alone_moves = round_trips(url, token, 15)
    flood_url, flood_token = new_game(server)
    stop = threading.Event()
    counts = Counter[str]()
    flooder = threading.Thread(target=flood, args=(flood_url, flood_token, stop, counts),
                               daemon=True)
    flooder.start()
    try:
        time.sleep(0.5)
        pings: list[float] = []
        moves: list[float] = []
        while len(pings) < 30:
            url, token = new_game(server)
            more_pings, more_moves = round_trips(url, token, 30 - len(pings))
            pings += more_pings
            moves += more_moves
    finally:
        stop.set()
        flooder.join(timeout=30)
    report = (f"alone: ping p50 {statistics.median(alone_pings) * 1000:.1f} ms, move p50 "
              f"{statistics.median(alone_moves) * 1000:.1f} ms; during the flood: ping p50 "
              f"{statistics.median(pings) * 1000:.1f} ms, p95 "
              f"{percentile(pings, 0.95) * 1000:.1f} ms; move p50 "
              f"{statistics.median(moves) * 1000:.1f} ms, p95 "
              f"{percentile(moves, 0.95) * 1000:.1f} ms; flood: {dict(counts)}")
    print(report)
    assert percentile(pings, 0.95) < 1.0, report
    assert percentile(moves, 0.95) < 2.0, report
    assert counts["closed 1008"] >= 1, report  # the flooder was cut off (and came back)
    assert counts["stale"] * 4 < counts["sent"], report  # most of the flood was never read


def test_uvicorn_closes_a_giant_frame_with_1009(server: str) -> None:
    from websockets.exceptions import ConnectionClosed  # noqa: PLC0415
    from websockets.sync.client import connect as ws_connect  # noqa: PLC0415

    url, token = new_game(server)
    with ws_connect(url, max_size=None) as ws:
        ws.send(json.dumps({"type": "hello", "token": token}))
        assert json.loads(ws.recv(timeout=10))["type"] == "welcome"
        ws.send(json.dumps({"type": "check", "action": "x" * 20_000}))  # over 4096: an error
        while (message := json.loads(ws.recv(timeout=10)))["type"] == "state":
            pass
        assert message["code"] == "too_large"
        ws.send("x" * (WS_MAX_SIZE + 1))
        with pytest.raises(ConnectionClosed) as closed:
            while True:
                ws.recv(timeout=10)
        assert closed.value.rcvd is not None and closed.value.rcvd.code == 1009
