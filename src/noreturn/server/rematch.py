"""Rematches: after a game, a new table with the same seats, reached by the same links.

Any seated person of a finished table may ask (``POST /api/tables/{id}/rematch``). The
rematch has the same rules, names, bots and people, a new deal, and the old table points
to it (``rematch_id``, in the public ``Table`` as ``rematch``), so every page of the old
table, a spectator's too, can offer the way there.

Each person's seat link keeps working: the rematch's seats carry the old seats' token
digests (the same 192-bit secret, still known only to its holder: the server keeps no
token), so ``/play/NEW#token=SAME`` holds the same seat. The creator token carries over
too (it closes the rematch), and so do the player keys (the same person's history). A
person who left the old game (a bot took the seat over, the token was withdrawn) has no
link any more: that seat is the bot that finished the game for them.

Asking twice gives the same rematch: the old table's pointer is set by one guarded update
(``WHERE rematch_id IS NULL``) in the transaction that makes the new table, so when two
people (or two processes) ask at once, the second's new table is rolled back and the
first's is the answer. The asker's seat counts as joined; when the others are all bots
the rematch starts at once, as a table of bots only does.
"""

from __future__ import annotations

import secrets
from typing import Any

from sqlalchemy import update

from noreturn.server.db import now
from noreturn.server.errors import ConflictError
from noreturn.server.players import copy_keys
from noreturn.server.store import NEW_SEATS, NEW_TABLE, TABLES, TableStore
from noreturn.text.lang import _


class _TakenError(Exception):
    """Another request made this table's rematch first: roll ours back, give theirs."""


def not_finished(status: str) -> ConflictError:
    """The refusal of a rematch of a table whose game did not end."""
    if status in ("lobby", "playing"):
        return ConflictError(_("a rematch follows a finished game: finish this one first"))
    if status == "closed":
        return ConflictError(_("the table is closed: its game did not end, so there is no "
                               "rematch; create a new table in the lobby"))
    return ConflictError(_("the table is abandoned: its game did not end, so there is no "
                           "rematch; create a new table in the lobby"))


class Rematches:
    """The rematch of a finished table (module docstring)."""

    store: TableStore

    def rematch(self, table_id: str, token: str | None) -> dict[str, Any]:
        """The finished table's rematch (made now if it has none yet), as its public
        ``Table``; only a seated person's token may ask.

        Raises:
            NotFoundError; ForbiddenError: the token holds no seat here (or no longer);
            ConflictError: the game did not end.
        """
        try:
            with self.store.transaction(table_id) as session:
                row, seats, mine = self.store.holder(session, table_id, token)
                if row.rematch_id:
                    raise _TakenError(row.rematch_id)
                if row.status != "finished":
                    raise not_finished(row.status)
                new_id = secrets.token_urlsafe(9)
                people = {s.seat for s in seats
                          if s.kind == "human" and not s.replaced_by and s.token_hash}
                alone = people == {mine.seat}
                moment = now()
                table = {
                    "id": new_id, "created_at": moment, "updated_at": moment,
                    "status": "playing" if alone else "lobby", "rules": dict(row.rules),
                    "seed": secrets.token_hex(16), "version": 0, "result": None,
                    "record": None, "creator_hash": row.creator_hash, "bot_due": alone,
                    "rematch_id": None, "turn_seconds": row.turn_seconds,
                    "timeout_level": row.timeout_level}  # the same timer (from the start,
                # or from the first move when the person plays bots alone: nobody waits)
                new_seats = [{
                    "table_id": new_id, "seat": s.seat, "name": s.name,
                    "kind": "human" if s.seat in people else "bot",
                    "level": None if s.seat in people else (s.replaced_by or s.level),
                    "token_hash": s.token_hash if s.seat in people else None,
                    "joined": s.seat not in people or s.seat == mine.seat,
                    "replaced_by": None} for s in seats]
                write = session.connection().execute
                write(NEW_TABLE, [table])
                write(NEW_SEATS, new_seats)
                copy_keys(session, table_id, new_id, people)
                pointed = write(update(TABLES).where(
                    TABLES.c.id == table_id, TABLES.c.rematch_id.is_(None)).values(
                    rematch_id=new_id, updated_at=moment))
                if pointed.rowcount == 0:  # pragma: no cover - another process, just now
                    raise _TakenError("")
                self.store.forget(table_id)
        except _TakenError as taken:
            existing = str(taken) or self.store.public(table_id)["rematch"]
            return self.store.public(existing)
        return self.store.public(new_id)


__all__ = ["Rematches", "not_finished"]
