"""The turn timers' runner: every process plays the turns whose time ran out.

Every ``every`` seconds each process asks the database for the games whose person to move
is past their deadline (``TableService.expired_turns``: one indexed query) and plays each
such turn with the table's timeout bot (``turns.py``), then tells the table's connections
and lets its bots move. Several processes may find the same turn: the database stores one
move per version, the others hear ``stale`` and drop theirs. A table whose timed-out turn
fails (a bug) is left alone for ``RETRY_SECONDS`` rather than tried (and logged) every poll.
"""

from __future__ import annotations

import asyncio
import logging

from noreturn.server.botrunner import BotRunner
from noreturn.server.broadcast import Broadcaster
from noreturn.server.dbfaults import UnavailableError
from noreturn.server.service import ServiceError, TableService
from noreturn.server.workers import run, think

log = logging.getLogger("noreturn.server")
TIMER_SECONDS = 1.0
"""How often a process looks for turns whose time ran out: a turn is played at most this
late (one indexed query a second per process)."""
RETRY_SECONDS = 60.0


class TimerRunner:
    """Plays the timed-out turns of every table, in worker threads (module docstring)."""

    def __init__(self, service: TableService, hub: Broadcaster, bots: BotRunner) -> None:
        self.service = service
        self.hub = hub
        self.bots = bots
        self._tasks: dict[str, asyncio.Task[None]] = {}
        self._failed: dict[str, float] = {}

    async def watch(self, every: float = TIMER_SECONDS) -> None:
        """Look for timed-out turns every ``every`` seconds, for ever (cancel to stop)."""
        loop = asyncio.get_running_loop()
        while True:
            await asyncio.sleep(every)
            try:
                expired = await run(self.service.expired_turns)
            except UnavailableError:  # logged; the next look tries again
                continue
            except Exception:
                log.exception("looking for turns whose time ran out failed")
                continue
            moment = loop.time()
            for table_id in expired:
                if table_id in self._tasks or self._failed.get(table_id, 0.0) > moment:
                    continue
                self._tasks[table_id] = loop.create_task(self._time_out(table_id))

    async def _time_out(self, table_id: str) -> None:
        """Play one table's timed-out turn (if it still is one)."""
        try:
            job = await run(self.service.timeout_job, table_id)
            if job is None:
                return
            action = await (think(job.decide, brief=job.brief) if job.thinks
                            else run(job.decide))
            acted = await run(self.service.timeout_apply, table_id, job, action,
                              not self.bots.delay)
            await self.hub.publish(table_id, acted.version)
            if acted.bot_due:
                self.bots.kick(table_id)
        except ServiceError as exc:
            if exc.code not in ("stale", "unavailable"):
                log.warning("table %s: a timed-out turn was refused: %s", table_id, exc)
        except Exception:
            log.exception("table %s: playing a timed-out turn failed", table_id)
            self._failed[table_id] = asyncio.get_running_loop().time() + RETRY_SECONDS
        finally:
            self._tasks.pop(table_id, None)

    async def stop(self) -> None:
        """Cancel the turns being played (a decision in a thread finishes first)."""
        tasks = list(self._tasks.values())
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)


__all__ = ["TIMER_SECONDS", "TimerRunner"]
