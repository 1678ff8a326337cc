"""The web app: HTTP API, WebSocket play channel and the browser front end's files.

``create_app(db_url)`` migrates the database and returns a FastAPI app; ``noreturn serve``
runs it on uvicorn. The contract is docs/server-protocol.md. The table logic is the
``TableService``'s (synchronous, thread-safe); here every call into it runs in a worker
thread, so the event loop never waits on the database or on a thinking bot.

A change to a table (a move, a join, a start, a bot's move) is followed by a notice through
the broadcaster; every connection of that table then builds its own ``state`` message from
its own seat's view. Bots move here, on the server: one ``BotRunner`` task per table with a
bot to move, one move at a time, a notice after each (with no bot delay, a run of fast bot
moves in one transaction, one notice after them).
"""

from __future__ import annotations

import asyncio
import gc
import json
import logging
import weakref
from collections.abc import AsyncIterator, Callable, Iterator
from contextlib import asynccontextmanager, contextmanager
from functools import partial
from pathlib import Path
from typing import Annotated, Any, TypeVar

import anyio
import orjson
from fastapi import APIRouter, FastAPI, Query, Request, WebSocket, WebSocketDisconnect
from fastapi.responses import FileResponse, JSONResponse
from fastapi.staticfiles import StaticFiles

from noreturn import __version__
from noreturn.server.advice import switch_message
from noreturn.server.broadcast import (
    Broadcaster,
    BroadcastError,
    LocalBroadcaster,
    RedisBroadcaster,
    redis_problem,
)
from noreturn.server.db import DB_POOL_SIZE, default_db_url, url_backend
from noreturn.server.dbfaults import (
    RETRY_AFTER_SECONDS,
    UnavailableError,
    install_fault_handlers,
    storage_faults,
)
from noreturn.server.dbstart import open_database
from noreturn.server.hardening import harden
from noreturn.server.lifecycle import (
    IDLE_HOURS,
    LOBBY_HOURS,
    SWEEP_SECONDS,
    close_table,
    sweep_forever,
)
from noreturn.server.limits import (
    CLOSE_FLOODING,
    CREATE_LIMIT,
    CREATE_LIMITED,
    SEAT_LIMIT,
    SEAT_LIMITED,
    AddressLimiter,
    MessageLimiter,
    MessageLimits,
    Verdict,
    check_depth,
    check_size,
)
from noreturn.server.schemas import (
    Created,
    CreateTable,
    ErrorOut,
    JoinBody,
    Replay,
    Table,
    TableStatus,
    TokenBody,
)
from noreturn.server.service import (
    BadRequestError,
    ConflictError,
    ForbiddenError,
    NotFoundError,
    ServiceError,
    TableService,
)
from noreturn.server.wsguard import (
    CLOSE_TRY_LATER,
    SocketGuard,
    client_of,
    frame_text,
    quiet_invalid_utf8,
)

STATIC = Path(__file__).with_name("static")
HELLO_SECONDS = 60.0
MESSAGE_LIMITS = MessageLimits()
"""The default per-connection limits (docs/server-protocol.md, "Limits")."""
TAKEOVER_SECONDS = 10.0
"""A game in progress unchanged this long while a bot is to move is taken over (its
bot runner's process died): every process looks for such games (``BotRunner.sweep``)."""
FULL_COLLECTION_EVERY = 100
"""Collections of the garbage collector's middle generation between two full ones (the
interpreter's default: 10); see ``collector_for_serving``."""
YOUNG_COLLECTION_AFTER = 10_000
"""New container objects between two collections of the youngest generation (the
interpreter's default: 700); see ``collector_for_serving``."""
CLOSE_BAD_TOKEN = 4403
CLOSE_NOT_FOUND = 4404
CLOSE_MALFORMED = 4400
CLOSE_TRY_AGAIN = 1013
"""The WebSocket close code "try again later": the database is unavailable at the hello."""

log = logging.getLogger("noreturn.server")
T = TypeVar("T")

ERRORS: dict[int | str, dict[str, Any]] = {
    400: {"model": ErrorOut, "description": "malformed: the detail says what to fix"},
    403: {"model": ErrorOut, "description": "wrong or missing seat token"},
    404: {"model": ErrorOut, "description": "no such table"},
    409: {"model": ErrorOut, "description": "not now (wrong stage of the table)"},
}
SEAT_ANSWERS: dict[int | str, dict[str, Any]] = {
    **{k: ERRORS[k] for k in (400, 403, 404, 409)}, **SEAT_LIMITED}
