"""The ``heuristic`` bot (level medium): the plan of ``plan.py``, and reasons that name it.

Every reason says where the plan stands, so that hints given turn after turn read as one
plan: how many turns are left, how many scoring turns the rows need, and what this move does
for that ("keep building: about 14 turns left, your rows need 6 scoring turns").
"""

from __future__ import annotations

from collections.abc import Sequence
from random import Random

from noreturn.bots import plan
from noreturn.bots.base import BotError, parse_options, register
from noreturn.engine import (
    COLOUR_NAMES,
    DECLARE,
    Action,
    Declare,
    Exchange,
    GameState,
    Mulligan,
    Place,
    Score,
    View,
    colour_of,
    make_tile,
    sample_world,
    tile_code,
    tiles_text,
    tiles_value,
    to_action,
)


class PlanBot:
    """The plan as a bot; ``decide`` also says why."""

    name = "plan"

    def act(self, view: View, legal: Sequence[Action], rng: Random) -> Action:
        """The plan's choice among ``legal``."""
        return self.decide(view, legal)[0]

    def decide(self, view: View, legal: Sequence[Action]) -> tuple[Action, str]:
        """The chosen action with a one-line reason a player understands.

        The plan reads only the seat's own hand and the public table, so it runs on any
        world consistent with the view; which one does not matter. When declaring is not
        among ``legal`` though the plan would declare (a wrapper keeps it in phase 1:
        ``declare_at.py``), it plays the plan's best move that stays in phase 1.
        """
        state = sample_world(view, Random(0))
        decision = plan.choose(state)
        if decision[0] == DECLARE and not any(isinstance(a, Declare) for a in legal):
            decision = plan.decide(state, plan.params_for(view.rules.players), may_declare=False)
        action = to_action(decision)
        if action not in legal:  # a plan bug must not cost the game: say so loudly
            raise BotError(f"the plan chose {action}, which is not legal here")
        return action, reason(state, action)


def _budget(state: GameState) -> str:
    """Where the plan stands: turns left against the scoring turns the rows need."""
    needed, left = plan.needed_and_left(state)
    turns = "turn" if round(left) == 1 else "turns"
    if needed == 0:
        return f"about {left:.0f} {turns} left, your rows are empty"
    scoring = "scoring turn" if needed == 1 else "scoring turns"
    return f"about {left:.0f} {turns} left, your rows need {needed} {scoring}"


def reason(state: GameState, action: Action) -> str:
    """Why the plan chose ``action`` in ``state``, in a player's words."""
    seat = state.to_move
    if isinstance(action, Mulligan):
        if not action.tiles:
            return "keep the hand: it has no low tiles to get rid of"
        return f"set aside {tiles_text(action.tiles)}: low tiles start no row and pay little"
    if isinstance(action, Declare):
        return (f"switch to phase 2 now: {_budget(state)}, so building on would leave "
                "tiles unscored")
    if isinstance(action, Score):
        row = state.rows[seat][action.row]
        due = sum(row[-action.count:])
        over = tiles_value(action.pay) - due
        paid = f"paying {tiles_text(action.pay)}" + (f" ({over} over)" if over else "")
        return (f"score {action.count} of your {COLOUR_NAMES[action.row]} row for {due} "
                f"points, {paid}: {_budget(state)}")
    if isinstance(action, Place):
        colour = colour_of(action.tiles[0])
        row = state.rows[seat][colour]
        if not row:
            what = f"start a {COLOUR_NAMES[colour]} row high"
        else:
            fits = "it fits" if len(action.tiles) == 1 else "they fit"
            lowest = tile_code(make_tile(colour, row[-1]))
            what = f"{fits} under your {lowest} with small steps"
        return f"keep building: {_budget(state)}; place {tiles_text(action.tiles)}: {what}"
    if isinstance(action, Exchange):
        if state.phases[seat] == 2:
            return (f"exchange {tiles_text(action.tiles)}: no row tail can be paid well yet; "
                    f"fish for one strong colour ({_budget(state)})")
        fits = "it fits" if len(action.tiles) == 1 else "they fit"
        return (f"exchange {tiles_text(action.tiles)}: {fits} no row; fish for tiles that do "
                f"({_budget(state)})")
    return "nothing else is possible"


@register("plan", "the plan: a turn budget, rows built to it, a timed declaration")
def _heuristic(options: str) -> PlanBot:
    parse_options(options, {})
    return PlanBot()
