"""Abuse limits: how fast one WebSocket may send, how long and deep a message may be, how
often one address may create tables or use seats (docs/server-protocol.md, "Limits").

Every limit here is a token bucket: tokens refill at a steady rate up to a capacity (the
burst), and each message or request takes one. A real player never comes near the numbers
below; a script that floods does, and then costs the server almost nothing:

- A message over the per-connection rate is dropped before it is even parsed: no JSON, no
  database work, no answer. So that a flood is not answered by a flood, the client is told
  (``rate_limited``) at most once per ``error_interval``.
- A connection that keeps sending far faster than that (``flood_factor`` times the rate,
  on average over ``flood_seconds``) is closed with 1008 (policy violation): a client that
  ignores the ``rate_limited`` errors is not worth reading.
- Table creation (a database write, and a table of bots starts playing at once) and the
  seat requests (join, start, leave, close: a write and a state to every socket of the
  table) are
  limited per client address, in this process: ``429`` with ``Retry-After``.
- An HTTP body is at most MAX_BODY bytes and a message at most MAX_DEPTH levels deep.

The buckets are in memory, per process: with several server processes each counts alone,
which is the point for the per-connection limit and good enough for the per-address one.
"""

from __future__ import annotations

import math
import re
import time
from collections import OrderedDict
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from enum import Enum
from itertools import accumulate

from fastapi import Depends, HTTPException, Request
from fastapi.params import Depends as DependsParam

from noreturn.server.errors import BadRequestError
from noreturn.server.schemas import ErrorOut
from noreturn.text.lang import N_, _

MAX_MESSAGE = 4096
"""The longest client message read, in characters (the longest action's text is far
shorter). Longer ones get a ``too_large`` error; the connection stays open."""
WS_MAX_SIZE = 1 << 16
"""uvicorn's frame limit (``ws_max_size``, bytes) for ``noreturn serve``: above it uvicorn
closes the connection with 1009 before the app sees the message. A message longer than
MAX_MESSAGE characters but within this gets ``too_large``; MAX_MESSAGE characters take at
most 16 KiB in UTF-8, so every message the server would read fits."""
MAX_BODY = 8192
"""The longest HTTP request body read, in bytes: a table of four seats with the longest
names and levels, every character escaped, is some 3 KiB. Longer bodies get ``413``,
without being read (a ``Content-Length`` over it) or as soon as they pass it (a chunked
body): nothing proportional to a hostile body is ever done."""
MAX_DEPTH = 32
"""The deepest nesting of arrays and objects read in a client message (the protocol's are
1 deep). Deeper ones get a ``malformed`` error before they are parsed: a JSON parser
recurses once per level, and 4096 characters hold 2,000 levels."""
CLOSE_FLOODING = 1008
"""The close code for a connection that keeps flooding (RFC 6455: policy violation)."""

Clock = Callable[[], float]


class TooLargeError(BadRequestError):
    """A client message longer than MAX_MESSAGE characters."""

    code = "too_large"


def check_size(text: str) -> None:
    """Refuse a message longer than MAX_MESSAGE characters.

    Raises:
        TooLargeError: saying how long it was and what the limit is.
    """
    if len(text) > MAX_MESSAGE:
        raise TooLargeError(f"message too long ({len(text)} characters, at most {MAX_MESSAGE}): "
                            'send one short JSON object such as {"type": "ping"}')


_STRING = re.compile(r'"(?:[^"\\]|\\.)*"?')
_BRACKET = re.compile(r"[\[\]{}]")
_STEP = {"[": 1, "{": 1, "]": -1, "}": -1}


def nesting_depth(text: str) -> int:
    """How deeply the arrays and objects of JSON ``text`` nest, without parsing it.

    Brackets inside strings do not count; the text need not be valid JSON. Linear in the
    text's length, without recursion and without a Python step per character.
    """
    brackets = _BRACKET.findall(_STRING.sub('""', text))
    return max(accumulate(map(_STEP.__getitem__, brackets)), default=0)


def check_depth(text: str) -> None:
    """Refuse a message nested deeper than MAX_DEPTH, before any parser recurses into it.

    Counting the opening brackets (in C) clears every ordinary message at once; only one
    with more of them than MAX_DEPTH is measured.

    Raises:
        BadRequestError: ``malformed``, saying how deep it was and what the limit is.
    """
    if text.count("[") + text.count("{") <= MAX_DEPTH:
        return
    depth = nesting_depth(text)
    if depth > MAX_DEPTH:
        raise BadRequestError(f"nested {depth} levels deep (at most {MAX_DEPTH}): send one "
                              'flat JSON object such as {"type": "ping"}')