"""The documented answers of join, start, leave and close."""


WORKERS = DB_POOL_SIZE
"""Service calls (database work) running at once per process, each in a worker thread.

A few threads keep the cores busy while one waits on the database; anyio's default of 40
made them fight over the connection pool and the GIL (a connection each, and a context
switch on every hand-over), which cost more than it overlapped. The pool holds as many
connections (db.DB_POOL_SIZE)."""
THINKERS = 1
"""Slow bot decisions (bots with a ``Budget``: about a second each, at most
``service.MAX_BOT_SECONDS``) running at once per process, in their own threads, so they never
hold up the service calls. They wait in turn (anyio's limiter is first come, first served), one
decision per table at a time: the tables with a slow bot to move take turns. One: the decisions
share one interpreter lock, so more threads add no moves per second, only contention for the
event loop (measured with 12 tables of expert bots beside 30 of fast ones: a bystander's ping p99
100 ms with two thinkers, 65-73 ms with one; 229 ms with the former four)."""
BOT_LANES = 2
"""Bot steps (service calls: a fast bot's move or run of moves, a slow one's storing)
running at once per process. Fewer than ``WORKERS``, so people's requests always find a
worker however many tables of bots play; first come, first served, and each table's
runner queues again after each step, so the tables with a bot to move take turns, one
step each."""
_limiters: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, tuple[
    anyio.CapacityLimiter, anyio.CapacityLimiter]] = weakref.WeakKeyDictionary()


def _limiter(thinking: bool = False) -> anyio.CapacityLimiter:
    """This event loop's limiter of service calls (or of bot decisions)."""
    loop = asyncio.get_running_loop()
    pair = _limiters.get(loop)
    if pair is None:
        pair = _limiters[loop] = (anyio.CapacityLimiter(WORKERS),
                                  anyio.CapacityLimiter(THINKERS))
    return pair[1] if thinking else pair[0]


async def run(call: Callable[..., T], *args: Any) -> T:
    """``call(*args)`` in a worker thread (database work), at most ``WORKERS`` at once.

    Raises:
        UnavailableError: the database failed (a ``ServiceError``: HTTP answers 503, the
            WebSocket an ``unavailable`` error; see dbfaults.py).
    """
    with storage_faults():
        return await anyio.to_thread.run_sync(partial(call, *args), limiter=_limiter())


async def think(call: Callable[[], T]) -> T:
    """A slow bot's decision in a worker thread, at most ``THINKERS`` at once."""
    return await anyio.to_thread.run_sync(call, limiter=_limiter(thinking=True))


