"""The WebSocket play channel ``/ws/tables/{id}``: hello, then states out and messages in.

A thin adapter over the table logic (``TableService``): it reads a client's frames within
the limits (``limits.py``, ``wsguard.py``: rate, size and nesting checked before parsing,
binary frames refused), reads each message into its typed model (``messages.py``) and
answers it with that type's one handler (``PlayChannel.handlers``). After every change of
its table (a notice through the broadcaster) each connection sends its own seat's state.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable
from typing import Any

import anyio
from fastapi import WebSocket, WebSocketDisconnect
from starlette.types import Message

from noreturn.server.advice import SeatAdvice, switch_message
from noreturn.server.botrunner import BotRunner
from noreturn.server.broadcast import CHAT, Broadcaster
from noreturn.server.chat import ChatPaces, clean_chat
from noreturn.server.db import now
from noreturn.server.dbfaults import RETRY_AFTER_SECONDS, UnavailableError
from noreturn.server.errors import (
    BadRequestError,
    ConflictError,
    ForbiddenError,
    NotFoundError,
    ServiceError,
)
from noreturn.server.limits import CLOSE_FLOODING, MessageLimiter, MessageLimits, Verdict
from noreturn.server.messages import (
    CLIENT_MODELS,
    ActionMessage,
    ChatMessage,
    CheckMessage,
    ClientMessage,
    Hello,
    UndoMessage,
    encode,
    error_message,
    parse_message,
    read_message,
    unknown_type,
)
from noreturn.server.play import iso_time
from noreturn.server.service import TableService
from noreturn.server.workers import run, think
from noreturn.server.wsguard import CLOSE_TRY_LATER, SocketGuard, client_of, frame_text
from noreturn.text.lang import _, speaking

HELLO_SECONDS = 60.0
"""How long a new connection has to say hello."""
CLOSE_BAD_TOKEN = 4403
CLOSE_NOT_FOUND = 4404
CLOSE_MALFORMED = 4400
CLOSE_TRY_AGAIN = 1013
"""The WebSocket close code "try again later": the database is unavailable at the hello."""

log = logging.getLogger("noreturn.server")
Handler = Callable[["Connection", Any], Awaitable[None]]
"""Answers one typed client message on a connection (errors raise ``ServiceError``)."""


class ClientGoneError(Exception):
    """A send found the client's socket gone (reset, or closed while it was answered):
    the client went away, which is no error of the server's."""


async def closing(ws: WebSocket, code: int, reason: str) -> None:
    """Close ``ws`` with ``code``; a socket already gone is closed enough."""
    with contextlib.suppress(RuntimeError, OSError, WebSocketDisconnect):
        await ws.close(code, reason)


