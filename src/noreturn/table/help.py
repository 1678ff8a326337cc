"""Help for the person to move at a local table: a hint, the tile tracker, the switch advice.

``PersonHelp`` is a part of ``LocalTable`` (a base class of it). It reads the table only
through the table's public questions (``TableQuestions``), never its game: what it gives a
person is worked out from that person's view alone, like every bot's decision.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from random import Random
from typing import Protocol

from noreturn.bots.hints import suggest
from noreturn.bots.switch import SwitchAdvice, can_advise, switch_advice
from noreturn.engine import Action, GameState, NoReturnError, Stage, View
from noreturn.text.lang import _

ADVICE_SECONDS = 0.3
"""The switch advisor's default budget: about a hundred sampled worlds, short enough
that a player asking for it does not notice the wait."""


class TableQuestions(Protocol):
    """What ``PersonHelp`` asks of its table (``LocalTable`` answers all of it)."""

    @property
    def state(self) -> GameState: ...

    @property
    def names(self) -> list[str]: ...

    def is_over(self) -> bool: ...

    def human_to_move(self) -> bool: ...

    def view_for(self, seat: int | None) -> View: ...

    def why_no_switch_advice(self) -> str | None: ...

    def switch_job(self, seconds: float = ADVICE_SECONDS, worlds: int | None = None,
                   rng: Random | None = None) -> Callable[[], SwitchAdvice]: ...


class PersonHelp:
    """A hint, the tile tracker and the switch advice, for ``LocalTable``."""

    def unseen(self: TableQuestions, seat: int) -> Counter[int]:
        """The tile tracker: how many of each tile ``seat`` has not seen."""
        return self.view_for(seat).unseen()

    def hint(self: TableQuestions) -> tuple[Action, str]:
        """The heuristic's move for the person to move, with its reason.

        Raises:
            NoReturnError: no person is to move.
        """
        return PersonHelp.hint_job(self)()

    def hint_job(self: TableQuestions) -> Callable[[], tuple[Action, str]]:
        """``hint`` to work out later: the view is taken now, so the work (near the switch
        medium weighs sampled worlds, some 45 ms) may run outside a server's table lock.

        Raises:
            NoReturnError: no person is to move.
        """
        if not self.human_to_move():
            raise NoReturnError("a hint is for the player whose turn it is")
        seen = self.view_for(self.state.to_move)
        return lambda: suggest(seen)

    def why_no_switch_advice(self: TableQuestions) -> str | None:
        """Why there is no switch to weigh now (in a player's words), or None if there is."""
        if self.is_over():
            return _("nothing to weigh: the game is over")
        if not self.human_to_move():
            return _("nothing to weigh: it is {name}'s turn").format(
                name=self.names[self.state.to_move])
        seen = self.view_for(self.state.to_move)
        if can_advise(seen):
            return None
        if seen.stage is not Stage.PLAY:
            return _("nothing to weigh: the mulligan comes first")
        return _("nothing to weigh: you have declared phase 2 already (there is no "
                 "return)")

    def switch_advice(self: TableQuestions, seconds: float = ADVICE_SECONDS,
                      worlds: int | None = None, rng: Random | None = None) -> SwitchAdvice:
        """For the person to move in phase 1: declaring now against waiting (see
        ``noreturn.bots.switch``), within ``seconds`` or over ``worlds`` sampled worlds.

        Raises:
            NoReturnError: nothing to weigh now (``why_no_switch_advice`` says why).
        """
        return self.switch_job(seconds, worlds, rng)()

    def switch_job(self: TableQuestions, seconds: float = ADVICE_SECONDS,
                   worlds: int | None = None,
                   rng: Random | None = None) -> Callable[[], SwitchAdvice]:
        """``switch_advice`` to weigh later: as with ``bot_job`` the view is taken now, so
        the costly part reads nothing of the table and may run in a thread (or outside a
        server's table lock) while the table changes; its answer is for this ``version``.

        Raises:
            NoReturnError: nothing to weigh now (``why_no_switch_advice`` says why).
        """
        problem = self.why_no_switch_advice()
        if problem is not None:
            raise NoReturnError(problem)
        seen = self.view_for(self.state.to_move)

        def weigh() -> SwitchAdvice:
            advice = switch_advice(seen, seconds=seconds, worlds=worlds, rng=rng)
            if advice is None:  # pragma: no cover - can_advise held for this very view
                raise NoReturnError("nothing to weigh")
            return advice

        return weigh


__all__ = ["ADVICE_SECONDS", "PersonHelp", "TableQuestions"]
