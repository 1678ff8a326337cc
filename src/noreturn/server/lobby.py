"""The lobby's list: the newest tables with their seats, in one indexed query.

The lobby is the page everyone opens first, and the database may hold many thousands of
tables (games in progress, finished ones with their records). So the list reads only the
columns a lobby entry shows: never a record, a seed or a move, and never builds a game.
The page of tables is chosen by an index (``ix_game_tables_newest``, or
``ix_game_tables_status_newest`` for one status; db.py), read newest first with no sort,
and joined to its seats by their primary key, all in one statement.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import Connection, Table, select

from noreturn.server.db import SeatRow, TableRow
from noreturn.server.games import public_table

TABLES: Table = TableRow.__table__  # type: ignore[assignment]
SEATS: Table = SeatRow.__table__  # type: ignore[assignment]


def newest_tables(conn: Connection, limit: int, status: str | None = None) -> list[
        dict[str, Any]]:
    """The ``limit`` newest tables (of ``status`` if given) as public ``Table`` dicts,
    newest first (ties by id, descending, so the index serves the order)."""
    page = select(TABLES.c.id, TABLES.c.status, TABLES.c.created_at, TABLES.c.rules,
                  TABLES.c.version, TABLES.c.result)
    if status:
        page = page.where(TABLES.c.status == status)
    newest = page.order_by(TABLES.c.created_at.desc(), TABLES.c.id.desc()).limit(limit)
    chosen = newest.subquery("page")
    query = (select(chosen, SEATS.c.seat, SEATS.c.kind, SEATS.c.name, SEATS.c.level,
                    SEATS.c.joined, SEATS.c.replaced_by)
             .join(SEATS, SEATS.c.table_id == chosen.c.id)
             .order_by(chosen.c.created_at.desc(), chosen.c.id.desc(), SEATS.c.seat))
    tables: dict[str, tuple[Any, list[Any]]] = {}
    for found in conn.execute(query):
        tables.setdefault(found.id, (found, []))[1].append(found)
    return [public_table(row, seats) for row, seats in tables.values()]
