"""The database failing while the server runs: a JSON 503 on HTTP, an ``unavailable`` error
on the WebSocket, one log line without a seed, a token or a tile, and the same request
succeeding once the database is back."""

from __future__ import annotations

import logging
import secrets
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, NamedTuple

import httpx
import pytest
from fastapi.testclient import TestClient
from rofile import read_only
from sqlalchemy import select
from sqlalchemy.engine import make_url
from srvkit import (
    SMALL,
    TILE,
    Answer,
    Player,
    connect,
    create,
    free_port,
    spawn_serve,
    start,
    stop_process,
    wait_serving,
)
from starlette.websockets import WebSocketDisconnect

from conftest import PG_URL
from noreturn.server import create_app
from noreturn.server.db import TableRow, make_engine
from noreturn.server.dbfaults import FAULTS, describe
from noreturn.server.service import hash_token

SEATS = [{"kind": "human", "name": "Ada"}, {"kind": "human", "name": "Bo"}]
GERMAN_503 = ("der Server kann seine Datenbank gerade nicht nutzen; nichts wurde geändert: "
              "versuche es in ein paar Sekunden noch einmal")


@pytest.fixture
def made(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Every seed, seat token and token hash the server makes during the test, also those
    of a table whose creation failed (they never reach the database to be read back)."""
    made: list[str] = []
    real_hex, real_urlsafe = secrets.token_hex, secrets.token_urlsafe

    def token_hex(nbytes: int | None = None) -> str:
        made.append(real_hex(nbytes))
        return made[-1]

    def token_urlsafe(nbytes: int | None = None) -> str:
        token = real_urlsafe(nbytes)
        if nbytes is not None and nbytes >= 16:  # a seat token (a table id is public)
            made.extend((token, hash_token(token)))
        return token

    monkeypatch.setattr(secrets, "token_hex", token_hex)
    monkeypatch.setattr(secrets, "token_urlsafe", token_urlsafe)
    FAULTS.clear()
    return made


def stored_secrets(db_url: str) -> list[str]:
    """The seeds in the database (read back: the brief's own check)."""
    engine = make_engine(db_url)
    with engine.connect() as connection:
        seeds = list(connection.scalars(select(TableRow.seed)))
    engine.dispose()
    assert seeds
    return seeds


def assert_clean(log: str, secret: list[str]) -> None:
    """No secret, no tile code and no traceback in ``log``; it tells of the fault."""
    assert secret
    assert not [s for s in secret if s in log], log
    assert not TILE.findall(log), log
    assert "Traceback" not in log and "[parameters" not in log, log
    assert "the database failed" in log, log


def refused(player: Player, action: dict[str, Any]) -> dict[str, Any]:
    """``action`` sent; the answer must be an ``unavailable`` error."""
    answer = player.answer(action)
    assert answer["type"] == "error" and answer["code"] == "unavailable", answer
    assert "try again" in answer["message"]
    return answer


def assert_503(answer: Answer) -> None:
    """A JSON 503 that says to try again."""
    assert answer.status_code == 503, answer.text
    assert answer.headers["content-type"] == "application/json"
    assert "database" in answer.json()["detail"] or "Datenbank" in answer.json()["detail"]
    assert int(answer.headers["retry-after"]) > 0


class Game(NamedTuple):
    """A game of two people in progress, both connected, and the mover's next action."""

    client: TestClient
    table_id: str
    tokens: dict[int, str]
    mover: Player
    action: dict[str, Any]


@contextmanager
def game(url: str, **options: Any) -> Iterator[Game]:
    """``create_app(url, **options)`` with a game of two people started and connected."""
    with TestClient(create_app(url, **options)) as client:
        table_id, tokens = create(client, SEATS, SMALL)
        start(client, table_id, tokens)
        with connect(client, table_id, 0, tokens[0]) as ada, \
                connect(client, table_id, 1, tokens[1]) as bo:
            mover = ada if ada.state["view"]["to_move"] == 0 else bo
            yield Game(client, table_id, tokens, mover, {
                "type": "action", "action": mover.state["legal"][0],
                "version": mover.state["version"]})


@pytest.fixture
def sqlite_url(tmp_path: Path) -> str:
    return f"sqlite:///{tmp_path / 'noreturn.db'}"


def test_a_database_turned_read_only_while_serving(
        sqlite_url: str, made: list[str], caplog: pytest.LogCaptureFixture) -> None:
    """HTTP and WebSocket while the SQLite file is read-only (immutable as root: also the
    connections opened before cannot write), then writable again."""
    caplog.set_level(logging.INFO)
    path = Path(str(make_url(sqlite_url).database))
    with game(sqlite_url) as (client, table_id, tokens, mover, action):
        with read_only(path, client.app.state.service.engine):  # type: ignore[attr-defined]
            assert_503(client.post("/api/tables", json={"seats": SEATS}))
            refused(mover, action)
            assert_503(client.post(f"/api/tables/{table_id}/leave",
                                   json={"token": tokens[mover.seat or 0]}))
        assert client.post("/api/tables", json={"seats": SEATS}).status_code == 201
        mover.send(action)
        assert mover.next_state()["version"] == action["version"] + 1
    assert_clean(caplog.text, made + stored_secrets(sqlite_url))
    assert not [r for r in caplog.records if r.exc_info]


def test_a_new_connection_while_the_database_is_away(
        sqlite_url: str, made: list[str], caplog: pytest.LogCaptureFixture) -> None:
    """A hello while the database file is gone (moved away; new connections find an
    empty file): an ``unavailable`` error and the close code 1013 (try again later). Once
    the file is back, a hello is welcome."""
    path = Path(str(make_url(sqlite_url).database))
    away = path.with_name("away.db")
    with TestClient(create_app(sqlite_url)) as client:
        table_id, tokens = create(client, SEATS, SMALL)
        service = client.app.state.service  # type: ignore[attr-defined]
        path.rename(away)
        service.engine.dispose()  # connections open from now on find no file
        service.games.forget(table_id)  # nothing held: the welcome must read
        with client.websocket_connect(f"/ws/tables/{table_id}") as ws:
            player = Player(ws, 0, tokens[0])
            ws.send_json({"type": "hello", "token": tokens[0]})
            answer = player.next()
            assert answer["type"] == "error" and answer["code"] == "unavailable", answer
            with pytest.raises(WebSocketDisconnect) as closed:
                player.next()
            assert closed.value.code == 1013
        with client.websocket_connect(f"/ws/tables/{table_id}") as ws:  # a German reader
            ws.send_json({"type": "hello", "token": tokens[0], "lang": "de"})
            answer = Player(ws, 0, tokens[0]).next()
            assert (answer["code"], answer["message"]) == ("unavailable", GERMAN_503), answer
        german = client.get(f"/api/tables/{table_id}", headers={"Accept-Language": "de"})
        assert_503(german)
        assert german.json()["detail"] == GERMAN_503
        path.unlink()
        away.rename(path)
        service.engine.dispose()
        with connect(client, table_id, 0, tokens[0]) as ada:
            assert ada.welcome["seat"] == 0
    assert_clean(caplog.text, made + stored_secrets(sqlite_url))


def test_the_log_of_a_real_server_holds_no_secret(tmp_path: Path, sqlite_url: str) -> None:
    """``noreturn serve`` (uvicorn's own logging): a create and a join refused while the
    file is read-only answer 503, and its output has no seed, token or traceback."""
    log = tmp_path / "serve.log"
    port, base = free_port(), ""
    with log.open("w") as output:
        process = spawn_serve(port, sqlite_url, output=output)
    try:
        base = f"http://127.0.0.1:{port}"
        wait_serving(base, process)
        created = httpx.post(f"{base}/api/tables", json={"seats": SEATS}).json()
        table_id, token = created["table"]["id"], created["seat_links"][0]["token"]
        with read_only(Path(str(make_url(sqlite_url).database))):
            assert_503(httpx.post(f"{base}/api/tables", json={"seats": SEATS}))
            assert_503(httpx.post(f"{base}/api/tables/{table_id}/join",
                                  json={"token": token, "name": "Ada"}))
        assert httpx.post(f"{base}/api/tables/{table_id}/join",
                          json={"token": token, "name": "Ada"}).status_code == 200
    finally:
        stop_process(process)
    text = log.read_text()
    assert " 503 " in text  # the access log: the requests were served, and refused
    assert_clean(text, [token, hash_token(token), *stored_secrets(sqlite_url)])


@pytest.fixture
def tagged_pg_url(db_url: str) -> Iterator[tuple[str, str]]:
    """A PostgreSQL URL whose connections carry their own application name, and it."""
    name = f"nr_gone_{secrets.token_hex(4)}"
    yield f"{db_url}&application_name={name}", name


def terminate(name: str) -> int:
    """End every PostgreSQL backend of ``name``'s connections; how many there were."""
    import psycopg  # noqa: PLC0415 - PostgreSQL only

    with psycopg.connect(PG_URL, autocommit=True) as admin:
        return len(admin.execute("select pg_terminate_backend(pid) from pg_stat_activity "
                                 "where application_name = %s", (name,)).fetchall())


def play_through(mover: Player, action: dict[str, Any]) -> int:
    """Send ``action`` again after each ``unavailable`` error until its state comes; how
    many errors there were. (A ``stale`` answer: it was stored, a push had failed.)"""
    failures = 0
    mover.send(action)
    while True:
        message = mover.next()
        if message["type"] == "state" and message["version"] > action["version"]:
            return failures
        if message["type"] == "error" and message["code"] != "stale":
            assert message["code"] == "unavailable", message
            failures += 1
            mover.send(action)


@pytest.mark.parametrize("db_url", ["postgresql"], indirect=True)
def test_postgresql_going_away_while_serving(
        tagged_pg_url: tuple[str, str], made: list[str],
        caplog: pytest.LogCaptureFixture) -> None:
    """Its connections terminated under a game: the move written on a dead connection
    (through the driver) gets ``unavailable``, an HTTP call on one a 503; each dead
    pooled connection fails one call at most, and the next call succeeds. The background
    looks (turn timers every second, the sweeps) are put off: one of them could meet the
    dead connection first and leave the move none to fail on."""
    url, name = tagged_pg_url
    caplog.set_level(logging.INFO)
    quiet = {"takeover_after": 3600, "timer_every": 3600, "sweep_every": 3600}
    with game(url, **quiet) as (client, _table_id, _tokens, mover, action):
        killed = terminate(name)
        assert killed
        failures = play_through(mover, action)
        assert 1 <= failures <= killed + 1
        killed, failures = terminate(name), 0
        while (created := client.post("/api/tables", json={"seats": SEATS})
               ).status_code != 201:
            assert_503(created)
            failures += 1
        assert 1 <= failures <= killed + 1
    assert_clean(caplog.text, made + stored_secrets(url))


def test_a_fault_is_described_without_the_data_it_was_about() -> None:
    """Only a connection-level error's first line is written; another's text may quote a
    row, so only its class and SQLSTATE are."""
    import sqlite3  # noqa: PLC0415

    assert describe(sqlite3.OperationalError("attempt to write a readonly database\nmore")
                    ) == "OperationalError: attempt to write a readonly database"
    row = sqlite3.IntegrityError("NOT NULL constraint failed: row (s3cr3t-seed)")
    row.sqlite_errorname = "SQLITE_CONSTRAINT_NOTNULL"
    assert describe(row) == "IntegrityError (SQLITE_CONSTRAINT_NOTNULL)"


def test_a_state_the_database_failed_to_give_is_sent_when_it_can(
        sqlite_url: str, made: list[str], monkeypatch: pytest.MonkeyPatch) -> None:
    """A notice whose state cannot be read (the database failed just then): the client is
    told ``unavailable`` once, and gets the state as soon as a read succeeds."""
    import sqlite3  # noqa: PLC0415

    from noreturn.server import channel as app_module  # noqa: PLC0415

    monkeypatch.setattr(app_module, "RETRY_AFTER_SECONDS", 0.05)
    with game(sqlite_url) as (client, _table_id, _tokens, mover, action):
        service = client.app.state.service  # type: ignore[attr-defined]
        real, failures = service.state_message, [2]

        def failing(*args: Any) -> dict[str, Any]:
            if failures[0]:
                failures[0] -= 1
                raise sqlite3.OperationalError("disk I/O error")
            return real(*args)  # type: ignore[no-any-return]

        monkeypatch.setattr(service, "held_state", lambda *_args: None)
        monkeypatch.setattr(service, "state_message", failing)
        mover.send(action)
        told = mover.next()
        assert told["type"] == "error" and told["code"] == "unavailable", told
        # two failed reads, one error: next_state fails on any message but a state
        assert mover.next_state()["version"] == action["version"] + 1
