"""The reviews of finished games as the server keeps them: one row per table, and its answers.

A review (docs/review.md) holds every seat's moves, exchanged tiles and draws: hidden
information while a game runs. So it is made only of a finished game's record, and given
only while the table's status is ``finished`` (checked on every answer, in the same query
that reads the review).

Several server processes may share one database (docs/deploy.md). A review is made by the
process that *claims* it: an insert of a ``pending`` row, which the table's primary key lets
only one process make. While it reviews, the process renews its claim every
``reviewer.HEARTBEAT_SECONDS``; a claim not renewed for ``CLAIM_SECONDS`` is taken to be a
process that died (or restarted) while reviewing, and may be taken over by a guarded
update. The review is then stored
in the same row (``done``); a stored review is never made again.

The reviewing itself (a child process, one at a time) is ``reviewer.py``; this module only
reads and writes rows, in the service's worker threads.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import Engine, Table, exists, insert, select, update
from sqlalchemy.exc import IntegrityError

from noreturn.server.db import ReviewRow, SeatRow, TableRow, now
from noreturn.server.errors import (
    ConflictError,
    NotFoundError,
    ServiceError,
    check_table_id,
    no_table,
)
from noreturn.server.games import utc
from noreturn.text.lang import N_, _

REVIEWS: Table = ReviewRow.__table__  # type: ignore[assignment]
TABLES: Table = TableRow.__table__  # type: ignore[assignment]
SEATS: Table = SeatRow.__table__  # type: ignore[assignment]
CLAIM_SECONDS = 120.0
"""A ``pending`` review whose claim was not renewed for this long is taken over by the next
process asked for it: its reviewer died or restarted (a live one renews its claim every
``reviewer.HEARTBEAT_SECONDS``). So after a restart a page waits at most this long."""
PENDING = N_("the game is being reviewed: ask again in a few seconds")
"""The detail of a 202 answer (in English: ``_(PENDING)`` in the reader's language)."""


class ReviewFailedError(ConflictError):
    """The game's review failed once; it is not tried again (the same record would fail the
    same way)."""

    status = 500
    code = "review_failed"


class ReviewsOffError(NotFoundError):
    """This server makes no reviews (started with ``--review-playouts 0``) and none is
    stored."""

    def __init__(self, table_id: str) -> None:
        super().__init__(_("this server reviews no games (started with --review-playouts "
                           "0): download {record} and run `noreturn review` on it").format(
            record=f"/api/tables/{table_id}/record"))


class ReviewerBusyError(ServiceError):
    """The reviewer's queue is full: the review is not queued now."""

    status = 503
    code = "busy"
    retry_after = 60
    """Seconds to wait before asking again (the answer's ``Retry-After``)."""

    def __init__(self) -> None:
        super().__init__(_("the server is busy reviewing other games: ask again in a "
                           "minute"))


@dataclass(frozen=True, slots=True)
class Found:
    """A table's status and its review row as read in one query (``state`` None: no row)."""

    status: str
    state: str | None
    claimed_at: datetime | None
    review: dict[str, Any] | None
    error: str | None
    people: bool = True
    """Whether a person sat at the table (a game of bots alone waits behind theirs)."""

    def stale(self, seconds: float = CLAIM_SECONDS) -> bool:
        """A pending claim older than ``seconds``: its process died (or no row at all)."""
        if self.state is None:
            return True
        return (self.state == "pending" and self.claimed_at is not None
                and utc(self.claimed_at) < now() - timedelta(seconds=seconds))


class ReviewStore:
    """The ``table_reviews`` rows of one database (see the module docstring)."""

    def __init__(self, engine: Engine, claim_seconds: float = CLAIM_SECONDS) -> None:
        self.engine = engine
        self.claim_seconds = claim_seconds

    def find(self, table_id: str) -> Found:
        """The table's status and its review, one query.

        Raises:
            NotFoundError: no such table.
        """
        check_table_id(table_id)
        people = (exists().where(SEATS.c.table_id == TABLES.c.id, SEATS.c.kind == "human")
                  .label("people"))
        query = (select(TABLES.c.status, REVIEWS.c.state, REVIEWS.c.claimed_at,
                        REVIEWS.c.review, REVIEWS.c.error, people)
                 .select_from(TABLES.outerjoin(REVIEWS, REVIEWS.c.table_id == TABLES.c.id))
                 .where(TABLES.c.id == table_id))
        with self.engine.connect() as conn:
            row = conn.execute(query).first()
        if row is None:
            no_table(table_id)
        return Found(str(row.status), row.state, row.claimed_at,
                     None if row.review is None else dict(row.review), row.error,
                     bool(row.people))

    def claim(self, table_id: str) -> dict[str, Any] | None:
        """The finished game's record if this process may review it now (its claim is
        stored), else None: not finished, reviewed already, or claimed by another process
        within ``claim_seconds``."""
        try:
            found = self.find(table_id)
        except NotFoundError:  # deleted meanwhile
            return None
        if found.status != "finished" or not found.stale(self.claim_seconds):
            return None
        moment = now()
        try:
            with self.engine.begin() as conn:
                if found.state is None:
                    conn.execute(insert(REVIEWS).values(
                        table_id=table_id, state="pending", claimed_at=moment))
                else:  # a stale claim: taken over only if nobody took it since it was read
                    taken = conn.execute(update(REVIEWS).where(
                        REVIEWS.c.table_id == table_id, REVIEWS.c.state == "pending",
                        REVIEWS.c.claimed_at == found.claimed_at).values(claimed_at=moment))
                    if taken.rowcount != 1:
                        return None
                record = conn.execute(select(TABLES.c.record).where(
                    TABLES.c.id == table_id)).scalar_one_or_none()
        except IntegrityError:  # another process inserted its claim first
            return None
        return None if record is None else dict(record)

    def renew(self, table_id: str) -> None:
        """Renew this process's claim: it is still reviewing ``table_id``."""
        with self.engine.begin() as conn:
            conn.execute(update(REVIEWS).where(
                REVIEWS.c.table_id == table_id, REVIEWS.c.state == "pending").values(
                claimed_at=now()))

    def finish(self, table_id: str, review: dict[str, Any]) -> None:
        """Store the review (the JSON of ``noreturn review --json``): ``done``."""
        with self.engine.begin() as conn:
            conn.execute(update(REVIEWS).where(REVIEWS.c.table_id == table_id).values(
                state="done", review=review, error=None))

    def fail(self, table_id: str, error: str) -> None:
        """Store why the review failed: ``failed``, not tried again."""
        with self.engine.begin() as conn:
            conn.execute(update(REVIEWS).where(
                REVIEWS.c.table_id == table_id, REVIEWS.c.state == "pending").values(
                state="failed", error=error[:2000]))

    def release(self, table_id: str) -> None:
        """Drop this process's pending claim (it stopped before the review was done), so
        the next request for the review queues it again at once."""
        with self.engine.begin() as conn:
            conn.execute(REVIEWS.delete().where(REVIEWS.c.table_id == table_id,
                                                REVIEWS.c.state == "pending"))


def review_answer(found: Found) -> dict[str, Any] | None:
    """The stored review to answer with, or None when there is none yet.

    Raises:
        ConflictError: the game is not over (the review shows every hand: only after it).
        ReviewFailedError: the review failed; the error says why.
    """
    if found.status != "finished":
        if found.status in ("lobby", "playing"):
            raise ConflictError(_("the review is available once the game is over: it "
                                  "shows every hand"), "not_over")
        if found.status == "closed":
            raise ConflictError(_("the table is closed: its game was not played to the end, "
                                  "so there is no review"), "not_over")
        raise ConflictError(_("the table is abandoned: its game was not played to the end, "
                              "so there is no review"), "not_over")
    if found.state == "done" and found.review is not None:
        return found.review
    if found.state == "failed":
        raise ReviewFailedError(_("the review of this game failed ({error}): download the "
                                  "record and run `noreturn review` on it").format(
            error=found.error))
    return None


__all__ = ["CLAIM_SECONDS", "PENDING", "Found", "ReviewFailedError", "ReviewStore",
           "ReviewerBusyError", "ReviewsOffError", "review_answer"]