class BotRunner:
    """Lets the bots of each table move, in worker threads: one move per ``delay`` so people
    can follow, or, with no delay, each run of consecutive fast bot moves in one transaction
    and one notice (``TableService.bot_turn(run_on=True)``).

    ``kick(table_id)`` after any change: a table's runner task plays bot moves while a bot
    is to move and stops when a person is (or the game is over). A kick while the task runs
    makes it look once more before it stops, so no kick is lost.

    With several processes, two runners may drive one table (a client connected to each):
    the database takes one move per version, the other is ``stale`` and its runner simply
    looks again. ``sweep`` restarts the bots of a table whose runner's process died.
    """

    def __init__(self, service: TableService, hub: Broadcaster, delay: float = 0.0) -> None:
        self.service = service
        self.hub = hub
        self.delay = delay
        self._tasks: dict[str, asyncio.Task[None]] = {}
        self._again: set[str] = set()
        self._lanes: anyio.CapacityLimiter | None = None

    def _lane(self) -> anyio.CapacityLimiter:
        """The limiter of bot steps (``BOT_LANES``), made in the running event loop."""
        if self._lanes is None:
            self._lanes = anyio.CapacityLimiter(BOT_LANES)
        return self._lanes

    async def _step(self, table_id: str) -> int | None:
        """One step of the table's bots: a fast bot's move (or run of moves, with no
        delay), or a slow bot's decision (thinking in its own queue, ``think``) stored;
        the new version, or None if no bot was to move. Each service call waits for a
        bot lane, in turn with the other tables' runners."""
        async with self._lane():
            turn = await run(self.service.bot_turn, table_id, not self.delay)
        if callable(turn):  # a slow bot: it thinks outside the lock and the lanes
            move = await think(turn)
            async with self._lane():
                turn = await run(self.service.bot_apply, table_id, move)
        return turn

    def kick(self, table_id: str) -> None:
        """Make sure the bots of ``table_id`` move if one is to move."""
        if table_id in self._tasks:
            self._again.add(table_id)
            return
        self._tasks[table_id] = asyncio.get_running_loop().create_task(self._drive(table_id))

    async def _drive(self, table_id: str) -> None:
        try:
            while True:
                self._again.discard(table_id)
                if self.delay:
                    await asyncio.sleep(self.delay)
                try:
                    moved = await self._step(table_id)
                except ServiceError as exc:
                    if exc.code == "stale":
                        continue  # another writer moved first: look at the game again
                    moved = None
                except Exception:  # a broken table must not take the server down
                    log.exception("bot move at table %s failed", table_id)
                    moved = None
                if moved is not None:
                    await self.hub.publish(table_id, moved)
                    continue
                if table_id not in self._again:
                    break
        finally:
            self._tasks.pop(table_id, None)
            self._again.discard(table_id)

    async def sweep(self, every: float, idle: float) -> None:
        """Every ``every`` seconds, kick the games that have waited on a bot for ``idle``
        seconds or more: their runner's process died (or its runner failed).

        Nothing else would move them when no client connects to this process for them (a
        table of bots only, or clients that reconnected elsewhere before the crash). A
        runner alive elsewhere moves well within ``idle``; if it is slower, the two
        runners race and the database keeps one move.
        """
        while True:
            await asyncio.sleep(every)
            try:
                stalled = await run(self.service.stalled_games, idle)
            except UnavailableError:  # the database is away (logged): try again later
                continue
            except Exception:
                log.exception("looking for games waiting on a bot failed")
                continue
            for table_id in stalled:
                if table_id not in self._tasks:
                    log.info("table %s waited on a bot for %g s: this process moves it",
                             table_id, idle)
                    self.kick(table_id)

    def busy(self) -> bool:
        """Whether a bot is thinking or about to (for tests)."""
        return bool(self._tasks)

    async def stop(self) -> None:
        """Cancel every runner (a decision in a thread finishes first)."""
        tasks = list(self._tasks.values())
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)


class Connection:
    """One WebSocket client: its seat (None: a spectator) and serialized sends."""

    def __init__(self, ws: WebSocket, table_id: str) -> None:
        self.ws = ws
        self.table_id = table_id
        self.seat: int | None = None
        self.token_hash: str | None = None
        self._send_lock = asyncio.Lock()
        self._last_state = ""
        self._last_version = -1
        self.switch_answer: tuple[int, dict[str, Any]] | None = None
        """The last switch advice sent and the version it is for: asked again at that
        version, it is sent again, not weighed again (a client cannot make the server
        weigh one turn twice)."""

    async def send(self, message: dict[str, Any]) -> None:
        """Send one JSON message (sends from the reader and the pusher never interleave)."""
        async with self._send_lock:
            await self.ws.send_text(encode(message))

    async def error(self, code: str, message: str) -> None:
        """An error to this client only."""
        await self.send({"type": "error", "code": code, "message": message})

    async def push_state(self, service: TableService, moved_to: int | None = None) -> bool:
        """Send this seat's current state unless it is what was sent last.

        ``moved_to``: the notice was of a move to that version (None: any change). If this
        connection sent that version or a later one already, there is nothing to send (a
        move makes one version only: the state sent holds it).

        Returns False when the seat's token no longer holds it: the client was told and the
        socket closed.
        """
        if moved_to is not None and self._last_version >= moved_to:
            return True
        try:
            message = None if moved_to is None else service.held_state(
                self.table_id, self.seat, self.token_hash, moved_to)
            if message is None:
                message = await run(service.state_message, self.table_id, self.seat,
                                    self.token_hash, moved_to)
        except ForbiddenError as exc:
            await self.error("bad_token", exc.message)
            await self.ws.close(CLOSE_BAD_TOKEN, "bad token")
            return False
        await self.send_state(message)
        return True

    async def send_state(self, message: dict[str, Any]) -> None:
        """Send a state message unless it is the one sent last."""
        text = encode(message)
        async with self._send_lock:
            if text != self._last_state:
                self._last_state = text
                self._last_version = int(message["version"])
                await self.ws.send_text(text)


