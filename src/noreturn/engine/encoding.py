"""A dense integer for every action, for learning and search.

Numbering every multiset of tiles outright would need millions of ids. Instead a choice of
tiles is numbered by the hand positions it uses, with the hand sorted ascending and, among
equal tiles, the lowest positions first: a bit mask of ``hand_size`` bits. The default game
then needs 34,628 ids. Layout, with ``M = 2 ** hand_size`` and ``L`` the longest row::

    0                     pass
    1                     declare
    2 + mask              mulligan
    2 + M + mask          exchange
    2 + 2M + mask         place
    2 + 3M + ((row * L + count - 1) << hand_size) + mask     score (mask = the payment)
    score_base + colors * L * M + tile index                  draw (chance)

An id means a tile choice only together with the hand of the player to move, so decoding
takes the state. Ascending ids are the canonical order of ``legal_actions``.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

from noreturn.engine.actions import (
    Action,
    Declare,
    Draw,
    Exchange,
    Mulligan,
    Pass,
    Place,
    Score,
)
from noreturn.engine.errors import NoReturnError
from noreturn.engine.state import GameState
from noreturn.engine.tiles import Rules, colour_of, make_tile, value_of

PASS_ID, DECLARE_ID = 0, 1


@dataclass(frozen=True, slots=True)
class ActionLayout:
    """Where each kind of action starts in the id space of one variant."""

    hand_size: int
    max_value: int
    row_length: int
    mulligan: int
    exchange: int
    place: int
    score: int
    draw: int
    size: int

    def score_id(self, row: int, count: int, mask: int) -> int:
        """The id of scoring ``count`` tiles of ``row`` paid with hand positions ``mask``."""
        return self.score + ((row * self.row_length + count - 1) << self.hand_size) + mask


@lru_cache(maxsize=64)
def layout(rules: Rules) -> ActionLayout:
    """The id layout of ``rules``."""
    masks = 1 << rules.hand_size
    score = 2 + 3 * masks
    draw = score + rules.colors * rules.max_row_length * masks
    return ActionLayout(
        hand_size=rules.hand_size, max_value=rules.max_value, row_length=rules.max_row_length,
        mulligan=2, exchange=2 + masks, place=2 + 2 * masks, score=score, draw=draw,
        size=draw + rules.colors * rules.max_value,
    )


def num_actions(rules: Rules) -> int:
    """How many ids ``rules`` uses, chance draws included."""
    return layout(rules).size


def hand_mask(hand_sorted: list[int], tiles: tuple[int, ...]) -> int:
    """The canonical mask of ``tiles`` in ``hand_sorted``: lowest free position per tile."""
    mask = 0
    for tile in tiles:
        pos = hand_sorted.index(tile)
        while mask >> pos & 1:
            pos += 1
            if pos >= len(hand_sorted) or hand_sorted[pos] != tile:
                raise NoReturnError(f"the hand does not hold that many of tile {tile}")
        mask |= 1 << pos
    return mask


def encode_action(state: GameState, action: Action) -> int:
    """The id of ``action`` in ``state``; its tiles must be in the hand of the player to move.

    Raises:
        NoReturnError: the action uses tiles the player does not hold.
    """
    return _encode(layout(state.rules), sorted(state.hands[state.to_move]), action)


def encode_actions(state: GameState, actions: list[Action]) -> list[int]:
    """The ids of ``actions`` in ``state``, sorting the hand once (for masks of every legal
    action, where sorting per action was half the cost)."""
    lay, hand = layout(state.rules), sorted(state.hands[state.to_move])
    return [_encode(lay, hand, action) for action in actions]


def _encode(lay: ActionLayout, hand: list[int], action: Action) -> int:
    kind = type(action)
    if kind is Pass:
        return PASS_ID
    if kind is Declare:
        return DECLARE_ID
    if isinstance(action, Draw):
        tile = action.tile
        return lay.draw + colour_of(tile) * lay.max_value + value_of(tile) - 1
    try:
        if isinstance(action, Score):
            return lay.score_id(action.row, action.count, hand_mask(hand, action.pay))
        if isinstance(action, (Mulligan, Exchange, Place)):
            base = {Mulligan: lay.mulligan, Exchange: lay.exchange, Place: lay.place}[kind]
            return base + hand_mask(hand, action.tiles)
    except ValueError as exc:
        raise NoReturnError(f"{action}: the player to move does not hold these tiles") from exc
    raise NoReturnError(f"{action!r} is not an action")


def decode_action(state: GameState, action_id: int, seat: int | None = None) -> Action:
    """The action numbered ``action_id`` in ``state``, relative to ``seat``'s hand (None:
    the seat to move). Ids of another seat than the one to move are for display (OpenSpiel
    asks for any player's action strings), read without changing the state.

    Raises:
        NoReturnError: the id is out of range or names hand positions that are empty.
    """
    lay = layout(state.rules)
    if type(action_id) is not int or not 0 <= action_id < lay.size:
        raise NoReturnError(f"action id must be 0..{lay.size - 1}, not {action_id!r}")
    if action_id >= lay.draw:
        colour, value = divmod(action_id - lay.draw, lay.max_value)
        return Draw(make_tile(colour, value + 1))
    if action_id <= DECLARE_ID:
        return Pass() if action_id == PASS_ID else Declare()
    if seat is not None and (type(seat) is not int or not 0 <= seat < state.n):
        raise NoReturnError(f"seat must be 0..{state.n - 1} or None, not {seat!r}")
    hand = sorted(state.hands[state.to_move if seat is None else seat])
    if action_id >= lay.score:
        rest, mask = divmod(action_id - lay.score, 1 << lay.hand_size)
        row, count = divmod(rest, lay.row_length)
        return Score(row, count + 1, _tiles_at(hand, mask, action_id))
    block, mask = divmod(action_id - lay.mulligan, 1 << lay.hand_size)
    return (Mulligan, Exchange, Place)[block](_tiles_at(hand, mask, action_id))


def _tiles_at(hand: list[int], mask: int, action_id: int) -> tuple[int, ...]:
    if mask >> len(hand):
        raise NoReturnError(f"action id {action_id} names hand positions beyond the "
                            f"{len(hand)} tiles in hand")
    return tuple(hand[p] for p in range(len(hand)) if mask >> p & 1)
