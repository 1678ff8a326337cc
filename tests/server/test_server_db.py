"""Storage: the migration makes the models' schema, a version takes one move, caches catch up."""

from __future__ import annotations

import secrets
import time
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from random import Random
from typing import Any

import pytest
import sqlalchemy.engine
import sqlalchemy.exc
from alembic import command
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from sqlalchemy import Engine, event, inspect
from sqlalchemy.exc import IntegrityError
from srvkit import SMALL, two_people_playing

from conftest import PG_URL
from noreturn.server import db
from noreturn.server.db import (
    Base,
    MoveRow,
    alembic_config,
    default_db_url,
    make_engine,
    migrate,
    normalize_url,
)
from noreturn.server.dbfaults import is_storage_fault
from noreturn.server.schemas import CreateTable, RulesIn, SeatIn
from noreturn.server.service import (
    ConflictError,
    ForbiddenError,
    NotFoundError,
    TableService,
    hash_token,
)


def test_the_migration_makes_the_schema_of_the_models(db_url: str) -> None:
    engine = make_engine(db_url)
    migrate(engine)
    with engine.connect() as connection:
        context = MigrationContext.configure(connection, opts={"compare_type": True})
        assert compare_metadata(context, Base.metadata) == []
        tables = set(inspect(connection).get_table_names())
    assert {"game_tables", "table_seats", "table_moves", "alembic_version"} <= tables
    migrate(engine)  # twice is fine: already at head
    config = alembic_config()
    with engine.begin() as connection:
        config.attributes["connection"] = connection
        command.downgrade(config, "base")
    with engine.connect() as connection:
        assert not {"game_tables", "table_moves"} & set(inspect(connection).get_table_names())
    engine.dispose()


def test_the_database_refuses_a_second_move_at_the_same_version(db_url: str) -> None:
    engine = make_engine(db_url)
    migrate(engine)
    service = TableService(engine)
    created = service.create(CreateTable(seats=[SeatIn(kind="bot"), SeatIn(kind="bot")],
                                         rules=RulesIn(**SMALL)))
    table_id = created["table"]["id"]
    moment = datetime.now(UTC)
    with service.sessions.begin() as session:
        session.add(MoveRow(table_id=table_id, index=0, seat=0, kind="action", text="mulligan",
                            note="", created_at=moment))
    with pytest.raises(IntegrityError), service.sessions.begin() as session:
        session.add(MoveRow(table_id=table_id, index=0, seat=1, kind="action", text="pass",
                            note="", created_at=moment))
    engine.dispose()


def two_services_at_a_table(db_url: str) -> tuple[
        Engine, TableService, TableService, str, dict[int, str]]:
    """Two processes' worth of services on one new database, and a lobby of two people
    made by the first: the engine, both services, the table's id and its seat tokens."""
    engine = make_engine(db_url)
    migrate(engine)
    one, two = TableService(engine), TableService(engine)
    created = one.create(CreateTable(seats=[SeatIn(kind="human", name="Ada"),
                                            SeatIn(kind="human", name="Bo")],
                                     rules=RulesIn(**SMALL)))
    tokens = {link["seat"]: link["token"] for link in created["seat_links"]}
    return engine, one, two, created["table"]["id"], tokens


def test_two_services_on_one_database_see_each_others_moves(db_url: str) -> None:
    """Two processes' worth of caches: a move decided on a copy the other process moved
    past is refused (``stale``); a read catches the copy up."""
    engine, one, two, table_id, tokens = two_services_at_a_table(db_url)
    one.join(table_id, tokens[1], None)
    one.start(table_id, tokens[0])
    rng = Random(3)
    for turn in range(12):
        service, other = (one, two) if turn % 2 else (two, one)
        public = service.state_message(table_id, None)
        if public["status"] == "finished":
            break
        seat = public["view"]["to_move"]
        mine = service.state_message(table_id, seat, hash_token(tokens[seat]))
        version = mine["version"]
        service.act(table_id, seat, rng.choice(mine["legal"]), version)
        with pytest.raises(ConflictError) as stale:  # the other cache catches up first
            other.act(table_id, seat, mine["legal"][0], version)
        assert stale.value.code in ("stale", "not_your_turn")
        both = [s.state_message(table_id, None) for s in (one, two)]
        assert both[0] == both[1] and both[0]["version"] == version + 1
    engine.dispose()


def test_database_urls() -> None:
    assert normalize_url("postgresql://u@h:5432/db") == "postgresql+psycopg://u@h:5432/db"
    assert normalize_url("postgres://u@h/db") == "postgresql+psycopg://u@h/db"
    assert normalize_url("sqlite:///x.db") == "sqlite:///x.db"
    for bad in ("mysql://u@h/db", "not a url"):
        with pytest.raises(ValueError, match="sqlite"):
            normalize_url(bad)


