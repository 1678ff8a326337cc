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
from asyncio import create_task
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Annotated, Any

from fastapi import APIRouter, FastAPI, Query, Request
from fastapi.responses import FileResponse, JSONResponse
from fastapi.staticfiles import StaticFiles

from noreturn import __version__
from noreturn.server.botrunner import BotRunner
from noreturn.server.broadcast import Broadcaster, LocalBroadcaster
from noreturn.server.channel import PlayChannel
from noreturn.server.db import default_db_url, url_backend
from noreturn.server.dbfaults import UnavailableError, install_fault_handlers
from noreturn.server.dbstart import open_database
from noreturn.server.hardening import harden
from noreturn.server.interpreter import interpreter_for_serving
from noreturn.server.lifecycle import (
    IDLE_HOURS,
    LOBBY_HOURS,
    SWEEP_SECONDS,
    close_table,
    sweep_forever,
)
from noreturn.server.limits import (
    CREATE_LIMIT,
    CREATE_LIMITED,
    SEAT_LIMIT,
    SEAT_LIMITED,
    AddressLimiter,
    MessageLimits,
)
from noreturn.server.messages import encode
from noreturn.server.people import people_routes
from noreturn.server.redisnotices import BroadcastError, RedisBroadcaster, redis_problem
from noreturn.server.reviewer import QUEUE_SIZE, Reviewer
from noreturn.server.reviews import (
    PENDING,
    ReviewerBusyError,
    ReviewsOffError,
    ReviewStore,
    review_answer,
)
from noreturn.server.schemas import (
    Created,
    CreateTable,
    ErrorOut,
    JoinBody,
    Replay,
    StartBody,
    Table,
    TableStatus,
    TokenBody,
)
from noreturn.server.service import NotFoundError, ServiceError, TableService
from noreturn.server.timers import TIMER_SECONDS, TimerRunner
from noreturn.server.timing import TURN_TIMES
from noreturn.server.tutorial import router as tutorial_routes
from noreturn.server.words import ReaderLanguage, words_routes
from noreturn.server.workers import run
from noreturn.server.wsguard import SocketGate, SocketGuard, quiet_invalid_utf8
from noreturn.text.lang import LanguageCode, _

STATIC = Path(__file__).with_name("static")
MESSAGE_LIMITS = MessageLimits()
"""The default per-connection limits (docs/server-protocol.md, "Limits")."""
TAKEOVER_SECONDS = 10.0
"""A game in progress unchanged this long while a bot is to move is taken over (its
bot runner's process died): every process looks for such games (``BotRunner.sweep``)."""
ERRORS: dict[int | str, dict[str, Any]] = {
    400: {"model": ErrorOut, "description": "malformed: the detail says what to fix"},
    403: {"model": ErrorOut, "description": "wrong or missing seat token"},
    404: {"model": ErrorOut, "description": "no such table"},
    409: {"model": ErrorOut, "description": "not now (wrong stage of the table)"},
}
SEAT_ANSWERS: dict[int | str, dict[str, Any]] = {
    **{k: ERRORS[k] for k in (400, 403, 404, 409)}, **SEAT_LIMITED}
"""The documented answers of join, start, leave and close."""


async def service_error(_request: Request, exc: Exception) -> JSONResponse:
    """A ``ServiceError`` as its status and ``{"detail": ...}``; one that says when to ask
    again (``retry_after``: a busy reviewer) with ``Retry-After``."""
    status = exc.status if isinstance(exc, ServiceError) else 500
    message = exc.message if isinstance(exc, ServiceError) else "server error"
    wait = getattr(exc, "retry_after", None)
    headers = {"Retry-After": str(wait)} if wait else None
    return JSONResponse({"detail": message}, status_code=status, headers=headers)