def encode(message: dict[str, Any]) -> str:
    """A server message as JSON text.

    orjson writes a state message (some 6 KB: the mover's legal actions, the view, the log)
    in a tenth of the time of the standard library (measured: 5 against 57 µs), and the
    server writes one for every connection at every move. What orjson refuses (a lone
    surrogate from a client's text, echoed in an error or a check answer) the standard
    library writes escaped, as before.
    """
    try:
        return orjson.dumps(message).decode()
    except TypeError:
        return json.dumps(message)


def parse_message(text: str) -> dict[str, Any]:
    """A client message as a dict with a ``type``.

    Raises:
        BadRequestError: not JSON, not an object or without a string ``type``;
            ``TooLargeError`` (code ``too_large``) over MAX_MESSAGE characters; nested
            deeper than MAX_DEPTH (checked before parsing: a parser recurses per level).
    """
    check_size(text)
    check_depth(text)
    try:
        data = json.loads(text)
    except ValueError as exc:
        raise BadRequestError(f"not JSON ({exc.args[0] if exc.args else exc}): send an object "
                         'such as {"type": "ping"}') from exc
    if not isinstance(data, dict) or not isinstance(data.get("type"), str):
        raise BadRequestError('a message is a JSON object with a "type": hello, action, check, '
                         "hint, switch or ping")
    return data


def field(data: dict[str, Any], key: str, kind: type) -> Any:
    """``data[key]`` if it is a ``kind`` (bool is not an int here).

    Raises:
        BadRequestError: missing or of another type.
    """
    value = data.get(key)
    if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
        name = {str: "a string", int: "a whole number"}.get(kind, kind.__name__)
        example = {"action": '"place R5 R2"', "version": "12"}.get(key, "...")
        raise BadRequestError(f'"{data["type"]}" needs "{key}": {name}, e.g. "{key}": {example}')
    return value