def test_the_default_database_is_under_xdg_data(monkeypatch: pytest.MonkeyPatch,
                                                tmp_path: Path) -> None:
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path))
    url = default_db_url()
    assert url == f"sqlite:///{tmp_path / 'noreturn' / 'noreturn.db'}"
    engine = make_engine(url)
    migrate(engine)
    engine.dispose()
    assert (tmp_path / "noreturn" / "noreturn.db").is_file()


def test_a_welcome_is_the_seat_the_table_and_the_state_of_one_read(db_url: str) -> None:
    """A new connection's welcome (one call) finds the token's seat and says what ``get``
    and ``state_message`` say, in the lobby and in play; it refuses a token that holds no
    seat (or no longer: its person left) and a missing table."""
    engine, service, other, table_id, tokens = two_services_at_a_table(db_url)
    digest = hash_token(tokens[0])
    assert other.welcome(table_id, tokens[0]) == (0, digest, service.get(table_id),
                                                   service.state_message(table_id, 0, digest),
                                                   False)
    assert other.welcome(table_id, tokens[1]).seat == 1
    service.join(table_id, tokens[1], None)
    service.start(table_id, tokens[0])
    other.welcome(table_id, tokens[0])
    mover = service.state_message(table_id, None)["view"]["to_move"]
    state = service.state_message(table_id, mover, hash_token(tokens[mover]))
    service.act(table_id, mover, state["legal"][0], state["version"])  # other's copy is old
    _seat, _digest, table, mine, _due = other.welcome(table_id, tokens[0])
    assert table == service.get(table_id) and table["version"] == state["version"] + 1
    assert mine == service.state_message(table_id, 0, digest)
    spectator = other.welcome(table_id, None)
    assert spectator[:2] == (None, None)
    assert spectator.state == service.state_message(table_id, None)
    for wrong in ("", "not-a-token", tokens[0] + "x"):
        with pytest.raises(ForbiddenError):
            other.welcome(table_id, wrong)
    service.leave(table_id, tokens[0])
    with pytest.raises(ForbiddenError, match="does not hold a seat"):
        other.welcome(table_id, tokens[0])
    with pytest.raises(NotFoundError):
        other.welcome("no-such-table", None)
    engine.dispose()


def test_after_a_join_or_the_start_here_a_welcome_reads_one_row(db_url: str) -> None:
    """The process that joined a seat or started the game keeps the table as stored, so
    the welcomes that follow (every person connects then) and the bots' first look read
    the table's key only: one statement each, not the table, its seats and its game."""
    engine, service, other, table_id, tokens = two_services_at_a_table(db_url)
    statements: list[str] = []
    event.listen(engine, "before_cursor_execute",
                 lambda _c, _cur, text, *_rest: statements.append(text))

    def statements_of(call: Callable[[], object]) -> list[str]:
        statements.clear()
        call()
        return list(statements)

    service.join(table_id, tokens[1], "Bo B.")
    stored = other.get(table_id)  # another process's read: what is stored
    assert (stored["seats"][1]["name"], stored["seats"][1]["joined"]) == ("Bo B.", True)
    welcome = statements_of(lambda: service.welcome(table_id, tokens[1]))
    assert len(welcome) == 1 and "table_seats" not in welcome[0]
    service.start(table_id, tokens[0])
    assert other.get(table_id)["status"] == "playing"
    assert other.get(table_id)["seats"][0]["joined"] is True
    for token in tokens.values():
        welcome = statements_of(lambda t=token: service.welcome(table_id, t))  # type: ignore[misc]
        assert len(welcome) == 1 and "table_seats" not in welcome[0]
    assert statements_of(lambda: service.bot_turn(table_id)) == []  # people only: none due
    engine.dispose()


@pytest.mark.parametrize("db_url", ["postgresql"], indirect=True)  # its driver's write
def test_a_move_written_on_a_dead_connection_stores_nothing_and_the_game_goes_on(
        db_url: str) -> None:
    """PostgreSQL writes a move through the driver on a pooled connection: if the
    database dropped that connection, the call fails (nothing stored, the held game
    forgotten), each dead connection fails one call at most and leaves the pool, and the
    game goes on from the database."""
    import psycopg  # noqa: PLC0415 - PostgreSQL only

    name = f"nr_dead_{secrets.token_hex(4)}"
    engine = make_engine(f"{db_url}&application_name={name}")
    migrate(engine)
    service = TableService(engine)
    table_id, tokens, _creator = two_people_playing(service)

    def state() -> tuple[int, dict[str, Any]]:
        seat = service.state_message(table_id, None)["view"]["to_move"]
        return seat, service.state_message(table_id, seat, hash_token(tokens[seat]))

    def move() -> int:
        seat, mine = state()
        return service.act(table_id, seat, mine["legal"][0], mine["version"]).version

    first = move()
    seat, mine = state()  # read now: the act below reads nothing, it only writes
    with psycopg.connect(PG_URL, autocommit=True) as admin:
        killed = admin.execute("select pg_terminate_backend(pid) from pg_stat_activity "
                               "where application_name = %s", (name,)).fetchall()
    assert killed
    with pytest.raises(psycopg.OperationalError):
        service.act(table_id, seat, mine["legal"][0], mine["version"])
    assert service.games.cached(table_id) is None  # forgotten: read again next time
    failures = 0
    for _ in range(len(killed) + 1):  # each dead pooled connection fails one call at most
        try:
            version = move()
            break
        except (psycopg.OperationalError, sqlalchemy.exc.OperationalError):
            failures += 1
    assert failures < len(killed)
    assert version == first + 1  # nothing of a failed call was stored
    assert move() == first + 2
    engine.dispose()


