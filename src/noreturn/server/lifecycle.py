"""The end of a table that is not a finished game: closed by its creator, or abandoned.

A table's creator gets a creator token when the table is made (shown once; only its
SHA-256 is stored, as with seat tokens) and may close the table with it at any stage but
the end: a lobby nobody will join, or a game (bots only, too) nobody wants to finish. A
table left alone too long, in the lobby or in play, is marked ``abandoned`` by a periodic
sweep. Either way the table keeps its seats and moves; it is simply never played again,
and the lobby shows it as such.

Both are one guarded ``UPDATE`` of the table's row: only a table still in the lobby or in
play changes, and a move stored at the same time (by this process or another) is refused
by the same guard on the moves' side (``games.STORE_MOVES``), so a closed table takes no
move after its close. The process's copy is then forgotten, and a notice lets every
connection send its final state (status ``closed`` or ``abandoned``). The statements are
the store's (``store.py``).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

from noreturn.server.broadcast import Broadcaster
from noreturn.server.dbfaults import UnavailableError
from noreturn.server.service import TableService

LOBBY_HOURS = 24.0
"""Default: a table unchanged this long in the lobby is abandoned."""
IDLE_HOURS = 7 * 24.0
"""Default: a game in progress without a move this long is abandoned."""
SWEEP_SECONDS = 300.0
"""Default time between two sweeps."""

log = logging.getLogger("noreturn.server")
T = TypeVar("T")


def close_table(service: TableService, table_id: str, token: str | None) -> dict[str, Any]:
    """Close ``table_id`` with its creator token; its public ``Table`` after.

    Raises:
        NotFoundError: no such table.
        ForbiddenError: no token, or not this table's creator token.
        ConflictError: the game is over, or the table closed or abandoned already.
    """
    service.store.close(table_id, token)
    return service.get(table_id)


def abandon_idle(service: TableService, lobby_seconds: float, idle_seconds: float) -> list[str]:
    """Mark ``abandoned`` every table unchanged for ``lobby_seconds`` in the lobby or for
    ``idle_seconds`` in play; their ids (``TableStore.abandon_idle``)."""
    return service.store.abandon_idle(lobby_seconds, idle_seconds)


async def sweep_forever(service: TableService, hub: Broadcaster,
                        run: Callable[..., Awaitable[Any]], every: float,
                        lobby_seconds: float, idle_seconds: float) -> None:
    """Every ``every`` seconds, ``abandon_idle`` (in a worker thread, through ``run``) and
    tell the abandoned tables' connections. A database away for a moment is tried again
    at the next sweep."""
    while True:
        await asyncio.sleep(every)
        try:
            abandoned: list[str] = await run(abandon_idle, service, lobby_seconds, idle_seconds)
        except UnavailableError:  # the database is away: logged once by dbfaults
            continue
        except Exception:
            log.exception("the sweep of idle tables failed: it runs again in %g s", every)
            continue
        if abandoned:
            log.info("%d idle table(s) abandoned", len(abandoned))
        for table_id in abandoned:
            await hub.publish(table_id)


__all__ = ["IDLE_HOURS", "LOBBY_HOURS", "SWEEP_SECONDS", "abandon_idle", "close_table",
           "sweep_forever"]
