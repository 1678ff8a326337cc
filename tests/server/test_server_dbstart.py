"""``noreturn serve`` with a database it cannot use: one line that names the fix, a non-zero
exit, no traceback, and nothing served (docs/deploy.md, "When the database fails")."""

from __future__ import annotations

import subprocess
from pathlib import Path
from urllib.parse import quote

import pytest
from rofile import read_only
from srvkit import free_port, spawn_serve

from conftest import PG_URL, pg_problem
from noreturn.server.db import make_engine, migrate
from noreturn.server.dbstart import shown_url


def serve_fails(db_url: str) -> str:
    """Run ``noreturn serve --db db_url``: it must stop by itself, non-zero, having printed
    one line on stderr and nothing on stdout, and no traceback. That line."""
    process = spawn_serve(free_port(), db_url, output=subprocess.PIPE,
                          errors=subprocess.PIPE)
    try:
        out, err = process.communicate(timeout=60)
    finally:
        if process.poll() is None:  # pragma: no cover - it served: the test fails below
            process.kill()
            process.communicate()
    assert process.returncode not in (0, None), (out, err)
    assert "Traceback" not in out + err, err
    assert out == "", out
    lines = err.splitlines()
    assert len(lines) == 1, err
    assert lines[0].startswith("noreturn serve: "), lines[0]
    return lines[0]


def test_a_path_under_a_regular_file(tmp_path: Path) -> None:
    (tmp_path / "plain").write_text("not a folder")
    line = serve_fails(f"sqlite:///{tmp_path / 'plain' / 'noreturn.db'}")
    assert f"{tmp_path / 'plain'} is a file, not a folder" in line
    assert "--db sqlite:///PATH" in line


@pytest.mark.parametrize(("inside", "expected"), [
    ("noreturn.db", "cannot write the database {path}: the folder {folder} is read-only"),
    ("sub/noreturn.db", "cannot make the folder {folder}/sub for the database"),
])
def test_an_unwritable_folder(tmp_path: Path, inside: str, expected: str) -> None:
    """The file (or its own folder) would be made in a folder that takes no new files."""
    folder = tmp_path / "locked"
    folder.mkdir()
    with read_only(folder):
        line = serve_fails(f"sqlite:///{folder / inside}")
    assert expected.format(path=folder / inside, folder=folder) in line
    assert "--db sqlite:///PATH" in line


def test_a_read_only_database_file_is_caught_at_startup(tmp_path: Path) -> None:
    path = tmp_path / "noreturn.db"
    engine = make_engine(f"sqlite:///{path}")
    migrate(engine)  # a good database: only its being read-only is wrong
    engine.dispose()
    with read_only(path):
        line = serve_fails(f"sqlite:///{path}")
    assert f"the database {path} is read-only" in line
    assert "--db sqlite:///PATH" in line


def test_a_file_that_is_not_a_database(tmp_path: Path) -> None:
    path = tmp_path / "notes.txt"
    path.write_text("shopping list\n" * 200)
    line = serve_fails(f"sqlite:///{path}")
    assert f"{path} is not a SQLite database" in line


def test_a_folder_as_the_database(tmp_path: Path) -> None:
    line = serve_fails(f"sqlite:///{tmp_path}")
    assert f"{tmp_path} is a folder" in line


def test_an_empty_sqlite_path() -> None:
    line = serve_fails("sqlite:///")
    assert "names no file" in line and "--db sqlite:///PATH" in line


@pytest.mark.parametrize("url", ["not a url", "sqlite:/x.db",
                                 "postgresql://u@h:notaport/db"])
def test_a_malformed_url(url: str) -> None:
    line = serve_fails(url)
    assert "sqlite:///PATH" in line and "postgresql://" in line


def test_an_unknown_scheme() -> None:
    line = serve_fails("mysql://u@h/db")
    assert "only sqlite:///PATH and postgresql://" in line


def test_an_unreachable_postgresql() -> None:
    pytest.importorskip("psycopg", reason="psycopg is not installed")
    port = free_port()  # nothing listens there
    line = serve_fails(f"postgresql://postgres@127.0.0.1:{port}/noreturn")
    assert f"cannot reach PostgreSQL at 127.0.0.1:{port}" in line
    assert "--db postgresql://" in line


def test_a_missing_postgresql_database() -> None:
    if pg_problem():
        pytest.skip(f"PostgreSQL tests skipped: {pg_problem()}")
    url = PG_URL.rsplit("/", 1)[0] + "/nr_no_such_database"
    line = serve_fails(url)
    assert 'has no database "nr_no_such_database"' in line
    assert "createdb" in line


@pytest.mark.parametrize("db_url", ["postgresql"], indirect=True)
@pytest.mark.parametrize("migrated", [False, True])
def test_a_read_only_postgresql_is_caught_at_startup(db_url: str, migrated: bool) -> None:
    """Connections whose transactions are read-only (as on a standby): the migration (a
    new schema) or the write probe (a migrated one) fails, and the line says so."""
    if migrated:
        engine = make_engine(db_url)
        migrate(engine)
        engine.dispose()
    assert "options=-csearch_path" in db_url  # the last query item: add to it
    line = serve_fails(db_url + quote(" -cdefault_transaction_read_only=on", safe=""))
    assert "is read-only" in line and "--db postgresql://" in line


@pytest.mark.parametrize(("url", "shown"), [
    ("postgresql://bob:s3cret@db.example:5432/noreturn",
     "postgresql://bob:***@db.example:5432/noreturn"),
    ("sqlite:////srv/noreturn.db", "sqlite:////srv/noreturn.db"),
    ("postgresql://bob:s3cret@db.example:port/noreturn", "postgresql://..."),
    ("not a url with s3cret", "(not a URL)"),
])
def test_the_database_url_is_shown_without_its_password(url: str, shown: str) -> None:
    """What ``noreturn serve`` prints of ``--db``: never the password, even of a URL that
    cannot be read."""
    assert shown_url(url) == shown
