"""A table's chat: short plain-text messages between its seated players.

Kept with the table in the database (``db.ChatRow``), so every process serving the table,
and a page that reconnects, sees the same chat. Who may write: a seat whose token still
holds it, while the table is open or its game finished (a word after the game); never once
the table is closed or abandoned. Spectators read it (the chat is as public as the table's
log: its players know they are watched) but cannot write in it.

The text is only ever text: stored as sent (trimmed, runs of whitespace made one space),
and shown by the pages as text (``textContent``), never as HTML. What is refused is refused
before the database is touched: over ``CHAT_LENGTH`` characters, control characters,
direction overrides (which would make a message read as another's). A connection's pace
is bounded per seat by ``ChatPaces`` (channel.py) in each process and by the messages
stored in the last ``CHAT_RATE`` seconds across processes, a table's size by
``CHAT_PER_TABLE``. A message is stored under its table's row lock: processes posting at
once could pass both bounds together, and, since an id is given at insert but seen at
commit, a reader that asks for the ids above the last it sent (``chat_since``) skipped a
lower one committed later. Under the lock a table's ids are given in the order they
commit.
"""

from __future__ import annotations

import time
import unicodedata
from collections import OrderedDict, deque
from collections.abc import Callable, Iterable
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import Table, func, insert, select

from noreturn.server.auth import check_still_held
from noreturn.server.db import ChatRow, TableRow, now
from noreturn.server.errors import (
    OVER,
    BadRequestError,
    ConflictError,
    check_table_id,
    over_message,
)
from noreturn.server.games import utc
from noreturn.server.store import TableStore
from noreturn.text.lang import _

CHAT: Table = ChatRow.__table__  # type: ignore[assignment]
TABLES: Table = TableRow.__table__  # type: ignore[assignment]
CHAT_LENGTH = 300
"""The most characters one chat message may have."""
CHAT_HISTORY = 100
"""The newest messages a new connection is sent (and at most this many per update)."""
CHAT_PER_TABLE = 2000
"""The most messages a table's chat keeps taking: a bound on what one table stores."""
CHAT_RATE = (5, 10.0)
"""A seat may send 5 chat messages in any 10 seconds: plenty to talk, too few to flood the
others' screens."""
JOINER = "\u200d"
"""The zero-width joiner: the one format character a message keeps (it joins emoji)."""


def _hidden_control(c: str) -> bool:
    """A control, surrogate or format character (direction overrides and marks, zero-width
    spaces): such a character changes how the others' screens show the text."""
    category = unicodedata.category(c)
    return category in ("Cc", "Cs") or (category == "Cf" and c != JOINER)


def _too_long(length: int) -> str:
    return _("a chat message has at most {most} characters (yours has {n}): shorten "
             "it").format(most=CHAT_LENGTH, n=length)


def clean_chat(text: str) -> str:
    """The message as stored: trimmed, whitespace runs made one space.

    Raises:
        BadRequestError: empty, over ``CHAT_LENGTH`` characters (code ``too_long``), or
            holding control characters or direction overrides.
    """
    if len(text) > 4 * CHAT_LENGTH:  # refused before any other work
        raise BadRequestError(_too_long(len(text)), "too_long")
    clean = " ".join(text.split())
    if not clean:
        raise BadRequestError(_("an empty chat message: write something first"))
    if len(clean) > CHAT_LENGTH:
        raise BadRequestError(_too_long(len(clean)), "too_long")
    if any(_hidden_control(c) for c in clean):
        raise BadRequestError(_("a chat message is plain text: no control characters, "
                                "please"))
    return clean


class ChatLimiter:
    """One seat's chat pace in this process (``CHAT_RATE``: at most so many messages in any
    window of so many seconds), before the database is touched. The stored messages are
    counted by the same window (``_check_pace``), so that across processes the pace holds
    and both refusals say the same wait."""

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self.clock = clock
        self.sent: deque[float] = deque()

    def admit(self) -> None:
        """Count one message.

        Raises:
            ConflictError: ``rate_limited``, with how long to wait (nothing was sent).
        """
        moment = self.clock()
        while self.sent and self.sent[0] <= moment - CHAT_RATE[1]:
            self.sent.popleft()
        if len(self.sent) >= CHAT_RATE[0]:
            raise too_fast(max(self.sent[0] + CHAT_RATE[1] - moment, 1.0))
        self.sent.append(moment)


