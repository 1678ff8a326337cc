"""What a request can be refused with, and the table stages that refuse play.

Every refusal of the service is a ``ServiceError``: nothing changed, and the error carries
both the HTTP status (for the API) and the WebSocket error code (docs/server-protocol.md),
so the two front doors say the same thing in their own terms.
"""

from __future__ import annotations

import re
from typing import NoReturn

from noreturn.text.lang import _

OVER = frozenset({"finished", "closed", "abandoned"})
"""The statuses of a table whose game will not go on."""
TABLE_ID = re.compile(r"[A-Za-z0-9_-]{1,64}")
"""What a table id can look like (``secrets.token_urlsafe``); anything else names no table
and never reaches the database (PostgreSQL refuses a NUL character in a query: an error)."""


class ServiceError(Exception):
    """A request the service refuses; nothing changed. ``status`` is the HTTP status,
    ``code`` the WebSocket error code (docs/server-protocol.md); ``rule``, for an
    ``illegal`` action, the engine's code of the rule it breaks (``RULE_CODES``), so that a
    client can react to the rule without reading the sentence."""

    status = 400
    code = "malformed"
    rule: str | None = None

    def __init__(self, message: str, code: str | None = None, rule: str | None = None
                 ) -> None:
        super().__init__(message)
        self.message = message
        self.rule = rule
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


def over_message(status: str) -> str:
    """Why a table takes no more play (``status``: one of ``OVER``), for an error message,
    in the reader's language."""
    if status == "finished":
        return _("the game is over: see its replay or download the record")
    if status == "closed":
        return _("the table is closed: nothing more is played at it")
    return _("the table is abandoned: nothing more is played at it")


def stale() -> ConflictError:
    """The refusal of a write that lost to another writer of the table."""
    return ConflictError(_("the game moved on meanwhile: look at the new state and try "
                           "again"), "stale")


def no_table(table_id: str) -> NoReturn:
    """Refuse a table id that names no table (shown cut to 40 characters).

    Raises:
        NotFoundError: always.
    """
    shown = table_id if len(table_id) <= 40 else f"{table_id[:40]}..."
    raise NotFoundError(_("no table {table}: check the link, or create a table").format(
        table=repr(shown)))


def check_table_id(table_id: str) -> None:
    """Refuse, before any database work, an id that cannot name a table.

    Raises:
        NotFoundError: ``table_id`` is not of the form of a table id.
    """
    if not TABLE_ID.fullmatch(table_id):
        no_table(table_id)


__all__ = [
    "OVER", "TABLE_ID", "BadRequestError", "ConflictError", "ForbiddenError", "NotFoundError",
    "ServiceError", "check_table_id", "no_table", "over_message", "stale",
]