class TokenBucket:
    """``capacity`` tokens that refill at ``rate`` per second; each use takes one."""

    def __init__(self, rate: float, capacity: float, now: float) -> None:
        self.rate = rate
        self.capacity = capacity
        self.tokens = capacity
        self.stamp = now

    def _refill(self, now: float) -> None:
        if now > self.stamp:
            self.tokens = min(self.capacity, self.tokens + (now - self.stamp) * self.rate)
            self.stamp = now

    def take(self, now: float) -> bool:
        """Take a token if there is one."""
        self._refill(now)
        if self.tokens >= 1.0:
            self.tokens -= 1.0
            return True
        return False

    def wait(self, now: float) -> float:
        """Seconds until a token is there (0: now)."""
        self._refill(now)
        return max(0.0, (1.0 - self.tokens) / self.rate)


@dataclass(frozen=True)
class MessageLimits:
    """The per-connection limits of the play channel.

    The defaults leave a real player far below them: the browser sends a ``check`` for
    each candidate move it shows (a few per click, several at once when a state arrives),
    a ping every 20 s and one action per turn, so even fast clicking stays under 10 a
    second. The burst is large enough that a whole scripted game's worth of checks and
    actions sent at machine speed (the tests, at most about 90 per connection) is never
    limited, and small enough that a flood gets at most 100 answers at once, then 20 a
    second.
    """

    rate: float = 20.0
    """Messages per second, steady."""
    burst: int = 100
    """Messages at once, after a quiet moment."""
    flood_factor: float = 10.0
    """A client that sends this many times ``rate`` ..."""
    flood_seconds: float = 5.0
    """... on average over this long is disconnected (1008)."""
    error_interval: float = 1.0
    """At most one ``rate_limited`` error per this many seconds."""

    def __post_init__(self) -> None:
        if self.rate <= 0 or self.burst < 1 or self.flood_factor <= 1 or (
                self.flood_seconds <= 0 or self.error_interval < 0):
            raise ValueError(f"message limits out of range: {self}")

    @property
    def flood_rate(self) -> float:
        """Messages per second, on average, above which a connection is closed."""
        return self.rate * self.flood_factor


class Verdict(Enum):
    """What to do with a client message."""

    ACCEPT = "accept"
    """Within the limit: answer it."""
    DROP = "drop"
    """Over the limit: ignore it (the client was told recently)."""
    WARN = "warn"
    """Over the limit: ignore it and send one ``rate_limited`` error."""
    CLOSE = "close"
    """Flooding: close the connection with CLOSE_FLOODING."""


class MessageLimiter:
    """The limits of one connection: ``admit()`` once per message received."""

    def __init__(self, limits: MessageLimits, clock: Clock = time.monotonic) -> None:
        self.limits = limits
        self.clock = clock
        now = clock()
        self._steady = TokenBucket(limits.rate, limits.burst, now)
        self._flood = TokenBucket(limits.flood_rate, limits.flood_rate * limits.flood_seconds,
                                  now)
        self._warned = -math.inf
        self.dropped = 0
        """Messages dropped so far (for tests and logs)."""

    def admit(self) -> Verdict:
        """The verdict on a message that has just arrived (counts it)."""
        now = self.clock()
        if not self._flood.take(now):
            return Verdict.CLOSE
        if self._steady.take(now):
            return Verdict.ACCEPT
        self.dropped += 1
        if now - self._warned >= self.limits.error_interval:
            self._warned = now
            return Verdict.WARN
        return Verdict.DROP

    def warning(self) -> str:
        """The ``rate_limited`` error's message: the limit and when to try again."""
        wait = max(0.1, math.ceil(self._steady.wait(self.clock()) * 10) / 10)
        return (f"too many messages, slow down: at most {self.limits.rate:g} messages per "
                f"second ({self.limits.burst} at once); messages over that are dropped "
                f"unanswered; try again in {wait:.1f} s")

    def close_reason(self) -> str:
        """The close frame's reason (at most 123 bytes)."""
        return (f"flooding: over {self.limits.flood_rate:g} messages per second; "
                "slow down, then reconnect")


