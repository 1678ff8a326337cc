"""PostgreSQL for the tests of several processes: skip without it, and a fresh schema."""

from __future__ import annotations

import secrets
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest

from conftest import PG_URL, _with_schema, pg_problem


def need_postgres() -> None:
    """Skip the calling test, saying why, when PostgreSQL is unreachable."""
    problem = pg_problem()
    if problem:
        pytest.skip(f"needs PostgreSQL: {problem}")


def pg() -> Any:
    """The psycopg module (the test is skipped without a reachable PostgreSQL)."""
    need_postgres()
    import psycopg  # noqa: PLC0415 - the SQLite-only tests run without it

    return psycopg


@contextmanager
def fresh_schema() -> Iterator[tuple[str, str]]:
    """A new PostgreSQL schema (dropped afterwards): its name and a URL that uses it."""
    schema = f"nr_cluster_{secrets.token_hex(6)}"
    with pg().connect(PG_URL, autocommit=True) as conn:
        conn.execute(f"create schema {schema}")
    try:
        yield schema, _with_schema(PG_URL, schema)
    finally:
        with pg().connect(PG_URL, autocommit=True) as conn:
            conn.execute(f"drop schema if exists {schema} cascade")