def create_app(db_url: str | None = None, *, bot_delay: float = 0.0,
               broadcaster: Broadcaster | None = None, static_dir: Path = STATIC,
               message_limits: MessageLimits | None = MESSAGE_LIMITS,
               create_limit_per_minute: int | None = None, redis_url: str | None = None,
               takeover_after: float = TAKEOVER_SECONDS,
               lobby_after: float = LOBBY_HOURS * 3600, idle_after: float = IDLE_HOURS * 3600,
               sweep_every: float | None = None,
               seat_limit_per_minute: int | None = None, sockets_per_address: int | None = None,
               failed_hellos_per_minute: int | None = None,
               review_playouts: int | None = None, review_queue: int = QUEUE_SIZE,
               turn_times: tuple[int, ...] = TURN_TIMES,
               timer_every: float = TIMER_SECONDS) -> FastAPI:
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

    ``review_playouts``: finished games are reviewed in the background at this many
    playouts a decision (``noreturn serve`` passes ``reviewer.REVIEW_PLAYOUTS`` unless told
    otherwise), one at a time in a child process, up to ``review_queue`` waiting
    (reviewer.py); None (the default here, so that tests and tools that finish many games
    spend no CPU on reviews they never read): no reviews are made, stored ones are still
    given.

    ``turn_times``: the turn timers a new table may choose (seconds; ``timing.TURN_TIMES``
    by default: tests add a few seconds); every ``timer_every`` seconds the process plays
    the turns whose time ran out (timers.py).

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
    service = TableService(engine, turn_times=turn_times)
    hub: Broadcaster = broadcaster or (RedisBroadcaster(redis_url) if redis_url is not None
                                       else LocalBroadcaster())
    bots = BotRunner(service, hub, bot_delay)
    timers = TimerRunner(service, hub, bots)
    reviews, reviewer = reviewing(service, review_playouts, review_queue)
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
        sweepers = [create_task(bots.sweep(max(0.2, takeover_after / 4), takeover_after)),
                    create_task(sweep_forever(service, hub, run, every, lobby_after,
                                              idle_after)),
                    create_task(timers.watch(timer_every))]
        async with reviewer_running(reviewer):
            with interpreter_for_serving():
                yield
        for sweeper in sweepers:
            sweeper.cancel()
        await asyncio.gather(*sweepers, return_exceptions=True)
        await timers.stop()
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
    app.state.service, app.state.broadcaster = service, hub
    app.state.bots, app.state.reviewer, app.state.timers = bots, reviewer, timers
    app.state.create_limiter = (AddressLimiter(create_limit_per_minute)
                                if create_limit_per_minute else None)
    app.state.seat_limiter = (AddressLimiter(seat_limit_per_minute)
                              if seat_limit_per_minute else None)
    harden(app)  # body cap, safe headers, 422 and 405 answers (hardening.py)
    app.add_middleware(ReaderLanguage)  # each request's words in its reader's language
    quiet_invalid_utf8()
    install_fault_handlers(app)  # 503 when the database fails (dbfaults.py)

    app.add_exception_handler(ServiceError, service_error)
    for routes in (api_routes(service, hub, bots), review_routes(reviews, reviewer),
                   words_routes(), tutorial_routes):
        app.include_router(routes)
    play_channel(app, PlayChannel(service, hub, bots, message_limits,
                                  SocketGuard(sockets_per_address, failed_hellos_per_minute)))
    app.include_router(page_routes(static_dir))
    if static_dir.is_dir():
        app.mount("/static", StaticFiles(directory=static_dir), name="static")
    return app