class PlayChannel:
    """The WebSocket ``/ws/tables/{id}``: hello, then states out and messages in."""

    def __init__(self, service: TableService, hub: Broadcaster, bots: BotRunner,
                 limits: MessageLimits | None = None, guard: SocketGuard | None = None,
                 ) -> None:
        """``limits``: the per-connection message limits (None: none, for tests);
        ``guard``: the per-address socket limits (None: none)."""
        self.service = service
        self.hub = hub
        self.bots = bots
        self.limits = limits
        self.guard = guard or SocketGuard()

    async def __call__(self, ws: WebSocket, table_id: str) -> None:
        """Serve one connection until the client goes away (or refuse it: wsguard.py)."""
        await ws.accept()
        conn = Connection(ws, table_id)
        client = client_of(ws)
        try:
            refusal = self.guard.admit(client)
            if refusal is not None:
                await conn.error(refusal.code, refusal.message)
                await ws.close(CLOSE_TRY_LATER, refusal.reason)
                return
            try:
                if not await self.serve(conn):
                    self.guard.failed(client)
            finally:
                self.guard.release(client)
        except WebSocketDisconnect:
            pass

    async def serve(self, conn: Connection) -> bool:
        """Hello, welcome, then play until the client goes away; False: the hello failed
        (malformed, late, a wrong token or no such table)."""
        said, token = await self.hello(conn)
        if not said:
            return False
        async with self.hub.subscribe(conn.table_id) as sub:
            # read after subscribing: a change from now on comes as a notice
            if not await self.welcome(conn, token):
                return False
            async with anyio.create_task_group() as group:
                group.start_soon(self.pusher, conn, sub.wait, group.cancel_scope)
                await self.reader(conn)
                group.cancel_scope.cancel()
        return True

    @staticmethod
    async def hello(conn: Connection) -> tuple[bool, str | None]:
        """Read the hello: whether it is one (False: refused and closed), and its token
        (None: a spectator). The token is checked by the welcome."""
        try:
            frame = await asyncio.wait_for(conn.ws.receive(), HELLO_SECONDS)
            if frame["type"] == "websocket.disconnect":
                raise WebSocketDisconnect(frame.get("code", 1000))
            data = parse_message(frame_text(frame))
            if data["type"] != "hello":
                raise BadRequestError('say hello first: {"type": "hello", "token": "..."} '
                                      'for a seat, {"type": "hello"} to watch')
            token = field(data, "token", str) if "token" in data else None
        except (TimeoutError, BadRequestError) as exc:
            message = exc.message if isinstance(exc, BadRequestError) else "no hello in time"
            await conn.error(exc.code if isinstance(exc, BadRequestError) else "malformed",
                             message)
            await conn.ws.close(CLOSE_MALFORMED, "malformed hello")
            return False, None
        return True, token

    @staticmethod
    async def refuse(conn: Connection,
                     exc: NotFoundError | ForbiddenError | UnavailableError) -> None:
        """Close a connection whose table is gone or whose token holds no seat, or that
        came while the database is unavailable (told so: it may try again)."""
        if isinstance(exc, NotFoundError):
            await conn.ws.close(CLOSE_NOT_FOUND, "no such table")
            return
        if isinstance(exc, UnavailableError):
            await conn.error(exc.code, exc.message)
            await conn.ws.close(CLOSE_TRY_AGAIN, "database unavailable")
            return
        await conn.error("bad_token", exc.message)
        await conn.ws.close(CLOSE_BAD_TOKEN, "bad token")

    async def welcome(self, conn: Connection, token: str | None) -> bool:
        """Seat the connection (``token``'s seat; None: a spectator) and send the welcome
        and the first state, all from one call. False: no such table, or the token holds
        no seat (the client was told, the socket closed)."""
        try:
            welcome = await run(self.service.welcome, conn.table_id, token)
        except (NotFoundError, ForbiddenError, UnavailableError) as exc:
            await self.refuse(conn, exc)
            return False
        conn.seat, conn.token_hash = welcome.seat, welcome.token_hash
        await conn.send({"type": "welcome", "seat": conn.seat, "table": welcome.table})
        await conn.send_state(welcome.state)
        if welcome.bot_due:  # the game waits on a bot (after a restart, say): let it move
            self.bots.kick(conn.table_id)
        return True

    async def pusher(self, conn: Connection, wait: Callable[[], Any],
                     scope: anyio.CancelScope) -> None:
        """Send a new state after each notice; stop when the seat was withdrawn."""
        while True:
            moved_to = await wait()
            try:
                if not await self.push(conn, moved_to):
                    break
            except Exception:  # the client is gone (a send on a closed socket)
                break
        scope.cancel()

    async def push(self, conn: Connection, moved_to: int | None) -> bool:
        """``conn.push_state``, tried again every ``RETRY_AFTER_SECONDS`` while the
        database is unavailable (the client is told once), so no state is lost to it."""
        told = False
        while True:
            try:
                return await conn.push_state(self.service, moved_to)
            except UnavailableError as exc:
                if not told:
                    await conn.error(exc.code, exc.message)
                    told = True
                await asyncio.sleep(RETRY_AFTER_SECONDS)

    async def reader(self, conn: Connection) -> None:
        """Answer the client's messages until it goes away.

        A message over the rate limit is dropped before it is parsed (limits.py), so a
        flood costs no database work; the client hears of it at most once a second, and
        one that keeps flooding is disconnected.
        """
        limiter = MessageLimiter(self.limits) if self.limits else None
        while True:
            try:
                message = await conn.ws.receive()
            except RuntimeError:
                return  # closed
            if message["type"] == "websocket.disconnect":
                return
            if limiter is not None:
                verdict = limiter.admit()
                if verdict is Verdict.CLOSE:
                    log.warning("table %s: closing a flooding connection from %s", conn.table_id,
                                conn.ws.client.host if conn.ws.client else "?")
                    await conn.ws.close(CLOSE_FLOODING, limiter.close_reason())
                    return
                if verdict is not Verdict.ACCEPT:
                    if verdict is Verdict.WARN:
                        await conn.error("rate_limited", limiter.warning())
                    continue
            try:
                await self.answer(conn, parse_message(frame_text(message)))
            except ServiceError as exc:
                await conn.error(exc.code, exc.message)
                if isinstance(exc, ForbiddenError):
                    await conn.ws.close(CLOSE_BAD_TOKEN, "bad token")
                    return
            except Exception:
                log.exception("table %s: answering a message failed", conn.table_id)
                await conn.ws.close(1011, "server error")
                return

    async def answer(self, conn: Connection, data: dict[str, Any]) -> None:
        """Answer one parsed message (errors raise ``ServiceError``)."""
        kind, table_id = data["type"], conn.table_id
        if kind == "ping":
            await conn.send({"type": "pong"})
        elif kind in ("check", "hint", "switch") and conn.seat is None:  # without a lookup
            raise ConflictError("spectators can't check actions or ask for hints: open your "
                                "seat link to play", "spectator")
        elif kind == "action":
            text, version = field(data, "action", str), field(data, "version", int)
            acted = await run(self.service.act, table_id, conn.seat, text, version,
                              not self.bots.delay)
            await self.hub.publish(table_id, acted.version)
            if acted.bot_due:
                self.bots.kick(table_id)
        elif kind == "check":
            text = field(data, "action", str)
            legal, reason = await run(self.service.check, table_id, conn.seat, text)
            await conn.send({"type": "check", "action": text, "legal": legal,
                             "reason": reason})
        elif kind == "hint":
            action, reason = await run(self.service.hint, table_id, conn.seat)
            await conn.send({"type": "hint", "action": action, "reason": reason})
        elif kind == "switch":  # the turn checked and the view taken, then the CPU work
            version, job = await run(self.service.switch_job, table_id, conn.seat)
            if conn.switch_answer is None or conn.switch_answer[0] != version:
                conn.switch_answer = (version, switch_message(await think(job)))
            await conn.send(conn.switch_answer[1])
        elif kind == "hello":
            raise BadRequestError("already said hello: open a new connection for another seat")
        else:
            raise BadRequestError(f"unknown message type {kind[:40]!r}: use action, check, "
                                  "hint, switch or ping")


