"""Turns that are not simply played: a person's turn whose time ran out, and a take-back.

**Time ran out.** A table with a turn timer stores the deadline of the person's turn under
way in its row (``timing.py``). Every process looks for turns past their deadline
(``expired_turns``: one indexed query) and plays them with the table's timeout bot, as a
``timeout`` move stored at the table's version. The moves table's primary key lets one move
per version through, so when two processes (or the person, at the last moment) race for
the same turn, one move is stored and the others are refused as ``stale``: a turn is
never played twice. Since the deadline is in the database, a restart loses no timer.

**Taking back a turn** (against bots only, as in the terminal game): the game is rebuilt up
to before the person's last turn and stored as an ``undo`` move with a new secret for the
bag (``rebuild.py``), so every process rebuilds the same game.
"""

from __future__ import annotations

import secrets
from collections.abc import Callable
from dataclasses import dataclass
from random import Random

from noreturn.bots import loop
from noreturn.bots.base import make_bot, thinks_now
from noreturn.engine import Action, NoReturnError, legal_actions
from noreturn.server.botturns import FAST_RUN, queues_brief, run_fast_bots
from noreturn.server.errors import ConflictError, check_table_id
from noreturn.server.games import Move
from noreturn.server.play import Acted, check_version, playing
from noreturn.server.rebuild import undo_text
from noreturn.server.store import TableStore
from noreturn.text.lang import _


@dataclass(frozen=True)
class TimeoutJob:
    """A timed-out turn to play: the version it is at, the seat whose time ran out, the
    bot's level, and its decision to make (``thinks``: in a thinkers' queue, as a thinking
    bot's at a table, ``base.thinks_now``; ``brief``: in the queue of brief ones, as
    medium's switch weighing)."""

    version: int
    seat: int
    level: str
    decide: Callable[[], Action]
    thinks: bool
    brief: bool


class Turns:
    """Timed-out turns and take-backs on the tables of a ``TableStore`` (module
    docstring)."""

    store: TableStore

    def expired_turns(self) -> list[str]:
        """The games in progress whose person to move ran out of time (one indexed query)."""
        return self.store.expired_rows()

    def timeout_job(self, table_id: str) -> TimeoutJob | None:
        """The timed-out turn of ``table_id``, as stored now, to decide; None if its
        person's time has not run out (they moved meanwhile, or another process played
        the turn)."""
        check_table_id(table_id)
        with self.store.locked(table_id):
            known, game = self.store.read(table_id)
            if known.status != "playing" or game is None or not game.human_to_move():
                return None
            if game.deadline is None or game.deadline > self.store.clock():
                return None
            seat, level = game.state.to_move, game.timeout_level
            bot = make_bot(level)
            seen, legal = game.view_for(seat), legal_actions(game.state)
            rng = Random(secrets.randbits(64))

            def decide() -> Action:
                return loop.decide_safely(bot, seen, legal, rng)[0]

            return TimeoutJob(game.version, seat, level, decide, thinks_now(bot, seen),
                              brief=queues_brief(bot))

    def timeout_apply(self, table_id: str, job: TimeoutJob, action: Action,
                      bots_after: bool = False) -> Acted:
        """Play ``action`` for the seat whose time ran out, if the game is still where
        ``job`` found it; ``bots_after`` as in ``Play.act``.

        Raises:
            ConflictError: ``stale``: the game moved on meanwhile (nothing stored).
        """
        with self.store.locked(table_id):
            known, game = self.store.to_act_on(table_id, job.version)
            if known.status != "playing" or game is None or game.version != job.version:
                raise ConflictError(_("the game moved on before the timed-out turn was "
                                      "played"), "stale")
            with self.store.changing(table_id):
                try:
                    game.play_for(action, job.level)
                except NoReturnError as exc:  # pragma: no cover - decided on this state
                    raise ConflictError(str(exc), "stale") from exc
                moves = [Move(job.version, job.seat, "timeout", str(action), job.level)]
                if bots_after:
                    moves += run_fast_bots(game, FAST_RUN, after_person=True)
                self.store.store(known, game, moves)
            return Acted(game.version, game.bot_to_move())

    def take_back(self, table_id: str, seat: int | None, version: int) -> Acted:
        """``seat`` takes back its last turn (and the bots' replies): the table goes back
        to before it, at a new version.

        Raises:
            ConflictError: ``stale`` (``version`` is not the table's), ``cannot_undo``
                (another person is seated, nothing to take back, a declaration, the game
                is over), or the codes of ``play.playing``.
        """
        check_table_id(table_id)
        with self.store.locked(table_id):
            known, held = self.store.to_act_on(table_id, version)
            game = playing((known, held), seat)
            assert seat is not None
            check_version(game, version)
            problem = game.why_no_take_back(seat)
            target = game.undo_target(seat)
            if problem is not None or target is None:
                raise ConflictError(_("you cannot take back a turn now: {problem}").format(
                    problem=problem), "cannot_undo")
            secret = secrets.randbits(63)
            with self.store.changing(table_id):
                back = self.store.rebuilt(table_id, target)
                back.after_take_back(seat, version + 1, secret)
                self.store.store(known, back, [Move(version, seat, "undo",
                                                    undo_text(target, secret))])
            return Acted(back.version, back.bot_to_move())


__all__ = ["TimeoutJob", "Turns"]