@pytest.mark.parametrize(("url", "options"), [
    ("postgresql://h/db", "-c lock_timeout=10000 -c idle_in_transaction_session_timeout=30000"),
    ("postgresql://h/db?options=-csearch_path%3Dx", "-csearch_path=x -c lock_timeout=10000 "
                                                    "-c idle_in_transaction_session_timeout=30000"),
    ("postgresql://h/db?options=-c%20deadlock_timeout%3D2s", "-c deadlock_timeout=2s -c "
     "lock_timeout=10000 -c idle_in_transaction_session_timeout=30000"),  # not lock_timeout
    ("postgresql://h/db?options=-c%20lock_timeout%3D1s", "-c lock_timeout=1s -c "
     "idle_in_transaction_session_timeout=30000"),
    ("postgresql://h/db?options=", None),  # behind PgBouncer, which refuses options
])
def test_the_session_limits_join_the_urls_own_options(url: str, options: str | None) -> None:
    args = db._connect_args(sqlalchemy.engine.make_url(url), url)
    assert args.get("options") == options and args["connect_timeout"] == db.CONNECT_SECONDS


@pytest.mark.parametrize("db_url", ["postgresql"], indirect=True)
def test_a_process_frozen_in_a_transaction_holds_a_table_for_seconds_not_hours(
        db_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """A server process stopped (SIGSTOP, or its machine gone) while its session held a
    table's row in an open transaction made every other process's moves at that table
    wait until TCP gave up: now a move waits ``LOCK_WAIT_SECONDS`` at most (then a storage
    fault, answered 503, nothing changed), and the frozen session is ended after
    ``IDLE_IN_TRANSACTION_SECONDS``, its lock freed."""
    import psycopg  # noqa: PLC0415 - PostgreSQL only

    monkeypatch.setattr(db, "LOCK_WAIT_SECONDS", 1)
    monkeypatch.setattr(db, "IDLE_IN_TRANSACTION_SECONDS", 3)
    frozen, engine = make_engine(db_url), make_engine(db_url)
    migrate(engine)
    service = TableService(engine)
    table_id, tokens, _creator = two_people_playing(service)
    seat = service.state_message(table_id, None)["view"]["to_move"]
    mine = service.state_message(table_id, seat, hash_token(tokens[seat]))
    holder = frozen.connect()
    holder.exec_driver_sql("select id from game_tables where id = %(id)s for update",
                           {"id": table_id})  # and then nothing: the process froze
    began = time.monotonic()
    with pytest.raises(psycopg.errors.LockNotAvailable) as raised:  # the driver's write
        service.act(table_id, seat, mine["legal"][0], mine["version"])
    assert time.monotonic() - began < 5 and is_storage_fault(raised.value)  # a 503
    assert service.state_message(table_id, None)["version"] == mine["version"]
    time.sleep(3.5)  # the frozen session is ended, its lock freed
    assert service.act(table_id, seat, mine["legal"][0], mine["version"]).version == \
        mine["version"] + 1
    with pytest.raises(sqlalchemy.exc.DBAPIError, match="idle-in-transaction timeout"):
        holder.exec_driver_sql("select 1")  # what the process meets when it thaws
    holder.invalidate()
    frozen.dispose()
    engine.dispose()


def test_a_welcome_says_whether_a_bot_is_to_move(db_url: str) -> None:
    """A connection lets the bots move only when its welcome found one to move (a game
    waiting on a bot after a restart); otherwise it costs no bot call."""
    engine = make_engine(db_url)
    migrate(engine)
    service = TableService(engine)
    created = service.create(CreateTable(seats=[SeatIn(kind="human"),
                                                SeatIn(kind="bot", level="easy")],
                                         rules=RulesIn(**SMALL)))
    table_id, token = created["table"]["id"], created["seat_links"][0]["token"]
    assert not service.welcome(table_id, token).bot_due  # the lobby
    service.start(table_id, token)
    welcome = service.welcome(table_id, token)
    if not welcome.bot_due:  # the person begins: a move without the bots after it
        legal, version = welcome.state["legal"], welcome.state["version"]
        service.act(table_id, 0, legal[0], version, bots_after=False)
        welcome = service.welcome(table_id, token)
    assert welcome.bot_due and welcome.state["legal"] == []
    assert service.welcome(table_id, None).bot_due  # a spectator's too
    service.bot_turn(table_id, run_on=True)
    after = service.welcome(table_id, token)
    assert not after.bot_due and after.state["legal"]
    engine.dispose()
