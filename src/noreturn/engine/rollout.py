"""The rollout policy: random legal play sampled directly, without listing legal actions.

Search bots spend their time in playouts, so this policy draws its choice straight from the
hand and rows instead of enumerating every action (which can run to thousands in phase 2).

- mulligan: each hand tile is set aside with probability 1/4 (at most as many as the bag
  holds);
- phase 1: declare with probability 1/10 and act as in phase 2; otherwise, if a PLACE is
  legal, PLACE with probability 3/4, else EXCHANGE. PLACE: a colour uniformly among those
  with a placeable tile, then a uniformly random non-empty subset of that colour's
  placeable tiles (subsets of tile instances: each tile in with probability 1/2, redrawn
  while empty);
- phase 2: if a SCORE is legal, SCORE with probability 3/4, else EXCHANGE. SCORE: a row
  uniformly among payable rows, a count uniformly among the payable counts, a paying colour
  uniformly among those whose hand sum covers it, then a uniformly random covering subset
  of that colour's tiles;
- EXCHANGE: k uniform in 1..min(exchange_limit, hand), then a uniformly random k-subset.
- PASS only when the hand is empty (then nothing else is legal).

``choose`` returns the decision as a small tuple; ``rollout_action`` wraps it into an
action value and ``playout`` applies it directly, so both follow one policy.
"""

from __future__ import annotations

from collections.abc import Callable
from random import Random

from noreturn.engine.actions import (
    Action,
    Declare,
    Exchange,
    Mulligan,
    Pass,
    Place,
    Score,
)
from noreturn.engine.legal import covers, placeable, row_dues
from noreturn.engine.state import MULLIGAN, OVER, GameState
from noreturn.engine.tiles import TILE_COLOUR, colour_sums, tiles_value

PASS, DECLARE, MULLIGAN_CHOICE, EXCHANGE, PLACE, SCORE = range(6)
"""The kinds of a ``Decision``."""
Decision = tuple[int, int, int, tuple[int, ...]]
"""A policy's decision: (kind, row colour, count, tiles); row and count only mean
something for SCORE. Cheaper than an action value inside a playout."""
Choice = Decision
"""The former name of ``Decision``."""


def choose(state: GameState, rng: Random) -> Decision:
    """The rollout policy's decision for the player to move (not at a chance node)."""
    random = rng.random
    seat = state.to_move
    hand = state.hands[seat]
    if state.stage == MULLIGAN:
        tiles = tuple([t for t in hand if random() < 0.25][: len(state.bag)])
        return (MULLIGAN_CHOICE, 0, 0, tiles)
    if state.phases[seat] == 1:
        if random() < 0.1:
            return (DECLARE, 0, 0, ())
        fitting = list(placeable(hand, state.rows[seat]).values())
        if fitting and random() < 0.75:
            colour_tiles = fitting[int(random() * len(fitting))]
            return (PLACE, 0, 0, _nonempty_subset(colour_tiles, random))
    else:
        choice = _score_choice(hand, state.rows[seat], random)
        if choice is not None:
            return choice
    if not hand:
        return (PASS, 0, 0, ())
    return (EXCHANGE, 0, 0, _exchange_tiles(hand, state.rules.exchange_limit, random))


def _nonempty_subset(tiles: list[int], random: Callable[[], float]) -> tuple[int, ...]:
    draw = random
    while True:
        chosen = tuple([t for t in tiles if draw() < 0.5])
        if chosen:
            return chosen


def _score_choice(
    hand: list[int], rows: list[list[int]], random: Callable[[], float]
) -> Decision | None:
    draw = random
    power = colour_sums(hand)
    if not power:
        return None
    best = max(power.values())
    payable = [c for c, row in enumerate(rows) if row and covers(best, row[-1])]
    if not payable or draw() >= 0.75:
        return None
    colour = payable[int(draw() * len(payable))]
    dues = [due for due in row_dues(rows[colour]) if covers(best, due)]  # a prefix: dues grow
    count = int(draw() * len(dues))
    due = dues[count]
    payers = [c for c, total in power.items() if covers(total, due)]
    payer = payers[int(draw() * len(payers))]
    tiles = [t for t in hand if TILE_COLOUR[t] == payer]
    return (SCORE, colour, count + 1, _covering_subset(tiles, due, draw))


