"""The server's storage: SQLAlchemy models, the engine and migrations.

The database holds everything a table needs, so a process can stop at any moment and another
(or several, later) take over: the tables and their seats, and for a game every accepted
action in order. A game in progress is rebuilt from its secret seed and those actions
(``LocalTable`` deals from the seed, so the same actions give the same game). A finished
game also keeps its record (docs/record-format.md), which needs no seed and no code of this
version to be read again.

``table_moves`` has the primary key (table_id, index), and a move's index is the state version
it was played at: two writers that both saw version 12 cannot both store a move 12, the
database refuses the second. That is the optimistic concurrency the server relies on.

SQLite in a file is the default (nothing to set up); ``postgresql://`` URLs use psycopg 3.
The schema is made by Alembic migrations (``migrate``), run at startup; the models here and
the migrations are checked against each other by the tests.
"""

from __future__ import annotations

import os
import re
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from alembic import command
from alembic.config import Config
from sqlalchemy import (
    JSON,
    Boolean,
    DateTime,
    Engine,
    Float,
    ForeignKey,
    Index,
    Integer,
    String,
    Text,
    create_engine,
    event,
    text,
    true,
)
from sqlalchemy.engine import URL, make_url
from sqlalchemy.exc import ArgumentError
from sqlalchemy.orm import DeclarativeBase, Mapped, Session, mapped_column, sessionmaker

MIGRATIONS = Path(__file__).with_name("migrations")
DB_POOL_SIZE = 4
"""PostgreSQL connections kept open per process: the app's worker limit (workers.WORKERS)."""


class Base(DeclarativeBase):
    """The declarative base of the server's tables."""


def now() -> datetime:
    """The current time in UTC (stored with its zone where the database keeps zones)."""
    return datetime.now(UTC)


class TableRow(Base):
    """One table: lobby, game in progress, finished game, or closed/abandoned table.

    ``seed`` is secret while the game runs (it fixes the bag's order); ``version`` counts the
    stored moves, so it is the state version clients see. ``creator_hash`` is the SHA-256 of
    the creator token (which closes the table). ``bot_due`` says a bot may be to move in a
    game in progress (False: a person is, for sure), so that finding the games that wait on
    a bot (at startup, or after a process died) never builds a game.

    The indexes serve the lobby's newest-first list (all tables, or one status) and the
    sweeps, which look for tables of a status unchanged since a time.
    """

    __tablename__ = "game_tables"
    __table_args__ = (
        Index("ix_game_tables_newest", "created_at", "id"),
        Index("ix_game_tables_status_newest", "status", "created_at", "id"),
        Index("ix_game_tables_status_updated", "status", "updated_at"),
        Index("ix_game_tables_status_deadline", "status", "turn_deadline"),
    )

    id: Mapped[str] = mapped_column(String(32), primary_key=True)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    updated_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    status: Mapped[str] = mapped_column(String(16))
    rules: Mapped[dict[str, Any]] = mapped_column(JSON)
    seed: Mapped[str] = mapped_column(String(64))
    version: Mapped[int] = mapped_column(Integer, default=0)
    result: Mapped[dict[str, Any] | None] = mapped_column(JSON, nullable=True)
    record: Mapped[dict[str, Any] | None] = mapped_column(JSON, nullable=True)
    creator_hash: Mapped[str | None] = mapped_column(String(64), nullable=True)
    bot_due: Mapped[bool] = mapped_column(Boolean, default=False, server_default=true())
    turn_seconds: Mapped[int | None] = mapped_column(Integer, nullable=True)
    timeout_level: Mapped[str | None] = mapped_column(String(64), nullable=True)
    turn_deadline: Mapped[datetime | None] = mapped_column(DateTime(timezone=True),
                                                           nullable=True)
    rematch_id: Mapped[str | None] = mapped_column(String(32), nullable=True)
    """The finished game's rematch (rematch.py): set once, so asking twice finds it."""


