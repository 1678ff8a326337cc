"""Hints for people: what the advising bot would do, and why, in one line."""

from __future__ import annotations

from random import Random

from noreturn.bots.base import BotError
from noreturn.bots.planner import PlanBot as Advisor
from noreturn.engine import Action, View, legal_actions, sample_world


def suggest(view: View) -> tuple[Action, str]:
    """A good move for the seat of ``view`` with a reason a player understands.

    The advisor (imported above: the one line to change for a better one) has
    ``decide(view, legal) -> (action, reason)``. The legal actions are worked out from the
    view alone (they depend only on the seat's own hand and rows, its phase and the bag's
    size), so a user interface needs nothing else. Raises ``BotError`` for a spectator's
    view or when it is not the seat's turn.
    """
    if not view.my_turn:
        raise BotError("a hint is for the player whose turn it is")
    legal = legal_actions(sample_world(view, Random(0)))
    return Advisor().decide(view, legal)