@contextmanager
def collector_for_serving() -> Iterator[None]:
    """The garbage collector set for a long-running server, put back as it was after.

    What exists at startup (the imported libraries: some hundred thousand objects) lives as
    long as the process: frozen, out of the collector's sight, a full collection no longer
    scans it. Under load (benchmarks/load.py) full collections paused every request for
    100-200 ms before, 25-110 ms after (the connections and games remain).

    Those remain because a full collection scans every live object: some 280 per WebSocket
    connection (the server stack's tasks, coroutines, queues), 70,000 with 250 people,
    50-100 ms on a slow machine. By default one comes every 10 collections of the middle
    generation (every 20-30 s under load); after ``FULL_COLLECTION_EVERY`` (every few
    minutes) the same pause reaches a tenth as many requests, while the young collections,
    which free most cyclic garbage, still run.

    Those come after ``YOUNG_COLLECTION_AFTER`` new objects instead of 700: a move makes
    some 170 actions for each legal list, so the young generation was collected several
    times a move, and the middle one (3-4 ms a pause here) every few moves. Measured in a
    30-s load run: 700 young and 64 middle collections, 0.46 s in all, against 288 and 26,
    0.22 s (most of what a young collection finds is gone by the time it looks).
    """
    young, middle, full = gc.get_threshold()
    gc.collect()
    gc.freeze()
    gc.set_threshold(YOUNG_COLLECTION_AFTER, middle, FULL_COLLECTION_EVERY)
    try:
        yield
    finally:
        gc.set_threshold(young, middle, full)
        gc.unfreeze()


