"""Fixtures of the server tests: every test runs against SQLite and, when reachable, PostgreSQL.

PostgreSQL is ``postgresql://postgres@127.0.0.1:5432/test`` or ``$NORETURN_TEST_PG_URL``;
each test gets a fresh schema (dropped afterwards) through the connection's search_path, so
tests never see each other's tables.

The browser tests' fixtures (a real server in a thread, headless Chromium) are here too, so
pytest finds them by name; they import ``browserkit.py`` (Playwright, uvicorn) only when a
test asks for them, and a test whose parts are missing is skipped with the reason.
"""

from __future__ import annotations

import os
import secrets
from collections.abc import Iterator
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import quote

import pytest

try:  # the server's dependencies (fastapi, SQLAlchemy, alembic) may not be installed
    import alembic  # noqa: F401
    import fastapi  # noqa: F401
    import sqlalchemy  # noqa: F401
except ImportError:  # pragma: no cover - a laptop without the server's dependencies
    collect_ignore_glob = ["test_*.py"]

if TYPE_CHECKING:
    from browserkit import ServerThread

PG_URL = os.environ.get("NORETURN_TEST_PG_URL", "postgresql://postgres@127.0.0.1:5432/test")


@cache
def pg_problem() -> str | None:
    """Why PostgreSQL cannot be used (None: it can)."""
    try:
        import psycopg  # noqa: PLC0415 - only when PostgreSQL is tried
    except ImportError:
        return "psycopg is not installed"
    try:
        with psycopg.connect(PG_URL, connect_timeout=3) as conn:
            conn.execute("select 1")
    except psycopg.Error as exc:
        reason = " ".join(str(exc).split())
        return f"PostgreSQL at {PG_URL} is unreachable ({type(exc).__name__}: {reason})"
    return None


def _with_schema(url: str, schema: str) -> str:
    separator = "&" if "?" in url else "?"
    return f"{url}{separator}options={quote(f'-csearch_path={schema}')}"


@pytest.fixture(params=["sqlite", "postgresql"])
def db_url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    """A database URL for one test: a new SQLite file, or a new PostgreSQL schema."""
    if request.param == "sqlite":
        yield f"sqlite:///{tmp_path / 'noreturn.db'}"
        return
    problem = pg_problem()
    if problem:
        pytest.skip(f"PostgreSQL tests skipped: {problem}")
    import psycopg  # noqa: PLC0415

    schema = f"nr_test_{secrets.token_hex(6)}"
    with psycopg.connect(PG_URL, autocommit=True) as conn:
        conn.execute(f"create schema {schema}")
    try:
        yield _with_schema(PG_URL, schema)
    finally:
        with psycopg.connect(PG_URL, autocommit=True) as conn:
            conn.execute(f"drop schema if exists {schema} cascade")


def _live_server(tmp_path_factory: pytest.TempPathFactory, name: str,
                 **options: Any) -> Iterator[ServerThread]:
    """The real app on a fresh SQLite database, in a thread, for one module's tests."""
    from browserkit import ServerThread  # noqa: PLC0415 - Playwright and uvicorn: lazily

    db = tmp_path_factory.mktemp(name) / "tables.db"
    with ServerThread(f"sqlite:///{db}", **options) as running:
        yield running


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerThread]:
    """One server with a fresh SQLite database for this module's browser tests."""
    yield from _live_server(tmp_path_factory, "browser")


@pytest.fixture(scope="module")
def slow_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerThread]:
    """A server whose bots wait ``browserkit.BOT_DELAY`` seconds before each move, as
    people see them."""
    from browserkit import BOT_DELAY  # noqa: PLC0415

    yield from _live_server(tmp_path_factory, "browser-slow", bot_delay=BOT_DELAY)


@pytest.fixture(scope="module")
def reviewing_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerThread]:
    """A server that reviews finished games at ``browserkit.REVIEW_PLAYOUTS`` a decision."""
    from browserkit import REVIEW_PLAYOUTS  # noqa: PLC0415

    yield from _live_server(tmp_path_factory, "browser-review",
                            review_playouts=REVIEW_PLAYOUTS)


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    """Headless Chromium (the system's), skipped with the reason if it will not start."""
    from browserkit import CHROMIUM, CHROMIUM_FLAGS, sync_api  # noqa: PLC0415

    with sync_api.sync_playwright() as pw:
        try:
            chromium = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_FLAGS)
        except sync_api.Error as exc:
            pytest.skip(f"Chromium at {CHROMIUM} does not start: {exc.message.splitlines()[0]}")
        yield chromium
        chromium.close()
