"""What one address may do on the play channel, and frames that are not JSON text.

- **Open sockets per address.** Each socket costs the server a state message at every
  change of its table; one address holding hundreds is refused past ``max_sockets``.
- **Failed hellos per address.** A wrong token, an unknown table or a malformed hello costs
  a database lookup; past ``failed_hellos_per_minute`` (a token bucket, as for creation)
  the address is refused before its hello is read, until a token comes back. Hellos that
  were under way when the limit was reached still count when they fail (the bucket goes
  into debt), so many sockets opened at once buy no more tries, only a longer wait.

Both refusals come as an ``error`` message that says the limit and what to do, then a close
with ``1013`` (RFC 6455: try again later). The counts live in this process.

Frames: a binary frame is a ``malformed`` message, not a dropped connection. Invalid UTF-8
in a text frame is closed by uvicorn itself with ``1007``; ``quiet_invalid_utf8`` keeps its
log line but drops the traceback that came with it (a client's mistake is not a server bug).
"""

from __future__ import annotations

import logging
import math
import time
from collections import Counter
from dataclasses import dataclass
from typing import Any

from starlette.types import ASGIApp, Message, Receive, Scope, Send
from starlette.websockets import WebSocket

from noreturn.server.errors import BadRequestError
from noreturn.server.limits import AddressLimiter, Clock
from noreturn.server.messages import encode, error_message

CLOSE_TRY_LATER = 1013
"""The close code of a refused socket (RFC 6455: try again later)."""
UTF8_LOG_LINE = "Invalid UTF-8 sequence received from client."
"""What uvicorn logs, with a traceback, before it closes such a socket with 1007."""


@dataclass(frozen=True)
class Refusal:
    """Why a new socket is not served: an error code and message, and the close reason."""

    code: str
    message: str
    reason: str


class SocketGuard:
    """The per-address socket limits of one process (None: that limit is off)."""

    def __init__(self, max_sockets: int | None = None,
                 failed_hellos_per_minute: int | None = None,
                 clock: Clock = time.monotonic) -> None:
        if max_sockets is not None and max_sockets < 1:
            raise ValueError(f"socket limit {max_sockets}: at least 1 (None: off)")
        self.max_sockets = max_sockets
        self.failures = (AddressLimiter(failed_hellos_per_minute, clock=clock)
                         if failed_hellos_per_minute else None)
        self._open: Counter[str] = Counter()

    def admit(self, client: str) -> Refusal | None:
        """A new socket from ``client``: None (counted as open) or why it is refused."""
        refusal = self.refusal(client)
        if refusal is None:
            self._open[client] += 1
        return refusal

    def refusal(self, client: str) -> Refusal | None:
        """Why a new socket from ``client`` would be refused now (None: it would not);
        counts nothing."""
        if self.max_sockets is not None and self._open[client] >= self.max_sockets:
            limit = f"at most {self.max_sockets}"
            return Refusal(
                "too_many_connections",
                f"too many open connections from your address ({limit}): close one, then "
                "connect again",
                f"too many open connections ({limit}): close one, then connect again")
        if self.failures is not None and (wait := self.failures.wait(client)) is not None:
            seconds = max(1, math.ceil(wait))
            limit = f"at most {self.failures.per_minute} per minute"
            return Refusal(
                "too_many_failed_hellos",
                f"too many failed hellos from your address ({limit}): try again in {seconds} s",
                f"too many failed hellos ({limit}): try again in {seconds} s")
        return None

    def release(self, client: str) -> None:
        """A socket ``admit`` let in has closed."""
        self._open[client] -= 1
        if self._open[client] <= 0:
            del self._open[client]

    def failed(self, client: str) -> None:
        """``client``'s hello was refused (wrong token, no such table, malformed, late)."""
        if self.failures is not None:
            self.failures.charge(client)

    def open_sockets(self, client: str) -> int:
        """Sockets of ``client`` open now (for tests)."""
        return self._open[client]


class SocketGate:
    """ASGI middleware, outermost: refuses a socket ``guard`` would refuse before the app.

    Hundreds of sockets opened at once from one address would each pass the whole
    middleware stack and the router before the channel refused them (some 0.3 ms a socket,
    in bursts that stalled other tables' messages for up to a tenth of a second). Here a
    refusal costs only uvicorn's handshake; the messages are the channel's own (the same
    ``Refusal``), and the channel still counts every socket it admits.
    """

    def __init__(self, app: ASGIApp, guard: SocketGuard) -> None:
        self.app = app
        self.guard = guard

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "websocket":
            refusal = self.guard.refusal(address_of(scope))
            if refusal is not None:
                await refuse(refusal, receive, send)
                return
        await self.app(scope, receive, send)


async def refuse(refusal: Refusal, receive: Receive, send: Send) -> None:
    """Accept a socket only to send ``refusal`` as an ``error`` message and close 1013."""
    if (await receive())["type"] != "websocket.connect":
        return
    await send({"type": "websocket.accept"})
    await send({"type": "websocket.send", "text": encode(error_message(refusal.code,
                                                                        refusal.message))})
    await send({"type": "websocket.close", "code": CLOSE_TRY_LATER, "reason": refusal.reason})


def address_of(scope: Scope) -> str:
    """The address a connection comes from (uvicorn puts a trusted proxy's client there):
    the one key of every per-address count, for the gate and the channel alike."""
    client = scope.get("client")
    return str(client[0]) if client else "unknown"


def client_of(ws: WebSocket) -> str:
    """The address a socket comes from (``address_of`` its scope)."""
    return address_of(ws.scope)


def frame_text(message: Message) -> str:
    """The text of a received WebSocket message.

    Raises:
        BadRequestError: ``malformed``: a binary frame (the protocol is JSON text).
    """
    text = message.get("text")
    if isinstance(text, str):
        return text
    raise BadRequestError("binary frames are not read: send each message as JSON text, such "
                          'as {"type": "ping"}')


class _QuietInvalidUtf8(logging.Filter):
    """Drops the traceback of uvicorn's invalid UTF-8 line; the line itself stays."""

    def filter(self, record: logging.LogRecord) -> bool:
        if record.msg == UTF8_LOG_LINE:
            record.exc_info = None
            record.exc_text = None
            record.levelno, record.levelname = logging.WARNING, "WARNING"
        return True


def quiet_invalid_utf8(logger: Any = None) -> None:
    """Install the filter on uvicorn's error logger (once)."""
    target = logger or logging.getLogger("uvicorn.error")
    if not any(isinstance(f, _QuietInvalidUtf8) for f in target.filters):
        target.addFilter(_QuietInvalidUtf8())


__all__ = ["CLOSE_TRY_LATER", "Refusal", "SocketGate", "SocketGuard", "address_of", "client_of",
           "frame_text", "quiet_invalid_utf8"]
