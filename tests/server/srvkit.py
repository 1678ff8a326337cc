"""Helpers of the server tests: WebSocket players with timeouts, game drivers, the leak scan,
and real ``noreturn serve`` processes."""

from __future__ import annotations

import os
import re
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass, field
from functools import cache
from random import Random
from typing import IO, Any, Protocol

import anyio
import httpx
import pytest
from fastapi.testclient import TestClient
from starlette.websockets import WebSocketDisconnect

from noreturn.bots.viewjson import view_to_json
from noreturn.engine import Action, GameState, View, make_tile, tile_code, view
from noreturn.records import Record, replay_states
from noreturn.server.redisnotices import redis_problem
from noreturn.server.schemas import CreateTable, RulesIn, SeatIn
from noreturn.server.service import TableService

REDIS_URL = os.environ.get("NORETURN_TEST_REDIS_URL", "redis://127.0.0.1:6379/0")
"""The Redis the tests of several processes use (skipped, with the reason, without it)."""


@cache
def _redis_problem() -> str | None:
    return redis_problem(REDIS_URL, timeout=2)


def need_redis() -> None:
    """Skip the calling test, saying why, when ``REDIS_URL`` is unreachable."""
    problem = _redis_problem()
    if problem:
        pytest.skip(f"needs Redis: {problem}")

TIMEOUT = 30.0
TILE = re.compile(r"(?<![A-Za-z0-9_-])[ROYGBP]\d{1,2}(?![A-Za-z0-9_-])")
HIDDEN_VERBS = ("drew", "was dealt", "exchanged", "set aside")


class FakeClock:
    """A clock the test moves by hand (the rate limiters take their clock as an argument)."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


class Weigher:
    """A bot with no budget that thinks at every view, as medium at its switch: a server
    queues its decisions as brief thinking (``botturns.queues_brief``)."""

    name = "weigher"

    def thinks_at(self, _view: View) -> bool:
        return True

    def act(self, _view: View, legal: Sequence[Action], _rng: Random) -> Action:
        return legal[-1]


def receive(ws: Any, timeout: float = TIMEOUT) -> dict[str, Any]:
    """The next message of a TestClient WebSocket, failing after ``timeout`` seconds.

    Raises:
        WebSocketDisconnect: the server closed the socket (``code`` says how).
    """

    async def get() -> Any:
        with anyio.fail_after(timeout):
            return await ws._send_rx.receive()

    message = ws.portal.call(get)
    if message["type"] == "websocket.close":
        raise WebSocketDisconnect(message.get("code", 1000), message.get("reason", ""))
    # A message of another kind is a fault of the server's: show it whole, not a KeyError.
    assert message["type"] == "websocket.send" and "text" in message, (
        f"the server sent a message that is not text: {message!r}")
    import json  # noqa: PLC0415

    return json.loads(message["text"])  # type: ignore[no-any-return]


def pending(ws: Any) -> bool:
    """Whether a message waits on ``ws`` right now."""

    def peek() -> bool:
        return ws._send_rx.statistics().current_buffer_used > 0  # type: ignore[no-any-return]

    return ws.portal.call(peek)  # type: ignore[no-any-return]


def create(client: TestClient, seats: list[dict[str, Any]],
           rules: dict[str, int] | None = None) -> tuple[str, dict[int, str]]:
    """Create a table; its id and each human seat's token."""
    body: dict[str, Any] = {"seats": seats}
    if rules:
        body["rules"] = rules
    answer = client.post("/api/tables", json=body)
    assert answer.status_code == 201, answer.text
    data = answer.json()
    return data["table"]["id"], {link["seat"]: link["token"] for link in data["seat_links"]}


def two_people_playing(service: TableService) -> tuple[str, dict[int, str], str]:
    """A table of two people made, joined and started on ``service`` directly (no app):
    its id, the seats' tokens and the creator's token."""
    made = service.create(CreateTable(seats=[SeatIn(kind="human"), SeatIn(kind="human")],
                                      rules=RulesIn(**SMALL)))
    table_id = made["table"]["id"]
    tokens = {link["seat"]: link["token"] for link in made["seat_links"]}
    service.join(table_id, tokens[1], None)
    service.start(table_id, tokens[0])
    return table_id, tokens, made["creator_token"]


