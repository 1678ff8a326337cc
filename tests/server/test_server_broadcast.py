"""The Redis broadcaster that carries table notices between ``noreturn serve`` processes
(docs/deploy.md): a notice reaching a subscriber of another process, one Redis subscription
for many local subscribers, reconnecting after a lost connection and after an outage (a
proxy that goes down), and the command's clear refusals (Redis with SQLite, an unreachable
Redis). Each test that needs Redis is skipped, with the reason, when it is unreachable.
"""

from __future__ import annotations

import asyncio
import secrets
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager, suppress
from pathlib import Path
from typing import Any, cast

import pytest
from fastapi.testclient import TestClient
from srvkit import REDIS_URL, SMALL, connect, create, free_port, need_redis, pending, start
from typer.testing import CliRunner

from noreturn.cli import app
from noreturn.server import create_app
from noreturn.server.botrunner import BotRunner
from noreturn.server.broadcast import LocalBroadcaster
from noreturn.server.errors import stale
from noreturn.server.redisnotices import (
    PUBLISHING,
    BroadcastError,
    RedisBroadcaster,
    redis_problem,
)
from noreturn.server.service import TableService


@asynccontextmanager
async def broadcasters(url_one: str = REDIS_URL) -> AsyncIterator[
        tuple[RedisBroadcaster, RedisBroadcaster]]:
    """Two started broadcasters (as two processes have) on a fresh prefix, closed at the
    end; the first reaches Redis at ``url_one``, the second at ``REDIS_URL``."""
    prefix = f"nrtest-{secrets.token_hex(4)}:"
    one, two = RedisBroadcaster(url_one, prefix), RedisBroadcaster(REDIS_URL, prefix)
    await one.start()
    await two.start()
    try:
        yield one, two
    finally:
        await one.close()
        await two.close()


def test_a_notice_reaches_a_subscriber_of_another_process() -> None:
    need_redis()

    async def scenario() -> None:
        import redis.asyncio  # noqa: PLC0415

        async with broadcasters() as (one, two):
            admin = redis.asyncio.Redis.from_url(REDIS_URL)
            channel = one.channel("t1")
            try:
                async with one.subscribe("t1") as sub, one.subscribe("t1") as sub2:
                    assert one.channels() == {channel}  # one Redis subscription for both
                    assert dict(await admin.pubsub_numsub(channel)) == {channel.encode(): 1}
                    await two.publish("t1")
                    await asyncio.wait_for(sub.wait(), 5)
                    await asyncio.wait_for(sub2.wait(), 5)
                    await two.publish("t2")  # another table's notice wakes nobody here
                    with pytest.raises(TimeoutError):
                        await asyncio.wait_for(sub.wait(), 0.3)
                    await one.publish("t1")  # a local publish wakes at once, and only once
                    await asyncio.wait_for(sub.wait(), 0.5)
                    with pytest.raises(TimeoutError):
                        await asyncio.wait_for(sub.wait(), 0.3)
                deadline = time.monotonic() + 5
                while one.channels() or dict(await admin.pubsub_numsub(channel))[channel.encode()]:
                    assert time.monotonic() < deadline, "the last subscriber left: unsubscribe"
                    await asyncio.sleep(0.05)
                assert one.subscribers("t1") == 0
            finally:
                await admin.aclose()

    asyncio.run(scenario())


def test_the_broadcaster_reconnects_after_losing_redis() -> None:
    need_redis()

    async def scenario() -> None:
        import redis.asyncio  # noqa: PLC0415

        async with broadcasters() as (one, two):
            admin = redis.asyncio.Redis.from_url(REDIS_URL, decode_responses=True)
            try:
                async with one.subscribe("t1") as sub:
                    ids = [c["id"] for c in await admin.client_list() if
                           c.get("name") == one.client_name]
                    assert len(ids) == 1
                    await admin.client_kill_filter(_id=ids[0])  # Redis drops the connection
                    # After reconnecting, every local subscriber is woken (notices may be lost).
                    await asyncio.wait_for(sub.wait(), 10)
                    assert one.connects == 2
                    await two.publish("t1")  # and notices flow again
                    await asyncio.wait_for(sub.wait(), 5)
            finally:
                await admin.aclose()

    asyncio.run(scenario())


def test_an_unreachable_redis_is_a_clear_error() -> None:
    async def scenario() -> None:
        with pytest.raises(BroadcastError, match="unreachable"):
            await RedisBroadcaster(f"redis://127.0.0.1:{free_port()}/0").start()

    asyncio.run(scenario())
    assert "not a Redis URL" in (redis_problem("http://example.org/") or "")


def plain(output: str) -> str:
    """A command's output without the error box's frame and line breaks."""
    return " ".join(output.translate(str.maketrans("│╭╮╰╯─", "      ")).split())


