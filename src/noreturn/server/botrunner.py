"""The bots' runner: each table's bots move on the server, in worker threads.

After any change of a table its runner is kicked; it plays the table's bot moves while a
bot is to move (``TableService.bot_turn``; a thinking bot decides in its own thread,
``workers.think``) and sends a notice after each step, so every connection of the table
sends its seat's new state. A sweep finds the games whose runner's process died.
"""

from __future__ import annotations

import asyncio
import contextvars
import logging

import anyio

from noreturn.server.botturns import Thinking
from noreturn.server.broadcast import Broadcaster
from noreturn.server.dbfaults import UnavailableError
from noreturn.server.service import ServiceError, TableService
from noreturn.server.workers import BOT_LANES, run, think

log = logging.getLogger("noreturn.server")


class BotRunner:
    """Lets the bots of each table move, in worker threads: one move per ``delay`` so people
    can follow, or, with no delay, each run of consecutive fast bot moves in one transaction
    and one notice (``TableService.bot_turn(run_on=True)``).

    ``kick(table_id)`` after any change: a table's runner task plays bot moves while a bot
    is to move and stops when a person is (or the game is over). A kick while the task runs
    makes it look once more before it stops, so no kick is lost.

    With several processes, two runners may drive one table (a client connected to each):
    the database takes one move per version, the other is ``stale`` and its runner simply
    looks again. ``sweep`` restarts the bots of a table whose runner's process died.
    """

    def __init__(self, service: TableService, hub: Broadcaster, delay: float = 0.0) -> None:
        self.service = service
        self.hub = hub
        self.delay = delay
        self._tasks: dict[str, asyncio.Task[None]] = {}
        self._again: set[str] = set()
        self._lanes: anyio.CapacityLimiter | None = None

    def _lane(self) -> anyio.CapacityLimiter:
        """The limiter of bot steps (``BOT_LANES``), made in the running event loop."""
        if self._lanes is None:
            self._lanes = anyio.CapacityLimiter(BOT_LANES)
        return self._lanes

    async def _step(self, table_id: str) -> int | None:
        """One step of the table's bots: a fast bot's move (or run of moves, with no
        delay), or a slow bot's decision (thinking in its own queue, ``think``) stored;
        the new version, or None if no bot was to move. Each service call waits for a
        bot lane, in turn with the other tables' runners."""
        async with self._lane():
            turn = await run(self.service.bot_turn, table_id, not self.delay)
        if isinstance(turn, Thinking):  # it thinks outside the lock and the lanes
            move = await think(turn.decide, brief=turn.brief)
            async with self._lane():
                turn = await run(self.service.bot_apply, table_id, move)
        return turn

    def kick(self, table_id: str) -> None:
        """Make sure the bots of ``table_id`` move if one is to move."""
        if table_id in self._tasks:
            self._again.add(table_id)
            return
        # a fresh context: the task must not write in the language of whoever kicked it
        self._tasks[table_id] = asyncio.get_running_loop().create_task(
            self._drive(table_id), context=contextvars.Context())

    async def _drive(self, table_id: str) -> None:
        try:
            while True:
                self._again.discard(table_id)
                if self.delay:
                    await asyncio.sleep(self.delay)
                try:
                    moved = await self._step(table_id)
                except ServiceError as exc:
                    if exc.code == "stale":  # another writer moved first: look again,
                        self.hub.wake(table_id)  # and so do this process's connections
                        continue
                    moved = None
                except Exception:  # a broken table must not take the server down
                    log.exception("bot move at table %s failed", table_id)
                    moved = None
                if moved is not None:
                    await self.hub.publish(table_id, moved)
                    continue
                if table_id not in self._again:
                    break
        finally:
            self._tasks.pop(table_id, None)
            self._again.discard(table_id)

    async def sweep(self, every: float, idle: float) -> None:
        """Every ``every`` seconds, kick the games that have waited on a bot for ``idle``
        seconds or more: their runner's process died (or its runner failed).

        Nothing else would move them when no client connects to this process for them (a
        table of bots only, or clients that reconnected elsewhere before the crash). A
        runner alive elsewhere moves well within ``idle``; if it is slower, the two
        runners race and the database keeps one move.
        """
        while True:
            await asyncio.sleep(every)
            try:
                stalled = await run(self.service.stalled_games, idle)
            except UnavailableError:  # the database is away (logged): try again later
                continue
            except Exception:
                log.exception("looking for games waiting on a bot failed")
                continue
            for table_id in stalled:
                if table_id not in self._tasks:
                    log.info("table %s waited on a bot for %g s: this process moves it",
                             table_id, idle)
                    self.kick(table_id)

    def busy(self) -> bool:
        """Whether a bot is thinking or about to (for tests)."""
        return bool(self._tasks)

    async def stop(self) -> None:
        """Cancel every runner (a decision in a thread finishes first)."""
        tasks = list(self._tasks.values())
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)


__all__ = ["BotRunner"]