def _covering_subset(tiles: list[int], due: int, random: Callable[[], float]) -> tuple[int, ...]:
    """A uniformly random subset of ``tiles`` whose values sum to at least ``due``.

    Rejection sampling first (cheap when most subsets cover); if that keeps failing, a
    uniform pick among all covering subsets, which leaves the distribution uniform.
    """
    draw = random
    for _ in range(8):
        chosen = [t for t in tiles if draw() < 0.5]
        if covers(tiles_value(chosen), due):
            return tuple(chosen)
    n = len(tiles)
    covering = [
        m for m in range(1, 1 << n)
        if covers(tiles_value([tiles[i] for i in range(n) if m >> i & 1]), due)
    ]
    mask = covering[int(draw() * len(covering))]
    return tuple(tiles[i] for i in range(n) if mask >> i & 1)


def _exchange_tiles(hand: list[int], limit: int, random: Callable[[], float]) -> tuple[int, ...]:
    draw = random
    rest = hand[:]
    count = 1 + int(draw() * min(limit, len(rest)))
    return tuple([rest.pop(int(draw() * len(rest))) for _ in range(count)])


def rollout_action(state: GameState, rng: Random) -> Action:
    """The rollout policy's decision as an action value (for records and simulation)."""
    return to_action(choose(state, rng))


def to_action(choice: Decision) -> Action:
    """The action value of a policy's decision tuple."""
    kind, row, count, tiles = choice
    if kind == PLACE:
        return Place(tiles)
    if kind == EXCHANGE:
        return Exchange(tiles)
    if kind == SCORE:
        return Score(row, count, tiles)
    if kind == DECLARE:
        return Declare()
    if kind == MULLIGAN_CHOICE:
        return Mulligan(tiles)
    return Pass()


def to_decision(action: Action) -> Decision:
    """The decision tuple of an action (``to_action`` backwards), for a playout policy
    that decides by action values."""
    if isinstance(action, Place):
        return (PLACE, 0, 0, action.tiles)
    if isinstance(action, Exchange):
        return (EXCHANGE, 0, 0, action.tiles)
    if isinstance(action, Score):
        return (SCORE, action.row, action.count, action.pay)
    if isinstance(action, Declare):
        return (DECLARE, 0, 0, ())
    if isinstance(action, Mulligan):
        return (MULLIGAN_CHOICE, 0, 0, action.tiles)
    if isinstance(action, Pass):
        return (PASS, 0, 0, ())
    raise ValueError(f"{action} is a draw, which a playout makes itself")


def playout(
    state: GameState, rng: Random, policy: Callable[[GameState, Random], Decision] | None = None
) -> int:
    """Play ``state`` to the end, in place; returns the turns taken.

    Every seat follows ``policy`` (by default the rollout policy, ``choose``), which
    returns decision tuples like ``choose`` does. Draws are sampled with ``rng`` too. This
    is the hot loop of search bots and ``bench``, so it calls the state's internal steps
    directly rather than building action values.
    """
    decide = policy or choose
    random = rng.random
    bag = state.bag
    start_turns = state.turns
    while state.stage != OVER:
        if state.draws_due:
            state._take(int(random() * len(bag)))
            continue
        kind, row, count, tiles = decide(state, rng)
        if kind == PLACE:
            state._place(tiles)
        elif kind == EXCHANGE:
            state._exchange(tiles)
        elif kind == SCORE:
            state._score(row, count, tiles)
        elif kind == DECLARE:
            state._declare()
        elif kind == MULLIGAN_CHOICE:
            state._mulligan(tiles)
        else:
            state._end_turn()
    return state.turns - start_turns