def start(client: TestClient, table_id: str, tokens: dict[int, str]) -> None:
    """Every person joins, the first starts."""
    for token in tokens.values():
        assert client.post(f"/api/tables/{table_id}/join", json={"token": token}).status_code == 200
    answer = client.post(f"/api/tables/{table_id}/start", json={"token": tokens[min(tokens)]})
    assert answer.status_code == 200, answer.text
    assert answer.json()["status"] == "playing"


class StateReader:
    """``next_state`` for any client whose ``next()`` reads one message (``Player`` here,
    the cluster's ``Client``)."""

    def next(self) -> dict[str, Any]:
        """The next message, whatever it is."""
        raise NotImplementedError

    def next_state(self, until: Callable[[dict[str, Any]], bool] = lambda _s: True) -> (
            dict[str, Any]):
        """Read up to the first state that satisfies ``until``; any other message fails."""
        while True:
            message = self.next()
            assert message["type"] == "state", message
            if until(message):
                return message


@dataclass
class Player(StateReader):
    """One WebSocket connection (a seat, or a spectator with ``seat`` None) and all it got.

    ``messages`` keeps every message received with the version of the last state seen
    before it and the text of the last action or check this client sent (what an error or
    a check answer may echo back).
    """

    ws: Any
    seat: int | None
    token: str | None = None
    state: dict[str, Any] = field(default_factory=dict)
    welcome: dict[str, Any] = field(default_factory=dict)
    messages: list[tuple[int, str, dict[str, Any]]] = field(default_factory=list)
    sent: str = ""
    lang: str | None = None
    """The language asked for in the hello (None: not asked, English)."""

    def hello(self) -> None:
        """Say hello; read the welcome and the first state."""
        hello: dict[str, Any] = {"type": "hello"}
        if self.token is not None:
            hello["token"] = self.token
        if self.lang is not None:
            hello["lang"] = self.lang
        self.ws.send_json(hello)
        self.welcome = self.next()
        assert self.welcome["type"] == "welcome", self.welcome
        assert self.welcome["seat"] == self.seat
        self.next_state()

    def send(self, message: dict[str, Any]) -> None:
        """Send a message (an action's or check's text is remembered)."""
        if message.get("type") in ("action", "check"):
            self.sent = str(message.get("action", ""))
        self.ws.send_json(message)

    def next(self) -> dict[str, Any]:
        """The next message, whatever it is."""
        message = receive(self.ws)
        self.messages.append((self.state.get("version", 0), self.sent, message))
        if message["type"] == "state":
            self.state = message
        return message

    def sync(self, version: int) -> dict[str, Any]:
        """Read states until this connection has seen ``version``."""
        if self.state.get("version") == version:
            return self.state
        return self.next_state(lambda s: s["version"] >= version)

    def answer(self, message: dict[str, Any]) -> dict[str, Any]:
        """Send a message and return the first message that is not a state."""
        self.send(message)
        while True:
            got = self.next()
            if got["type"] != "state":
                return got


@contextmanager
def connect(client: TestClient, table_id: str, seat: int | None,
            token: str | None, lang: str | None = None) -> Iterator[Player]:
    """A connected player (hello done, in ``lang`` if given), closed at the end."""
    with client.websocket_connect(f"/ws/tables/{table_id}") as ws:
        player = Player(ws, seat, token, lang=lang)
        player.hello()
        yield player


@contextmanager
def seated(client: TestClient, seats: list[dict[str, Any]], rules: dict[str, int] | None = None,
           ) -> Iterator[tuple[str, dict[int, str], dict[int, Player]]]:
    """A table created and started, every person connected (in seat order), closed at the
    end: its id, each person's token, and the players by seat."""
    table_id, tokens = create(client, seats, rules)
    start(client, table_id, tokens)
    with ExitStack() as stack:
        players = {seat: stack.enter_context(connect(client, table_id, seat, token))
                   for seat, token in sorted(tokens.items())}
        yield table_id, tokens, players


def turn(players: dict[int, Player], state: dict[str, Any]) -> tuple[Player, Player]:
    """In a game of two people: the one ``state`` waits on, and the other."""
    mover = players[state["view"]["to_move"]]
    (other,) = (p for p in players.values() if p is not mover)
    return mover, other


SMALL = {"colors": 3, "max_value": 6, "copies": 2, "hand_size": 5, "exchange_limit": 3}
"""A small variant's rules (docs/rules.md, "Size parameters"), as the API takes them: short
games for the server's tests."""