def create_app(db_url: str | None = None, *, bot_delay: float = 0.0,
               broadcaster: Broadcaster | None = None, static_dir: Path = STATIC,
               message_limits: MessageLimits | None = MESSAGE_LIMITS,
               create_limit_per_minute: int | None = None, redis_url: str | None = None,
               takeover_after: float = TAKEOVER_SECONDS,
               lobby_after: float = LOBBY_HOURS * 3600, idle_after: float = IDLE_HOURS * 3600,
               sweep_every: float | None = None,
               seat_limit_per_minute: int | None = None, sockets_per_address: int | None = None,
               failed_hellos_per_minute: int | None = None) -> FastAPI:
    """The server for the database at ``db_url`` (default: SQLite under XDG data).

    The database is checked now: connected, migrated to the newest revision and tried
    with a write (``dbstart.open_database``). ``bot_delay`` seconds pass before
    each bot move (so people can follow); ``broadcaster`` defaults to the in-process one.
    ``message_limits`` bound what one WebSocket may send (None: no limit);
    ``create_limit_per_minute`` bounds the tables one address creates, and
    ``seat_limit_per_minute`` its joins, starts, leaves and closes together (None: no
    limit);
    ``sockets_per_address`` bounds the WebSockets one address holds open, and
    ``failed_hellos_per_minute`` its refused hellos (None: no limit; wsguard.py).

    ``redis_url``: notices go through Redis (``RedisBroadcaster``), so several processes
    can serve one PostgreSQL database (docs/deploy.md). ``takeover_after``: seconds a game
    may wait on a bot before this process moves it (see ``BotRunner.sweep``).
    ``lobby_after`` and ``idle_after``: seconds a table may stay unchanged in the lobby or
    in play before the sweep (every ``sweep_every`` seconds; default: a quarter of the
    shorter, at most ``SWEEP_SECONDS``) abandons it (lifecycle.py).

    Raises:
        ValueError: a database that cannot be used (``DatabaseSetupError``: one line that
            names the fix), or SQLite with Redis.
        BroadcastError: Redis is unreachable (or the URL is not a Redis URL).
    """
    url = db_url or default_db_url()
    if redis_url is not None:  # refused before the database is touched (or created)
        if url_backend(url) == "sqlite":
            raise ValueError("several processes need PostgreSQL: --db "
                             "postgresql://USER@HOST/DB (SQLite serves one process: leave "
                             "--redis out)")
        problem = redis_problem(redis_url)
        if problem:
            raise BroadcastError(problem)
    engine = open_database(url)
    service = TableService(engine)
    hub: Broadcaster = broadcaster or (RedisBroadcaster(redis_url) if redis_url is not None
                                       else LocalBroadcaster())
    bots = BotRunner(service, hub, bot_delay)
    every = sweep_every or min(SWEEP_SECONDS, min(lobby_after, idle_after) / 4)

    @asynccontextmanager
    async def lifespan(_app: FastAPI) -> AsyncIterator[None]:
        if isinstance(hub, RedisBroadcaster):
            await hub.start()
        try:
            for table_id in await run(service.playing_tables):
                bots.kick(table_id)  # games waiting on a bot when the server stopped
        except UnavailableError:  # logged; the sweep finds them once the database is back
            pass
        loop = asyncio.get_running_loop()
        sweepers = [loop.create_task(bots.sweep(max(0.2, takeover_after / 4), takeover_after)),
                    loop.create_task(sweep_forever(service, hub, run, every,
                                                   lobby_after, idle_after))]
        with collector_for_serving():
            yield
        for sweeper in sweepers:
            sweeper.cancel()
        await asyncio.gather(*sweepers, return_exceptions=True)
        await bots.stop()
        if isinstance(hub, RedisBroadcaster):
            await hub.close()
        engine.dispose()

    app = FastAPI(
        title="noreturn",
        version=__version__,
        summary="Online tables for No Return: lobby, seats, records and replays.",
        description="Play happens over the WebSocket `/ws/tables/{id}`; see "
                    "docs/server-protocol.md for its messages.",
        lifespan=lifespan,
        docs_url=None,  # Swagger UI and ReDoc load from an outside CDN: /openapi.json stays
        redoc_url=None,
    )
    app.state.service = service
    app.state.broadcaster = hub
    app.state.bots = bots
    app.state.create_limiter = (AddressLimiter(create_limit_per_minute)
                                if create_limit_per_minute else None)
    app.state.seat_limiter = (AddressLimiter(seat_limit_per_minute)
                              if seat_limit_per_minute else None)
    harden(app)  # body cap, safe headers, 422 and 405 answers (hardening.py)
    quiet_invalid_utf8()
    install_fault_handlers(app)  # 503 when the database fails (dbfaults.py)

    @app.exception_handler(ServiceError)
    async def service_error(_request: Request, exc: Exception) -> JSONResponse:
        status = exc.status if isinstance(exc, ServiceError) else 500
        message = exc.message if isinstance(exc, ServiceError) else "server error"
        return JSONResponse({"detail": message}, status_code=status)

    app.include_router(api_routes(service, hub, bots))
    app.add_api_websocket_route("/ws/tables/{table_id}", PlayChannel(
        service, hub, bots, message_limits,
        SocketGuard(sockets_per_address, failed_hellos_per_minute)))
    app.include_router(page_routes(static_dir))
    if static_dir.is_dir():
        app.mount("/static", StaticFiles(directory=static_dir), name="static")
    return app


