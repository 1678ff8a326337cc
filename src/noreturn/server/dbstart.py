"""The database checked at startup: a problem is one sentence that names the fix.

``open_database(url)`` connects, migrates and tries a write, so that a server that cannot
store a move says so before it serves anyone (a read-only file used to be found at the
first move). Each problem becomes a ``DatabaseSetupError``: one line such as "cannot write
the database /x/y.db: the folder /x is read-only; choose another path with --db
sqlite:///PATH", which ``noreturn serve`` prints instead of a traceback.

The line is written from the URL and the driver's own first line of text: the checks use
no table data, so there is nothing secret to leak.
"""

from __future__ import annotations

import sqlite3
import tempfile
from pathlib import Path

from alembic.util import CommandError
from sqlalchemy import Engine, text
from sqlalchemy.engine import URL, make_url
from sqlalchemy.exc import ArgumentError, DBAPIError, SQLAlchemyError

from noreturn.server.db import make_engine, migrate, normalize_url, sqlite_path

SQLITE_FIX = "choose another path with --db sqlite:///PATH"
POSTGRES_FIX = "--db postgresql://USER@HOST:PORT/DB"
PROBE = text("UPDATE alembic_version SET version_num = version_num")
"""A write that changes nothing (rolled back): it needs the right to write all the same."""
READ_ONLY_STATE = "25006"  # PostgreSQL: read_only_sql_transaction
MISSING_DATABASE = "3D000"  # PostgreSQL: invalid_catalog_name
LOGIN_STATES = ("28000", "28P01")  # invalid authorization, invalid password
NO_RIGHTS = "42501"  # insufficient_privilege


class DatabaseSetupError(ValueError):
    """The database cannot be used; the message is one line that says why and what to do."""


def shown_url(url: str) -> str:
    """The database URL as ``noreturn serve`` prints it: without its password (a secret is
    never shown or logged); of a URL SQLAlchemy cannot read, only its scheme, since where
    its password lies is unknown."""
    try:
        return make_url(url).render_as_string(hide_password=True)
    except (ArgumentError, ValueError):
        scheme, is_url, _ = url.partition("://")
        return f"{scheme}://..." if is_url else "(not a URL)"


def open_database(url: str) -> Engine:
    """An engine on ``url`` whose schema is the newest and that takes writes.

    Raises:
        DatabaseSetupError: the URL, the file, the folder, the server or the rights are wrong
            (the message names the fix); a malformed URL or an unknown scheme raise it too.
    """
    try:
        parsed = make_url(normalize_url(url))
    except ValueError as exc:
        raise DatabaseSetupError(str(exc)) from exc
    path = _sqlite_file(parsed)
    try:
        engine = make_engine(url)
    except ValueError as exc:  # psycopg is not installed
        raise DatabaseSetupError(str(exc)) from exc
    try:
        migrate(engine)
        with engine.connect() as connection:
            connection.execute(PROBE)
            connection.rollback()
    except (SQLAlchemyError, CommandError, OSError, sqlite3.Error) as exc:
        engine.dispose()
        raise DatabaseSetupError(explain(parsed, path, exc)) from exc
    return engine


def _sqlite_file(parsed: URL) -> Path | None:
    """The SQLite file of ``parsed``, its folder made (None: not a file of SQLite).

    Raises:
        DatabaseSetupError: an empty path, or a folder that cannot be made.
    """
    if parsed.get_backend_name() != "sqlite":
        return None
    if parsed.database == "":
        raise DatabaseSetupError("the URL sqlite:/// names no file: give its path, --db "
                              "sqlite:///PATH (sqlite:////srv/noreturn.db for an absolute "
                              "one), or leave --db out for the default")
    path = sqlite_path(parsed)
    if path is not None:
        _make_folder(path)
    return path


def _make_folder(path: Path) -> None:
    """Make the folder of the database file ``path``.

    Raises:
        DatabaseSetupError: a file stands where a folder should, or the folder cannot be made.
    """
    folder = path.parent
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        blocker = next((p for p in (folder, *folder.parents) if p.is_file()), None)
        if blocker is not None:
            raise DatabaseSetupError(f"cannot make the folder of the database {path}: {blocker} "
                                  f"is a file, not a folder; {SQLITE_FIX}") from exc
        raise DatabaseSetupError(f"cannot make the folder {folder} for the database "
                              f"({exc.strerror or exc}); {SQLITE_FIX}") from exc


