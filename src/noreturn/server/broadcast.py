"""Telling every connection of a table that it changed: the broadcaster.

A notice carries no game data, only "table X changed" (after a move, with the public version
it made, so a connection that sent that version already can skip it): each connection then
builds its own message from its own seat's view, so a broadcast can never carry another
seat's tiles. The in-process broadcaster (``LocalBroadcaster``) serves one server process,
the default. With several processes on one database, ``RedisBroadcaster``
(``redisnotices.py``) carries the notices between them through Redis pub/sub, so the
players of one table may be connected to different processes.

Losing a notice is never fatal, only slow: the database holds the truth, and a connection
woken for any reason sends its seat the current state (so a spare wake-up costs one query,
and the Redis broadcaster wakes every local connection after it reconnects).
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from typing import Protocol

CHAT = -1
"""The "version" of a notice that only the table's chat changed: a connection then reads
the new chat lines, not the game (a chat line costs one small query per connection)."""


class Subscription(Protocol):
    """Notices for one table, for one connection."""

    async def wait(self) -> int | None:
        """Return once the table changed since the last wait (changes coalesce): the
        highest version the coalesced notices carried, ``CHAT`` if they were all chat
        notices, None if any carried none (or chat and a move came together)."""
        ...


class Broadcaster(Protocol):
    """Publish "table changed" notices; subscribe to a table's notices."""

    def subscribe(self, table_id: str) -> AbstractAsyncContextManager[Subscription]:
        """A subscription, for the duration of an ``async with``."""
        ...

    async def publish(self, table_id: str, version: int | None = None) -> None:
        """Tell every subscriber of ``table_id`` that it changed; ``version``: a move took
        it to that version (and nothing else changed), None: any other change."""
        ...

    def wake(self, table_id: str) -> None:
        """Wake this process's subscribers of ``table_id`` only, to read it again: it was
        changed elsewhere (a write here was refused as ``stale``), and the notice of that
        change may not have come (Redis away)."""
        ...


class QueueSubscription:
    """A notice flag as a queue of at most one item: many changes wake one wait, which
    returns the highest version they carried (None if any carried none)."""

    def __init__(self) -> None:
        self.queue: asyncio.Queue[None] = asyncio.Queue(maxsize=1)
        self._version: int | None = None
        self._full = False
        self._chat = False

    def notify(self, version: int | None = None) -> None:
        if version is None:
            self._full = True
        elif version == CHAT:
            self._chat = True
        elif self._version is None or version > self._version:
            self._version = version
        if self.queue.empty():
            self.queue.put_nowait(None)

    async def wait(self) -> int | None:
        await self.queue.get()
        if self._full or (self._chat and self._version is not None):
            version = None  # read it all (a full read sends the chat too)
        else:
            version = CHAT if self._chat else self._version
        self._version, self._full, self._chat = None, False, False
        return version


class LocalBroadcaster:
    """The in-process broadcaster: subscribers in this process's event loop."""

    def __init__(self) -> None:
        self._subscribers: dict[str, set[QueueSubscription]] = {}

    @asynccontextmanager
    async def _subscription(self, table_id: str) -> AsyncIterator[Subscription]:
        sub = QueueSubscription()
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

    async def publish(self, table_id: str, version: int | None = None) -> None:
        """Wake every subscriber of ``table_id`` (in this process)."""
        for sub in list(self._subscribers.get(table_id, ())):
            sub.notify(version)

    def wake(self, table_id: str) -> None:
        """``Broadcaster.wake``: every subscriber, to read the table again."""
        for sub in list(self._subscribers.get(table_id, ())):
            sub.notify(None)

    def subscribers(self, table_id: str) -> int:
        """How many connections listen to ``table_id`` (for tests)."""
        return len(self._subscribers.get(table_id, ()))