def test_serve_refuses_redis_with_sqlite(tmp_path: Path) -> None:
    result = CliRunner().invoke(app, ["serve", "--db", f"sqlite:///{tmp_path / 'x.db'}",
                                      "--redis", REDIS_URL])
    assert result.exit_code != 0
    assert "several processes need PostgreSQL: --db postgresql://" in plain(result.output)
    from_env = CliRunner().invoke(app, ["serve", "--db", f"sqlite:///{tmp_path / 'x.db'}"],
                                  env={"NORETURN_REDIS_URL": REDIS_URL})
    assert "several processes need PostgreSQL" in plain(from_env.output)
    assert not (tmp_path / "x.db").exists() or (tmp_path / "x.db").stat().st_size == 0


def test_serve_says_when_redis_is_unreachable() -> None:
    result = CliRunner().invoke(app, ["serve", "--db", "postgresql://nobody@127.0.0.1:1/x",
                                      "--redis", f"redis://127.0.0.1:{free_port()}/0"])
    assert result.exit_code != 0
    assert "unreachable" in plain(result.output) and "--redis" in plain(result.output)


class Outage:
    """A TCP proxy to Redis that can go down (every connection cut, new ones refused)."""

    def __init__(self, target_port: int) -> None:
        self.target_port = target_port
        self.port = free_port()
        self.server: asyncio.Server | None = None
        self.writers: set[asyncio.StreamWriter] = set()

    async def up(self) -> None:
        self.server = await asyncio.start_server(self._serve, "127.0.0.1", self.port)

    async def down(self) -> None:
        assert self.server is not None
        self.server.close()
        for writer in list(self.writers):
            writer.close()
        self.writers.clear()
        await self.server.wait_closed()

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            up_reader, up_writer = await asyncio.open_connection("127.0.0.1", self.target_port)
        except OSError:
            writer.close()
            return
        self.writers |= {writer, up_writer}

        async def pipe(source: asyncio.StreamReader, sink: asyncio.StreamWriter) -> None:
            with suppress(OSError):
                while data := await source.read(65536):
                    sink.write(data)
                    await sink.drain()
            sink.close()

        await asyncio.gather(pipe(reader, up_writer), pipe(up_reader, writer))


def test_the_broadcaster_survives_a_redis_outage() -> None:
    need_redis()
    from redis.asyncio.connection import parse_url  # noqa: PLC0415

    async def scenario() -> None:
        outage = Outage(int(parse_url(REDIS_URL).get("port", 6379)))
        await outage.up()
        try:
            async with broadcasters(f"redis://127.0.0.1:{outage.port}/0") as (one, two), \
                    one.subscribe("t1") as sub:
                await outage.down()
                await asyncio.sleep(0.3)
                await two.publish("t1")  # lost for ``one``: it cannot hear Redis
                began = time.monotonic()
                await one.publish("t1")  # local subscribers still hear at once
                assert time.monotonic() - began < 5  # and the move does not hang
                await asyncio.wait_for(sub.wait(), 1)
                await outage.up()
                # Back: every local subscriber is woken, as notices may have been missed.
                await asyncio.wait_for(sub.wait(), 15)
                assert one.connects >= 2
                await two.publish("t1")
                await asyncio.wait_for(sub.wait(), 5)
        finally:
            await outage.down()

    asyncio.run(scenario())


def test_a_move_refused_as_stale_brings_the_state_the_game_is_in(tmp_path: Path) -> None:
    """Two processes whose notices do not reach each other (Redis away), one seat open on
    both: it moved on the first, then acted on the second with the version that one had
    shown, and heard only ``stale``, its page stuck on the old turn. The refusal now wakes
    the process's connections to read the game again."""
    db_url = f"sqlite:///{tmp_path / 'one.db'}"
    people = [{"kind": "human", "name": "Ada"}, {"kind": "human", "name": "Bo"}]
    with TestClient(create_app(db_url)) as first, TestClient(create_app(db_url)) as second:
        table_id, tokens = create(first, people, SMALL)
        start(first, table_id, tokens)
        with connect(first, table_id, None, None) as watcher:
            seat = watcher.state["view"]["to_move"]
        with connect(first, table_id, seat, tokens[seat]) as here, \
                connect(second, table_id, seat, tokens[seat]) as there:
            old = here.state["version"]
            here.send({"type": "action", "action": here.state["legal"][0], "version": old})
            here.sync(old + 1)
            assert not pending(there.ws)  # the notice did not cross: no state came
            answer = there.answer({"type": "action", "action": there.state["legal"][0],
                                   "version": old})
            assert answer["type"] == "error" and answer["code"] == "stale"
            assert there.next_state()["version"] == old + 1


def test_a_bot_move_refused_as_stale_wakes_this_processs_connections() -> None:
    """A runner whose bot move another process had made first (``stale``) looked at the
    game again, but this process's connections, their notice lost, stayed on the old turn."""

    class Hub(LocalBroadcaster):
        def __init__(self) -> None:
            super().__init__()
            self.woken: list[str] = []

        def wake(self, table_id: str) -> None:
            self.woken.append(table_id)

    class Service:
        def __init__(self) -> None:
            self.turns = 0

        def bot_turn(self, table_id: str, _fast: bool) -> int | None:
            self.turns += 1
            if self.turns == 1:
                raise stale()
            return None  # then a person is to move

    hub = Hub()
    runner = BotRunner(cast(TableService, Service()), hub)

    async def drive() -> None:
        runner.kick("t1")
        await runner._tasks["t1"]

    asyncio.run(drive())
    assert hub.woken == ["t1"]