def newer_than(version: int) -> Callable[[dict[str, Any]], bool]:
    """For ``next_state``: a state later than ``version`` (the one a move was sent at)."""
    return lambda state: bool(state["version"] > version)


class Answer(Protocol):
    """An HTTP answer as ``httpx`` and Starlette's test client give it: the test client
    may use another package of the same API (``httpx2``), so tests name neither."""

    @property
    def status_code(self) -> int: ...

    @property
    def text(self) -> str: ...

    @property
    def headers(self) -> Mapping[str, str]: ...

    def json(self, **kwargs: Any) -> Any:
        """The body read as JSON."""
        ...


class Reader(Protocol):
    """A client that keeps the last state it read (``Player`` here, the cluster's ``Client``)."""

    state: dict[str, Any]

    def next_state(self) -> dict[str, Any]:
        """Read until the next state; return it."""
        ...


def settle(player: Reader, humans: set[int]) -> dict[str, Any]:
    """Read ``player``'s states until the game waits on a person (or is over)."""
    while True:
        state = player.state
        if state["status"] == "finished" or (
                state["status"] == "playing" and state["view"]["to_move"] in humans):
            return state
        player.next_state()


def play(players: dict[int, Player], rng: Random, moves: int = 10_000,
         before: Callable[[Player, dict[int, Player]], None] | None = None) -> dict[str, Any]:
    """People play random legal actions (bots move on the server) for up to ``moves``
    actions or to the end; every connection is then brought to the same version.

    ``before(mover, players)`` runs on each person's turn, before the action.
    """
    humans = set(players)
    state = settle(next(iter(players.values())), humans)
    made = 0
    while state["status"] != "finished" and made < moves:
        mover = players[state["view"]["to_move"]]
        mover.sync(state["version"])
        assert mover.state["legal"], mover.state
        if before is not None:
            before(mover, players)
        action = rng.choice(mover.state["legal"])
        mover.send({"type": "action", "action": action, "version": state["version"]})
        old = state["version"]
        mover.next_state(newer_than(old))
        state = settle(mover, humans)
        made += 1
    for player in players.values():
        player.sync(state["version"])
    return state


# ------------------------------------------------------------------------ leak scan
def states_by_version(record: Record) -> dict[int, GameState]:
    """The true game at each state version, replayed from the finished game's record.

    Version v is the game after v actions (declarations included) and their draws.
    """
    states: dict[int, GameState] = {}
    version = 0
    for step in replay_states(record):
        if step.event["type"] not in ("deal", "draw"):
            version += 1
        states[version] = step.state.clone()
    return states


def seen_now(state: GameState, seat: int | None) -> set[str]:
    """Tile codes ``seat`` sees in ``state``: public tiles, and its own hand and removals."""
    codes: set[str] = set()
    for rows, pile, paid in zip(state.rows, state.piles, state.paid, strict=True):
        for colour, row in enumerate(rows):
            codes |= {tile_code(make_tile(colour, v)) for v in row}
        codes |= {tile_code(t) for t in [*pile, *paid]}
    if seat is not None:
        own = [*state.hands[seat], *state.exchanged[seat], *(state.mulligan_tiles[seat] or [])]
        codes |= {tile_code(t) for t in own}
    return codes


def knowledge(states: dict[int, GameState], seat: int | None) -> dict[int, set[str]]:
    """For each version, every tile code ``seat`` has seen up to then (it may be told)."""
    known: dict[int, set[str]] = {}
    so_far: set[str] = set()
    for version in sorted(states):
        so_far = so_far | seen_now(states[version], seat)
        known[version] = so_far
    return known


def strings(obj: Any, skip: frozenset[str] = frozenset()) -> Iterator[str]:
    """Every string in a JSON value (keys too), except the values in ``skip``."""
    if isinstance(obj, str):
        if obj not in skip:
            yield obj
    elif isinstance(obj, dict):
        for key, value in obj.items():
            yield key
            yield from strings(value, skip)
    elif isinstance(obj, list):
        for item in obj:
            yield from strings(item, skip)


