"""The games of a server process: kept in memory, caught up from the database, stored.

The database is the truth: a table's row (status, version), its seats, and every accepted
move at its index (= the version it was played at). A process keeps each table it served
lately as an ``OnlineTable`` (dealt from the secret seed, the stored moves replayed) together
with what a state message needs of the table besides the game (``Known``: names, token
digests, the public table), and uses them without reading the database while it has no
reason to think them old. That is safe because every change that matters to play takes a
move index: a move (a person's, a bot's, or a leave) is stored only at the index the
process's game stood at, and the moves table's primary key refuses a second move at one
index. A process whose copy fell behind another's writes (several processes, one
database) therefore cannot store anything: its write is refused, it forgets its copy,
and the caller hears ``stale`` and reads again.

Storing: on PostgreSQL the move(s) and the table row's new version go in one statement (an
``INSERT`` in a data-modifying CTE under the ``UPDATE``), in autocommit: one round trip per
move, atomic as any single statement. It is the server's one statement per move, so it is
sent straight through the driver on a connection of SQLAlchemy's pool (half the CPU time of
the same statement through SQLAlchemy Core: 0.15 against 0.28 ms here). SQLite (one
process), and the write that ends a game (its record too), get SQLAlchemy statements in a
transaction.

Within a process the calls on one table are serialized by a striped lock (``locked``),
held across reading, deciding and storing.
"""

from __future__ import annotations

import logging
import threading
from collections import OrderedDict
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from typing import Any, NamedTuple

from sqlalchemy import Connection, Engine, String, bindparam, insert, select, update
from sqlalchemy.exc import DBAPIError, IntegrityError
from sqlalchemy.orm import Session

from noreturn.engine import NoReturnError
from noreturn.server.db import MoveRow, SeatRow, TableRow, now, session_factory
from noreturn.server.rebuild import dealt, replay_moves
from noreturn.server.timing import deadline_after
from noreturn.table import OnlineTable

LOCK_STRIPES = 64
log = logging.getLogger("noreturn.server")
LOST_RACE = ("40P01", "40001")
"""PostgreSQL's deadlock and serialization failure: two writers of one table at once."""
INTEGRITY = "23"
"""The class of PostgreSQL's integrity errors: the move's index is taken (another writer
moved first)."""


STORE_MOVES = (
    f"WITH moved AS (UPDATE {TableRow.__tablename__} SET version = %(version)s, "
    "updated_at = %(at)s, bot_due = %(bot_due)s, turn_deadline = %(deadline)s "
    "WHERE id = %(table_id)s AND status = 'playing' RETURNING id) "
    f"INSERT INTO {MoveRow.__tablename__} "
    "(table_id, index, seat, kind, text, note, created_at) "
    "SELECT moved.id, m.index, m.seat, m.kind, m.text, m.note, %(at)s "
    "FROM moved, jsonb_to_recordset(%(moves)s) "
    "AS m(index integer, seat integer, kind text, text text, note text)")
"""PostgreSQL, for psycopg: store moves (one JSON array, whatever their number) and the
table's new version in one statement, if the game is still in progress (a table closed
meanwhile takes no move: nothing is stored, no row counts)."""


def _not_in_play(table_id: str) -> StaleError:
    """A write refused because the table left play (closed or abandoned) meanwhile."""
    return StaleError(f"table {table_id} is no longer in play")


def _another_writer_first(exc: BaseException) -> bool:
    """Whether a failed write lost to another writer of the table: its move's index was
    taken (an integrity error), or the two deadlocked or failed to serialize. Raised
    through SQLAlchemy (which wraps the driver's error) or by the driver itself
    (``Games._write_moves``); psycopg's errors carry their SQLSTATE."""
    if isinstance(exc, IntegrityError):
        return True
    cause = exc.orig if isinstance(exc, DBAPIError) else exc
    state = getattr(cause, "sqlstate", None) or ""
    return state.startswith(INTEGRITY) or state in LOST_RACE


class StaleError(Exception):
    """Another writer stored a move at this index first: this process's copy was old."""


class Move(NamedTuple):
    """A move to store: made at ``version`` by ``seat``; ``kind`` is ``action`` or
    ``leave``, ``text`` the action's text (or the bot level that took a seat over),
    ``note`` a failed bot's note."""

    version: int
    seat: int
    kind: str
    text: str
    note: str = ""