def test_a_redis_that_never_answers_holds_up_no_move() -> None:
    """Redis accepted the connection and never answered: every move and bot step waited
    for PUBLISH's timeouts (6 s a step). Publishing happens in the background now, and
    beyond ``PUBLISHING`` notices waiting more are dropped (notices are at most once);
    ``close`` waits a second for those waiting, not for ever."""
    need_redis()

    class Silent:
        async def publish(self, _channel: str, _payload: str) -> None:
            await asyncio.sleep(3600)

        async def aclose(self) -> None:
            pass

    async def scenario() -> None:
        async with broadcasters() as (one, _two):
            real, one._client = one._client, Silent()
            try:
                async with one.subscribe("t1") as sub:
                    began = time.monotonic()
                    for version in range(PUBLISHING + 5):
                        await one.publish("t1", version)
                    assert time.monotonic() - began < 1
                    assert await asyncio.wait_for(sub.wait(), 0.5) == PUBLISHING + 4
                    await asyncio.sleep(0.1)  # the publisher took the first and waits on it
                    assert one._outbox.qsize() == PUBLISHING - 1  # 256 queued, 5 dropped
            finally:
                began = time.monotonic()
                await one.close()  # waits a second for them, then gives up
                assert one._publisher is None and time.monotonic() - began < 3
                one._client = real

    asyncio.run(scenario())


def test_a_subscriber_while_redis_reconnects_waits_not_and_is_subscribed() -> None:
    """A hello while the pub/sub connection was being made again waited for it (3 s on a
    Redis that does not answer): it returns at once now, and the reconnection subscribes
    its table too, so the notices of that table reach it afterwards."""
    need_redis()

    async def scenario() -> None:
        async with broadcasters() as (one, two):
            await one._drop()  # the connection is lost; its reader makes it again, but
            connects = one.connects

            async def slowly() -> None:  # here the reconnection holds the lock a second
                async with one._lock:
                    await asyncio.sleep(1.0)

            task = asyncio.get_running_loop().create_task(slowly())
            await asyncio.sleep(0.1)
            began = time.monotonic()
            async with one.subscribe("t9") as sub:
                assert time.monotonic() - began < 0.5
                await task
                deadline = time.monotonic() + 10
                while one.connects == connects and time.monotonic() < deadline:
                    await asyncio.sleep(0.05)
                assert one.channel("t9") in one.channels()
                await asyncio.wait_for(sub.wait(), 5)  # the wake-all after reconnecting
                await two.publish("t9", 7)
                assert await asyncio.wait_for(sub.wait(), 5) == 7

    asyncio.run(scenario())


def test_the_last_notices_go_out_before_the_broadcaster_closes() -> None:
    """Publishing in the background must not lose a restart's last moves: ``close``
    sends what waits first."""
    need_redis()

    async def scenario() -> None:
        async with broadcasters() as (one, two), two.subscribe("t8") as sub:
            with suppress(TimeoutError):  # the wake-all of two's start, if it comes now
                await asyncio.wait_for(sub.wait(), 0.5)
            for version in range(1, 4):
                await one.publish("t8", version)
            await one.close()
            assert await asyncio.wait_for(sub.wait(), 5) == 3

    asyncio.run(scenario())


def test_a_subscriber_during_the_reconnections_control_subscription_is_subscribed() -> None:
    """The last await of a reconnection (its control channel, the one that opens the
    connection when no table has subscribers) is slow against a Redis that answers late;
    a hello then returns at once, and its table must still be subscribed before the
    reconnection ends."""
    need_redis()

    async def scenario() -> None:
        async with broadcasters() as (one, two):
            started = asyncio.Event()
            made = one._sub_client.pubsub

            def slow_pubsub() -> Any:
                pubsub = made()
                subscribe = pubsub.subscribe

                async def slowly(*channels: str) -> Any:
                    if one._control() in channels and not started.is_set():
                        started.set()
                        await asyncio.sleep(0.5)
                    return await subscribe(*channels)

                pubsub.subscribe = slowly
                return pubsub

            one._sub_client.pubsub = slow_pubsub
            await one._drop()  # lost: the reader connects again, slowly
            await asyncio.wait_for(started.wait(), 10)
            began = time.monotonic()
            async with one.subscribe("t7") as sub:
                assert time.monotonic() - began < 0.3
                deadline = time.monotonic() + 10
                while one.channel("t7") not in one.channels() and time.monotonic() < deadline:
                    await asyncio.sleep(0.05)
                assert one.channel("t7") in one.channels()
                with suppress(TimeoutError):  # the wake-all after the reconnection
                    await asyncio.wait_for(sub.wait(), 1.0)
                await two.publish("t7", 5)
                assert await asyncio.wait_for(sub.wait(), 5) == 5

    asyncio.run(scenario())
