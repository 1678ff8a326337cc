"""Tokens and authentication: seat tokens, the creator token, and who holds which seat.

A token is a secret string (``secrets.token_urlsafe``, 192 bits) shown once, to whoever
created the table; the server stores only its SHA-256 and compares digests in constant
time, so neither a database dump nor a timing measure gives a seat away. Nothing here
logs a token or a digest.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
from collections.abc import Sequence

from noreturn.server.errors import ForbiddenError
from noreturn.text.lang import N_, _

TOKEN_BYTES = 24
"""The randomness of a seat or creator token (192 bits)."""
WITHDRAWN = N_("this seat's token no longer holds it (you left the game)")
"""Why a token that held a seat holds it no more: its person left the game (in English:
``_(WITHDRAWN)`` says it in the reader's language)."""


def new_token() -> str:
    """A fresh seat or creator token (URL-safe text)."""
    return secrets.token_urlsafe(TOKEN_BYTES)


def hash_token(token: str) -> str:
    """The stored form of a seat token: its SHA-256, in hex.

    ``surrogatepass``: JSON may carry a lone surrogate (``"\\ud800"``), which strict
    UTF-8 cannot encode; such a token is merely wrong, not a server error.
    """
    return hashlib.sha256(token.encode("utf-8", "surrogatepass")).hexdigest()


def same_digest(stored: str | None, digest: str | None) -> bool:
    """Whether two digests are both there and equal, compared in constant time."""
    return stored is not None and digest is not None and hmac.compare_digest(stored, digest)


def seat_of(digests: Sequence[str | None], token: str | None) -> tuple[int, str]:
    """The seat whose token this is, from the seats' stored digests (in seat order), and
    the token's digest.

    Raises:
        ForbiddenError: no token, or none of this table's seats has it.
    """
    if not token:
        raise ForbiddenError(_("a seat token is needed: use the link you were given "
                               "(/play/TABLE#token=...)"))
    digest = hash_token(token)
    found: int | None = None
    for seat, stored in enumerate(digests):  # every seat is compared, in constant time
        if same_digest(stored, digest):
            found = seat
    if found is None:
        raise ForbiddenError(_("this token does not hold a seat at this table: use the link "
                               "you were given"))
    return found, digest


def check_still_held(digests: Sequence[str | None], seat: int | None,
                     digest: str | None) -> None:
    """Refuse a connection's seat (opened with ``digest``) once its token was withdrawn.

    Raises:
        ForbiddenError: the seat's stored digest is gone or another (the person left).
    """
    if seat is None:
        return
    stored = digests[seat] if 0 <= seat < len(digests) else None
    if not same_digest(stored, digest):
        raise ForbiddenError(_(WITHDRAWN))


def check_creator(creator_hash: str | None, token: str | None) -> None:
    """Refuse a close by anyone but the table's creator.

    Raises:
        ForbiddenError: no token, or not this table's creator token.
    """
    if not token or not same_digest(creator_hash, hash_token(token)):
        raise ForbiddenError(_("closing a table needs its creator token (given once, when "
                               "the table was made)"))


__all__ = ["WITHDRAWN", "check_creator", "check_still_held", "hash_token", "new_token",
           "same_digest", "seat_of"]
