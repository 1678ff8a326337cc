"""Telling every connection of a table that it changed: the broadcaster.

A notice carries no game data, only "table X changed": each connection then builds its own
message from its own seat's view, so a broadcast can never carry another seat's tiles. The
in-process broadcaster serves one server process; a Redis pub/sub one (issue 7) implements
the same two methods, and then notices from other processes arrive the same way.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from typing import Protocol


class Subscription(Protocol):
    """Notices for one table, for one connection."""

    async def wait(self) -> None:
        """Return once the table changed since the last wait (changes coalesce)."""
        ...


class Broadcaster(Protocol):
    """Publish "table changed" notices; subscribe to a table's notices."""

    def subscribe(self, table_id: str) -> AbstractAsyncContextManager[Subscription]:
        """A subscription, for the duration of an ``async with``."""
        ...

    async def publish(self, table_id: str) -> None:
        """Tell every subscriber of ``table_id`` that it changed."""
        ...


class _QueueSubscription:
    """A notice flag as a queue of at most one item: many changes wake one wait."""

    def __init__(self) -> None:
        self.queue: asyncio.Queue[None] = asyncio.Queue(maxsize=1)

    def notify(self) -> None:
        if self.queue.empty():
            self.queue.put_nowait(None)

    async def wait(self) -> None:
        await self.queue.get()


class LocalBroadcaster:
    """The in-process broadcaster: subscribers in this process's event loop."""

    def __init__(self) -> None:
        self._subscribers: dict[str, set[_QueueSubscription]] = {}

    @asynccontextmanager
    async def _subscription(self, table_id: str) -> AsyncIterator[Subscription]:
        sub = _QueueSubscription()
        self._subscribers.setdefault(table_id, set()).add(sub)
        try:
            yield sub
        finally:
            subs = self._subscribers.get(table_id, set())
            subs.discard(sub)
            if not subs:
                self._subscribers.pop(table_id, None)

    def subscribe(self, table_id: str) -> AbstractAsyncContextManager[Subscription]:
        """A subscription to ``table_id``'s notices while the ``async with`` lasts."""
        return self._subscription(table_id)

    async def publish(self, table_id: str) -> None:
        """Wake every subscriber of ``table_id`` (in this process)."""
        for sub in list(self._subscribers.get(table_id, ())):
            sub.notify()

    def subscribers(self, table_id: str) -> int:
        """How many connections listen to ``table_id`` (for tests)."""
        return len(self._subscribers.get(table_id, ()))