def explain(parsed: URL, path: Path | None, exc: BaseException) -> str:
    """One line on why the database of ``parsed`` failed with ``exc``, and the fix."""
    cause = exc.orig if isinstance(exc, DBAPIError) and exc.orig is not None else exc
    said = first_line(cause)
    if isinstance(exc, CommandError):
        return (f"the database {_label(parsed, path)} has a schema this noreturn does not "
                f"know (Alembic: {said}): upgrade noreturn, or choose another database "
                "with --db")
    if parsed.get_backend_name() == "sqlite":
        return _sqlite_problem(path, said) if path else f"SQLite failed: {said}"
    return _postgres_problem(parsed, getattr(cause, "sqlstate", None) or "", said)


def first_line(exc: BaseException) -> str:
    """The first line of an exception's text (its class name if it has none), shortened."""
    lines = str(exc).strip().splitlines()
    said = lines[0].strip() if lines else type(exc).__name__
    return said if len(said) <= 200 else said[:199] + "…"


def _label(parsed: URL, path: Path | None) -> str:
    """The database as a person names it: the file, or DB at HOST:PORT."""
    return str(path) if path else f"{parsed.database} at {_where(parsed)}"


def _where(parsed: URL) -> str:
    return f"{parsed.host or 'localhost'}:{parsed.port or 5432}"


def _sqlite_problem(path: Path, said: str) -> str:
    """SQLite's complaint about the file ``path``, as a problem and its fix."""
    folder = path.parent
    if "readonly database" in said:
        return f"the database {path} is read-only: make it writable, or {SQLITE_FIX}"
    if "not a database" in said:
        return f"{path} is not a SQLite database ({said}): {SQLITE_FIX}"
    if "locked" in said:
        return (f"the database {path} is locked by another program ({said}): stop it, "
                f"or {SQLITE_FIX}")
    if path.is_dir():
        return f"{path} is a folder, not a database file: {SQLITE_FIX}"
    if not _can_write_in(folder):
        return (f"cannot write the database {path}: the folder {folder} is read-only; "
                f"{SQLITE_FIX}")
    return f"cannot use the database {path} (SQLite: {said}): {SQLITE_FIX}"


def _can_write_in(folder: Path) -> bool:
    """Whether a file can be made in ``folder`` (tried: permission bits do not bind root,
    and a read-only mount or an immutable folder binds everyone)."""
    try:
        with tempfile.TemporaryFile(dir=folder):
            return True
    except OSError:
        return False


def _postgres_problem(parsed: URL, state: str, said: str) -> str:
    """PostgreSQL's (or its driver's) complaint, as a problem and its fix."""
    where, name, user = _where(parsed), parsed.database, parsed.username or "(your login)"
    said = said.split("FATAL:", 1)[-1].strip()  # the server's words, if it answered
    if state in LOGIN_STATES or "authentication failed" in said or (
            said.startswith("role ") and "does not exist" in said):
        return (f"PostgreSQL at {where} refused the login of {user} ({said}): fix the user "
                "or password in --db postgresql://USER:PASSWORD@HOST:PORT/DB")
    if state == MISSING_DATABASE or (said.startswith("database ") and "does not exist" in said):
        return (f'PostgreSQL at {where} has no database "{name}": create it (createdb -h '
                f"{parsed.host or 'localhost'} -p {parsed.port or 5432} -U {user} {name}), "
                f"or name another with {POSTGRES_FIX}")
    if state == READ_ONLY_STATE:
        return (f"the database {name} at {where} is read-only (a standby, or "
                f"default_transaction_read_only): point {POSTGRES_FIX} at a writable one")
    if state == NO_RIGHTS:
        return (f"{user} may not change the database {name} at {where} ({said}): grant the "
                f"rights, or use another user in {POSTGRES_FIX}")
    if state:
        return f"cannot use the database {name} at {where} ({said}): check {POSTGRES_FIX}"
    return (f"cannot reach PostgreSQL at {where} ({_reach_problem(said)}): start it, or fix "
            f"the host and port in {POSTGRES_FIX}")


def _reach_problem(said: str) -> str:
    """Why the driver could not connect, in a few words."""
    lowered = said.lower()
    for words, meaning in (("refused", "connection refused"), ("timeout", "no answer in time"),
                           ("resolve", "unknown host"), ("unknown host", "unknown host")):
        if words in lowered:
            return meaning
    return said


__all__ = ["DatabaseSetupError", "explain", "first_line", "open_database"]
