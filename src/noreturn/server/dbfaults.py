"""The database failing while the server runs: an answer that says so, a log line that
tells nothing secret.

A database that goes away, turns read-only or fills its disk makes a service call raise
the driver's error (through SQLAlchemy, or straight from psycopg where moves are written
through the driver). ``storage_faults()`` turns any such error into ``UnavailableError``:
HTTP answers it with a JSON ``503`` (and ``Retry-After``), the WebSocket with an error of
code ``unavailable``; nothing was changed, and the same request succeeds once the database
is back (a dead pooled connection is dropped by the call it failed).

The log gets one line per fault, never a traceback: the exception's class and, for a
connection-level error (``OperationalError``, ``InterfaceError``), the driver's first line
("attempt to write a readonly database", "terminating connection ..."). Other errors'
text may quote values (a row, a parameter), so only their SQLSTATE is written. Statement
parameters never reach an exception's text anyway (``db.make_engine``'s
``hide_parameters``). Repeats of one fault within ``QUIET_SECONDS`` are counted, not
written, so an outage does not flood the log.
"""

from __future__ import annotations

import logging
import sqlite3
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager

from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse
from sqlalchemy.exc import DBAPIError, DisconnectionError
from sqlalchemy.exc import TimeoutError as PoolTimeoutError

from noreturn.server.dbstart import first_line
from noreturn.server.errors import ServiceError
from noreturn.text.lang import N_, _

log = logging.getLogger("noreturn.server")

RETRY_AFTER_SECONDS = 5
"""What a ``503`` answer suggests waiting before trying again (``Retry-After``)."""
QUIET_SECONDS = 10.0
"""The same fault is logged at most once in this many seconds (the others are counted)."""
CONNECTION_LEVEL = ("OperationalError", "InterfaceError")
"""DB-API error classes whose text is about the connection or the file, not the data."""
UNAVAILABLE = N_("the server cannot use its database just now; nothing was changed: try "
                 "again in a few seconds")
"""In English: ``_(UNAVAILABLE)`` says it in the reader's language."""


class UnavailableError(ServiceError):
    """The database failed; nothing changed; the same request may succeed later."""

    status = 503
    code = "unavailable"


def is_storage_fault(exc: BaseException) -> bool:
    """Whether ``exc`` is the database's failure (SQLAlchemy's or the driver's own error,
    or the connection pool's timeout), not a refusal of the request."""
    if isinstance(exc, DBAPIError | DisconnectionError | PoolTimeoutError | sqlite3.Error):
        return True
    psycopg = sys.modules.get("psycopg")  # only ever raised once psycopg is loaded
    return psycopg is not None and isinstance(exc, psycopg.Error)


def describe(exc: BaseException) -> str:
    """A storage fault in a few words that hold nothing of a table: the driver's class,
    its first line if the error is about the connection, else its SQLSTATE."""
    cause = exc.orig if isinstance(exc, DBAPIError) and exc.orig is not None else exc
    name = type(cause).__name__
    kinds = {kind.__name__ for kind in type(cause).__mro__}
    if isinstance(cause, PoolTimeoutError | DisconnectionError) or kinds & set(
            CONNECTION_LEVEL):
        return f"{name}: {first_line(cause)}"
    state = getattr(cause, "sqlstate", None) or getattr(cause, "sqlite_errorname", None)
    return f"{name} ({state})" if state else name


class FaultLog:
    """Writes each storage fault as one warning, a repeat at most every ``quiet`` s."""

    def __init__(self, quiet: float = QUIET_SECONDS) -> None:
        self.quiet = quiet
        self._last: dict[str, float] = {}
        self._held: dict[str, int] = {}

    def note(self, exc: BaseException) -> None:
        """Log ``exc`` (see ``describe``) unless the same fault was logged just now."""
        said, moment = describe(exc), time.monotonic()
        if moment - self._last.get(said, -self.quiet) < self.quiet:
            self._held[said] = self._held.get(said, 0) + 1
            return
        self._last[said] = moment
        held = self._held.pop(said, 0)
        log.warning("the database failed (%s): answered %r%s", said, UnavailableError.code,
                    f"; {held} more like it since the last report" if held else "")

    def clear(self) -> None:
        """Forget what was logged (tests start afresh)."""
        self._last.clear()
        self._held.clear()


FAULTS = FaultLog()


@contextmanager
def storage_faults() -> Iterator[None]:
    """Turn a storage fault in the block into ``UnavailableError`` (logged in one line).

    The fault is not chained to the new error (``from None``): a traceback of it printed
    anywhere shows nothing of the driver's text.
    """
    try:
        yield
    except Exception as exc:
        if not is_storage_fault(exc):
            raise
        FAULTS.note(exc)
        raise UnavailableError(_(UNAVAILABLE)) from None




def unavailable_answer() -> JSONResponse:
    """The HTTP answer to a request the database failed: 503, JSON, ``Retry-After``."""
    return JSONResponse({"detail": _(UNAVAILABLE)}, status_code=UnavailableError.status,
                        headers={"Retry-After": str(RETRY_AFTER_SECONDS)})


def install_fault_handlers(app: FastAPI) -> None:
    """Answer storage faults with ``unavailable_answer``: ``UnavailableError`` (from
    ``app.run``), and, should a route reach the database another way, the faults
    themselves (logged in one line as ``storage_faults`` does)."""

    async def unavailable(_request: Request, _exc: Exception) -> JSONResponse:
        return unavailable_answer()

    async def fault(_request: Request, exc: Exception) -> JSONResponse:
        FAULTS.note(exc)
        return unavailable_answer()

    app.add_exception_handler(UnavailableError, unavailable)
    for kind in (DBAPIError, DisconnectionError, PoolTimeoutError, sqlite3.Error):
        app.add_exception_handler(kind, fault)


__all__ = ["FAULTS", "RETRY_AFTER_SECONDS", "UnavailableError", "describe",
           "install_fault_handlers", "is_storage_fault", "storage_faults"]
