"""The tables' logic over the database: lobby, seats, tokens, moves, bots, views.

Everything a table is lives in the database (``db``): the seats, the secret seed and every
accepted move. A game is a ``LocalTable`` dealt from the seed with the stored moves replayed
(``LocalTable.replay``); ``games.Games`` keeps one per table in memory with what a state
message needs of its seats, and catches up with the moves stored since (by this process or
another) whenever a read shows the table moved. So a restart loses nothing, and a second
process needs no other state than the database's.

Concurrency: the service is synchronous and thread-safe; the web app calls it from worker
threads, so neither the database nor a thinking bot blocks the event loop. Calls on one
table are serialized by a lock (one of a fixed set of striped locks); across processes the
moves table's primary key (table_id, index), with index = the version the move was made
at, lets one move per version through and refuses the other (a ``stale`` error). That is
what lets a move be decided on the game as this process holds it, with no read first
(``games`` explains why that is safe).

The hidden-information rule: what a seat receives is built from ``view(state, seat)`` and
that seat's own log only (``state_message``); the public ``Table`` has names, kinds and
counts; the record and the replay are given out only once the game is over. The seed,
which fixes the bag, never leaves the server while the game runs (a finished game's record
names it). Seat tokens are stored as SHA-256 digests and compared in constant time.
"""

from __future__ import annotations

import hashlib
import hmac
import logging
import re
import secrets
import unicodedata
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from datetime import datetime, timedelta
from typing import Any, NamedTuple, NoReturn

from sqlalchemy import Engine, Table, bindparam, insert, select, update
from sqlalchemy.orm import Session

from noreturn.bots.base import BotError, budget_of, make_bot
from noreturn.bots.switch import SwitchAdvice
from noreturn.bots.viewjson import view_to_json
from noreturn.engine import NoReturnError, Rules, parse_action, tile_code
from noreturn.server import advice
from noreturn.server.db import MoveRow, SeatRow, TableRow, now
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
from noreturn.server.lobby import newest_tables
from noreturn.server.replay import public_replay
from noreturn.server.schemas import NAME_LENGTH, CreateTable
from noreturn.table import BOT_NAMES, BotMove, LocalTable

log = logging.getLogger("noreturn.server")

TAKEOVER_LEVEL = "medium"
"""The bot that plays on for a person who leaves during the game."""
BOT_LEVELS = ("easy", "medium", "hard", "expert", "random", "greedy", "heuristic", "plan",
              "search", "ismcts", "heuristic-v1", "ismcts-v1")
"""Bot specs a table may seat. Never ``external:``: that would run a command on the server."""
MAX_BOT_SECONDS = 3.0
"""The longest a thinking bot (one with a ``Budget``) may think per move here: the
``expert`` level's time. Bot decisions queue for a few threads (``app.THINKERS``), so this
bounds a table's turn."""
MAX_BOT_ITERATIONS = 20_000
FAST_RUN = 32
"""At most this many fast bot moves in one write (``bot_turn(run_on=True)``, ``act(...,
bots_after=True)``): a bots-only game must not hold its table's lock for long."""
TABLES: Table = TableRow.__table__  # type: ignore[assignment]
SEATS: Table = SeatRow.__table__  # type: ignore[assignment]
"""The tables behind the rows, for plain (Core) statements."""
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
TABLE_ID = re.compile(r"[A-Za-z0-9_-]{1,64}")
"""What a table id can look like (``secrets.token_urlsafe``); anything else names no table
and never reaches the database (PostgreSQL refuses a NUL character in a query: an error)."""


