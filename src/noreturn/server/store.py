"""The table store: every SQL statement of the service, and the one cache of tables.

The lobby and play (``lobby.py``, ``play.py``) never write SQL: they ask the store for a
table, change it in memory under its lock, and hand the change back. The store reads and
writes rows (``db.py``) and keeps, through ``games.Games``, each table this process served
lately: its seats and public description (``Known``) and its game (``LocalTable``).

The cache has one accessor per reason to look at a table (each says why):

- ``read``: the table as stored now (a full read: row, seats, the game caught up);
- ``to_act_on``: what this process holds if its game is at the version a move is made
  against, else ``read``: a move made on an old copy is refused when stored (``store``);
- ``as_stored``: for a state or a welcome, the table as stored now, after one single-row
  read that says whether the held copy is still it;
- ``held_since``: after a move notice, from memory only, if held at that version or later.

Reads and writes of one table happen under its lock (``locked``); ``games.py`` explains
why a held copy may be acted on without a read first.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import Engine, Table, bindparam, insert, select, update
from sqlalchemy.orm import Session

from noreturn.server.auth import check_creator, seat_of
from noreturn.server.db import MoveRow, SeatRow, TableRow, now
from noreturn.server.errors import (
    OVER,
    TABLE_ID,
    ConflictError,
    NotFoundError,
    ServiceError,
    check_table_id,
    no_table,
    over_message,
    stale,
)
from noreturn.server.games import (
    KEY_OF_TABLE,
    Games,
    Known,
    Move,
    StaleError,
    has_game,
    public_table,
    row_key,
)
from noreturn.server.rebuild import dealt, rebuilt
from noreturn.server.timing import deadline_after
from noreturn.table import TUTORIAL_SEED, OnlineTable
from noreturn.text.lang import _

TABLES: Table = TableRow.__table__  # type: ignore[assignment]
SEATS: Table = SeatRow.__table__  # type: ignore[assignment]
"""The tables behind the rows, for plain (Core) statements."""
UNLISTED_SEED = str(TUTORIAL_SEED)
"""The seed of the guided first game's tables (``tutorial.py``): the lobby leaves them out,
so a newcomer's game against the easy bot does not crowd everyone's list (the table, its
record and its replay still work by their links). Only ``POST /api/tutorial`` deals from
it: every other table's seed is secret and random."""
SET_TABLE = update(TABLES).where(
    TABLES.c.id == bindparam("the_id"), TABLES.c.status == bindparam("old_status")).values(
    status=bindparam("new_status"), updated_at=bindparam("at"),
    bot_due=TABLES.c.bot_due | bindparam("due"))
"""A join's or a start's write of the table's row, if its status is still the one read
(a table closed meanwhile by another process stays closed). The bot flag is only ever
raised here (a start with a bot to move): a join in play never writes back a flag read
before another process's move."""
SET_SEAT = update(SEATS).where(
    SEATS.c.table_id == bindparam("the_id"), SEATS.c.seat == bindparam("the_seat")).values(
    name=bindparam("new_name"), joined=bindparam("new_joined"))
NEW_TABLE, NEW_SEATS = insert(TABLES), insert(SEATS)
"""A create's, a join's or a start's writes, built once (each use skips building them)."""
OPEN = ("lobby", "playing")
"""The statuses a table can be closed or abandoned from."""

Held = tuple[Known, OnlineTable | None]
"""A table as held or read: its seats and public description, and its game (None in the
lobby)."""


