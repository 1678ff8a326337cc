"""The bots' turns at the server's tables: decided, stored, and found again after a crash.

A bot says what it costs through the bot protocol (``noreturn.bots.base.budget_of``): a
fast bot (no ``Budget``) decides in well under a millisecond, so it moves under its
table's lock, several in one write; a thinking bot (a ``Budget``) decides outside the lock
(``botrunner.py`` runs it in its own thread) and its move is stored if the game is still
where it was. Nothing here names a bot: a new bot is one new file in ``noreturn.bots``.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass

from noreturn.bots.base import budget_of, thinks_now
from noreturn.engine import NoReturnError
from noreturn.server.errors import ConflictError, ServiceError, check_table_id
from noreturn.server.games import Known, Move
from noreturn.server.store import TableStore
from noreturn.table import BotMove, LocalTable, OnlineTable
from noreturn.text.lang import _

log = logging.getLogger("noreturn.server")

FAST_RUN = 32
"""At most this many fast bot moves in one write (``bot_turn(run_on=True)``, ``act(...,
bots_after=True)``): a bots-only game must not hold its table's lock for long."""


def thinks(game: LocalTable) -> bool:
    """Whether the bot to move thinks at this decision (``thinks_now``: it has a
    ``Budget``, or says so for this view): its decision is made outside the table's lock,
    one at a time per process."""
    seat = game.state.to_move
    return thinks_now(game.bots[seat], game.view_for(seat))


def queues_brief(bot: object) -> bool:
    """Whether a thinking decision of ``bot`` goes to the queue of brief ones: a bot with
    no ``Budget`` thinks at some views only, for milliseconds (``workers.think``)."""
    return budget_of(bot) is None


@dataclass(frozen=True)
class Thinking:
    """A thinking bot's decision, to be made outside the table's lock (``bot_turn``).

    ``brief``: the bot has no ``Budget`` and thinks at this view only (medium weighing its
    switch, milliseconds), so the runner queues it apart from the searches' seconds
    (``workers.think``)."""

    decide: Callable[[], BotMove]
    brief: bool


def bot_due(known: Known, game: OnlineTable | None) -> OnlineTable | None:
    """The game if it is in progress and a bot is to move in it, else None."""
    playing = known.status == "playing" and game is not None and game.bot_to_move()
    return game if playing else None


def run_fast_bots(game: LocalTable, most: int, after_person: bool = False) -> list[Move]:
    """Let the fast bots to move play, up to ``most`` moves, until a person or a thinking
    bot is to move or the game is over; the moves made.

    A bot that fails (a bug: a bot's own errors are handled by its fallback) ends the
    run; the moves before it are kept, so a person's move (``after_person``) is never
    undone by a bot after it. A failure before any move of the write is raised.
    """
    made: list[Move] = []
    while len(made) < most and game.bot_to_move() and not thinks(game):
        try:
            move = game.bot_job()()
        except Exception:
            if not (made or after_person):
                raise
            log.exception("a bot failed after %d move(s): its runner tries again",
                          len(made) + after_person)
            break
        if not game.apply_bot(move):  # pragma: no cover - decided on this very state
            break
        made.append(Move(move.version, move.seat, "action", str(move.action), move.note))
    return made


class BotTurns:
    """The bots' turns on the tables of a ``TableStore`` (module docstring)."""

    store: TableStore
    _not_waiting: dict[str, int]
    """``stalled_games``: the flagged games found with no bot to move, by version."""

    def bot_step(self, table_id: str) -> bool:
        """Let the bot to move decide and play one move; False if no bot is to move.

        ``bot_turn`` then, for a thinking bot, ``bot_apply`` (see them); a ``stale``
        ``ConflictError`` when the game moved on while the bot thought.
        """
        turn = self.bot_turn(table_id)
        if isinstance(turn, Thinking):
            return self.bot_apply(table_id, turn.decide()) is not None
        return turn is not None

    def bot_turn(self, table_id: str, run_on: bool = False) -> int | Thinking | None:
        """The bot to move's turn: None if no bot is to move; a fast bot decides and its
        move is stored now (the new version is returned); a thinking one's decision is
        returned (``Thinking``), to be made outside the table's lock (it may take seconds)
        and stored by ``bot_apply``.

        ``run_on`` (bots with no delay): the fast bots to move after it play on in the same
        write, up to ``FAST_RUN`` moves, until a person or a thinking bot is to move or the
        game is over: one write and one notice for the lot instead of one each (the
        clients get the newest state, which may skip versions: docs/server-protocol.md).
        """
        check_table_id(table_id)
        with self.store.locked(table_id):
            known, held = self.store.to_act_on(table_id)
            game = bot_due(known, held)
            if game is None:
                return None
            if thinks(game):
                bot = game.bots[game.state.to_move]
                return Thinking(game.bot_job(), brief=queues_brief(bot))
            with self.store.changing(table_id):
                moves = run_fast_bots(game, FAST_RUN if run_on else 1)
                if not moves:  # pragma: no cover - decided on this very state
                    return None
                self.store.store(known, game, moves)
            return game.version

    def bot_apply(self, table_id: str, move: BotMove) -> int | None:
        """Store a thinking bot's decision (from ``bot_turn``) if the game is where it
        was; the new version (None: no bot is to move).

        If the game moved on meanwhile (another process's runner moved first), the move is
        dropped with a ``stale`` ``ConflictError``, and the runner looks again.
        """
        with self.store.locked(table_id):
            known, game = self.store.to_act_on(table_id, move.version)
            if known.status != "playing" or game is None:
                return None
            if game.version != move.version:
                raise ConflictError(_("the game moved on (version {now}) while the bot "
                                      "thought about version {then}").format(
                    now=game.version, then=move.version), "stale")
            with self.store.changing(table_id):
                if not game.apply_bot(move):
                    return None
                self.store.store(known, game, [Move(move.version, move.seat, "action",
                                                    str(move.action), move.note)])
            return game.version

    def stalled_games(self, idle_seconds: float) -> list[str]:
        """Games in progress, unchanged for ``idle_seconds``, whose bot may be to move.

        One indexed query on the rows' bot flag (kept with every stored move): idle
        tables waiting on a person cost nothing. A flagged game is looked at once per
        version: one whose bot is not to move after all (a row from before the flag
        existed) has its flag lowered, and is remembered with its version until then.
        """
        waiting: list[str] = []
        checked: dict[str, int] = {}
        for table_id, version in self.store.bot_due_rows(idle_seconds):
            if self._not_waiting.get(table_id) == version:
                checked[table_id] = version
                continue
            try:
                with self.store.locked(table_id):
                    known, game = self.store.read(table_id)
                    due = bot_due(known, game) is not None
                if due:
                    waiting.append(table_id)
                else:
                    checked[table_id] = known.version
                    self.store.lower_flag(table_id, known.version)
            except (ServiceError, NoReturnError):  # gone, or broken: the runner says why
                checked[table_id] = version
        self._not_waiting = checked
        return waiting

    def playing_tables(self) -> list[str]:
        """The games in progress whose bot may be to move (to let their bots move after a
        restart): one indexed query, no game built."""
        return [table_id for table_id, _version in self.store.bot_due_rows()]


__all__ = ["FAST_RUN", "BotTurns", "Thinking", "bot_due", "queues_brief", "run_fast_bots",
           "thinks"]