class ChatPaces:
    """Each seat's chat pace, across all its connections in this process: a seat holding
    many sockets talks no faster than one (the most recently used seats are kept)."""

    def __init__(self, most: int = 4096, clock: Callable[[], float] = time.monotonic) -> None:
        self.most, self.clock = most, clock
        self._paces: OrderedDict[tuple[str, str | None, int | None], ChatLimiter] = (
            OrderedDict())

    def admit(self, table_id: str, token_hash: str | None, seat: int | None) -> None:
        """Count one message of that seat (``ChatLimiter.admit``)."""
        key = (table_id, token_hash, seat)
        pace = self._paces.pop(key, None) or ChatLimiter(self.clock)
        self._paces[key] = pace
        while len(self._paces) > self.most:
            self._paces.popitem(last=False)
        pace.admit()


def _check_pace(recent: Iterable[datetime], moment: datetime) -> None:
    """Refuse a seat's message when ``CHAT_RATE`` of its messages are stored within its
    seconds before ``moment`` (``recent``: their times), whichever process took them."""
    times = sorted(utc(at) for at in recent)
    if len(times) >= CHAT_RATE[0]:
        wait = (times[-CHAT_RATE[0]] + timedelta(seconds=CHAT_RATE[1]) - moment).total_seconds()
        raise too_fast(max(wait, 1.0))


def too_fast(wait: float) -> ConflictError:
    """The refusal of a message sent faster than ``CHAT_RATE``: ``rate_limited``, with how
    many seconds to wait (nothing was sent)."""
    return ConflictError(_("too many chat messages: at most {n} in {seconds} s; wait "
                           "{wait} s, then send it again").format(
        n=CHAT_RATE[0], seconds=f"{CHAT_RATE[1]:g}", wait=f"{wait:.0f}"), "rate_limited")


def chat_entry(row: Any) -> dict[str, Any]:
    """A stored message as the protocol sends it."""
    moment: datetime = utc(row.created_at)
    return {"id": int(row.id), "seat": int(row.seat), "name": str(row.name),
            "text": str(row.text),
            "at": moment.isoformat(timespec="seconds").replace("+00:00", "Z")}


class TableChat:
    """The chats of the tables of a ``TableStore`` (module docstring)."""

    store: TableStore

    def post_chat(self, table_id: str, seat: int | None, token_hash: str | None,
                  text: str) -> None:
        """Store ``seat``'s message (already ``clean_chat``-ed) in the table's chat.

        Raises:
            ConflictError: a spectator (``spectator``), the table closed or abandoned
                (``closed``), its chat full (``chat_full``), or the seat's messages of the
                last seconds as many as ``CHAT_RATE`` allows (``rate_limited``);
                ForbiddenError: the seat's token was withdrawn (its person left).
        """
        check_table_id(table_id)
        if seat is None:
            raise ConflictError(_("spectators read the chat but cannot write in it: open "
                                  "your seat link to talk"), "spectator")
        with self.store.as_stored(table_id) as (known, _game):
            check_still_held(known.token_hashes, seat, token_hash)
            if known.status in OVER and known.status != "finished":
                raise ConflictError(over_message(known.status), "closed")
            name = known.names[seat]
        with self.store.sessions.begin() as session:
            write = session.connection()
            write.execute(select(TABLES.c.id).where(TABLES.c.id == table_id)
                          .with_for_update())  # one poster a table at a time (PostgreSQL)
            count = write.execute(select(func.count()).select_from(CHAT).where(
                CHAT.c.table_id == table_id)).scalar_one()
            if count >= CHAT_PER_TABLE:
                raise ConflictError(_("this table's chat is full ({n} messages): it takes "
                                      "no more").format(n=CHAT_PER_TABLE), "chat_full")
            moment = now()
            _check_pace(write.execute(select(CHAT.c.created_at).where(
                CHAT.c.table_id == table_id, CHAT.c.seat == seat,
                CHAT.c.created_at > moment - timedelta(seconds=CHAT_RATE[1]))).scalars(),
                moment)
            write.execute(insert(CHAT).values(table_id=table_id, seat=seat, name=name,
                                              text=text, created_at=moment))

    def chat_since(self, table_id: str, after: int = 0) -> list[dict[str, Any]]:
        """The table's messages after the one with id ``after`` (0: from the start), the
        newest ``CHAT_HISTORY`` of them, oldest first."""
        query = (select(CHAT.c.id, CHAT.c.seat, CHAT.c.name, CHAT.c.text, CHAT.c.created_at)
                 .where(CHAT.c.table_id == table_id, CHAT.c.id > after)
                 .order_by(CHAT.c.id.desc()).limit(CHAT_HISTORY))
        with self.store.games.autocommit.connect() as conn:
            rows = list(conn.execute(query))
        return [chat_entry(row) for row in reversed(rows)]


__all__ = ["CHAT_HISTORY", "CHAT_LENGTH", "CHAT_PER_TABLE", "CHAT_RATE", "ChatLimiter", "ChatPaces",
           "TableChat", "chat_entry", "clean_chat"]