def utc(moment: datetime) -> datetime:
    """``moment`` with its zone (SQLite hands back naive UTC times)."""
    return moment if moment.tzinfo else moment.replace(tzinfo=UTC)


def public_table(row: TableRow | Any, seats: list[SeatRow] | list[Any]) -> dict[str, Any]:
    """The public ``Table`` (docs/server-protocol.md): no token, no seed, no tile.

    ``row`` and ``seats`` are rows (ORM objects, or result rows of the columns read here).
    """
    return {
        "id": row.id,
        "status": row.status,
        "created_at": utc(row.created_at).isoformat().replace("+00:00", "Z"),
        "rules": dict(row.rules),
        "seats": [{
            "seat": s.seat,
            "kind": "bot" if s.replaced_by or s.kind == "bot" else "human",
            "name": s.name,
            "level": s.replaced_by or s.level,
            "joined": s.joined,
        } for s in seats],
        "version": row.version,
        "result": row.result,
        "timer": None if not getattr(row, "turn_seconds", None) else {
            "seconds": row.turn_seconds, "level": row.timeout_level or "medium"},
        "rematch": getattr(row, "rematch_id", None),
    }


class Known:
    """What a state message needs of a table besides its game, as read at ``key``: the
    table's (version, status, updated_at), which every change of the table or its seats
    alters. Immutable once made (shared between threads)."""

    __slots__ = ("created_at", "key", "names", "status", "table", "token_hashes", "version")

    def __init__(self, key: tuple[int, str, datetime], names: tuple[str, ...],
                 token_hashes: tuple[str | None, ...], table: dict[str, Any],
                 created_at: datetime) -> None:
        self.key = key
        self.version, self.status = key[0], key[1]
        self.names = names
        self.token_hashes = token_hashes
        self.table = table
        self.created_at = created_at

    @classmethod
    def read(cls, row: TableRow, seats: list[SeatRow]) -> Known:
        """From the rows as read."""
        return cls(row_key(row), tuple(s.name for s in seats),
                   tuple(s.token_hash for s in seats), public_table(row, seats),
                   utc(row.created_at))

    def moved(self, key: tuple[int, str, datetime], result: dict[str, Any] | None) -> Known:
        """The same seats after moves that took the table to ``key``."""
        return Known(key, self.names, self.token_hashes,
                     {**self.table, "status": key[1], "version": key[0], "result": result},
                     self.created_at)


def has_game(status: str, version: int) -> bool:
    """Whether a table at ``status`` and ``version`` has a game to show: not in the lobby,
    nor closed (or abandoned) before its first move, when it may never have started."""
    return status != "lobby" and (version > 0 or status not in ("closed", "abandoned"))


def row_key(row: Any) -> tuple[int, str, datetime]:
    """A table row's (version, status, updated_at): changed by every change of the table."""
    return int(row.version), str(row.status), utc(row.updated_at)


KEY_OF_TABLE = select(TableRow.version, TableRow.status, TableRow.updated_at).where(
    TableRow.id == bindparam("table_id", type_=String))
"""A table's (version, status, updated_at): built once (each use skips building it)."""


