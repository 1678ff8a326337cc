"""The web app: HTTP API, WebSocket play channel and the browser front end's files.

``create_app(db_url)`` migrates the database and returns a FastAPI app; ``noreturn serve``
runs it on uvicorn. The contract is docs/server-protocol.md. The table logic is the
``TableService``'s (synchronous, thread-safe); here every call into it runs in a worker
thread, so the event loop never waits on the database or on a thinking bot.

A change to a table (a move, a join, a start, a bot's move) is followed by a notice through
the broadcaster; every connection of that table then builds its own ``state`` message from
its own seat's view. Bots move here, on the server: one ``BotRunner`` task per table with a
bot to move, one move at a time, a notice after each.
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from functools import partial
from pathlib import Path
from typing import Any, Literal, TypeVar

import anyio
from fastapi import APIRouter, FastAPI, Query, Request, Response, WebSocket, WebSocketDisconnect
from fastapi.responses import FileResponse, JSONResponse
from fastapi.staticfiles import StaticFiles

from noreturn import __version__
from noreturn.server.broadcast import Broadcaster, LocalBroadcaster
from noreturn.server.db import default_db_url, make_engine, migrate
from noreturn.server.schemas import (
    Created,
    CreateTable,
    ErrorOut,
    JoinBody,
    Replay,
    Table,
    TokenBody,
)
from noreturn.server.service import (
    BadRequestError,
    ForbiddenError,
    NotFoundError,
    ServiceError,
    TableService,
)

STATIC = Path(__file__).with_name("static")
MAX_MESSAGE = 4096
"""The longest client message read (the longest action's text is far shorter)."""
HELLO_SECONDS = 60.0
CLOSE_BAD_TOKEN = 4403
CLOSE_NOT_FOUND = 4404
CLOSE_MALFORMED = 4400

log = logging.getLogger("noreturn.server")
T = TypeVar("T")

ERRORS: dict[int | str, dict[str, Any]] = {
    400: {"model": ErrorOut, "description": "malformed: the detail says what to fix"},
    403: {"model": ErrorOut, "description": "wrong or missing seat token"},
    404: {"model": ErrorOut, "description": "no such table"},
    409: {"model": ErrorOut, "description": "not now (wrong stage of the table)"},
}


async def run(call: Callable[..., T], *args: Any) -> T:
    """``call(*args)`` in a worker thread (database work, bot decisions)."""
    return await anyio.to_thread.run_sync(partial(call, *args))


class BotRunner:
    """Lets the bots of each table move, one move at a time, in worker threads.

    ``kick(table_id)`` after any change: a table's runner task plays bot moves while a bot
    is to move and stops when a person is (or the game is over). A kick while the task runs
    makes it look once more before it stops, so no kick is lost.
    """

    def __init__(self, service: TableService, hub: Broadcaster, delay: float = 0.0) -> None:
        self.service = service
        self.hub = hub
        self.delay = delay
        self._tasks: dict[str, asyncio.Task[None]] = {}
        self._again: set[str] = set()

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
                    moved = await run(self.service.bot_step, table_id)
                except ServiceError:
                    moved = False  # the game moved on (another writer): look again below
                except Exception:  # a broken table must not take the server down
                    log.exception("bot move at table %s failed", table_id)
                    moved = False
                if moved:
                    await self.hub.publish(table_id)
                    continue
                if table_id not in self._again:
                    break
        finally:
            self._tasks.pop(table_id, None)
            self._again.discard(table_id)

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

    async def send(self, message: dict[str, Any]) -> None:
        """Send one JSON message (sends from the reader and the pusher never interleave)."""
        async with self._send_lock:
            await self.ws.send_text(json.dumps(message))

    async def error(self, code: str, message: str) -> None:
        """An error to this client only."""
        await self.send({"type": "error", "code": code, "message": message})

    async def push_state(self, service: TableService) -> bool:
        """Send this seat's current state unless it is what was sent last.

        Returns False when the seat's token no longer holds it: the client was told and the
        socket closed.
        """
        try:
            message = await run(service.state_message, self.table_id, self.seat,
                                self.token_hash)
        except ForbiddenError as exc:
            await self.error("bad_token", exc.message)
            await self.ws.close(CLOSE_BAD_TOKEN, "bad token")
            return False
        text = json.dumps(message)
        async with self._send_lock:
            if text != self._last_state:
                self._last_state = text
                await self.ws.send_text(text)
        return True


def parse_message(text: str) -> dict[str, Any]:
    """A client message as a dict with a ``type``.

    Raises:
        BadRequestError: too long, not JSON, not an object or without a string ``type``.
    """
    if len(text) > MAX_MESSAGE:
        raise BadRequestError(f"message too long ({len(text)} characters, at most {MAX_MESSAGE})")
    try:
        data = json.loads(text)
    except ValueError as exc:
        raise BadRequestError(f"not JSON ({exc.args[0] if exc.args else exc}): send an object "
                         'such as {"type": "ping"}') from exc
    if not isinstance(data, dict) or not isinstance(data.get("type"), str):
        raise BadRequestError('a message is a JSON object with a "type": hello, action, check, '
                         "hint or ping")
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

    def __init__(self, service: TableService, hub: Broadcaster, bots: BotRunner) -> None:
        self.service = service
        self.hub = hub
        self.bots = bots

    async def __call__(self, ws: WebSocket, table_id: str) -> None:
        """Serve one connection until the client goes away."""
        await ws.accept()
        conn = Connection(ws, table_id)
        try:
            if not await self.hello(conn):
                return
            async with self.hub.subscribe(table_id) as sub:
                table = await run(self.service.get, table_id)
                await conn.send({"type": "welcome", "seat": conn.seat, "table": table})
                if not await conn.push_state(self.service):
                    return
                self.bots.kick(table_id)  # in case the game waits on a bot (a restart)
                async with anyio.create_task_group() as group:
                    group.start_soon(self.pusher, conn, sub.wait, group.cancel_scope)
                    await self.reader(conn)
                    group.cancel_scope.cancel()
        except WebSocketDisconnect:
            pass

    async def hello(self, conn: Connection) -> bool:
        """Read the hello; set the connection's seat. False: refused and closed."""
        try:
            text = await asyncio.wait_for(conn.ws.receive_text(), HELLO_SECONDS)
            data = parse_message(text)
            if data["type"] != "hello":
                raise BadRequestError('say hello first: {"type": "hello", "token": "..."} '
                                      'for a seat, {"type": "hello"} to watch')
            token = field(data, "token", str) if "token" in data else None
        except (TimeoutError, BadRequestError) as exc:
            message = exc.message if isinstance(exc, BadRequestError) else "no hello in time"
            await conn.error("malformed", message)
            await conn.ws.close(CLOSE_MALFORMED, "malformed hello")
            return False
        try:
            await run(self.service.get, conn.table_id)
            if token is not None:
                conn.seat, conn.token_hash = await run(self.service.seat_of, conn.table_id,
                                                       token)
        except NotFoundError:
            await conn.ws.close(CLOSE_NOT_FOUND, "no such table")
            return False
        except ForbiddenError as exc:
            await conn.error("bad_token", exc.message)
            await conn.ws.close(CLOSE_BAD_TOKEN, "bad token")
            return False
        return True

    async def pusher(self, conn: Connection, wait: Callable[[], Any],
                     scope: anyio.CancelScope) -> None:
        """Send a new state after each notice; stop when the seat was withdrawn."""
        while True:
            await wait()
            try:
                if not await conn.push_state(self.service):
                    break
            except Exception:  # the client is gone (a send on a closed socket)
                break
        scope.cancel()

    async def reader(self, conn: Connection) -> None:
        """Answer the client's messages until it goes away."""
        while True:
            try:
                text = await conn.ws.receive_text()
            except (WebSocketDisconnect, RuntimeError, KeyError):
                return  # closed (KeyError: a binary frame has no "text")
            try:
                await self.answer(conn, parse_message(text))
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
        elif kind == "action":
            text, version = field(data, "action", str), field(data, "version", int)
            await run(self.service.act, table_id, conn.seat, text, version)
            await self.hub.publish(table_id)
            self.bots.kick(table_id)
        elif kind == "check":
            text = field(data, "action", str)
            legal, reason = await run(self.service.check, table_id, conn.seat, text)
            await conn.send({"type": "check", "action": text, "legal": legal,
                             "reason": reason})
        elif kind == "hint":
            action, reason = await run(self.service.hint, table_id, conn.seat)
            await conn.send({"type": "hint", "action": action, "reason": reason})
        elif kind == "hello":
            raise BadRequestError("already said hello: open a new connection for another seat")
        else:
            raise BadRequestError(f"unknown message type {kind[:40]!r}: use action, check, "
                                  "hint or ping")


def create_app(db_url: str | None = None, *, bot_delay: float = 0.0,
               broadcaster: Broadcaster | None = None, static_dir: Path = STATIC) -> FastAPI:
    """The server for the database at ``db_url`` (default: SQLite under XDG data).

    The schema is migrated to the newest revision now. ``bot_delay`` seconds pass before
    each bot move (so people can follow); ``broadcaster`` defaults to the in-process one.
    """
    engine = make_engine(db_url or default_db_url())
    migrate(engine)
    service = TableService(engine)
    hub: Broadcaster = broadcaster or LocalBroadcaster()
    bots = BotRunner(service, hub, bot_delay)

    @asynccontextmanager
    async def lifespan(_app: FastAPI) -> AsyncIterator[None]:
        for table_id in await run(service.playing_tables):
            bots.kick(table_id)  # games that were waiting on a bot when the server stopped
        yield
        await bots.stop()
        engine.dispose()

    app = FastAPI(
        title="noreturn",
        version=__version__,
        summary="Online tables for No Return: lobby, seats, records and replays.",
        description="Play happens over the WebSocket `/ws/tables/{id}`; see "
                    "docs/server-protocol.md for its messages.",
        lifespan=lifespan,
    )
    app.state.service = service
    app.state.broadcaster = hub
    app.state.bots = bots

    @app.exception_handler(ServiceError)
    async def service_error(_request: Request, exc: Exception) -> JSONResponse:
        status = exc.status if isinstance(exc, ServiceError) else 500
        message = exc.message if isinstance(exc, ServiceError) else "server error"
        return JSONResponse({"detail": message}, status_code=status)

    @app.middleware("http")
    async def headers(request: Request, call_next: Callable[[Request], Any]) -> Response:
        response: Response = await call_next(request)
        response.headers.setdefault("Referrer-Policy", "no-referrer")
        response.headers.setdefault("X-Content-Type-Options", "nosniff")
        if request.url.path.startswith("/api/"):
            response.headers.setdefault("Cache-Control", "no-store")
        return response

    app.include_router(api_routes(service, hub, bots))
    app.add_api_websocket_route("/ws/tables/{table_id}", PlayChannel(service, hub, bots))
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
                 responses={400: ERRORS[400]})
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
        status: Literal["lobby", "playing", "finished"] | None = Query(
            None, description="only tables in this stage"),
    ) -> list[dict[str, Any]]:
        """The lobby: tables, newest first, public data only."""
        return await run(service.list_tables, limit, status)

    @router.get("/tables/{table_id}", response_model=Table, tags=["tables"],
                responses={404: ERRORS[404]})
    async def get_table(table_id: str) -> dict[str, Any]:
        """One table, public data only."""
        return await run(service.get, table_id)

    @router.post("/tables/{table_id}/join", response_model=Table, tags=["seats"],
                 responses={k: ERRORS[k] for k in (400, 403, 404, 409)})
    async def join(table_id: str, body: JoinBody) -> dict[str, Any]:
        """Join the seat the token holds; in the lobby the name may change."""
        table = await run(service.join, table_id, body.token, body.name)
        await changed(table_id, bots_too=False)
        return table

    @router.post("/tables/{table_id}/start", response_model=Table, tags=["seats"],
                 responses={k: ERRORS[k] for k in (403, 404, 409)})
    async def start(table_id: str, body: TokenBody) -> dict[str, Any]:
        """Start the game once every person has joined (409 names who has not)."""
        table = await run(service.start, table_id, body.token)
        await changed(table_id)
        return table

    @router.post("/tables/{table_id}/leave", response_model=Table, tags=["seats"],
                 responses={k: ERRORS[k] for k in (403, 404, 409)})
    async def leave(table_id: str, body: TokenBody) -> dict[str, Any]:
        """Leave the seat: free again in the lobby; during the game a medium bot takes it."""
        table = await run(service.leave, table_id, body.token)
        await changed(table_id)
        return table

    @router.get("/tables/{table_id}/record", tags=["games"],
                responses={200: {"description": "the game's record (RECORD.md)", "content": {
                    "application/json": {"schema": {"type": "object"}}}},
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
