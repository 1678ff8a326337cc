"""Players: the seats a player key joined, their history, their ratings, the leaderboard.

A person has no account and no password: their browser makes a random player key once and
keeps it (``static/player.js``), and sends it when it joins or starts a table. The server
keeps only the key's SHA-256 (``auth.hash_token``) as the player's id, never the key, and
never logs either (statement parameters are hidden from SQLAlchemy's logs: ``db.py``). The
key ties the seats it joined to one person: their tables (``history``) and one openskill
rating across them (``rate``; who is rated and why: ``ratings.py``), shown on the board
(``leaderboard``) under the name the person last joined with.

A seat's key is set by a join (or a start) in the lobby and fixed once the game starts:
a seat link handed on before the start goes with the new holder's key, and nobody can
claim a game already under way. Rating happens once per finished table, whatever the
number of processes: one guarded update of its seats claims it (``rate``). A game with a
take-back (against bots: ``turns.py``) is not rated: the take-back shuffles the bag afresh
after the bots' replies were seen, so a result could be farmed.
"""

from __future__ import annotations

import logging
from typing import Any

from sqlalchemy import Engine, Table, select, update
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.orm import Session

from noreturn.server.auth import hash_token
from noreturn.server.db import (
    MoveRow,
    PlayerRow,
    PlayerSeatRow,
    SeatRow,
    TableRow,
    now,
    session_factory,
)
from noreturn.server.games import public_table
from noreturn.server.ratings import START, SeatFacts, Skill, entrants, rate_game

PLAYERS: Table = PlayerRow.__table__  # type: ignore[assignment]
PLAYER_SEATS: Table = PlayerSeatRow.__table__  # type: ignore[assignment]
TABLES: Table = TableRow.__table__  # type: ignore[assignment]
MOVES: Table = MoveRow.__table__  # type: ignore[assignment]
SEATS: Table = SeatRow.__table__  # type: ignore[assignment]
MIN_GAMES = 3
"""Rated games a player needs to appear on the leaderboard by default: one lucky game
says little (a new player's ordinal is mostly uncertainty)."""
PENDING_BATCH = 20
"""Finished tables ``rate_pending`` rates at most per call (a reader never waits long)."""
log = logging.getLogger("noreturn.server")


def _insert(session: Session, table: Table) -> Any:
    """An ``INSERT`` that can say ``ON CONFLICT`` on this session's database."""
    dialect = session.get_bind().dialect.name
    return (postgresql.insert(table) if dialect == "postgresql" else sqlite.insert(table))


def rating_of(row: Any) -> dict[str, Any]:
    """A player's row as the API's ``Rating`` (rounded: two decimals say enough)."""
    return {"name": row.name, "kind": row.kind, "mu": round(row.mu, 2),
            "sigma": round(row.sigma, 2), "ordinal": round(row.ordinal, 2),
            "games": row.games}


def bind(session: Session, table_id: str, seat: int, key: str, name: str) -> None:
    """Tie ``seat`` of ``table_id`` to the player with ``key`` (in the caller's
    transaction, after the table's own writes), who is known by ``name`` from now on."""
    player = hash_token(key)
    moment = now()
    new = _insert(session, PLAYERS).values(
        id=player, kind="human", name=name, mu=START.mu, sigma=START.sigma,
        ordinal=START.ordinal, games=0, updated_at=moment)
    session.execute(new.on_conflict_do_update(
        index_elements=[PLAYERS.c.id], set_={"name": name, "updated_at": moment}))
    held = _insert(session, PLAYER_SEATS).values(
        table_id=table_id, seat=seat, player_id=player, rated=False, ordinal_after=None)
    session.execute(held.on_conflict_do_update(
        index_elements=[PLAYER_SEATS.c.table_id, PLAYER_SEATS.c.seat],
        set_={"player_id": player}))


def unbind(session: Session, table_id: str, seat: int) -> None:
    """The seat's person left the lobby: the seat holds no key any more."""
    session.execute(PLAYER_SEATS.delete().where(PLAYER_SEATS.c.table_id == table_id,
                                                PLAYER_SEATS.c.seat == seat))