class Games:
    """The games of one database as this process knows them; see the module docstring."""

    def __init__(self, engine: Engine, cache_size: int = 256) -> None:
        self.engine = engine
        self.sessions = session_factory(engine)
        self.cache_size = cache_size
        self.autocommit = engine.execution_options(isolation_level="AUTOCOMMIT")
        """Single statements with no transaction around them (no BEGIN/COMMIT round trips)."""
        self.one_statement = engine.dialect.name == "postgresql"
        self._games: OrderedDict[str, OnlineTable] = OrderedDict()
        self._known: OrderedDict[str, Known] = OrderedDict()
        self._guard = threading.Lock()
        self.finished: Callable[[str], object] | None = None
        """Called with a table's id once a move that ends its game is stored (the
        server's reviewer queues it, ``reviewer.Reviewer.offer``): must not block."""
        # re-entrant: a call holding its table's lock may read the table (``load``)
        self._stripes = [threading.RLock() for _ in range(LOCK_STRIPES)]

    # ------------------------------------------------------------------ locks, cache
    @contextmanager
    def locked(self, table_id: str) -> Iterator[None]:
        """Hold the lock of ``table_id`` (striped: a bounded set of locks for any ids)."""
        with self._stripes[hash(table_id) % LOCK_STRIPES]:
            yield

    @contextmanager
    def locked_if_free(self, table_id: str) -> Iterator[bool]:
        """Hold the lock of ``table_id`` if no other thread holds it (True), else not
        (False, at once): for callers that must not wait, such as the event loop."""
        lock = self._stripes[hash(table_id) % LOCK_STRIPES]
        held = lock.acquire(blocking=False)
        try:
            yield held
        finally:
            if held:
                lock.release()

    def cached(self, table_id: str) -> tuple[Known, OnlineTable] | None:
        """The table's seats and game as last read or stored here, if they agree (same
        version) and the game has started; None otherwise. No database access."""
        with self._guard:
            known = self._known.get(table_id)
            game = self._games.get(table_id)
        if known is None or game is None or known.status == "lobby":
            return None
        return (known, game) if game.version == known.version else None

    def known(self, table_id: str) -> tuple[Known | None, OnlineTable | None]:
        """Whatever this process holds of the table (either may be None or older)."""
        with self._guard:
            return self._known.get(table_id), self._games.get(table_id)

    def forget(self, table_id: str, game_too: bool = True) -> None:
        """Drop what this process holds of the table (it is read again next time)."""
        with self._guard:
            self._known.pop(table_id, None)
            if game_too:
                self._games.pop(table_id, None)

    def _keep(self, table_id: str, known: Known | None = None,
              game: OnlineTable | None = None) -> None:
        with self._guard:
            for cache, value in ((self._known, known), (self._games, game)):
                if value is not None:
                    cache[table_id] = value  # type: ignore[assignment]
                    cache.move_to_end(table_id)
                    while len(cache) > self.cache_size:
                        cache.popitem(last=False)

    # ---------------------------------------------------------------------- reading
    @contextmanager
    def transaction(self, table_id: str,
                    refusals: tuple[type[Exception], ...] = ()) -> Iterator[Session]:
        """A session in a transaction on ``table_id``, under its lock; commits at the end.

        A refusal (one of ``refusals``, raised before anything changed) leaves this
        process's copy as it is; any other failure may leave it ahead of the database, so
        it is forgotten (read again next time). A move stored meanwhile by another writer
        at the same index becomes ``StaleError``.
        """
        with (self.locked(table_id), self._forgotten_on_failure(table_id, refusals),
              self.sessions.begin() as session):
            yield session

    @contextmanager
    def _forgotten_on_failure(self, table_id: str,
                              refusals: tuple[type[Exception], ...] = ()) -> Iterator[None]:
        """Forget the table if the block fails (but for ``refusals``).

        A refused insert (the index is taken), and a deadlock or serialization failure
        between two writers of one table, are ``StaleError``: another writer moved first.
        """
        try:
            yield
        except refusals:
            raise
        except BaseException as exc:
            self.forget(table_id)
            if _another_writer_first(exc):
                raise StaleError(str(exc)) from exc
            raise

    def load(self, session: Session, row: TableRow,
             seats: list[SeatRow]) -> tuple[Known, OnlineTable | None]:
        """The table as read in ``session`` (row and seats in one query, one snapshot),
        with its game caught up to the row's version (None in the lobby); kept."""
        known = Known.read(row, seats)
        game = self.game(session, row, seats) if has_game(row.status, row.version) else None
        self._keep(row.id, known, game)
        return known, game

    def game(self, session: Session, row: TableRow,
             seats: list[SeatRow] | None = None) -> OnlineTable:
        """The table's game, caught up with the moves stored up to the row's version.

        Raises:
            NoReturnError: a stored move does not replay (the database was changed by hand,
                or the deck's algorithm changed under a game in progress).
        """
        with self._guard:
            game = self._games.get(row.id)

        def seated() -> list[SeatRow]:
            return seats if seats is not None else list(session.scalars(select(
                SeatRow).where(SeatRow.table_id == row.id).order_by(SeatRow.seat)))

        def before(index: int) -> list[MoveRow]:
            return list(session.scalars(select(MoveRow).where(
                MoveRow.table_id == row.id, MoveRow.index < index).order_by(MoveRow.index)))

        if game is None or game.version > row.version:
            game = dealt(row, seated())
        if game.version < row.version:
            query = (select(MoveRow).where(MoveRow.table_id == row.id,
                                           MoveRow.index >= game.version,
                                           MoveRow.index < row.version)
                     .order_by(MoveRow.index))
            game = replay_moves(row.id, game, list(session.scalars(query)),
                                lambda: dealt(row, seated()), before)
            if game.version != row.version:
                raise NoReturnError(f"table {row.id}: moves {game.version} to "
                                    f"{row.version - 1} are missing")
        game.deadline = None if row.turn_deadline is None else utc(row.turn_deadline)
        self._keep(row.id, game=game)
        return game

    # ---------------------------------------------------------------------- storing
    def store(self, known: Known, game: OnlineTable, moves: list[Move]) -> Known:
        """Store ``moves``, just made in ``game`` (this process's copy, whose seats are
        ``known``), and the table's new version; returns (and keeps) the table's new
        ``Known``. Call under the table's lock.

        Raises:
            StaleError: a move at one of these indices is stored already (another writer
                moved first); this process's copy is forgotten.
        """
        table_id = str(known.table["id"])
        with self._forgotten_on_failure(table_id):
            if self.one_statement and not game.is_over():
                key, result = self._write_moves(table_id, game, moves), None
            else:
                with self.engine.begin() as conn:
                    key, result = self._write(conn, table_id, known.created_at, game, moves)
        moved = known.moved(key, result)
        self._keep(table_id, moved, game)
        if result is not None and self.finished is not None:
            try:
                self.finished(table_id)
            except Exception:  # the move is stored: a hook's failure must not undo it
                log.exception("after table %s finished", table_id)
        return moved

    def _write_moves(self, table_id: str, game: OnlineTable,
                     moves: list[Move]) -> tuple[int, str, datetime]:
        """PostgreSQL, the game going on: ``STORE_MOVES`` through the driver, in
        autocommit; the row's new key.

        The pool's connection is lent as it is (in a transaction-less state): autocommit
        is set for the statement and put back, as SQLAlchemy's own ``AUTOCOMMIT`` does,
        and a connection the statement found broken is dropped from the pool.
        """
        from psycopg.types.json import Jsonb  # noqa: PLC0415 - PostgreSQL only

        moment = now()
        lent = self.engine.raw_connection()
        driver = lent.driver_connection  # a psycopg connection
        assert driver is not None  # only a closed one has none
        try:
            driver.autocommit = True
            try:
                deadline = deadline_after(game, game.turn_seconds, moment)
                stored = driver.execute(STORE_MOVES, {
                    "table_id": table_id, "at": moment, "version": game.version,
                    "bot_due": game.bot_to_move(), "deadline": deadline,
                    "moves": Jsonb([{"index": m.version, "seat": m.seat, "kind": m.kind,
                                     "text": m.text, "note": m.note} for m in moves])})
                if stored.rowcount == 0:
                    raise _not_in_play(table_id)
                game.deadline = deadline
            finally:
                if not driver.broken:
                    driver.autocommit = False
        finally:
            if driver.broken:
                lent.invalidate()
            lent.close()
        return game.version, "playing", moment

    def _write(self, conn: Connection, table_id: str, created_at: datetime,
               game: OnlineTable, moves: list[Move]) -> tuple[tuple[int, str, datetime],
                                                             dict[str, Any] | None]:
        """The statements of ``store`` on ``conn`` (in a transaction); the row's new key
        and result.

        A finished game's row also gets its status, result and record (docs/record-format.md,
        with the table's id and date in ``meta``). A table no longer in play (closed or
        abandoned meanwhile) takes no move: ``StaleError``, nothing stored.
        """
        moment = now()
        deadline = deadline_after(game, game.turn_seconds, moment)
        values: dict[str, Any] = {"version": game.version, "updated_at": moment,
                                  "bot_due": game.bot_to_move(), "turn_deadline": deadline}
        status, result = "playing", None
        if game.is_over():
            state = game.state
            status, result = "finished", {"scores": state.scores(), "ranks": state.ranks()}
            record = game.record()
            record["meta"] = {**record.get("meta", {}), "table": table_id,
                              "date": created_at.date().isoformat()}
            values.update(status=status, result=result, record=record)
        # the row first, then the moves: the order of the one statement (and of the ORM's
        # flush in a leave), so two writers never wait on each other in turn
        changed = conn.execute(update(TableRow).where(
            TableRow.id == table_id, TableRow.status == "playing").values(values))
        if changed.rowcount == 0:
            raise _not_in_play(table_id)
        conn.execute(insert(MoveRow), [
            {"table_id": table_id, "index": m.version, "seat": m.seat, "kind": m.kind,
             "text": m.text, "note": m.note, "created_at": moment} for m in moves])
        game.deadline = deadline
        return (game.version, status, moment), result
