"""Notices through Redis pub/sub, for several server processes on one database: the
``RedisBroadcaster`` (the ``Broadcaster`` of ``broadcast.py`` across processes), and the check
``noreturn serve`` makes of a Redis URL before it listens."""

from __future__ import annotations

import asyncio
import logging
import secrets
from collections.abc import AsyncIterator
from contextlib import AbstractAsyncContextManager, asynccontextmanager, suppress
from typing import Any

from noreturn.server.broadcast import CHAT, QueueSubscription, Subscription


class BroadcastError(ValueError):
    """Redis cannot be used: a bad ``--redis`` URL, or nobody answers there (at startup)."""


PUBLISHING = 256
"""Notices waiting to be published through Redis at most (``RedisBroadcaster.publish``)."""
CLOSE_WAIT = 1.0
"""Seconds ``close`` waits for the notices still waiting (a restart's last moves)."""
TABLE_CHANNEL = "table:"
PROCESS_CHANNEL = "process:"
SUBSCRIBE_WAIT = 5.0
"""Seconds a new subscriber waits for Redis to confirm the channel (then it goes on)."""
PING_SECONDS = 5.0
DEAD_SECONDS = 15.0
"""With no word from Redis for this long (pings unanswered) the connection is dropped."""
RETRY_SECONDS = (0.1, 0.2, 0.5, 1.0, 2.0, 5.0)
"""Waits between reconnection attempts (the last one repeats)."""
log = logging.getLogger("noreturn.server.broadcast")  # (the name the logs always had)


def redis_problem(url: str, timeout: float = 3.0) -> str | None:
    """Why Redis at ``url`` cannot be used (None: it answers a PING).

    Synchronous, for startup: ``noreturn serve`` checks before it listens, so a mistyped
    URL or a stopped Redis is a clear message, not a traceback from the event loop.
    """
    try:
        import redis  # noqa: PLC0415 - only a Redis setup needs the package
    except ImportError:
        return "--redis needs the redis package: pip install 'redis>=5'"
    try:
        client = redis.Redis.from_url(url, socket_connect_timeout=timeout,
                                      socket_timeout=timeout)
    except ValueError as exc:
        return f"{url!r} is not a Redis URL ({exc}): use redis://HOST:6379/0"
    try:
        client.ping()
    except redis.RedisError as exc:
        reason = " ".join(str(exc).split())
        return (f"Redis at {_safe(url)} is unreachable ({type(exc).__name__}: {reason}): "
                "start Redis, fix --redis, or leave --redis out to run one process")
    finally:
        client.close()
    return None


def _safe(url: str) -> str:
    """``url`` without its password (for messages and logs)."""
    head, at, tail = url.rpartition("@")
    if not at:
        return url
    scheme, sep, user = head.partition("://")
    return f"{scheme}{sep}{user.partition(':')[0]}:***@{tail}" if ":" in user else url