def copy_keys(session: Session, old_id: str, new_id: str, seats: set[int]) -> None:
    """A rematch's ``seats`` (people still) keep the keys they held at ``old_id``."""
    held = session.execute(select(PLAYER_SEATS.c.seat, PLAYER_SEATS.c.player_id).where(
        PLAYER_SEATS.c.table_id == old_id)).all()
    rows = [{"table_id": new_id, "seat": seat, "player_id": player, "rated": False,
             "ordinal_after": None} for seat, player in held if seat in seats]
    if rows:
        session.execute(PLAYER_SEATS.insert(), rows)


class Players:
    """The players of one database (module docstring)."""

    def __init__(self, engine: Engine) -> None:
        self.sessions = session_factory(engine)

    # ------------------------------------------------------------------ reading
    def history(self, key: str, limit: int = 50) -> dict[str, Any]:
        """The key's rating (None before its first rated game) and its tables, newest
        first: each public ``Table``, the seat, and the ordinal after it."""
        self.rate_pending()
        player = hash_token(key)
        with self.sessions() as session:
            found = session.execute(select(PLAYERS).where(PLAYERS.c.id == player)).first()
            mine = session.execute(
                select(PLAYER_SEATS.c.table_id, PLAYER_SEATS.c.seat,
                       PLAYER_SEATS.c.ordinal_after)
                .join(TABLES, TABLES.c.id == PLAYER_SEATS.c.table_id)
                .where(PLAYER_SEATS.c.player_id == player)
                .order_by(TABLES.c.created_at.desc(), TABLES.c.id.desc()).limit(limit)).all()
            ids = [m.table_id for m in mine]
            rows = {r.id: r for r in session.execute(select(TABLES).where(TABLES.c.id.in_(ids)))}
            seats: dict[str, list[Any]] = {}
            for s in session.execute(select(SEATS).where(SEATS.c.table_id.in_(ids))
                                     .order_by(SEATS.c.table_id, SEATS.c.seat)):
                seats.setdefault(s.table_id, []).append(s)
        rated = found is not None and found.games > 0
        return {"rating": rating_of(found) if rated else None,
                "tables": [{"table": public_table(rows[m.table_id], seats[m.table_id]),
                            "seat": m.seat,
                            "ordinal_after": None if m.ordinal_after is None
                            else round(m.ordinal_after, 2)} for m in mine]}

    def leaderboard(self, min_games: int = MIN_GAMES, limit: int = 100) -> list[dict[str, Any]]:
        """The players with at least ``min_games`` rated games, best ordinal first (people
        and bot levels alike; never an id)."""
        self.rate_pending()
        query = (select(PLAYERS).where(PLAYERS.c.games >= min_games)
                 .order_by(PLAYERS.c.ordinal.desc(), PLAYERS.c.id).limit(limit))
        with self.sessions() as session:
            return [{"rank": i + 1, **rating_of(row)}
                    for i, row in enumerate(session.execute(query))]

    # ------------------------------------------------------------------- rating
    def rate_pending(self, batch: int = PENDING_BATCH) -> int:
        """Rate finished tables whose rating was missed (the process stopped, or the
        database failed, just after the game ended); how many were rated."""
        query = (select(PLAYER_SEATS.c.table_id).distinct()
                 .join(TABLES, TABLES.c.id == PLAYER_SEATS.c.table_id)
                 .where(PLAYER_SEATS.c.rated.is_(False), TABLES.c.status == "finished")
                 .limit(batch))
        with self.sessions() as session:
            pending = [str(t) for (t,) in session.execute(query)]
        return sum(self.finished(table_id) for table_id in pending)

    def rate(self, table_id: str) -> bool:
        """Rate the finished table ``table_id`` (once: a second call, here or in another
        process, finds it claimed); whether ratings changed."""
        with self.sessions.begin() as session:
            found = session.execute(select(TABLES.c.status, TABLES.c.result).where(
                TABLES.c.id == table_id)).first()
            if found is None or found.status != "finished" or not found.result:
                return False
            claim = session.connection().execute(update(PLAYER_SEATS).where(
                PLAYER_SEATS.c.table_id == table_id, PLAYER_SEATS.c.rated.is_(False))
                .values(rated=True))
            if claim.rowcount == 0 or self._taken_back(session, table_id):
                return False  # claimed, so a table with take-backs is never rated later
            chosen = entrants(self._facts(session, table_id))
            if not chosen:
                return False
            new = rate_game(chosen, found.result["ranks"], self._skills(session, chosen))
            self._write(session, table_id, chosen, new)
            return True

    @staticmethod
    def _taken_back(session: Session, table_id: str) -> bool:
        """Whether a turn of the game was taken back: such a game is not rated (the
        bag was shuffled afresh and the bots' hands seen, so a result could be farmed)."""
        return session.execute(select(MOVES.c.index).where(
            MOVES.c.table_id == table_id, MOVES.c.kind == "undo").limit(1)).first() is not None

    @staticmethod
    def _facts(session: Session, table_id: str) -> list[SeatFacts]:
        """The table's seats as created, each with the key that held it."""
        keys = dict(session.execute(select(PLAYER_SEATS.c.seat, PLAYER_SEATS.c.player_id)
                                    .where(PLAYER_SEATS.c.table_id == table_id)).all())
        return [SeatFacts(s.seat, s.kind, s.level, keys.get(s.seat))
                for s in session.execute(select(SEATS.c.seat, SEATS.c.kind, SEATS.c.level)
                                         .where(SEATS.c.table_id == table_id))]

    @staticmethod
    def _skills(session: Session, chosen: dict[int, str]) -> dict[str, Skill]:
        """The entrants' ratings now, their rows locked (in id order, so two tables rated
        at once never wait on each other in turn); a bot level's row made if new."""
        ids = sorted(set(chosen.values()))
        bots = [{"id": pid, "kind": "bot", "name": pid.partition(":")[2], "mu": START.mu,
                 "sigma": START.sigma, "ordinal": START.ordinal, "games": 0,
                 "updated_at": now()} for pid in ids if ":" in pid]
        if bots:
            session.execute(_insert(session, PLAYERS).values(bots).on_conflict_do_nothing())
        rows = session.execute(select(PLAYERS.c.id, PLAYERS.c.mu, PLAYERS.c.sigma)
                               .where(PLAYERS.c.id.in_(ids)).order_by(PLAYERS.c.id)
                               .with_for_update()).all()
        return {row.id: Skill(row.mu, row.sigma) for row in rows}

    @staticmethod
    def _write(session: Session, table_id: str, chosen: dict[int, str],
               new: dict[str, Skill]) -> None:
        """Store the new ratings, a game more for each entrant, and each keyed seat's
        ordinal after the game."""
        moment = now()
        for pid, skill in new.items():
            session.execute(update(PLAYERS).where(PLAYERS.c.id == pid).values(
                mu=skill.mu, sigma=skill.sigma, ordinal=skill.ordinal,
                games=PLAYERS.c.games + 1, updated_at=moment))
        for seat, pid in chosen.items():
            session.execute(update(PLAYER_SEATS).where(
                PLAYER_SEATS.c.table_id == table_id, PLAYER_SEATS.c.seat == seat)
                .values(ordinal_after=new[pid].ordinal))

    def finished(self, table_id: str) -> bool:
        """Rate a table whose game ended (``games.Games.finished``, ``rate_pending``);
        whether ratings changed. A failure is logged, not raised: the game is stored
        whatever happens to its rating, and a reader of the board must not get an error
        for a table that fails to rate (a later ``rate_pending`` tries again)."""
        try:
            return self.rate(table_id)
        except Exception:
            log.exception("rating table %s failed: it is tried again later", table_id)
            return False


__all__ = ["MIN_GAMES", "Players", "bind", "copy_keys", "rating_of", "unbind"]