def scan(player: Player, states: dict[int, GameState], names: list[str],
         skip: frozenset[str] = frozenset()) -> list[str]:
    """Every leak in what ``player`` received; [] when none.

    - A state's view must be exactly ``view(true state, seat)`` at its version, and its tile
  tracker (``unseen``, tile codes by design) exactly that view's ``unseen()``.
    - Every tile code anywhere in a message must be one the seat had seen by then (or, in
      an error or a check answer, one it sent itself). With one copy of each tile a code
      is one physical tile, so this is exact; with two copies it is a necessary condition.
    - A log line telling another seat's draw, deal, exchange or set-aside gives a count.
    """
    known = knowledge(states, player.seat)
    last = max(states)
    problems: list[str] = []
    for before, sent, received in player.messages:
        message = dict(received)
        version = message["version"] if message["type"] == "state" else before
        allowed = set(known[min(version, last)])
        if message["type"] == "state" and message["view"] is not None:
            # The tile tracker names unseen tiles by design: it must be the view's count.
            unseen = message.pop("unseen")
            expected_unseen = view(states[version], player.seat).unseen()
            if unseen != {tile_code(t): n for t, n in expected_unseen.items() if n > 0}:
                problems.append(f"seat {player.seat} v{version}: unseen is not the view's")
        if message["type"] in ("error", "check"):
            allowed |= set(TILE.findall(sent))
        for text in strings(message, skip):
            for code in TILE.findall(text):
                if code not in allowed:
                    problems.append(f"seat {player.seat} v{version} {message['type']}: {code} "
                                    f"in {text!r}")
        if message["type"] == "state" and message["view"] is not None:
            expected = view_to_json(view(states[version], player.seat))
            if message["view"] != expected:
                problems.append(f"seat {player.seat} v{version}: view differs from the gate's")
        if message["type"] == "state":
            problems += log_problems(message["log"], names, player.seat)
    return problems


def log_problems(lines: list[str], names: list[str], seat: int | None) -> list[str]:
    """Log lines that name tiles of another seat's hidden draws, exchanges or set-asides."""
    problems = []
    for line in lines:
        for other, name in enumerate(names):
            if other == seat or not line.startswith(name + " "):
                continue
            for verb in HIDDEN_VERBS:
                for match in re.finditer(rf"\b{verb} (\S+)", line):
                    if not match.group(1).isdigit():
                        problems.append(f"seat {seat}: {line!r} shows {name}'s tiles")
    return problems


# ------------------------------------------------------------------ real server processes
def free_port() -> int:
    """A TCP port free on the loopback interface now."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def spawn_serve(port: int, db_url: str, *options: str,
                output: int | IO[str] = subprocess.DEVNULL,
                errors: int | IO[str] = subprocess.STDOUT) -> subprocess.Popen[str]:
    """``noreturn serve`` on ``port`` with no bot delay, as a child process (its stderr
    goes with its stdout unless ``errors`` says otherwise). It reviews no finished game
    unless ``options`` give ``--review-playouts``: the tests that finish many games
    measure play, and a review child per game would only load the machine."""
    if "--review-playouts" not in options:
        options = (*options, "--review-playouts", "0")
    return subprocess.Popen(
        [sys.executable, "-m", "noreturn", "serve", "--port", str(port), "--bot-delay", "0",
         "--db", db_url, *options],
        stdout=output, stderr=errors, text=True)


def wait_serving(base: str, process: subprocess.Popen[str], seconds: float = 30.0) -> None:
    """Wait until the server at ``base`` answers HTTP.

    Raises:
        httpx.TransportError: it did not within ``seconds``, or the process ended.
    """
    deadline = time.monotonic() + seconds
    while True:
        try:
            httpx.get(f"{base}/api/tables", timeout=2)
            return
        except httpx.TransportError:
            if time.monotonic() > deadline or process.poll() is not None:
                raise
            time.sleep(0.1)


def stop_process(process: subprocess.Popen[str]) -> None:
    """Terminate ``process`` and reap it (killed if it does not stop in 10 s)."""
    if process.poll() is not None:
        return
    process.terminate()
    try:
        process.wait(timeout=10)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()


@contextmanager
def serving(db_url: str, *options: str) -> Iterator[str]:
    """A ``noreturn serve`` process (``spawn_serve``) on ``db_url``, stopped at the end;
    its base URL once it answers."""
    port = free_port()
    process = spawn_serve(port, db_url, *options)
    base = f"http://127.0.0.1:{port}"
    try:
        wait_serving(base, process)
        yield base
    finally:
        stop_process(process)