class RedisBroadcaster:
    """Notices through Redis pub/sub, for several server processes on one database.

    Each process keeps one pub/sub connection (plus a small pool for PUBLISH) and a channel
    per table, ``{prefix}table:{id}``, subscribed while at least one local connection of
    that table listens: the first local subscriber subscribes (and waits for Redis to
    confirm, so no notice published after ``subscribe`` returns is missed), the last one to
    leave unsubscribes. One reader task dispatches the notices to the local subscribers.

    A notice's payload is the publishing process's id (local subscribers are woken at once
    by ``publish`` itself, and their own notice coming back from Redis is skipped), then,
    for a move, ``:`` and the version it made (public: every seat sees the version), or
    ``:-1`` (``CHAT``) for a chat line.

    When Redis drops, the reader reconnects with backoff, subscribes again to every table
    that has local subscribers, and then wakes all of them (notices may have been missed
    meanwhile; each connection then sends its seat the current state, which is harmless if
    nothing changed). Publishing happens in the background, so no move waits on Redis; while
    Redis is down it fails fast (a short retry) and logs a warning, nothing more: the move
    is stored already, local subscribers were woken, and the other processes wake all their
    connections once they reconnect.

    Use: ``await start()`` in the event loop (raises ``BroadcastError`` if Redis does not
    answer), ``await close()`` at shutdown.
    """

    def __init__(self, url: str, prefix: str = "noreturn:") -> None:
        """Notices through Redis at ``url``; channel names start with ``prefix``."""
        self.url = url
        self.prefix = prefix
        self.id = secrets.token_hex(8)
        self._subscribers: dict[str, set[QueueSubscription]] = {}
        self._client: Any = None  # redis.asyncio.Redis: PUBLISH
        self._sub_client: Any = None  # redis.asyncio.Redis: the pub/sub connection's
        self._pubsub: Any = None  # the current redis.asyncio PubSub, None while down
        self._channels: set[str] = set()  # subscribed (or being) on the current pubsub
        self._confirmed: dict[str, asyncio.Event] = {}
        self._lock = asyncio.Lock()
        self._reader: asyncio.Task[None] | None = None
        self._background: set[asyncio.Task[None]] = set()
        self._outbox: asyncio.Queue[tuple[str, int | None]] = asyncio.Queue(PUBLISHING)
        """Notices waiting to be published, in order, by the one publisher task."""
        self._publisher: asyncio.Task[None] | None = None
        self._broken = ""
        self._wake_all_on: str | None = None
        self._wake_after = 0  # confirmations of the control channel still to come
        self._publish_failed = False
        self._errors: tuple[type[BaseException], ...] = (OSError,)
        self.connects = 0
        """How many times the pub/sub connection was made (1 + reconnections; for tests)."""

    # ------------------------------------------------------------------ names
    @property
    def client_name(self) -> str:
        """The pub/sub connection's name in Redis (``CLIENT LIST``), e.g. to find it."""
        return f"noreturn-{self.id}"

    def channel(self, table_id: str) -> str:
        """The Redis channel of ``table_id``."""
        return f"{self.prefix}{TABLE_CHANNEL}{table_id}"

    def _control(self) -> str:
        return f"{self.prefix}{PROCESS_CHANNEL}{self.id}"

    # -------------------------------------------------------------- lifecycle
    async def start(self) -> None:
        """Connect, subscribe, start the reader.

        Raises:
            BroadcastError: the URL is not a Redis URL, or Redis does not answer.
        """
        if self._reader is not None:
            return
        from redis.asyncio import Redis  # noqa: PLC0415 - only a Redis setup needs it
        from redis.asyncio.retry import Retry  # noqa: PLC0415
        from redis.backoff import ExponentialBackoff, NoBackoff  # noqa: PLC0415
        from redis.exceptions import RedisError  # noqa: PLC0415

        self._errors = (OSError, RedisError)

        try:
            # PUBLISH retries briefly only (in the background: ``publish``).
            self._client = Redis.from_url(self.url, socket_connect_timeout=1, socket_timeout=2,
                                          retry=Retry(ExponentialBackoff(0.2, 0.02), 2))
            # The pub/sub connection does not retry on its own: the reader reconnects, and
            # so knows when notices may have been lost.
            self._sub_client = Redis.from_url(self.url, socket_connect_timeout=3,
                                              retry=Retry(NoBackoff(), 0),
                                              client_name=self.client_name)
        except ValueError as exc:
            raise BroadcastError(f"{self.url!r} is not a Redis URL ({exc}): use "
                                 "redis://HOST:6379/0") from exc
        try:
            await self._client.ping()
            await self._connect()
        except self._errors as exc:
            await self._drop()
            await self._client.aclose()
            await self._sub_client.aclose()
            self._client = self._sub_client = None
            reason = " ".join(str(exc).split())
            raise BroadcastError(f"Redis at {_safe(self.url)} is unreachable "
                                 f"({type(exc).__name__}: {reason}): start Redis or fix "
                                 "--redis") from exc
        self._reader = asyncio.get_running_loop().create_task(self._run())
        self._publisher = asyncio.get_running_loop().create_task(self._send())

    async def close(self) -> None:
        """Stop the reader and close the connections (at shutdown)."""
        if self._reader is not None:
            self._reader.cancel()
            await asyncio.gather(self._reader, return_exceptions=True)
            self._reader = None
        if self._publisher is not None:  # the last moves' notices go out first (1 s)
            with suppress(TimeoutError):
                await asyncio.wait_for(self._outbox.join(), CLOSE_WAIT)
            self._publisher.cancel()
            await asyncio.gather(self._publisher, return_exceptions=True)
            self._publisher = None
        for task in list(self._background):
            task.cancel()
        await asyncio.gather(*self._background, return_exceptions=True)
        await self._drop()
        for client in (self._client, self._sub_client):
            if client is not None:
                await client.aclose()
        self._client = self._sub_client = None

    async def _connect(self) -> None:
        """A new pub/sub connection, subscribed to every table with local subscribers.

        The process's own control channel is subscribed last: its confirmation means every
        table channel before it is active, and then every local subscriber is woken.
        """
        async with self._lock:
            pubsub = self._sub_client.pubsub()
            tables: set[str] = set()
            controls = 0
            try:
                while True:  # the tables, then the control channel, which the wake-all
                    # waits for; again while subscribers came meanwhile (``_listen``
                    # returns at once while this runs): their tables, then the control
                    missing = [self.channel(t) for t, subs in self._subscribers.items()
                               if subs and self.channel(t) not in tables]
                    if not missing and controls:
                        break
                    for start in range(0, len(missing), 500):
                        await pubsub.subscribe(*missing[start:start + 500])
                    tables.update(missing)
                    await pubsub.subscribe(self._control())
                    controls += 1
            except BaseException:
                await pubsub.aclose()
                raise
            self._pubsub = pubsub
            self._channels = tables
            self._broken = ""
            self._wake_all_on, self._wake_after = self._control(), controls
            self.connects += 1

    async def _drop(self) -> None:
        """Forget the current pub/sub connection (waiters for confirmations go on)."""
        async with self._lock:
            pubsub, self._pubsub = self._pubsub, None
            self._channels = set()
            for event in self._confirmed.values():
                event.set()
            self._confirmed = {}
            if pubsub is not None:
                with suppress(*self._errors):  # closing a dead connection may fail
                    await pubsub.aclose()

    async def _run(self) -> None:
        """The reader: dispatch notices; on a lost connection, reconnect with backoff."""
        failures = 0
        while True:
            try:
                if self._pubsub is None:
                    await self._connect()
                    log.info("Redis at %s: connected again; every connection is "
                                "refreshed", _safe(self.url))
                    failures = 0
                await self._read(self._pubsub)
            except asyncio.CancelledError:
                raise
            except self._errors as exc:
                if failures == 0:
                    log.warning("Redis at %s: connection lost (%s); notices from other "
                                "processes wait until it is back; reconnecting",
                                _safe(self.url), exc)
                await self._drop()
                await asyncio.sleep(RETRY_SECONDS[min(failures, len(RETRY_SECONDS) - 1)])
                failures += 1

    async def _read(self, pubsub: Any) -> None:
        """Read messages until the connection fails (raises)."""
        loop = asyncio.get_running_loop()
        heard = pinged = loop.time()
        while True:
            if self._broken:
                raise ConnectionError(self._broken)
            message = await pubsub.get_message(timeout=1.0)
            moment = loop.time()
            if message is not None:
                heard = moment
                self._dispatch(message)
            elif moment - heard > DEAD_SECONDS:
                raise ConnectionError(f"no answer from Redis for {DEAD_SECONDS:g} s")
            if moment - pinged > PING_SECONDS and moment - heard > PING_SECONDS:
                pinged = moment
                await pubsub.ping()

    def _dispatch(self, message: dict[str, Any]) -> None:
        """Act on one pub/sub message: a notice, or a subscription's confirmation."""
        kind = message.get("type")
        channel = _text(message.get("channel"))
        if kind == "subscribe" and channel is not None:
            event = self._confirmed.pop(channel, None)
            if event is not None:
                event.set()
            if channel == self._wake_all_on:
                self._wake_after -= 1
            if channel == self._wake_all_on and self._wake_after <= 0:
                self._wake_all_on = None
                for subs in list(self._subscribers.values()):
                    for sub in list(subs):
                        sub.notify()
        elif kind == "message" and channel is not None:
            table_prefix = self.prefix + TABLE_CHANNEL
            sender, _sep, moved = (_text(message.get("data")) or "").partition(":")
            if channel.startswith(table_prefix) and sender != self.id:
                good = moved.isascii() and moved.isdigit() and len(moved) < 19
                version = int(moved) if good else CHAT if moved == str(CHAT) else None
                for sub in list(self._subscribers.get(channel[len(table_prefix):], ())):
                    sub.notify(version)

    # ------------------------------------------------------------- subscribers
    @asynccontextmanager
    async def _subscription(self, table_id: str) -> AsyncIterator[Subscription]:
        sub = QueueSubscription()
        subs = self._subscribers.setdefault(table_id, set())
        subs.add(sub)
        try:
            await self._listen(table_id)
            yield sub
        finally:
            # No await here: this may run in a cancelled task, and the set must shrink.
            subs.discard(sub)
            if not subs and self._subscribers.get(table_id) is subs:
                del self._subscribers[table_id]
                task = asyncio.get_running_loop().create_task(self._unlisten(table_id))
                self._background.add(task)
                task.add_done_callback(self._background.discard)

    def subscribe(self, table_id: str) -> AbstractAsyncContextManager[Subscription]:
        """A subscription to ``table_id``'s notices, from any process, while the ``async
        with`` lasts."""
        return self._subscription(table_id)

    async def _listen(self, table_id: str) -> None:
        """Subscribe to the table's channel (if not yet) and wait for Redis to confirm.

        While Redis is down this returns at once: the reconnection subscribes, then wakes
        every local subscriber.
        """
        channel = self.channel(table_id)
        if self._pubsub is None:  # down, or reconnecting (``_connect`` holds the lock for
            return  # seconds, and subscribes this table too: it is in ``_subscribers``)
        async with self._lock:
            if self._pubsub is None:
                return
            if channel not in self._channels:
                self._confirmed[channel] = asyncio.Event()
                try:
                    await self._pubsub.subscribe(channel)
                except self._errors as exc:
                    self._broken = f"subscribing failed: {exc}"
                    return
                self._channels.add(channel)
            event = self._confirmed.get(channel)
        if event is None:
            return  # confirmed already
        try:
            await asyncio.wait_for(event.wait(), SUBSCRIBE_WAIT)
        except TimeoutError:
            log.warning("Redis did not confirm %s in %g s", channel, SUBSCRIBE_WAIT)

    async def _unlisten(self, table_id: str) -> None:
        """Unsubscribe from the table's channel unless a local subscriber came back."""
        channel = self.channel(table_id)
        async with self._lock:
            if self._subscribers.get(table_id) or channel not in self._channels:
                return
            self._channels.discard(channel)
            self._confirmed.pop(channel, None)
            if self._pubsub is None:
                return
            try:
                await self._pubsub.unsubscribe(channel)
            except self._errors as exc:
                self._broken = f"unsubscribing failed: {exc}"

    def wake(self, table_id: str) -> None:
        """``Broadcaster.wake``: the local subscribers, to read the table again."""
        for sub in list(self._subscribers.get(table_id, ())):
            sub.notify(None)

    async def publish(self, table_id: str, version: int | None = None) -> None:
        """Wake ``table_id``'s local subscribers, and tell the other processes through Redis
        in the background: a Redis that accepts connections and never answers made every
        move and bot step here wait for its timeouts, some six seconds each. One publisher
        task sends them in order, on one connection; beyond ``PUBLISHING`` waiting, a notice
        is dropped (notices are at most once anyway)."""
        for sub in list(self._subscribers.get(table_id, ())):
            sub.notify(version)
        if self._client is None:
            return
        try:
            self._outbox.put_nowait((table_id, version))
        except asyncio.QueueFull:
            if not self._publish_failed:
                log.warning("Redis at %s: %d notices wait to be published; dropping more "
                            "until it answers", _safe(self.url), PUBLISHING)
            self._publish_failed = True

    async def _send(self) -> None:
        """The publisher task: the waiting notices, one at a time, in order."""
        while True:
            table_id, version = await self._outbox.get()
            try:
                await self._publish(table_id, version)
            except Exception:  # the publisher must go on (Redis's own errors are handled)
                log.exception("publishing a notice of table %s failed", table_id)
            finally:
                self._outbox.task_done()

    async def _publish(self, table_id: str, version: int | None) -> None:
        """PUBLISH one notice (``publish``'s background part)."""
        payload = self.id if version is None else f"{self.id}:{version}"
        try:
            await self._client.publish(self.channel(table_id), payload)
        except self._errors as exc:
            if not self._publish_failed:
                log.warning("Redis at %s: publishing failed (%s); other processes refresh "
                            "their connections once Redis is back", _safe(self.url), exc)
            self._publish_failed = True
            return
        self._publish_failed = False

    def subscribers(self, table_id: str) -> int:
        """How many local connections listen to ``table_id`` (for tests)."""
        return len(self._subscribers.get(table_id, ()))

    def channels(self) -> set[str]:
        """The table channels subscribed on Redis now (for tests)."""
        return set(self._channels)


def _text(value: Any) -> str | None:
    """A channel name or payload as text (Redis hands back bytes)."""
    if isinstance(value, bytes):
        return value.decode("utf-8", "replace")
    return value if isinstance(value, str) else None