class Connection:
    """One WebSocket client: its seat (None: a spectator) and serialized sends."""

    def __init__(self, ws: WebSocket, table_id: str) -> None:
        self.ws = ws
        self.table_id = table_id
        self.seat: int | None = None
        self.token_hash: str | None = None
        self.lang = "en"
        """The reader's language (the hello's ``lang``): its log, result and reasons."""
        self._send_lock = asyncio.Lock()
        self._last_state = ""
        self._last_version = -1
        self.chat_seen = 0
        """The id of the newest chat message sent to this connection."""

    async def send(self, message: dict[str, Any]) -> None:
        """Send one JSON message (sends from the reader and the pusher never interleave)."""
        async with self._send_lock:
            await self._send_text(encode(message))

    async def _send_text(self, text: str) -> None:
        """Send ``text`` (under the send lock).

        Raises:
            ClientGoneError: the socket is gone (reset, or closed while it was answered)."""
        try:
            await self.ws.send_text(text)
        except (WebSocketDisconnect, RuntimeError, OSError) as exc:
            raise ClientGoneError from exc  # RuntimeError: a send after the close

    async def error(self, code: str, message: str, rule: str | None = None) -> None:
        """An error to this client only (``error_message``)."""
        await self.send(error_message(code, message, rule))

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
                await self._send_text(text)


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
        self.chat_paces = ChatPaces()
        """Each seat's chat pace, however many sockets it holds."""
        self.advice = SeatAdvice()
        """Each seat's switch advice, weighed once a turn however many sockets ask."""
        self.handlers: dict[str, Handler] = {
            "action": self.on_action, "check": self.on_check, "hint": self.on_hint,
            "switch": self.on_switch, "chat": self.on_chat, "undo": self.on_undo,
            "ping": self.on_ping}
        """One handler per message type a client sends after its hello."""

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
        except (WebSocketDisconnect, ClientGoneError):
            pass

    async def serve(self, conn: Connection) -> bool:
        """Hello, welcome, then play until the client goes away; False: the hello failed
        (malformed, late, a wrong token or no such table)."""
        said, token = await self.hello(conn)
        if not said:
            return False
        # every sentence for this reader (the work in threads and tasks inherits it)
        with speaking(conn.lang):
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
            hello = read_message(data)
            assert isinstance(hello, Hello)  # its type was read just above
            token, conn.lang = hello.token, hello.lang
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
        await conn.send({"type": "welcome", "seat": conn.seat, "table": welcome.table,
                         "now": iso_time(now())})
        await conn.send_state(welcome.state)
        await self.push_chat(conn)
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
                if moved_to == CHAT:  # only the chat changed: its new lines, not the game
                    await self.push_chat(conn)
                    return True
                pushed = await conn.push_state(self.service, moved_to)
                if pushed and moved_to is None:  # not a move: perhaps a chat message
                    await self.push_chat(conn)
                return pushed
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
        try:
            while await self.read_one(conn, limiter):
                pass
        except (WebSocketDisconnect, ClientGoneError):
            return  # it went away while answered: no server error, nothing to log

    async def read_one(self, conn: Connection, limiter: MessageLimiter | None) -> bool:
        """Read one frame and answer it (or drop it, over the rate limit); False: the
        connection is over."""
        try:
            message = await conn.ws.receive()
        except RuntimeError:
            return False  # closed
        if message["type"] == "websocket.disconnect":
            return False
        if limiter is not None:
            verdict = limiter.admit()
            if verdict is Verdict.CLOSE:
                log.warning("table %s: closing a flooding connection from %s", conn.table_id,
                            conn.ws.client.host if conn.ws.client else "?")
                await closing(conn.ws, CLOSE_FLOODING, limiter.close_reason())
                return False
            if verdict is not Verdict.ACCEPT:
                if verdict is Verdict.WARN:
                    await conn.error("rate_limited", limiter.warning())
                return True
        return await self.answer_one(conn, message)

    async def answer_one(self, conn: Connection, message: Message) -> bool:
        """Answer one frame, or tell the client why not; False: the socket was closed (a
        token that no longer holds the seat, or a failure of the server's own)."""
        try:
            await self.answer(conn, parse_message(frame_text(message)))
        except ServiceError as exc:
            await conn.error(exc.code, exc.message, exc.rule)
            if exc.code == "stale":  # the game moved on elsewhere: the state now, even if
                self.hub.wake(conn.table_id)  # its notice never came (Redis away)
            if isinstance(exc, ForbiddenError):
                await closing(conn.ws, CLOSE_BAD_TOKEN, "bad token")
                return False
        except (WebSocketDisconnect, ClientGoneError):
            raise
        except Exception:
            log.exception("table %s: answering a message failed", conn.table_id)
            await closing(conn.ws, 1011, "server error")
            return False
        return True

    async def answer(self, conn: Connection, data: dict[str, Any]) -> None:
        """Answer one parsed message with its type's handler (errors raise
        ``ServiceError``).

        What its type alone decides comes before its fields are read: an unknown type, a
        second hello, a spectator's ``check``, ``hint`` or ``switch`` (no lookup).
        """
        kind = data["type"]
        model = CLIENT_MODELS.get(kind)
        if model is None or kind not in self.handlers:
            if model is Hello:
                raise BadRequestError("already said hello: open a new connection for "
                                      "another seat")
            raise unknown_type(kind)
        if model.seat_only and conn.seat is None:
            if model is ChatMessage:
                raise ConflictError(_("spectators read the chat but cannot write in it: "
                                      "open your seat link to talk"), "spectator")
            if model is UndoMessage:
                raise ConflictError(_("spectators cannot take back turns: open your seat "
                                      "link to play"), "spectator")
            raise ConflictError(_("spectators can't check actions or ask for hints: open "
                                  "your seat link to play"), "spectator")
        await self.handlers[kind](conn, read_message(data))

    async def on_ping(self, conn: Connection, _message: ClientMessage) -> None:
        """``ping``: the connection is alive."""
        await conn.send({"type": "pong"})

    async def on_action(self, conn: Connection, message: ActionMessage) -> None:
        """``action``: play it; every connection of the table hears of the change, and
        the bots move if one is to."""
        acted = await run(self.service.act, conn.table_id, conn.seat, message.action,
                          message.version, not self.bots.delay)
        await self.hub.publish(conn.table_id, acted.version)
        if acted.bot_due:
            self.bots.kick(conn.table_id)

    async def on_undo(self, conn: Connection, message: UndoMessage) -> None:
        """``undo``: take back this seat's last turn (against bots only); every connection
        hears of it, and the bots move if one is to."""
        acted = await run(self.service.take_back, conn.table_id, conn.seat, message.version)
        await self.hub.publish(conn.table_id, acted.version)
        if acted.bot_due:
            self.bots.kick(conn.table_id)

    async def on_chat(self, conn: Connection, message: ChatMessage) -> None:
        """``chat``: checked (length, characters, this connection's pace) before any
        database work, stored, then every connection of the table is told."""
        text = clean_chat(message.text)
        self.chat_paces.admit(conn.table_id, conn.token_hash, conn.seat)
        await run(self.service.post_chat, conn.table_id, conn.seat, conn.token_hash, text)
        await self.hub.publish(conn.table_id, CHAT)

    async def push_chat(self, conn: Connection) -> None:
        """Send the chat messages this connection has not had yet (a ``chat`` message)."""
        new = await run(self.service.chat_since, conn.table_id, conn.chat_seen)
        if new:
            conn.chat_seen = new[-1]["id"]
            await conn.send({"type": "chat", "messages": new})

    async def on_check(self, conn: Connection, message: CheckMessage) -> None:
        """``check``: whether the action is legal now, and why not."""
        legal, reason = await run(self.service.check, conn.table_id, conn.seat,
                                  message.action)
        await conn.send({"type": "check", "action": message.action, "legal": legal,
                         "reason": reason})

    async def on_hint(self, conn: Connection, _message: ClientMessage) -> None:
        """``hint``: a suggested action for this seat, with the reason and the version it
        is for."""
        action, reason, version = await run(self.service.hint, conn.table_id, conn.seat)
        await conn.send({"type": "hint", "action": action, "reason": reason,
                         "version": version})

    async def on_switch(self, conn: Connection, _message: ClientMessage) -> None:
        """``switch``: the turn checked and the view taken, then the weighing, in the queue
        of brief decisions (a person waits for it: never behind a search's seconds); asked
        again at the same version, from any socket of the seat, the same weighing
        (``SeatAdvice``)."""
        version, job = await run(self.service.switch_job, conn.table_id, conn.seat)
        assert conn.seat is not None  # (switch_job refused a spectator)
        advice = await self.advice.advice(conn.table_id, conn.seat, version,
                                          lambda: think(job, brief=True))
        await conn.send({**switch_message(advice), "version": version})


__all__ = ["ClientGoneError", "Connection", "PlayChannel"]