class SeatRow(Base):
    """One seat of a table.

    ``kind`` and ``level`` are the seat as created (the game is rebuilt with them);
    ``replaced_by`` is the bot level that took the seat over when its person left during the
    game. ``token_hash`` is the SHA-256 of the seat token (never the token), None for a bot
    and after its person left the game.
    """

    __tablename__ = "table_seats"

    table_id: Mapped[str] = mapped_column(
        String(32), ForeignKey("game_tables.id", ondelete="CASCADE"), primary_key=True)
    seat: Mapped[int] = mapped_column(Integer, primary_key=True)
    kind: Mapped[str] = mapped_column(String(8))
    name: Mapped[str] = mapped_column(String(64))
    level: Mapped[str | None] = mapped_column(String(64), nullable=True)
    token_hash: Mapped[str | None] = mapped_column(String(64), nullable=True)
    joined: Mapped[bool] = mapped_column(Boolean, default=False)
    replaced_by: Mapped[str | None] = mapped_column(String(64), nullable=True)


class MoveRow(Base):
    """One accepted change of a game, at the version ``index`` (0, 1, 2, ...).

    ``kind`` is ``action`` (``text`` is the action's text form; ``note`` a failed bot's note),
    ``leave`` (``text`` is the bot level that took the seat over), ``timeout`` (a person's
    time ran out: ``text`` is the action the bot of level ``note`` played for the seat) or
    ``undo`` (``seat`` took back its last turn: ``text`` is the version the game went back
    to and the secret that orders the bag afresh, which never leaves the server).
    """

    __tablename__ = "table_moves"

    table_id: Mapped[str] = mapped_column(
        String(32), ForeignKey("game_tables.id", ondelete="CASCADE"), primary_key=True)
    index: Mapped[int] = mapped_column(Integer, primary_key=True)
    seat: Mapped[int] = mapped_column(Integer)
    kind: Mapped[str] = mapped_column(String(8))
    text: Mapped[str] = mapped_column(Text)
    note: Mapped[str] = mapped_column(Text, default="")
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))


class ChatRow(Base):
    """One message of a table's chat (``chat.py``): plain text from a seat, with the name
    the seat had then. ``id`` orders the messages of every table (a connection asks for
    the ones after the last it sent)."""

    __tablename__ = "table_chat"
    __table_args__ = (Index("ix_table_chat_table", "table_id", "id"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    table_id: Mapped[str] = mapped_column(
        String(32), ForeignKey("game_tables.id", ondelete="CASCADE"))
    seat: Mapped[int] = mapped_column(Integer)
    name: Mapped[str] = mapped_column(String(64))
    text: Mapped[str] = mapped_column(Text)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))


class ReviewRow(Base):
    """The review of a finished game (docs/review.md), kept with its record.

    ``state`` is ``pending`` while a process reviews it (claimed at ``claimed_at``; a claim
    not renewed for ``reviews.CLAIM_SECONDS`` is taken to be a process that died, and may
    be taken over), ``done`` with ``review`` (the JSON of ``noreturn review --json``), or
    ``failed`` with ``error`` (never tried again: the same record fails the same way). A
    row of its own, not a column of ``game_tables``: the tables' reads (every move, every
    lobby page) never carry a review's tens of kilobytes.
    """

    __tablename__ = "table_reviews"

    table_id: Mapped[str] = mapped_column(
        String(32), ForeignKey("game_tables.id", ondelete="CASCADE"), primary_key=True)
    state: Mapped[str] = mapped_column(String(16))
    claimed_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    review: Mapped[dict[str, Any] | None] = mapped_column(JSON, nullable=True)
    error: Mapped[str | None] = mapped_column(Text, nullable=True)


class PlayerRow(Base):
    """One rated player (players.py): a person known by the SHA-256 of the player key
    their browser keeps (``id``, never the key), or a bot level (``id`` ``bot:LEVEL``).

    ``name`` is the name the person last joined a table with (a bot: its level); ``mu``
    and ``sigma`` are the openskill rating, ``ordinal`` (mu - 3 sigma) the leaderboard's
    order, kept as a column so the board is one indexed read.
    """

    __tablename__ = "players"
    __table_args__ = (Index("ix_players_ordinal", "ordinal"),)

    id: Mapped[str] = mapped_column(String(80), primary_key=True)
    kind: Mapped[str] = mapped_column(String(8))
    name: Mapped[str] = mapped_column(String(64))
    mu: Mapped[float] = mapped_column(Float)
    sigma: Mapped[float] = mapped_column(Float)
    ordinal: Mapped[float] = mapped_column(Float)
    games: Mapped[int] = mapped_column(Integer, default=0)
    updated_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))