def api_routes(service: TableService, hub: Broadcaster, bots: BotRunner) -> APIRouter:
    """The HTTP API under ``/api`` (docs/server-protocol.md)."""
    router = APIRouter(prefix="/api")

    async def changed(table_id: str, bots_too: bool = True) -> None:
        await hub.publish(table_id)
        if bots_too:
            bots.kick(table_id)

    @router.post("/tables", status_code=201, response_model=Created, tags=["tables"],
                 responses={400: ERRORS[400], **CREATE_LIMITED},
                 dependencies=CREATE_LIMIT)
    async def create_table(body: CreateTable) -> dict[str, Any]:
        """Create a table: 2-4 seats, each a person or a bot. Each person's secret seat link
        is in the answer, this once; a table of bots only starts at once."""
        created = await run(service.create, body)
        if created["table"]["status"] == "playing":
            bots.kick(created["table"]["id"])
        return created

    @router.get("/tables", response_model=list[Table], tags=["tables"])
    async def list_tables(
        limit: int = Query(50, ge=1, le=200, description="at most this many tables"),
        status: Annotated[TableStatus | None, Query(
            description="only tables in this stage")] = None,
    ) -> list[dict[str, Any]]:
        """The lobby: tables, newest first, public data only."""
        return await run(service.list_tables, limit, status)

    @router.get("/tables/{table_id}", response_model=Table, tags=["tables"],
                responses={404: ERRORS[404]})
    async def get_table(table_id: str) -> dict[str, Any]:
        """One table, public data only."""
        return await run(service.get, table_id)

    @router.post("/tables/{table_id}/join", response_model=Table, tags=["seats"],
                 responses=SEAT_ANSWERS, dependencies=SEAT_LIMIT)
    async def join(table_id: str, body: JoinBody) -> dict[str, Any]:
        """Join the seat the token holds; in the lobby the name may change."""
        table = await run(service.join, table_id, body.token, body.name)
        await changed(table_id, bots_too=False)
        return table

    @router.post("/tables/{table_id}/start", response_model=Table, tags=["seats"],
                 responses=SEAT_ANSWERS, dependencies=SEAT_LIMIT)
    async def start(table_id: str, body: TokenBody) -> dict[str, Any]:
        """Start the game once every person has joined (409 names who has not)."""
        table = await run(service.start, table_id, body.token)
        await changed(table_id)
        return table

    @router.post("/tables/{table_id}/leave", response_model=Table, tags=["seats"],
                 responses=SEAT_ANSWERS, dependencies=SEAT_LIMIT)
    async def leave(table_id: str, body: TokenBody) -> dict[str, Any]:
        """Leave the seat: free again in the lobby; during the game a medium bot takes it."""
        table = await run(service.leave, table_id, body.token)
        await changed(table_id)
        return table

    @router.post("/tables/{table_id}/close", response_model=Table, tags=["tables"],
                 responses=SEAT_ANSWERS, dependencies=SEAT_LIMIT)
    async def close(table_id: str, body: TokenBody) -> dict[str, Any]:
        """Close the table with its creator token (from its creation): it is never played
        again; its moves are kept. 409 once the game is over."""
        table = await run(close_table, service, table_id, body.token)
        await changed(table_id, bots_too=False)
        return table

    @router.get("/tables/{table_id}/record", tags=["games"],
                responses={200: {"description": "the game's record (docs/record-format.md)",
                                 "content": {"application/json": {"schema": {"type": "object"}}}},
                    404: ERRORS[404], 409: ERRORS[409]})
    async def record(table_id: str) -> JSONResponse:
        """The finished game's record, as a download; 409 while the game is not over."""
        data = await run(service.record, table_id)
        return JSONResponse(data, headers={
            "Content-Disposition": f'attachment; filename="noreturn-{table_id}.json"'})

    @router.get("/tables/{table_id}/replay", response_model=Replay, tags=["games"],
                responses={404: ERRORS[404], 409: ERRORS[409]})
    async def replay(table_id: str) -> dict[str, Any]:
        """The finished game turn by turn with public views; 409 while it is not over."""
        return await run(service.replay, table_id)

    return router


def page_routes(static_dir: Path) -> APIRouter:
    """The front end's pages: the lobby, a table (to play or watch) and a replay."""
    router = APIRouter(include_in_schema=False)

    def page(name: str) -> FileResponse:
        path = static_dir / name
        if not path.is_file():
            raise NotFoundError(f"the front end's {name} is missing from {static_dir}")
        return FileResponse(path, media_type="text/html")

    @router.get("/")
    async def lobby_page() -> FileResponse:
        return page("index.html")

    @router.get("/play/{table_id}")
    async def play_page(table_id: str) -> FileResponse:
        return page("table.html")

    @router.get("/watch/{table_id}")
    async def watch_page(table_id: str) -> FileResponse:
        return page("table.html")

    @router.get("/replay/{table_id}")
    async def replay_page(table_id: str) -> FileResponse:
        return page("replay.html")

    return router


__all__ = ["BotRunner", "PlayChannel", "create_app"]
