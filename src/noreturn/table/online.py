"""A table played online: a ``LocalTable`` with a turn timer and undo rebuilt from storage.

The web server keeps a game as its seed and its stored moves, and rebuilds it by replaying
them (``LocalTable.replay``). Two things a server table does need more than that:

- A **turn timer**: when a person's time runs out, a bot of the table's ``timeout_level``
  plays that one turn for them (``play_for``), and every log says so ("time ran out:
  medium played for Ada"), and so does the record's ``meta.timed_out``. The bot's action
  is stored like any other, so the rebuilt game is the same game.
- **Taking back a turn** against bots only. A server table keeps no copies of the game
  (``undo=False``: many tables must not pay for them); instead it knows the version before
  each of the person's turns (``undo_target``), and a game taken back is a fresh replay of
  the moves up to that version, finished by ``after_take_back`` with the stored secret
  that orders the bag afresh (the person saw what the undone turn drew). So the stored
  moves rebuild the game taken back too, in every process and after a restart.

The timer's clock (the deadline) is kept by the server's database, not here: this class
only carries the table's settings and the deadline last stored, for the state messages.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from noreturn.engine import Action, Declare, NoReturnError, Rules, why_illegal
from noreturn.table.local import LocalTable
from noreturn.table.seats import DEFAULT_BOT, Seat
from noreturn.text.lang import N_, Later, _, words

NOT_ALONE = N_("taking back a turn is only for a table where every other seat is a bot")


class OnlineTable(LocalTable):
    """A server's game: timer settings, the timed-out turn, and take-backs (module
    docstring). Undo copies are off (``undo=False``)."""

    def __init__(self, seats: Sequence[Seat], rules: Rules | None = None,
                 seed: int | str | None = None, turn_seconds: int | None = None,
                 timeout_level: str | None = None) -> None:
        """A game dealt from ``seed``; ``turn_seconds``: the turn timer (None: none), and
        ``timeout_level`` the bot that plays a turn whose time ran out."""
        self.turn_seconds = turn_seconds
        self.timeout_level = timeout_level or DEFAULT_BOT
        self.deadline: datetime | None = None
        """When the person to move runs out of time, as last stored (None: no timer, or a
        bot is to move)."""
        self._turns: list[tuple[int, int]] = []
        """(version before it, seat) of each person's turn that may be taken back."""
        self._declared: set[int] = set()
        super().__init__(seats, rules, seed=seed, undo=False)

    # ------------------------------------------------------------------ the timer
    def play_for(self, action: Action, level: str) -> None:
        """The person to move ran out of time: a ``level`` bot's ``action`` is played for
        them, and the logs say so first.

        Raises:
            NoReturnError: no person is to move, or the action is not legal now.
        """
        if not self.human_to_move():
            raise NoReturnError("no person is to move: nobody's time can run out")
        problem = why_illegal(self.state, action)
        if problem is not None:
            raise NoReturnError(f"cannot play {action} for a timed-out turn: {problem}")
        seat = self.state.to_move
        self._say(Later(words, N_("time ran out: {level} played for {name}"),
                         {"level": level, "name": self.names[seat]}))
        self._note("timed_out", {"seat": seat, "at_event": len(self._now.writer.events),
                                 "level": level})
        self._person_plays(action)

    # -------------------------------------------------------------- taking back
    def undo_target(self, seat: int) -> int | None:
        """The version to go back to for ``seat``'s take-back (before its last turn), or
        None when it may not take one back now (``why_no_take_back`` says why)."""
        return None if self.why_no_take_back(seat) else self._turns[-1][0]

    def why_no_take_back(self, seat: int | None) -> str | None:
        """Why ``seat`` may not take back its last turn now, or None if it may: it must be
        the one person at the table (every other seat a bot), the game in progress, and a
        turn of its since its declaration (there is no return) and since the last seat
        changed hands."""
        if seat is None or self.humans != [seat]:
            return _(NOT_ALONE)
        if self.is_over():
            return _("the game is over")
        if not self._turns:
            if seat in self._declared:
                return _("a declaration cannot be taken back: there is no return")
            return _("nothing to take back yet: you have not moved")
        return None

    def after_take_back(self, seat: int, version: int, secret: int) -> None:
        """Finish a take-back: this game is the replay up to before ``seat``'s last turn;
        it becomes ``version``, the bag and the bots' generators are ordered afresh from
        ``secret``, and the logs and the record's ``meta`` say so."""
        self._now.version = version
        self._reshuffle(secret)
        self._note("taken_back", {"seat": seat, "at_event": len(self._now.writer.events)})
        self._say(Later(words, N_("{name} took back their last turn"), {"name": self.names[seat]}))

    def _note(self, key: str, entry: dict[str, object]) -> None:
        """Add ``entry`` to the list ``key`` of the record's ``meta`` (docs/record-format.md)."""
        writer = self._now.writer
        meta = writer.meta if writer.meta is not None else {}
        writer.meta = {**meta, key: [*meta.get(key, []), entry]}

    # ------------------------------------------------------------------ changes
    def _person_plays(self, action: Action) -> None:
        """Note the turn (to take back later), then play it; a declaration is never taken
        back, nor anything before it."""
        seat = self.state.to_move
        self._turns.append((self.version, seat))
        super()._person_plays(action)
        if isinstance(action, Declare):
            self._declared.add(seat)
            self._turns = [(v, s) for v, s in self._turns if s != seat]

    def replace_by_bot(self, seat: int, spec: str = DEFAULT_BOT) -> None:
        """As ``LocalTable.replace_by_bot``; no turn before it is taken back (that would
        seat the person who left again)."""
        super().replace_by_bot(seat, spec)
        self._turns.clear()


__all__ = ["NOT_ALONE", "OnlineTable"]