class PlayerSeatRow(Base):
    """A seat held by a player key: the person's history, and the table's rating claim.

    Written when the seat is joined (or started) in the lobby with a key, removed when
    the person leaves the lobby, copied to a rematch. ``rated`` turns True once the
    finished table was rated (one guarded update claims it, so a table is rated once
    whatever the number of processes); ``ordinal_after`` is the player's ordinal then.
    """

    __tablename__ = "player_seats"
    __table_args__ = (Index("ix_player_seats_player", "player_id", "table_id"),
                      Index("ix_player_seats_unrated", "rated", "table_id"))

    table_id: Mapped[str] = mapped_column(
        String(32), ForeignKey("game_tables.id", ondelete="CASCADE"), primary_key=True)
    seat: Mapped[int] = mapped_column(Integer, primary_key=True)
    player_id: Mapped[str] = mapped_column(String(80), ForeignKey("players.id"))
    rated: Mapped[bool] = mapped_column(Boolean, default=False)
    ordinal_after: Mapped[float | None] = mapped_column(Float, nullable=True)


def default_db_url() -> str:
    """SQLite in ``$XDG_DATA_HOME/noreturn/noreturn.db`` (``~/.local/share`` by default)."""
    base = os.environ.get("XDG_DATA_HOME") or Path.home() / ".local" / "share"
    return f"sqlite:///{Path(base) / 'noreturn' / 'noreturn.db'}"


def normalize_url(url: str) -> str:
    """The URL with the driver this package uses: ``postgresql://`` means psycopg 3.

    Raises:
        ValueError: not a URL SQLAlchemy reads, or a database other than SQLite or
            PostgreSQL.
    """
    text = url.strip()
    for prefix in ("postgres://", "postgresql://"):
        if text.startswith(prefix):
            text = "postgresql+psycopg://" + text[len(prefix):]
    try:
        parsed = make_url(text)
    except Exception as exc:  # SQLAlchemy's ArgumentError and friends
        raise ValueError(f"{url!r} is not a database URL: use sqlite:///PATH or "
                         "postgresql://USER@HOST:PORT/DB") from exc
    if parsed.get_backend_name() not in ("sqlite", "postgresql"):
        raise ValueError(f"{url!r}: only sqlite:///PATH and postgresql://... are supported")
    return text


CONNECT_SECONDS = 10
"""How long a new PostgreSQL connection may take (the driver's default: no limit, so an
unroutable host would hold the server's start, or a request, for minutes)."""


LOCK_WAIT_SECONDS = 10
"""A statement that waits this long for a row another session holds gives up (PostgreSQL's
``lock_timeout``): the request is answered 503, nothing changed, instead of hanging."""
IDLE_IN_TRANSACTION_SECONDS = 30
"""A session idle this long inside a transaction is ended by PostgreSQL and its locks freed
(``idle_in_transaction_session_timeout``): a server process frozen (SIGSTOP) or whose
machine vanished mid-transaction held a table's row until TCP gave up, some two hours, and
every other process's moves at that table waited on it."""


def _connect_args(parsed: URL, text: str = "") -> dict[str, Any]:
    """psycopg's ``connect_timeout`` unless the URL gives its own, and the session limits
    above, added to the URL's own ``options`` (a ``search_path``, say) unless it sets them.
    An empty ``options=`` in the URL sends none: a pooler such as PgBouncer refuses them."""
    args: dict[str, Any] = {}
    if "connect_timeout" not in parsed.query:
        args["connect_timeout"] = CONNECT_SECONDS
    if re.search(r"[?&]options=(?:&|$)", text):  # (an empty value leaves the parsed URL)
        return args
    given = parsed.query.get("options")
    options = [] if given is None else [given] if isinstance(given, str) else list(given)
    for name, seconds in (("lock_timeout", LOCK_WAIT_SECONDS),
                          ("idle_in_transaction_session_timeout", IDLE_IN_TRANSACTION_SECONDS)):
        if not re.search(rf"(?:-c\s*|--){name}=", " ".join(options)):  # not deadlock_timeout
            options.append(f"-c {name}={seconds * 1000}")
    args["options"] = " ".join(options)
    return args