class TableStore:
    """The tables of one database, and this process's cache of them (module docstring)."""

    def __init__(self, engine: Engine, cache_size: int = 256) -> None:
        """Store in ``engine``'s database (migrated already), holding up to ``cache_size``
        tables in memory."""
        self.engine = engine
        self.games = Games(engine, cache_size)
        self.sessions = self.games.sessions
        self.locked = self.games.locked
        self.locked_if_free = self.games.locked_if_free
        self.forget = self.games.forget

    # ------------------------------------------------------------ transactions
    @contextmanager
    def transaction(self, table_id: str) -> Iterator[Session]:
        """``Games.transaction`` on ``table_id`` (under its lock), with a move stored
        meanwhile elsewhere as a ``stale`` refusal."""
        try:
            with self.games.transaction(table_id, (ServiceError,)) as session:
                yield session
        except StaleError as exc:
            raise stale() from exc

    @contextmanager
    def changing(self, table_id: str) -> Iterator[None]:
        """Around changing a held game before it is stored: if anything fails on the way,
        the held copy (now ahead of the database) is forgotten."""
        try:
            yield
        except BaseException:
            self.games.forget(table_id)
            raise

    def store(self, known: Known, game: OnlineTable, moves: list[Move]) -> None:
        """Store ``moves``, just made in the held ``game`` (``Games.store``); a move at
        one of their indices stored first by another writer is a ``stale`` refusal."""
        try:
            self.games.store(known, game, moves)
        except StaleError as exc:
            raise stale() from exc

    # ------------------------------------------------------------------- rows
    @staticmethod
    def row_and_seats(session: Session, table_id: str) -> tuple[TableRow, list[SeatRow]]:
        """The table's row and its seats in order, read in one query (one snapshot).

        Raises:
            NotFoundError.
        """
        check_table_id(table_id)
        found = session.execute(select(TableRow, SeatRow)
                                .join(SeatRow, SeatRow.table_id == TableRow.id)
                                .where(TableRow.id == table_id).order_by(SeatRow.seat)).all()
        if not found:
            no_table(table_id)
        return found[0][0], [seat for _row, seat in found]

    def holder(self, session: Session, table_id: str, token: str | None,
               detached: bool = False) -> tuple[TableRow, list[SeatRow], SeatRow]:
        """The table, its seats and the seat ``token`` holds, read in one query.

        ``detached``: the rows are detached from ``session``, to be changed in memory and
        written by ``write_seat`` (plain updates: the ORM's unit of work cost more than the
        rest of a join or a start); otherwise changes are the session's (``flush``).

        Raises:
            NotFoundError, ForbiddenError.
        """
        row, seats = self.row_and_seats(session, table_id)
        seat, _digest = seat_of([s.token_hash for s in seats], token)
        if detached:
            session.expunge_all()
        return row, seats, seats[seat]

    @staticmethod
    def write_seat(session: Session, row: TableRow, seat: SeatRow, was: str) -> None:
        """Store the table's status, time and bot flag and the seat's name and joined flag
        as they are in memory, if the table's status is still ``was``. The table's row
        first, as every writer of a table does, so two writers never wait on each other
        in turn.

        Raises:
            ConflictError: the table was closed (or abandoned) meanwhile, or its game
                started (two seats started it at once through two processes).
        """
        write = session.connection().execute
        changed = write(SET_TABLE, {"the_id": row.id, "old_status": was,
                                    "new_status": row.status, "at": row.updated_at,
                                    "due": row.bot_due})
        if changed.rowcount == 0:
            now_status = write(select(TABLES.c.status).where(TABLES.c.id == row.id)).scalar()
            if now_status == "playing":
                raise ConflictError(_("the game has started already"))  # as if read so
            raise ConflictError(_("the table was closed meanwhile: nothing changed"),
                                "closed")
        write(SET_SEAT, {"the_id": row.id, "the_seat": seat.seat, "new_name": seat.name,
                         "new_joined": seat.joined})

    def create(self, table: dict[str, Any], seats: list[dict[str, Any]]) -> dict[str, Any]:
        """Insert a new table's row and seats (plain inserts: the ORM's unit of work cost
        more than the rest of the call) and hold it as stored; its public ``Table``."""
        row, seat_rows = TableRow(**table), [SeatRow(**v) for v in seats]
        with self.transaction(row.id) as session:
            write = session.connection().execute
            write(NEW_TABLE, [table])
            write(NEW_SEATS, seats)
            self.games.load(session, row, seat_rows)  # kept as it will be stored
            return public_table(row, seat_rows)

    @staticmethod
    def set_deadline(session: Session, row: TableRow, game: OnlineTable | None) -> None:
        """Store when the first turn of a game just started runs out (its timer's), in
        the row and in the held game."""
        if game is None or not row.turn_seconds:
            return
        row.turn_deadline = game.deadline = deadline_after(game, row.turn_seconds,
                                                           row.updated_at)
        session.connection().execute(update(TABLES).where(TABLES.c.id == row.id).values(
            turn_deadline=row.turn_deadline))

    def keep(self, session: Session, row: TableRow, seats: list[SeatRow]) -> Held:
        """Hold the table as it will be stored when ``session`` commits, its game caught
        up (should the write or the commit fail, the transaction forgets it): the next
        look reads one row, not the table and its seats."""
        return self.games.load(session, row, seats)

    def game(self, session: Session, row: TableRow, seats: list[SeatRow]) -> OnlineTable:
        """The table's game, caught up with its stored moves, to change in ``session``."""
        return self.games.game(session, row, seats)

    @staticmethod
    def add_leave(session: Session, row: TableRow, seat: int, level: str,
                  version: int) -> None:
        """Record that ``seat`` left at ``version`` and a ``level`` bot took it over."""
        session.add(MoveRow(table_id=row.id, index=version, seat=seat, kind="leave",
                            text=level, note="", created_at=now()))

    def flush_seats(self, session: Session, table_id: str) -> None:
        """Write the session's changes of rows now, and forget the held seats (they
        changed: the next look reads them)."""
        session.flush()
        self.games.forget(table_id, game_too=False)

    def public(self, table_id: str) -> dict[str, Any]:
        """One table's public description, as stored now."""
        with self.sessions() as session:
            return public_table(*self.row_and_seats(session, table_id))

    def record(self, table_id: str) -> tuple[str, dict[str, Any] | None]:
        """The table's status and its record (None unless the game is finished)."""
        with self.sessions() as session:
            row = session.get(TableRow, table_id) if TABLE_ID.fullmatch(table_id) else None
            if row is None:
                no_table(table_id)
            return row.status, None if row.record is None else dict(row.record)

    def newest_tables(self, limit: int, status: str | None = None) -> list[dict[str, Any]]:
        """The ``limit`` newest tables (of ``status`` if given) as public ``Table`` dicts,
        newest first (ties by id, descending, so the index serves the order).

        The lobby is the page everyone opens first and the database may hold many
        thousands of tables: only the columns a lobby entry shows are read (never a
        record, a seed or a move, no game built); the page is chosen by an index
        (``ix_game_tables_newest``, or ``ix_game_tables_status_newest``; db.py), read
        newest first with no sort, and joined to its seats by their primary key, all in
        one statement. Tutorial tables (``UNLISTED_SEED``) are left out: the seed is
        compared there, never returned.
        """
        page = select(TABLES.c.id, TABLES.c.status, TABLES.c.created_at, TABLES.c.rules,
                      TABLES.c.version, TABLES.c.result, TABLES.c.turn_seconds,
                      TABLES.c.timeout_level, TABLES.c.rematch_id
                      ).where(TABLES.c.seed != UNLISTED_SEED)
        if status:
            page = page.where(TABLES.c.status == status)
        newest = page.order_by(TABLES.c.created_at.desc(), TABLES.c.id.desc()).limit(limit)
        chosen = newest.subquery("page")
        query = (select(chosen, SEATS.c.seat, SEATS.c.kind, SEATS.c.name, SEATS.c.level,
                        SEATS.c.joined, SEATS.c.replaced_by)
                 .join(SEATS, SEATS.c.table_id == chosen.c.id)
                 .order_by(chosen.c.created_at.desc(), chosen.c.id.desc(), SEATS.c.seat))
        tables: dict[str, tuple[Any, list[Any]]] = {}
        with self.games.autocommit.connect() as conn:
            for found in conn.execute(query):
                tables.setdefault(found.id, (found, []))[1].append(found)
        return [public_table(row, seats) for row, seats in tables.values()]

    # ------------------------------------------------------------------ cache
    def read(self, table_id: str) -> Held:
        """The table as stored now, its game caught up (None in the lobby); held after.

        For when nothing held may be trusted: a table not held, one that changed
        elsewhere, or a look that must not miss another process's move.
        """
        with self.transaction(table_id) as session:
            return self.games.load(session, *self.row_and_seats(session, table_id))

    def to_act_on(self, table_id: str, version: int | None = None) -> Held:
        """The table to make a move on: as held if its game is at ``version`` (any
        version when None), else as stored now. Call under the table's lock.

        What is held may be behind another process's writes; a move made on it is then
        refused when stored (``store``), so acting on it needs no read first.
        """
        cached = self.games.cached(table_id)
        if cached is not None and (version is None or cached[1].version == version):
            return cached
        return self.read(table_id)

    @contextmanager
    def as_stored(self, table_id: str) -> Iterator[Held]:
        """The table as stored now, under its lock, for a message that must show it so
        (a state, a welcome).

        One single-row read of the table's key (version, status, updated_at: every change
        of the table or its seats alters it), before the lock; then what is held, if held
        at that key with its game at that version, else a full ``read``.

        Raises:
            NotFoundError.
        """
        key = self._stored_key(table_id)
        with self.locked(table_id):
            known, game = self.games.known(table_id)
            if known is not None and known.key == key and (
                    not has_game(known.status, known.version)
                    or (game is not None and game.version == known.version)):
                yield known, game
            else:
                yield self.read(table_id)

    def held_since(self, table_id: str, version: int) -> tuple[Known, OnlineTable] | None:
        """The table from memory only, if held at ``version`` or later; else None. Call
        under the table's lock.

        For a state after a move notice: a version is made by exactly one stored move and
        the seats change in play only with a move of their own (a leave), so what is held
        at a version holds for it (``play.Play.state_message``).
        """
        cached = self.games.cached(table_id)
        return None if cached is None or cached[0].version < version else cached

    def _stored_key(self, table_id: str) -> tuple[int, str, datetime]:
        """The table's key (``row_key``) as stored now: one single-row read.

        Raises:
            NotFoundError.
        """
        check_table_id(table_id)
        with self.games.autocommit.connect() as conn:
            key = conn.execute(KEY_OF_TABLE, {"table_id": table_id}).first()
        if key is None:
            no_table(table_id)
        return row_key(key)

    # --------------------------------------------------------------- bot flags
    def lower_flag(self, table_id: str, version: int) -> None:
        """No bot is to move at ``table_id`` at ``version``: lower its flag (unless it
        moved meanwhile), so no later look builds its game."""
        with self.games.autocommit.connect() as conn:
            conn.execute(update(TABLES).where(
                TABLES.c.id == table_id, TABLES.c.version == version).values(bot_due=False))

    def bot_due_rows(self, idle_seconds: float | None = None) -> list[tuple[str, int]]:
        """(id, version) of the games in progress whose bot flag is raised (unchanged for
        ``idle_seconds``, if given): one indexed query, no game built."""
        query = select(TABLES.c.id, TABLES.c.version).where(
            TABLES.c.status == "playing", TABLES.c.bot_due.is_(True))
        if idle_seconds is not None:
            query = query.where(TABLES.c.updated_at < now() - timedelta(seconds=idle_seconds))
        with self.games.autocommit.connect() as conn:
            return [(str(i), int(v)) for i, v in conn.execute(query)]

    # ------------------------------------------------------------- turn timers
    @staticmethod
    def clock() -> datetime:
        """The time deadlines are compared with (UTC)."""
        return now()

    def expired_rows(self, limit: int = 100) -> list[str]:
        """The games in progress whose turn's deadline has passed (at most ``limit``, the
        longest overdue first): one query on the (status, turn_deadline) index."""
        query = (select(TABLES.c.id).where(TABLES.c.status == "playing",
                                           TABLES.c.turn_deadline < now())
                 .order_by(TABLES.c.turn_deadline).limit(limit))
        with self.games.autocommit.connect() as conn:
            return [str(table_id) for (table_id,) in conn.execute(query)]

    def rebuilt(self, table_id: str, version: int) -> OnlineTable:
        """The table's game as it was at ``version``, rebuilt from its seed and stored
        moves (for a take-back; nothing held changes)."""
        with self.sessions() as session:
            row, seats = self.row_and_seats(session, table_id)
            moves = session.scalars(select(MoveRow).where(
                MoveRow.table_id == table_id, MoveRow.index < version).order_by(MoveRow.index))
            return rebuilt(table_id, dealt(row, seats), moves)

    # ---------------------------------------------------------- ends of tables
    def close(self, table_id: str, token: str | None) -> None:
        """Close ``table_id`` with its creator token (lifecycle.py): one guarded update.

        Raises:
            NotFoundError, ForbiddenError, ConflictError (the game is over, or the table
            closed or abandoned already).
        """
        if not TABLE_ID.fullmatch(table_id):
            raise NotFoundError(_("no table {table}: check the link").format(
                table=repr(table_id[:40])))
        with self.locked(table_id), self.sessions.begin() as session:
            found = session.execute(select(TABLES.c.status, TABLES.c.creator_hash).where(
                TABLES.c.id == table_id)).first()
            if found is None:
                raise NotFoundError(_("no table {table}: check the link").format(
                    table=repr(table_id)))
            check_creator(found.creator_hash, token)
            if found.status in OVER:
                raise ConflictError(over_message(found.status), "over")
            changed = session.connection().execute(update(TABLES).where(
                TABLES.c.id == table_id, TABLES.c.status.in_(OPEN)).values(
                status="closed", updated_at=now(), bot_due=False))
            if changed.rowcount == 0:  # pragma: no cover - another process ended it now
                raise ConflictError(_("the table's game ended meanwhile"), "over")
            self.games.forget(table_id)

    def abandon_idle(self, lobby_seconds: float, idle_seconds: float) -> list[str]:
        """Mark ``abandoned`` every table unchanged for ``lobby_seconds`` in the lobby or
        for ``idle_seconds`` in play; their ids (forgotten here).

        One guarded ``UPDATE`` per status, served by the (status, updated_at) index: a
        table that moved since it was found stays as it is.
        """
        moment = now()
        abandoned: list[str] = []
        with self.games.autocommit.connect() as conn:
            for status, seconds in (("lobby", lobby_seconds), ("playing", idle_seconds)):
                cutoff = moment - timedelta(seconds=seconds)
                done = conn.execute(update(TABLES).where(
                    TABLES.c.status == status, TABLES.c.updated_at < cutoff).values(
                    status="abandoned", updated_at=moment, bot_due=False)
                    .returning(TABLES.c.id))
                abandoned += [str(table_id) for (table_id,) in done]
        for table_id in abandoned:
            self.games.forget(table_id)
        return abandoned


__all__ = ["UNLISTED_SEED", "Held", "TableStore"]
