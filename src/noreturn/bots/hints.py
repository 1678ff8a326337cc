"""Hints for people: what the advising bot would do, and why, in one line."""

from __future__ import annotations

from random import Random

from noreturn.bots.base import BotError
from noreturn.bots.planner import SWITCH_WORLDS
from noreturn.bots.planner import PlanBot as Advisor
from noreturn.engine import Action, View, legal_actions, sample_world

HINT_WORLDS = max(SWITCH_WORLDS.values())
"""Sampled worlds a hint weighs the switch by at every table size: medium's own number
(24), so the two cannot drift apart. Each world plays declaring now and waiting to the end
with the plan in every seat, as the switch advice does. With two players medium keeps to
the plan's rule, which scores more points against weak rivals; a hint is for winning, and
this switch wins more (docs/bots.md, "The plan") and says what the advice says: near the
switch in 30 two-player games the rule and the advice disagreed at 122 of 386 positions,
these hints and the advice at 61, close calls of few worlds."""


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
    return Advisor(worlds=HINT_WORLDS).decide(view, legal)