def url_backend(url: str) -> str | None:
    """The database kind a URL names (``sqlite``, ``postgresql``); None if it does not parse
    (``dbstart.open_database`` then says what is wrong with it)."""
    try:
        return make_url(url).get_backend_name()
    except ArgumentError:
        return None


def sqlite_path(parsed: URL) -> Path | None:
    """The file of a SQLite URL; None in memory (and for an empty path, which names no
    file). A ``file:`` URI (``?uri=true``, e.g. ``file:/srv/x.db?mode=ro``) too."""
    name = parsed.database or ""
    if parsed.query.get("uri") and name.startswith("file:"):
        name = name[len("file:"):]
    if name in ("", ":memory:"):
        return None
    return Path(name).expanduser()


def make_engine(url: str) -> Engine:
    """An engine for ``url`` (see ``normalize_url``); a SQLite file's folder is created.

    SQLite connections are shared by the server's worker threads (each used by one thread
    at a time), wait up to 30 s for a lock, and enforce foreign keys. A PostgreSQL
    connection gives up after ``CONNECT_SECONDS`` unless the URL sets ``connect_timeout``, a
    lock waited for after ``LOCK_WAIT_SECONDS``, and a session idle in a transaction is ended
    after ``IDLE_IN_TRANSACTION_SECONDS``.

    Statement parameters are kept out of SQLAlchemy's log and out of its exceptions' text
    (``hide_parameters``): they hold table seeds, token hashes and hidden moves, and an
    exception's text ends up in logs.
    """
    text = normalize_url(url)
    parsed = make_url(text)
    if parsed.get_backend_name() != "sqlite":
        try:
            # as many connections as the app runs service calls at once (workers.WORKERS), and
            # a few for the odd caller beside it: connections are kept, never churned.
            # pool_pre_ping is left out (a round trip per checkout); a connection found
            # dead fails one call and SQLAlchemy then drops the whole pool's connections.
            return create_engine(text, pool_size=DB_POOL_SIZE, max_overflow=4,
                                 pool_timeout=30, pool_recycle=1800, hide_parameters=True,
                                 connect_args=_connect_args(parsed, text))
        except ModuleNotFoundError as exc:
            raise ValueError(f"PostgreSQL needs the psycopg driver ({exc.name} is missing): "
                             "pip install 'noreturn[postgres]'") from exc
    path = sqlite_path(parsed)
    if path is not None:
        path.parent.mkdir(parents=True, exist_ok=True)
    engine = create_engine(text, connect_args={"check_same_thread": False, "timeout": 30},
                           hide_parameters=True)

    @event.listens_for(engine, "connect")
    def _pragmas(connection: Any, _record: Any) -> None:
        cursor = connection.cursor()
        cursor.execute("PRAGMA foreign_keys=ON")
        cursor.close()

    return engine


def alembic_config() -> Config:
    """Alembic's configuration, built in code: no alembic.ini is needed at run time."""
    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS))
    return config


MIGRATION_LOCK = 0x6E6F7265  # "nore"
"""The PostgreSQL advisory lock key that ``migrate`` holds (one per database)."""


def migrate(engine: Engine, revision: str = "head") -> None:
    """Bring the schema to ``revision`` (the newest by default) with Alembic.

    On PostgreSQL the upgrade runs under a transaction-scoped advisory lock: several
    server processes starting at once migrate one after the other (the first does the
    work, the others find the schema at ``revision``) instead of racing on the same DDL.
    The lock is released with the transaction, also if the process dies.
    """
    config = alembic_config()
    with engine.begin() as connection:
        if connection.dialect.name == "postgresql":
            connection.execute(text("select pg_advisory_xact_lock(:key)"),
                               {"key": MIGRATION_LOCK})
        config.attributes["connection"] = connection
        command.upgrade(config, revision)


def session_factory(engine: Engine) -> sessionmaker[Session]:
    """Sessions that keep loaded rows readable after commit."""
    return sessionmaker(engine, expire_on_commit=False)
