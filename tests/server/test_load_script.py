"""Smoke test of the load benchmark (benchmarks/load.py): tiny runs, the JSON's fields.

The script starts its own ``noreturn serve`` process, so these tests check that the whole
chain works (server start, tables over HTTP, simulated people over WebSocket, figures,
cleanup); the figures themselves are not judged: this machine is shared and noisy.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("websockets", reason="the websockets package is not installed")
pytest.importorskip("fastapi", reason="the server's packages are not installed")

pytestmark = pytest.mark.timing  # its warm-up figures follow the clock: run alone
SCRIPT = Path(__file__).resolve().parents[2] / "benchmarks" / "load.py"
PG_URL = os.environ.get("NORETURN_TEST_PG_URL", "postgresql://postgres@127.0.0.1:5432/test")
FIELDS = ("tables", "processes", "seconds", "moves", "human_moves", "bot_moves",
          "moves_per_s", "p50_ms", "p90_ms", "p99_ms", "max_ms", "errors",
          "games_finished", "tables_made", "tables_ready_s", "warmup_s", "measured_s",
          "server_cpu_pct")


def run_load(*options: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, str(SCRIPT), *options], capture_output=True,
                          text=True, timeout=120, check=False)


def figures(*options: str) -> dict[str, Any]:
    """The JSON of a tiny run with ``options``."""
    result = run_load("--tables", "3", "--seconds", "3", "--think", "0.05", "--json", *options)
    assert result.returncode == 0, result.stderr[-2000:]
    data: dict[str, Any] = json.loads(result.stdout)
    return data


def check(data: dict[str, Any]) -> None:
    for name in FIELDS:
        assert name in data, name
    assert data["tables"] == 3
    assert data["processes"] == 1
    assert data["human_moves"] > 0, data
    assert data["bot_moves"] > 0, data  # every table has a bot, moving after each person
    assert data["moves_per_s"] > 0
    assert 0 < data["p50_ms"] <= data["p90_ms"] <= data["p99_ms"] <= data["max_ms"]
    assert data["actions_timed"] == data["human_moves"]
    assert isinstance(data["errors"], dict)
    assert data["tables_made"] >= 3
    assert data["tables_ready_s"] is not None and data["tables_ready_s"] <= data["warmup_s"]
    # the warm-up lasts until the burst of making the tables has settled, or half the run
    assert data["warmup_s"] >= min(data["tables_ready_s"] + 2, data["seconds"] / 2) - 0.6
    assert abs(data["warmup_s"] + data["measured_s"] - data["seconds"]) < 0.6


def test_a_tiny_run_on_sqlite_reports_every_figure() -> None:
    data = figures("--db", "sqlite")
    check(data)
    assert data["db"] == "sqlite"


def test_a_tiny_run_on_postgresql_reports_every_figure() -> None:
    psycopg = pytest.importorskip("psycopg", reason="psycopg is not installed")
    try:
        with psycopg.connect(PG_URL, connect_timeout=3) as conn:
            conn.execute("select 1")
    except psycopg.Error as exc:
        pytest.skip(f"PostgreSQL at {PG_URL} is unreachable ({type(exc).__name__})")
    query = "select nspname from pg_namespace where nspname like 'nr_load_%'"
    with psycopg.connect(PG_URL) as conn:
        before = {row[0] for row in conn.execute(query)}
    data = figures("--db", PG_URL)
    check(data)
    assert data["db"] == "postgresql"
    with psycopg.connect(PG_URL) as conn:
        left = {row[0] for row in conn.execute(query)} - before
    assert not left, f"the run's schema was not dropped: {left}"


def test_bad_options_are_refused_before_anything_starts() -> None:
    result = run_load("--processes", "2", "--db", "sqlite")
    assert result.returncode == 2
    assert "PostgreSQL" in result.stderr
    result = run_load("--tables", "0")
    assert result.returncode == 2
    assert "--tables" in result.stderr