class ServiceError(Exception):
    """A request the service refuses; nothing changed. ``status`` is the HTTP status,
    ``code`` the WebSocket error code (docs/server-protocol.md)."""

    status = 400
    code = "malformed"

    def __init__(self, message: str, code: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        if code is not None:
            self.code = code


class BadRequestError(ServiceError):
    """Malformed: the message says what is wrong and how to fix it."""


class ForbiddenError(ServiceError):
    """A wrong, missing or withdrawn seat token."""

    status = 403
    code = "bad_token"


class NotFoundError(ServiceError):
    """No such table."""

    status = 404
    code = "not_found"


class ConflictError(ServiceError):
    """Not now: the table is in the wrong stage, or the game moved on."""

    status = 409
    code = "conflict"


OVER = frozenset({"finished", "closed", "abandoned"})
"""The statuses of a table whose game will not go on."""


def over_message(status: str) -> str:
    """Why a table takes no more play, for an error message."""
    if status == "finished":
        return "the game is over: see its replay or download the record"
    return f"the table is {status}: nothing more is played at it"


class Welcome(NamedTuple):
    """What a new connection is told first (``TableService.welcome``)."""

    seat: int | None
    token_hash: str | None
    table: dict[str, Any]
    state: dict[str, Any]
    bot_due: bool
    """A bot is to move (after a restart nobody may have let it yet)."""


class Acted(NamedTuple):
    """What ``act`` did: the table's new version, and whether a bot is to move now (a
    slow one, or any when the bots did not play on)."""

    version: int
    bot_due: bool


def _stale() -> ConflictError:
    return ConflictError("the game moved on meanwhile: look at the new state and try again",
                         "stale")


def hash_token(token: str) -> str:
    """The stored form of a seat token: its SHA-256, in hex.

    ``surrogatepass``: JSON may carry a lone surrogate (``"\\ud800"``), which strict
    UTF-8 cannot encode; such a token is merely wrong, not a server error.
    """
    return hashlib.sha256(token.encode("utf-8", "surrogatepass")).hexdigest()


def check_level(level: str | None) -> str:
    """The bot spec for ``level`` (default ``medium``), if a table may seat it.

    Raises:
        BadRequestError: an unknown level, bad options, or a search budget above the limits.
    """
    spec = (level or TAKEOVER_LEVEL).strip()
    name = spec.partition(":")[0]
    if name not in BOT_LEVELS:
        raise BadRequestError(f"no bot level {name!r}: choose one of {', '.join(BOT_LEVELS)}")
    try:
        bot = make_bot(spec)
    except BotError as exc:
        raise BadRequestError(f"bot level {spec!r}: {exc}") from exc
    budget = budget_of(bot)
    if budget is not None and ((budget.seconds or 0) > MAX_BOT_SECONDS
                               or (budget.iterations or 0) > MAX_BOT_ITERATIONS):
        raise BadRequestError(f"bot level {spec!r}: at most time={MAX_BOT_SECONDS:g} or "
                         f"iterations={MAX_BOT_ITERATIONS} per move on this server")
    return spec


def clean_name(name: str | None, default: str) -> str:
    """A player's name: trimmed, ``default`` when empty; no control characters.

    Raises:
        BadRequestError: the name is too long or holds control characters.
    """
    text = " ".join((name or "").split())
    if not text:
        return default
    if len(text) > NAME_LENGTH:
        raise BadRequestError(f"name {text[:NAME_LENGTH]!r}...: at most {NAME_LENGTH} characters")
    if any(unicodedata.category(c).startswith("C") for c in text):
        raise BadRequestError(f"name {text!r}: no control characters, please")
    return text


class TableService:
    """The tables of one database; see the module docstring."""

    def __init__(self, engine: Engine, cache_size: int = 256) -> None:
        """Serve the tables in ``engine``'s database (migrated already)."""
        self.engine = engine
        self.games = Games(engine, cache_size)
        self.sessions = self.games.sessions
        self._not_waiting: dict[str, int] = {}  # stalled_games: game -> version, no bot due

    # ---------------------------------------------------------------- plumbing
    @contextmanager
    def _transaction(self, table_id: str) -> Iterator[Session]:
        """``Games.transaction``, with a move stored meanwhile elsewhere as ``stale``."""
        try:
            with self.games.transaction(table_id, (ServiceError,)) as session:
                yield session
        except StaleError as exc:
            raise _stale() from exc

    @staticmethod
    def _row_missing(table_id: str) -> NoReturn:
        shown = table_id if len(table_id) <= 40 else f"{table_id[:40]}..."
        raise NotFoundError(f"no table {shown!r}: check the link, or create a table")

    @classmethod
    def _row(cls, session: Session, table_id: str) -> TableRow:
        row = session.get(TableRow, table_id) if TABLE_ID.fullmatch(table_id) else None
        if row is None:
            cls._row_missing(table_id)
        return row

    @classmethod
    def _row_and_seats(cls, session: Session, table_id: str) -> tuple[TableRow, list[SeatRow]]:
        """The table's row and its seats in order, read in one query (one snapshot)."""
        if not TABLE_ID.fullmatch(table_id):
            cls._row_missing(table_id)
        found = session.execute(select(TableRow, SeatRow)
                                .join(SeatRow, SeatRow.table_id == TableRow.id)
                                .where(TableRow.id == table_id).order_by(SeatRow.seat)).all()
        if not found:
            cls._row_missing(table_id)
        return found[0][0], [seat for _row, seat in found]

    def _holder(self, session: Session, table_id: str, token: str | None) -> tuple[
            TableRow, list[SeatRow], SeatRow]:
        """The table, its seats and the seat ``token`` holds, read in one query.

        Raises:
            NotFoundError, ForbiddenError.
        """
        row, seats = self._row_and_seats(session, table_id)
        seat, _digest = self._authenticate([s.token_hash for s in seats], token)
        return row, seats, seats[seat]

    def _detached_holder(self, session: Session, table_id: str, token: str | None) -> tuple[
            TableRow, list[SeatRow], SeatRow]:
        """``_holder``, its rows detached from ``session``: to be changed in memory and
        written by ``_write_seat`` (plain updates: the ORM's unit of work cost more than
        the rest of a join or a start)."""
        found = self._holder(session, table_id, token)
        session.expunge_all()
        return found

    @staticmethod
    def _write_seat(session: Session, row: TableRow, seat: SeatRow, was: str) -> None:
        """Store the table's status, time and bot flag and the seat's name and joined flag
        as they are in memory, if the table's status is still ``was``. The table's row
        first, as every writer of a table does, so two writers never wait on each other
        in turn.

        Raises:
            ConflictError: the table was closed (or abandoned) meanwhile.
        """
        write = session.connection().execute
        changed = write(SET_TABLE, {"the_id": row.id, "old_status": was,
                                    "new_status": row.status, "at": row.updated_at,
                                    "due": row.bot_due})
        if changed.rowcount == 0:
            raise ConflictError("the table was closed meanwhile: nothing changed", "closed")
        write(SET_SEAT, {"the_id": row.id, "the_seat": seat.seat, "new_name": seat.name,
                         "new_joined": seat.joined})

    def _read(self, table_id: str) -> tuple[Known, LocalTable | None]:
        """The table as stored now, its game caught up (None in the lobby)."""
        with self._transaction(table_id) as session:
            return self.games.load(session, *self._row_and_seats(session, table_id))

    def _current(self, table_id: str, version: int | None = None) -> tuple[
            Known, LocalTable | None]:
        """The table as this process holds it if its game is at ``version`` (any version
        when None), else as stored now. Call under the table's lock.

        What is held may be behind another process's writes; a move made on it is then
        refused when stored (``Games.store``), so acting on it is safe.
        """
        cached = self.games.cached(table_id)
        if cached is not None and (version is None or cached[1].version == version):
            return cached
        return self._read(table_id)

    def _store(self, known: Known, game: LocalTable, moves: list[Move]) -> None:
        """``Games.store``, with a refusal as ``stale``."""
        try:
            self.games.store(known, game, moves)
        except StaleError as exc:
            raise _stale() from exc

    @contextmanager
    def _changing(self, table_id: str) -> Iterator[None]:
        """Around changing a held game before it is stored: if anything fails on the way,
        the held copy (now ahead of the database) is forgotten."""
        try:
            yield
        except BaseException:
            self.games.forget(table_id)
            raise

    @staticmethod
    def _authenticate(digests: Sequence[str | None], token: str | None) -> tuple[int, str]:
        """The seat whose token this is, from the seats' stored digests (in seat order),
        and the token's digest.

        Raises:
            ForbiddenError: no token, or none of this table's seats has it.
        """
        if not token:
            raise ForbiddenError("a seat token is needed: use the link you were given "
                            "(/play/TABLE#token=...)")
        digest = hash_token(token)
        found: int | None = None
        for seat, stored in enumerate(digests):  # every seat is compared, in constant time
            if stored is not None and hmac.compare_digest(stored, digest):
                found = seat
        if found is None:
            raise ForbiddenError("this token does not hold a seat at this table: use the link "
                            "you were given")
        return found, digest

    # ------------------------------------------------------------------- lobby
    def create(self, body: CreateTable) -> dict[str, Any]:
        """A new table; the answer holds each human seat's token, shown this once.

        A table of bots only starts at once (there is nobody to press start).

        Raises:
            BadRequestError: bad rules, names or bot levels.
        """
        count = len(body.seats)
        rules_in = body.rules.given() if body.rules else {}
        if rules_in.get("players", count) != count:
            raise BadRequestError(f"rules: players is {rules_in['players']} but there are "
                             f"{count} seats: leave players out, the seats count")
        try:
            rules = Rules.from_dict({**rules_in, "players": count})
        except NoReturnError as exc:
            raise BadRequestError(str(exc)) from exc
        taken: set[str] = set()
        names: list[str] = []
        for i, seat in enumerate(body.seats):
            if seat.kind == "human" and seat.level:
                raise BadRequestError(f"seat {i}: a level is for bots; leave it out for a person")
            if seat.kind == "human":
                default = f"Player {i + 1}"
            else:
                default = next((n for n in BOT_NAMES if n not in taken and all(
                    n != (s.name or "").strip() for s in body.seats)), f"Bot {i + 1}")
            name = clean_name(seat.name, default)
            if name in taken:
                raise BadRequestError(f"two seats are named {name!r}: give each a different name")
            taken.add(name)
            names.append(name)
        levels = [check_level(s.level) if s.kind == "bot" else None for s in body.seats]
        table_id = secrets.token_urlsafe(9)
        tokens = {i: secrets.token_urlsafe(24) for i, s in enumerate(body.seats)
                  if s.kind == "human"}
        creator_token = secrets.token_urlsafe(24)
        moment = now()
        table_values: dict[str, Any] = {
            "id": table_id, "created_at": moment, "updated_at": moment,
            "status": "lobby" if tokens else "playing", "rules": rules.to_dict(),
            "seed": secrets.token_hex(16), "version": 0, "result": None, "record": None,
            "creator_hash": hash_token(creator_token), "bot_due": not tokens}
        seat_values: list[dict[str, Any]] = [
            {"table_id": table_id, "seat": i, "kind": s.kind, "name": names[i],
             "level": levels[i], "token_hash": hash_token(tokens[i]) if i in tokens else None,
             "joined": s.kind == "bot", "replaced_by": None}
            for i, s in enumerate(body.seats)]
        row, seat_rows = TableRow(**table_values), [SeatRow(**v) for v in seat_values]
        with self._transaction(table_id) as session:
            # plain inserts: the ORM's unit of work cost more than the rest of the call
            write = session.connection().execute
            write(NEW_TABLE, [table_values])
            write(NEW_SEATS, seat_values)
            self.games.load(session, row, seat_rows)  # kept as it will be stored (see start)
            table = public_table(row, seat_rows)
        return {
            "table": table,
            "creator_token": creator_token,
            "seat_links": [{"seat": i, "name": names[i], "token": token,
                            "link": f"/play/{table_id}#token={token}"}
                           for i, token in tokens.items()],
            "spectator_link": f"/watch/{table_id}",
        }

    def list_tables(self, limit: int = 50, status: str | None = None) -> list[dict[str, Any]]:
        """The lobby: the newest tables first, public data only (``lobby.newest_tables``:
        one indexed query, no game built, no record read)."""
        with self.games.autocommit.connect() as conn:
            return newest_tables(conn, limit, status)

    def get(self, table_id: str) -> dict[str, Any]:
        """One table's public description."""
        with self.sessions() as session:
            return public_table(*self._row_and_seats(session, table_id))

    def welcome(self, table_id: str, token: str | None) -> Welcome:
        """A new connection's seat (``token``'s; None: a spectator), public table and first
        state, from one look at the table.

        The look is ``_as_stored``'s: one single-row read when this process holds the
        table as it is stored (a join or start here keeps it), else one read of the table
        and its seats. A person's connection costs the database no more than that, and the
        process one hand-off.

        Raises:
            NotFoundError; ForbiddenError: the token holds no seat (or no longer: the
                person left the game).
        """
        key = self._stored_key(table_id)
        with self.games.locked(table_id):
            known, game = self._as_stored(table_id, key)
            seat, digest = (None, None) if token is None else self._authenticate(
                known.token_hashes, token)
            return Welcome(seat, digest, known.table, self._state(known, game, seat, digest),
                           self._bot_due(known, game) is not None)

    def join(self, table_id: str, token: str | None, name: str | None) -> dict[str, Any]:
        """Mark the token's seat as joined; in the lobby its name may change."""
        with self._transaction(table_id) as session:
            row, seats, seat = self._detached_holder(session, table_id, token)
            if row.status in OVER:
                raise ConflictError(over_message(row.status), "over")
            was = row.status
            if name is not None:
                new = clean_name(name, seat.name)
                if new != seat.name and row.status != "lobby":
                    raise ConflictError("names are fixed once the game has started")
                if any(s.name == new for s in seats if s.seat != seat.seat):
                    raise BadRequestError(f"another seat is named {new!r}: choose another name")
                seat.name = new
            seat.joined = True
            row.updated_at = now()
            self._write_seat(session, row, seat, was)
            self.games.load(session, row, seats)  # kept as it will be stored (see start)
            return public_table(row, seats)

    def start(self, table_id: str, token: str | None) -> dict[str, Any]:
        """Start the game (the token's seat counts as joined).

        Raises:
            ConflictError: a person has not joined yet (named), or the game started already.
        """
        with self._transaction(table_id) as session:
            row, seats, seat = self._detached_holder(session, table_id, token)
            if row.status in OVER:
                raise ConflictError(over_message(row.status), "over")
            if row.status != "lobby":
                raise ConflictError("the game has started already")
            missing = [s.name for s in seats
                       if s.kind == "human" and not s.joined and s.seat != seat.seat]
            if missing:
                raise ConflictError(f"{', '.join(missing)} {'has' if len(missing) == 1 else 'have'}"
                               " not joined yet: send them their seat link, then start")
            seat.joined = True
            row.status = "playing"
            row.updated_at = now()
            # kept as it will be stored (its game dealt), so the bots' first look and the
            # people's welcomes read one row, not the table and its seats; should the
            # write or the commit fail, the transaction forgets it
            _known, game = self.games.load(session, row, seats)
            row.bot_due = game is not None and game.bot_to_move()
            self._write_seat(session, row, seat, "lobby")
            return public_table(row, seats)

    def leave(self, table_id: str, token: str | None) -> dict[str, Any]:
        """Leave: in the lobby the seat is free again; during the game a bot takes it over.

        After leaving a game the token holds nothing: the seat's hand is the bot's now.
        """
        with self._transaction(table_id) as session:
            row, seats, seat = self._holder(session, table_id, token)
            if row.status in OVER:
                raise ConflictError(over_message(row.status), "over")
            if row.status == "playing":
                game = self.games.game(session, row, seats)
                before = game.version
                game.replace_by_bot(seat.seat, TAKEOVER_LEVEL)
                session.add(MoveRow(table_id=row.id, index=before, seat=seat.seat,
                                    kind="leave", text=TAKEOVER_LEVEL, note="",
                                    created_at=now()))
                row.version = game.version
                row.bot_due = game.bot_to_move()
                seat.replaced_by = TAKEOVER_LEVEL
                seat.token_hash = None
            seat.joined = False
            row.updated_at = now()
            session.flush()
            self.games.forget(table_id, game_too=False)  # the seats changed
            return public_table(row, seats)

    def record(self, table_id: str) -> dict[str, Any]:
        """The finished game's record (docs/record-format.md).

        Raises:
            ConflictError: the game is not over (a record in progress would show hidden tiles).
        """
        with self.sessions() as session:
            row = self._row(session, table_id)
            if row.status != "finished" or row.record is None:
                raise ConflictError("the record is available once the game is over")
            return dict(row.record)

    def replay(self, table_id: str) -> dict[str, Any]:
        """The finished game turn by turn, public views only (``replay.public_replay``)."""
        return public_replay(self.record(table_id))

    # -------------------------------------------------------------------- play
    def state_message(self, table_id: str, seat: int | None,
                      token_hash: str | None = None,
                      moved_to: int | None = None) -> dict[str, Any]:
        """The ``state`` message for ``seat`` (None: a spectator), from its view and log.

        ``token_hash`` is the digest the connection was opened with: a seat whose token
        was withdrawn (its person left the game) gets ``ForbiddenError``.

        Cheap when nothing but the game moved since this process last looked: one
        single-row read of the table's (version, status, updated_at), which every change
        of a table or its seats alters (a move, a leave, a join, the start), and, when it
        is the one this process holds with the seats and the game at that version, the
        message is built from them with no transaction. Otherwise the row and its seats
        are read (in one query) and the game caught up.

        ``moved_to``: the version a move notice carried (``app.BotRunner``, an action).
        When this process holds the table's seats and game at that version or later (it
        stored or read them), the message is built from them with no read at all: a
        version is made by exactly one stored move, and the seats change during play only
        with a stored move of their own (a leave, whose notice carries no version), so
        what is known at a version holds for it. A seat withdrawn later is refused once
        that later change's notice (or the next full read) comes.
        """
        if not TABLE_ID.fullmatch(table_id):
            self._row_missing(table_id)
        if moved_to is not None:
            with self.games.locked(table_id):
                held = self._held_state(table_id, seat, token_hash, moved_to)
                if held is not None:
                    return held
        key = self._stored_key(table_id)
        with self.games.locked(table_id):
            return self._state(*self._as_stored(table_id, key), seat, token_hash)

    def _stored_key(self, table_id: str) -> tuple[int, str, datetime]:
        """The table's key (``row_key``) as stored now: one single-row read.

        Raises:
            NotFoundError.
        """
        if not TABLE_ID.fullmatch(table_id):
            self._row_missing(table_id)
        with self.games.autocommit.connect() as conn:
            key = conn.execute(KEY_OF_TABLE, {"table_id": table_id}).first()
        if key is None:
            self._row_missing(table_id)
        return row_key(key)

    def _as_stored(self, table_id: str, key: tuple[int, str, datetime]) -> tuple[
            Known, LocalTable | None]:
        """The table as stored at ``key`` (just read): what this process holds if it was
        kept at that key (with its game at that version), else read now. Call under the
        table's lock."""
        known, game = self.games.known(table_id)
        if known is not None and known.key == key and (
                not has_game(known.status, known.version)
                or (game is not None and game.version == known.version)):
            return known, game
        return self._read(table_id)

    def held_state(self, table_id: str, seat: int | None, token_hash: str | None,
                   moved_to: int) -> dict[str, Any] | None:
        """``state_message`` after a move notice, if it needs neither the database nor a
        wait for the table's lock; None otherwise (then call ``state_message``).

        For the event loop: a state built from memory costs less than handing it to a
        worker thread and back.
        """
        with self.games.locked_if_free(table_id) as held:
            return self._held_state(table_id, seat, token_hash, moved_to) if held else None

    def _held_state(self, table_id: str, seat: int | None, token_hash: str | None,
                    moved_to: int) -> dict[str, Any] | None:
        """The state from what this process holds, if it holds the table at ``moved_to``
        or later (see ``state_message``); call under the table's lock."""
        cached = self.games.cached(table_id)
        if cached is None or cached[0].version < moved_to:
            return None
        return self._state(*cached, seat, token_hash)

    @staticmethod
    def _state(known: Known, game: LocalTable | None, seat: int | None,
               token_hash: str | None) -> dict[str, Any]:
        """The state message from a table's seats (``known``) and its game (under its lock)."""
        if seat is not None:
            stored = known.token_hashes[seat] if 0 <= seat < len(known.token_hashes) else None
            if stored is None or token_hash is None or not hmac.compare_digest(
                    stored, token_hash):
                raise ForbiddenError("this seat's token no longer holds it (you left the game)")
        message: dict[str, Any] = {
            "type": "state", "version": known.version, "status": known.status, "view": None,
            "legal": [], "log": [], "names": list(known.names), "unseen": {},
            "result": None, "table": known.table,
        }
        if known.status == "lobby" or game is None:
            return message
        mine = seat is not None and game.to_move() == seat and game.human_to_move()
        seen = game.view_for(seat)
        message.update(
            version=game.version,
            view=view_to_json(seen),
            unseen={tile_code(t): n for t, n in sorted(seen.unseen().items()) if n > 0},
            legal=game.legal_texts() if mine else [],
            log=game.log(seat),
        )
        if game.is_over():
            state = game.state
            message["result"] = {"scores": state.scores(), "ranks": state.ranks(),
                                 "lines": game.result_lines()}
        return message

    @staticmethod
    def _bot_due(known: Known, game: LocalTable | None) -> LocalTable | None:
        """The game if it is in progress and a bot is to move in it, else None."""
        playing = known.status == "playing" and game is not None and game.bot_to_move()
        return game if playing else None

    @staticmethod
    def _playing(known: Known, game: LocalTable | None, seat: int | None) -> LocalTable:
        """The game, for a seat that wants to play now.

        Raises:
            ConflictError: a spectator, or the game has not started or is over.
        """
        if seat is None:
            raise ConflictError("spectators watch: open your seat link to play", "spectator")
        if known.status in OVER and known.status != "finished":
            raise ConflictError(over_message(known.status), "closed")
        if known.status == "lobby" or game is None:
            raise ConflictError("the game has not started yet: wait for the start", "not_started")
        if known.status == "finished":
            raise ConflictError("the game is over", "over")
        return game

    @staticmethod
    def _turn(game: LocalTable, seat: int) -> None:
        mover = game.to_move()
        if mover != seat:
            who = "nobody" if mover is None else game.names[mover]
            raise ConflictError(f"it is not your turn: {who} is to move", "not_your_turn")
        if not game.human_to_move():  # the person left: a bot plays the seat now
            raise ForbiddenError("this seat's token no longer holds it (you left the game)")

    def act(self, table_id: str, seat: int | None, text: str, version: int,
            bots_after: bool = False) -> Acted:
        """Play ``text`` for ``seat`` if it is its turn, ``version`` is current and the rules
        allow it; returns the new version, and whether a bot is to move then.

        ``bots_after`` (bots with no delay): the fast bots to move next play on and are
        stored with the person's move in one write (``_bot_run``), so the person's
        next state comes at once, after them.

        Raises:
            ServiceError: with the protocol's code (stale, not_your_turn, malformed,
                illegal, ...); nothing changed.
        """
        if not TABLE_ID.fullmatch(table_id):
            self._row_missing(table_id)
        with self.games.locked(table_id):
            known, held = self._current(table_id, version)
            game = self._playing(known, held, seat)
            assert seat is not None
            if version != game.version:
                raise ConflictError(f"the game has moved on (it is at version {game.version}, you "
                               f"sent {version}): look at the new state and try again",
                               "stale")
            self._turn(game, seat)
            try:
                action = parse_action(text)
            except NoReturnError as exc:
                raise BadRequestError(f"{exc}", "malformed") from exc
            problem = game.why_not(action)
            if problem is not None:
                raise ConflictError(f"{action} is not allowed: {problem}", "illegal")
            with self._changing(table_id):
                moves = [Move(game.version, seat, "action", str(action))]
                if game.try_action(action) is not None:  # pragma: no cover - checked above
                    raise ConflictError(f"{action} is not allowed", "illegal")
                if bots_after:
                    moves += self._bot_run(game, FAST_RUN, after_person=True)
                self._store(known, game, moves)
            return Acted(game.version, game.bot_to_move())

    def _checked_game(self, table_id: str, seat: int | None) -> LocalTable:
        """The game as stored now, for ``check`` and ``hint`` (its seat to move)."""
        if not TABLE_ID.fullmatch(table_id):
            self._row_missing(table_id)
        game = self._playing(*self._read(table_id), seat)
        assert seat is not None
        self._turn(game, seat)
        return game

    def check(self, table_id: str, seat: int | None, text: str) -> tuple[bool, str | None]:
        """Whether ``seat`` may play ``text`` now, and why not.

        Off turn the answer is only "not your turn": the action is never judged against
        the state then, since the rules would judge it against the hand of the player to
        move (and the answer would tell about that hand).
        """
        with self.games.locked(table_id):
            try:
                game = self._checked_game(table_id, seat)
                action = parse_action(text)
            except (ConflictError, NoReturnError) as exc:
                if getattr(exc, "code", None) in ("spectator", "not_started", "over", "closed"):
                    raise
                return False, getattr(exc, "message", str(exc))
            problem = game.why_not(action)
            return problem is None, problem

    def hint(self, table_id: str, seat: int | None) -> tuple[str, str]:
        """A suggested action for ``seat`` on its turn, with the reason."""
        with self.games.locked(table_id):
            action, reason = self._checked_game(table_id, seat).hint()
            return str(action), reason

    def switch_job(self, table_id: str, seat: int | None) -> tuple[
            int, Callable[[], SwitchAdvice]]:
        """The switch advice for ``seat`` on its phase-1 turn, to weigh later, with the
        game's version it is for: the turn is checked and the view taken under the table's
        lock, the weighing (``advice.py``) runs after it, so the table's moves never wait
        for it.

        Raises:
            ConflictError: not its turn, or nothing to weigh (code ``nothing_to_weigh``).
        """
        with self.games.locked(table_id):
            game = self._checked_game(table_id, seat)
            try:
                return game.version, game.switch_job(advice.SWITCH_SECONDS)
            except NoReturnError as exc:
                raise ConflictError(str(exc), advice.NOTHING_TO_WEIGH) from exc

    # -------------------------------------------------------------------- bots
    def bot_step(self, table_id: str) -> bool:
        """Let the bot to move decide and play one move; False if no bot is to move.

        ``bot_turn`` then, for a slow bot, ``bot_apply`` (see them); a ``stale``
        ``ConflictError`` when the game moved on while the bot thought.
        """
        turn = self.bot_turn(table_id)
        if callable(turn):
            return self.bot_apply(table_id, turn()) is not None
        return turn is not None

    @staticmethod
    def _bot_run(game: LocalTable, most: int, after_person: bool = False) -> list[Move]:
        """Let the fast bots to move play, up to ``most`` moves, until a person or a slow
        bot (one with a ``Budget``) is to move or the game is over; the moves made.

        A bot that fails (a bug: a bot's own errors are handled by its fallback) ends the
        run; the moves before it are kept, so a person's move (``after_person``) is never
        undone by a bot after it. A failure before any move of the write is raised.
        """
        made: list[Move] = []
        while (len(made) < most and game.bot_to_move()
               and budget_of(game.bots[game.state.to_move]) is None):
            try:
                move = game.bot_job()()
            except Exception:
                if not (made or after_person):
                    raise
                log.exception("a bot failed after %d move(s): its runner tries again",
                              len(made) + after_person)
                break
            if not game.apply_bot(move):  # pragma: no cover - decided on this very state
                break
            made.append(Move(move.version, move.seat, "action", str(move.action), move.note))
        return made

    def bot_turn(self, table_id: str, run_on: bool = False) -> int | Callable[[], BotMove] | None:
        """The bot to move's turn: None if no bot is to move; a fast bot (one without a
        ``Budget``, deciding in well under a millisecond) decides and its move is stored now
        (the new version is returned); a slow one's decision is returned, to be made
        outside the table's lock (it may take seconds) and stored by ``bot_apply``.

        ``run_on`` (bots with no delay): the fast bots to move after it play on in the same
        write, up to ``FAST_RUN`` moves, until a person or a slow bot is to move or the
        game is over: one write and one notice for the lot instead of one each (the
        clients get the newest state, which may skip versions: docs/server-protocol.md).
        """
        if not TABLE_ID.fullmatch(table_id):
            self._row_missing(table_id)
        with self.games.locked(table_id):
            known, held = self._current(table_id)
            game = self._bot_due(known, held)
            if game is None:
                return None
            if budget_of(game.bots[game.state.to_move]) is not None:
                return game.bot_job()
            with self._changing(table_id):
                moves = self._bot_run(game, FAST_RUN if run_on else 1)
                if not moves:  # pragma: no cover - decided on this very state
                    return None
                self._store(known, game, moves)
            return game.version

    def bot_apply(self, table_id: str, move: BotMove) -> int | None:
        """Store a slow bot's decision (from ``bot_turn``) if the game is where it was; the
        new version (None: no bot is to move).

        If the game moved on meanwhile (another process's runner moved first), the move is
        dropped with a ``stale`` ``ConflictError``, and the runner looks again.
        """
        with self.games.locked(table_id):
            known, game = self._current(table_id, move.version)
            if known.status != "playing" or game is None:
                return None
            if game.version != move.version:
                raise ConflictError(f"the game moved on (version {game.version}) while the "
                                    f"bot thought about version {move.version}", "stale")
            with self._changing(table_id):
                if not game.apply_bot(move):
                    return None
                self._store(known, game, [Move(move.version, move.seat, "action",
                                               str(move.action), move.note)])
            return game.version

    def stalled_games(self, idle_seconds: float) -> list[str]:
        """Games in progress, unchanged for ``idle_seconds``, whose bot may be to move.

        One indexed query on the rows' bot flag (kept with every stored move): idle
        tables waiting on a person cost nothing. A flagged game is looked at once per
        version: one whose bot is not to move after all (a row from before the flag
        existed) has its flag lowered, and is remembered with its version until then.
        """
        cutoff = now() - timedelta(seconds=idle_seconds)
        waiting: list[str] = []
        checked: dict[str, int] = {}
        for table_id, version in self._bot_due_rows(TABLES.c.updated_at < cutoff):
            if self._not_waiting.get(table_id) == version:
                checked[table_id] = version
                continue
            try:
                with self.games.locked(table_id):
                    known, game = self._read(table_id)
                    due = self._bot_due(known, game) is not None
                if due:
                    waiting.append(table_id)
                else:
                    checked[table_id] = known.version
                    self._lower_flag(table_id, known.version)
            except (ServiceError, NoReturnError):  # gone, or broken: the runner says why
                checked[table_id] = version
        self._not_waiting = checked
        return waiting

    def _lower_flag(self, table_id: str, version: int) -> None:
        """No bot is to move at ``table_id`` at ``version``: lower its flag (unless it
        moved meanwhile), so no later look builds its game."""
        with self.games.autocommit.connect() as conn:
            conn.execute(update(TABLES).where(
                TABLES.c.id == table_id, TABLES.c.version == version).values(bot_due=False))

    def playing_tables(self) -> list[str]:
        """The games in progress whose bot may be to move (to let their bots move after a
        restart): one indexed query, no game built."""
        return [table_id for table_id, _version in self._bot_due_rows()]

    def _bot_due_rows(self, *also: Any) -> list[tuple[str, int]]:
        """(id, version) of the games in progress whose bot flag is raised."""
        query = select(TABLES.c.id, TABLES.c.version).where(
            TABLES.c.status == "playing", TABLES.c.bot_due.is_(True), *also)
        with self.games.autocommit.connect() as conn:
            return [(str(i), int(v)) for i, v in conn.execute(query)]


__all__ = [
    "BOT_LEVELS", "TAKEOVER_LEVEL", "BadRequestError", "ConflictError", "ForbiddenError",
    "NotFoundError", "ServiceError", "TableService", "check_level", "clean_name", "hash_token",
]
