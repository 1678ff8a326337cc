"""The worker threads of the web app: service calls and slow bots' decisions.

The ``TableService`` is synchronous (database work, bots deciding); the event loop hands
each call to a worker thread, through a limiter per kind of work, so it never waits on the
database or on a thinking bot, and neither kind of work crowds out the other.
"""

from __future__ import annotations

import asyncio
import weakref
from collections.abc import Callable
from functools import partial
from typing import Any, TypeVar

import anyio

from noreturn.server.db import DB_POOL_SIZE
from noreturn.server.dbfaults import storage_faults

T = TypeVar("T")

WORKERS = DB_POOL_SIZE
"""Service calls (database work) running at once per process, each in a worker thread.

A few threads keep the cores busy while one waits on the database; anyio's default of 40
made them fight over the connection pool and the GIL (a connection each, and a context
switch on every hand-over), which cost more than it overlapped. The pool holds as many
connections (db.DB_POOL_SIZE)."""
THINKERS = 1
"""Slow bot decisions (bots with a ``Budget``: about a second each, at most
``lobby.MAX_BOT_SECONDS``) running at once per process, in their own threads, so they never
hold up the service calls. They wait in turn (anyio's limiter is first come, first served), one
decision per table at a time: the tables with a slow bot to move take turns. One: the decisions
share one interpreter lock, so more threads add no moves per second, only contention for the
event loop (measured with 12 tables of expert bots beside 30 of fast ones: a bystander's ping p99
100 ms with two thinkers, 65-73 ms with one; 229 ms with the former four)."""
BRIEF_THINKERS = 1
"""Brief thinking (a bot with no ``Budget`` that thinks at some views only: medium weighing
its switch over sampled worlds, some 10-35 ms; and the switch advice a person asked for,
0.3 s) running at once per process, in a queue of its own. In the thinkers' queue it
waited behind every search queued before it (one to three seconds each): a medium table
must not stall behind expert ones, nor a person behind them."""
BOT_LANES = 2
"""Bot steps (service calls: a fast bot's move or run of moves, a slow one's storing)
running at once per process. Fewer than ``WORKERS``, so people's requests always find a
worker however many tables of bots play; first come, first served, and each table's
runner queues again after each step, so the tables with a bot to move take turns, one
step each."""
_limiters: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, dict[
    str, anyio.CapacityLimiter]] = weakref.WeakKeyDictionary()
_SIZES = {"service": WORKERS, "thinking": THINKERS, "brief": BRIEF_THINKERS}


def _limiter(kind: str = "service") -> anyio.CapacityLimiter:
    """This event loop's limiter of one kind of work: service calls, thinking bots'
    decisions, or brief ones (``_SIZES``)."""
    loop = asyncio.get_running_loop()
    made = _limiters.get(loop)
    if made is None:
        made = _limiters[loop] = {name: anyio.CapacityLimiter(size)
                                  for name, size in _SIZES.items()}
    return made[kind]


async def run(call: Callable[..., T], *args: Any) -> T:
    """``call(*args)`` in a worker thread (database work), at most ``WORKERS`` at once.

    Raises:
        UnavailableError: the database failed (a ``ServiceError``: HTTP answers 503, the
            WebSocket an ``unavailable`` error; see dbfaults.py).
    """
    with storage_faults():
        return await anyio.to_thread.run_sync(partial(call, *args), limiter=_limiter())


async def think(call: Callable[[], T], brief: bool = False) -> T:
    """A slow bot's decision in a worker thread, at most ``THINKERS`` at once; a
    ``brief`` one (``BRIEF_THINKERS``) in a queue of its own, so it never waits for a
    search."""
    return await anyio.to_thread.run_sync(
        call, limiter=_limiter("brief" if brief else "thinking"))

__all__ = ["BOT_LANES", "BRIEF_THINKERS", "THINKERS", "WORKERS", "run", "think"]