def play_channel(app: FastAPI, channel: PlayChannel) -> None:
    """Serve ``channel`` at ``/ws/tables/{id}``, its refusals by the outermost middleware
    (``SocketGate``: added last, so that a flood of sockets skips the whole stack)."""
    app.add_api_websocket_route("/ws/tables/{table_id}", channel)
    app.add_middleware(SocketGate, guard=channel.guard)


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

    @router.get("/turn-times", tags=["tables"], responses={200: {
        "description": "the turn timers this server offers, in seconds, shortest first",
        "content": {"application/json": {"example": {"turn_times": [30, 60, 3600]}}}}})
    async def turn_times() -> dict[str, list[int]]:
        """The turn timers a new table may choose (``turn_seconds``): the lobby offers
        these, so an operator's own (``serve --extra-turn-seconds``) appear there too."""
        return {"turn_times": sorted(service.turn_times)}

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
        table = await run(service.join, table_id, body.token, body.name, body.player_key)
        await changed(table_id, bots_too=False)
        return table

    @router.post("/tables/{table_id}/start", response_model=Table, tags=["seats"],
                 responses=SEAT_ANSWERS, dependencies=SEAT_LIMIT)
    async def start(table_id: str, body: StartBody) -> dict[str, Any]:
        """Start the game once every person has joined (409 names who has not)."""
        table = await run(service.start, table_id, body.token, body.player_key)
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
    async def replay(table_id: str, lang: Annotated[LanguageCode | None, Query(
            description="the language of the turn log (left out: the browser's "
            "Accept-Language, else English)")] = None) -> dict[str, Any]:
        """The finished game turn by turn with public views; 409 while it is not over.
        Its words are in the reader's language (``lang``, else ``Accept-Language``),
        which ``ReaderLanguage`` has put in force; the worker thread inherits it."""
        del lang  # checked here (an unknown language is a 422), applied by ReaderLanguage
        return await run(service.replay, table_id)

    router.include_router(people_routes(service, hub, bots))
    return router


def reviewing(service: TableService, playouts: int | None,
              queue_size: int) -> tuple[ReviewStore, Reviewer | None]:
    """The reviews of ``service``'s database, and the reviewer (None: ``playouts`` is
    None or 0), which is told of every game that ends here."""
    reviews = ReviewStore(service.engine)
    if not playouts:
        return reviews, None
    reviewer = Reviewer(reviews, playouts, queue_size)
    service.after_game = reviewer.offer
    return reviews, reviewer


@asynccontextmanager
async def reviewer_running(reviewer: Reviewer | None) -> AsyncIterator[None]:
    """The reviewer's thread while the app serves; stopped (its child ended) after."""
    if reviewer is None:
        yield
        return
    reviewer.start()
    try:
        yield
    finally:
        await asyncio.to_thread(reviewer.stop)


def review_routes(reviews: ReviewStore, reviewer: Reviewer | None) -> APIRouter:
    """``GET /api/tables/{id}/review``: a finished game's review (docs/review.md)."""
    router = APIRouter(prefix="/api")

    @router.get("/tables/{table_id}/review", tags=["games"], responses={
        200: {"description": "every seat's review, the JSON of `noreturn review --json` "
                             "(docs/review.md)",
              "content": {"application/json": {"schema": {"type": "object"}}}},
        202: {"model": ErrorOut, "description": "being reviewed: ask again (Retry-After)"},
        404: {"model": ErrorOut, "description": "no such table, or this server makes no "
                                                "reviews"},
        409: ERRORS[409],
        500: {"model": ErrorOut, "description": "the review failed (not tried again)"},
        503: {"model": ErrorOut, "description": "the reviewer is busy: ask again later"}})
    async def review(table_id: str) -> JSONResponse:
        """Every seat's review of the finished game, made in the background once it
        ended: 202 while it is being made, 409 while the game is not over (a review shows
        every hand)."""
        found = await run(reviews.find, table_id)
        answer = review_answer(found)
        if answer is not None:
            return JSONResponse(answer)
        if found.stale(reviews.claim_seconds):  # nobody is reviewing it (now)
            if reviewer is None:
                raise ReviewsOffError(table_id)
            if not reviewer.offer(table_id, people=found.people):
                raise ReviewerBusyError()
        return JSONResponse({"detail": _(PENDING)}, status_code=202,
                            headers={"Retry-After": "3"})

    return router


def page_routes(static_dir: Path) -> APIRouter:
    """The front end's pages: the lobby, a table (to play or watch), a replay, the rules."""
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

    @router.get("/rules")
    async def rules_page() -> FileResponse:
        return page("rules.html")

    @router.get("/leaderboard")
    async def leaderboard_page() -> FileResponse:
        return page("leaderboard.html")

    @router.get("/me")
    async def my_games_page() -> FileResponse:
        return page("me.html")

    return router


__all__ = ["BotRunner", "PlayChannel", "create_app", "encode"]
