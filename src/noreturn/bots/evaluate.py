"""Plain evaluation of one action from a seat's view, shared by the simple bots.

A row's tiles count against you now but can be turned into points later, so early in the
game a row is an investment and late in the game a liability. ``row_credit`` is that
exchange rate: 1.5 while the bag is full, falling to 0 as it empties.
"""

from __future__ import annotations

from collections.abc import Sequence

from noreturn.engine import (
    Action,
    Declare,
    Exchange,
    Mulligan,
    Place,
    Score,
    View,
    row_due,
    tiles_value,
)

FULL_CREDIT = 1.5


def row_credit(view: View) -> float:
    """What one point in a row is worth to its owner, beyond its face value now."""
    in_bag = view.rules.tile_count - view.rules.players * view.rules.hand_size
    return FULL_CREDIT * view.bag_count / max(in_bag, 1)


def values(tiles: tuple[int, ...]) -> int:
    """The sum of the tiles' face values."""
    return tiles_value(tiles)


def action_value(view: View, action: Action) -> float:
    """The immediate change of the seat's score, with rows credited by ``row_credit``."""
    return action_values(view, (action,))[0]


def action_values(view: View, actions: Sequence[Action]) -> list[float]:
    """``action_value`` of each action, in order.

    One pass with the view's row credit worked out once: the greedy bot values every
    legal action (some 170, mostly exchanges) on each of its turns.
    """
    place_rate = row_credit(view) - 1.0
    rows = view.rows[view.seat] if view.seat is not None else None
    out: list[float] = []
    for action in actions:  # the commonest kinds first
        if isinstance(action, Exchange):
            tiles = action.tiles
            out.append(-0.01 * values(tiles) - 0.001 * len(tiles))
        elif isinstance(action, Place):
            out.append(place_rate * values(action.tiles))
        elif isinstance(action, Score) and rows is not None:
            scored = row_due(rows[action.row], action.count)
            out.append(2.0 * scored - 0.1 * values(action.pay))
        elif isinstance(action, Mulligan):
            out.append(-0.01 * len(action.tiles))
        elif isinstance(action, Declare):
            out.append(-0.001)
        else:
            out.append(-1.0)
    return out
