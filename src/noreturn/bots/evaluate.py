"""Plain evaluation of one action from a seat's view, shared by the simple bots.

A row's tiles count against you now but can be turned into points later, so early in the
game a row is an investment and late in the game a liability. ``row_credit`` is that
exchange rate: 1.5 while the bag is full, falling to 0 as it empties.
"""

from __future__ import annotations

from noreturn.engine import Action, Declare, Exchange, Mulligan, Place, Score, View

FULL_CREDIT = 1.5


def row_credit(view: View) -> float:
    """What one point in a row is worth to its owner, beyond its face value now."""
    in_bag = view.rules.tile_count - view.rules.players * view.rules.hand_size
    return FULL_CREDIT * view.bag_count / max(in_bag, 1)


def values(tiles: tuple[int, ...]) -> int:
    """The sum of the tiles' face values."""
    return sum(t & 31 for t in tiles)


def action_value(view: View, action: Action) -> float:
    """The immediate change of the seat's score, with rows credited by ``row_credit``."""
    if isinstance(action, Place):
        placed = values(action.tiles)
        return (row_credit(view) - 1.0) * placed
    if isinstance(action, Score) and view.seat is not None:
        scored = sum(view.rows[view.seat][action.row][-action.count:])
        return 2.0 * scored - 0.1 * values(action.pay)
    if isinstance(action, Exchange):
        return -0.01 * values(action.tiles) - 0.001 * len(action.tiles)
    if isinstance(action, Mulligan):
        return -0.01 * len(action.tiles)
    if isinstance(action, Declare):
        return -0.001
    return -1.0
