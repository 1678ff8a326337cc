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
connection send its final state (status ``closed`` or ``abandoned``).
"""

from __future__ import annotations

import asyncio
import hmac
import logging
from collections.abc import Awaitable, Callable
from datetime import timedelta
from typing import Any, TypeVar

from sqlalchemy import Table, select, update

from noreturn.server.broadcast import Broadcaster
from noreturn.server.db import TableRow, now
from noreturn.server.dbfaults import UnavailableError
from noreturn.server.service import (
    OVER,
    TABLE_ID,
    ConflictError,
    ForbiddenError,
    NotFoundError,
    TableService,
    hash_token,
    over_message,
)

LOBBY_HOURS = 24.0
"""Default: a table unchanged this long in the lobby is abandoned."""
IDLE_HOURS = 7 * 24.0
"""Default: a game in progress without a move this long is abandoned."""
SWEEP_SECONDS = 300.0
"""Default time between two sweeps."""
TABLES: Table = TableRow.__table__  # type: ignore[assignment]
OPEN = ("lobby", "playing")
"""The statuses a table can be closed or abandoned from."""

log = logging.getLogger("noreturn.server")
T = TypeVar("T")


def close_table(service: TableService, table_id: str, token: str | None) -> dict[str, Any]:
    """Close ``table_id`` with its creator token; its public ``Table`` after.

    Raises:
        NotFoundError: no such table.
        ForbiddenError: no token, or not this table's creator token.
        ConflictError: the game is over, or the table closed or abandoned already.
    """
    if not TABLE_ID.fullmatch(table_id):
        raise NotFoundError(f"no table {table_id[:40]!r}: check the link")
    with service.games.locked(table_id), service.sessions.begin() as session:
        found = session.execute(select(TABLES.c.status, TABLES.c.creator_hash).where(
            TABLES.c.id == table_id)).first()
        if found is None:
            raise NotFoundError(f"no table {table_id!r}: check the link")
        if not token or found.creator_hash is None or not hmac.compare_digest(
                found.creator_hash, hash_token(token)):
            raise ForbiddenError("closing a table needs its creator token (given once, when "
                                 "the table was made)")
        if found.status in OVER:
            raise ConflictError(over_message(found.status), "over")
        changed = session.connection().execute(update(TABLES).where(
            TABLES.c.id == table_id, TABLES.c.status.in_(OPEN)).values(
            status="closed", updated_at=now(), bot_due=False))
        if changed.rowcount == 0:  # pragma: no cover - another process ended it just now
            raise ConflictError("the table's game ended meanwhile", "over")
        service.games.forget(table_id)
    return service.get(table_id)


def abandon_idle(service: TableService, lobby_seconds: float, idle_seconds: float) -> list[str]:
    """Mark ``abandoned`` every table unchanged for ``lobby_seconds`` in the lobby or for
    ``idle_seconds`` in play; their ids.

    One guarded ``UPDATE`` per status, served by the (status, updated_at) index: a table
    that moved since it was found stays as it is.
    """
    moment = now()
    abandoned: list[str] = []
    with service.games.autocommit.connect() as conn:
        for status, seconds in (("lobby", lobby_seconds), ("playing", idle_seconds)):
            cutoff = moment - timedelta(seconds=seconds)
            done = conn.execute(update(TABLES).where(
                TABLES.c.status == status, TABLES.c.updated_at < cutoff).values(
                status="abandoned", updated_at=moment, bot_due=False).returning(TABLES.c.id))
            abandoned += [str(table_id) for (table_id,) in done]
    for table_id in abandoned:
        service.games.forget(table_id)
    return abandoned


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