class AddressLimiter:
    """At most ``per_minute`` uses per client address (in this process).

    A bucket per address holds a minute's worth; idle addresses are forgotten first once
    more than ``max_clients`` are tracked, so the memory stays bounded.
    """

    def __init__(self, per_minute: int, max_clients: int = 10_000,
                 clock: Clock = time.monotonic) -> None:
        if per_minute < 1:
            raise ValueError(f"limit {per_minute}: at least 1 per minute (None: off)")
        self.per_minute = per_minute
        self.max_clients = max_clients
        self.clock = clock
        self._buckets: OrderedDict[str, TokenBucket] = OrderedDict()

    def _bucket(self, client: str, now: float) -> TokenBucket:
        bucket = self._buckets.get(client)
        if bucket is None:
            bucket = TokenBucket(self.per_minute / 60.0, self.per_minute, now)
            self._buckets[client] = bucket
            while len(self._buckets) > self.max_clients:
                self._buckets.popitem(last=False)
        self._buckets.move_to_end(client)
        return bucket

    def take(self, client: str) -> float | None:
        """Count one use by ``client``: None if allowed, else seconds to wait."""
        now = self.clock()
        bucket = self._bucket(client, now)
        if bucket.take(now):
            return None
        return bucket.wait(now)

    def charge(self, client: str) -> None:
        """Count one use by ``client`` that already happened, even past the limit: the
        bucket goes into debt (down to minus its capacity), and ``wait`` grows with it."""
        now = self.clock()
        bucket = self._bucket(client, now)
        if not bucket.take(now):
            bucket.tokens = max(-bucket.capacity, bucket.tokens - 1.0)

    def wait(self, client: str) -> float | None:
        """Whether ``client`` may use it now, without counting: None, or seconds to wait."""
        now = self.clock()
        if client not in self._buckets:
            return None
        wait = self._bucket(client, now).wait(now)
        return wait if wait > 0 else None


CreateLimiter = AddressLimiter
"""The limiter of ``POST /api/tables`` (its first name)."""


def limited(what: str) -> dict[int | str, dict[str, object]]:
    """The OpenAPI description of a per-address limit's ``429`` answer."""
    return {429: {
        "model": ErrorOut,
        "description": f"too many {what} from this address: wait and try again",
        "headers": {"Retry-After": {
            "description": "seconds to wait before trying again",
            "schema": {"type": "integer", "minimum": 1}}},
    }}


def per_address(state_key: str, what: str) -> Callable[[Request], Awaitable[None]]:
    """A FastAPI dependency: ``429`` with ``Retry-After`` when one address makes ``what``
    too fast (its ``detail`` in the reader's language: ``what`` is marked with ``N_``).

    The limiter is ``app.state.<state_key>`` (None or missing: no limit). The address is
    the connection's peer (uvicorn puts a trusted proxy's ``X-Forwarded-For`` there).
    """

    async def limit(request: Request) -> None:
        limiter: AddressLimiter | None = getattr(request.app.state, state_key, None)
        if limiter is None:
            return
        wait = limiter.take(request.client.host if request.client else "unknown")
        if wait is None:
            return
        seconds = max(1, math.ceil(wait))
        raise HTTPException(
            status_code=429,
            detail=_("too many {what} from your address: at most {most} per minute; try "
                     "again in {seconds} s").format(what=_(what), most=limiter.per_minute,
                                                     seconds=seconds),
            headers={"Retry-After": str(seconds)})

    return limit


CREATE_WHAT = N_("new tables")
SEAT_WHAT = N_("seat requests (join, start, leave, close)")
CREATE_LIMITED = limited(CREATE_WHAT)
"""The OpenAPI description of the create limit's answer."""
CREATE_LIMIT: list[DependsParam] = [Depends(per_address("create_limiter", CREATE_WHAT))]
"""The route dependencies of ``POST /api/tables``."""
SEAT_LIMITED = limited(SEAT_WHAT)
"""The OpenAPI description of the seat limit's answer."""
SEAT_LIMIT: list[DependsParam] = [Depends(per_address("seat_limiter", SEAT_WHAT))]
"""The route dependencies of ``join``, ``start``, ``leave`` and ``close``: one bucket for
them all (``app.state.seat_limiter``)."""


__all__ = [
    "CLOSE_FLOODING", "CREATE_LIMIT", "CREATE_LIMITED", "MAX_BODY", "MAX_DEPTH", "MAX_MESSAGE",
    "SEAT_LIMIT", "SEAT_LIMITED", "WS_MAX_SIZE", "AddressLimiter", "CreateLimiter",
    "MessageLimiter", "MessageLimits", "TokenBucket", "TooLargeError", "Verdict",
    "check_depth", "check_size", "limited", "nesting_depth", "per_address",
]
