"""Frozen: the policy of ``heuristic-v1``, a yardstick (see ``yardsticks/__init__.py``).

Every gain of a new bot is measured against this strategy, so it must not move: change
nothing here but what the engine's API forces (``tests/bots/test_yardsticks.py`` checks).

The heuristic strategy as a fast policy on a game state (see ``heuristic_v1.py`` for why).

It reads only what the player to move may know (its own hand and rows, the public table,
the bag's size), so it can run on an imagined state inside a search as well as for the
``heuristic`` bot. It builds its choice directly instead of scoring every legal action,
which makes it cheap enough to play whole games inside ISMCTS rollouts.
"""

from __future__ import annotations

import math
from random import Random

from noreturn.engine import (
    DECLARE,
    EXCHANGE,
    MULLIGAN,
    MULLIGAN_CHOICE,
    PASS,
    PLACE,
    SCORE,
    Decision,
    GameState,
    colour_of,
    colour_sums,
    covers,
    fits_row,
    row_dues,
    tiles_value,
    value_of,
)

START_MIN = 6
MULLIGAN_MAX = 4
TYPICAL_PAYMENT = 15
DECLARE_MARGIN = {2: 1}
"""Spare turns kept when declaring, by player count (default -1). Measured: with two
players a turn in hand pays; with three or four, declaring a turn later wins more games
against ``greedy`` (48% instead of 40% in 3-player paired deals, where 33% is even)."""
MAX_GAP = 5
"""A row starts at START_MIN or higher and grows by steps of at most MAX_GAP. Measured in
paired deals against ``greedy`` (win rate with 2/3/4 players): start 9, gap 2 gave
84/48/34%; start 6, gap 5 gives 94/76/65%. Long rows built fast beat tidy rows built
slowly, above all with more players, where each player gets fewer turns."""


def turns_left(state: GameState) -> float:
    """How many more turns the player to move can expect before the bag is empty."""
    rules = state.rules
    used = rules.tile_count - rules.players * rules.hand_size - len(state.bag)
    per_turn = used / state.turns if state.turns >= rules.players else 2.5
    return len(state.bag) / max(per_turn, 0.5) / rules.players


def scoring_turns_needed(rows: list[list[int]], hand: list[int]) -> int:
    """SCORE turns the rows still need at the usual paying power."""
    power = max(TYPICAL_PAYMENT, max(colour_sums(hand).values(), default=0))
    return sum(math.ceil(sum(row) / power) for row in rows if row)


def should_declare(state: GameState, hand: list[int]) -> bool:
    """Whether waiting longer would leave rows unscored when the bag runs out (``hand``:
    the hand to move, sorted; see ``choose``)."""
    seat = state.to_move
    needed = scoring_turns_needed(state.rows[seat], hand)
    margin = DECLARE_MARGIN.get(state.rules.players, -1)
    return needed > 0 and turns_left(state) <= needed + margin


def best_place(state: GameState, hand: list[int]) -> tuple[float, tuple[int, ...]]:
    """The most valuable chain of tiles to place, with its value (<= 0: none worth it)."""
    seat = state.to_move
    rows = state.rows[seat]
    lateness = 1.0 - min(turns_left(state) / 12.0, 1.0)
    best: tuple[float, tuple[int, ...]] = (0.0, ())
    for colour in {colour_of(t) for t in hand}:
        row = rows[colour]
        tiles = sorted((t for t in hand if colour_of(t) == colour), reverse=True)
        value, chain = _chain(tiles, row[-1] if row else None)
        value -= lateness * tiles_value(chain) / 2
        if chain and value > best[0]:
            best = (value, tuple(chain))
    return best


def _chain(tiles: list[int], top: int | None) -> tuple[float, list[int]]:
    """Tiles (descending) that extend a row ending at ``top`` with small gaps, and their value."""
    chain: list[int] = []
    value = 0.0
    for tile in tiles:
        v = value_of(tile)
        if top is None:
            if v < START_MIN:
                break
            gain = 2.0 * (v - START_MIN) + 1.0
        elif not fits_row((top,), v):
            continue
        elif top - v > MAX_GAP:
            break
        else:
            gain = 3.0 - 1.5 * (top - v) + v / 4
        chain.append(tile)
        value += gain
        top = v
    return value, chain


def best_score(state: GameState, hand: list[int]) -> tuple[int, int, tuple[int, ...]] | None:
    """(row, count, payment) scoring the most points, paid with the least overpay."""
    seat = state.to_move
    sums = colour_sums(hand)
    power = max(sums.values(), default=0)
    best: tuple[int, int, int] | None = None  # (due, row, count)
    for colour, row in enumerate(state.rows[seat]):
        for count, due in enumerate(row_dues(row), 1):
            if not covers(power, due):
                break
            if best is None or due > best[0]:
                best = (due, colour, count)
    if best is None:
        return None
    due, colour, count = best
    return colour, count, cheapest_payment(hand, sums, due)


def cheapest_payment(hand: list[int], sums: dict[int, int], due: int) -> tuple[int, ...]:
    """The single-colour tiles that pay ``due`` with the least excess (then fewest tiles)."""
    best: tuple[int, int, tuple[int, ...]] | None = None
    for colour, total in sums.items():
        if not covers(total, due):
            continue
        tiles = [t for t in hand if colour_of(t) == colour]
        for mask in range(1, 1 << len(tiles)):
            chosen = tuple(tiles[i] for i in range(len(tiles)) if mask >> i & 1)
            paid = tiles_value(chosen)
            if covers(paid, due) and (best is None or (paid, len(chosen)) < best[:2]):
                best = (paid, len(chosen), chosen)
    return best[2] if best else ()


def keep_value(rows: list[list[int]], tile: int) -> float:
    """How much a hand tile is worth keeping in phase 1 (to place it, or to pay with it)."""
    row = rows[colour_of(tile)]
    v = value_of(tile)
    if row and fits_row(row, v):
        return 6.0 - 1.5 * (row[-1] - v) + v / 4
    if not row:
        return v - START_MIN + 2.0
    return v / 4 - 1.0


def exchange_tiles(state: GameState, hand: list[int]) -> tuple[int, ...]:
    """Tiles to throw back: phase 1 the ones that fit nowhere, phase 2 the weak colours."""
    seat = state.to_move
    limit = state.rules.exchange_limit
    if state.phases[seat] == 2:
        sums = colour_sums(hand)
        strongest = max(sums, key=lambda c: sums[c])
        ranked = sorted(hand, key=lambda t: (colour_of(t) == strongest, value_of(t)))
        return tuple(ranked[: max(1, min(limit, len(hand) // 2))])
    rows = state.rows[seat]
    ranked = sorted(hand, key=lambda t: keep_value(rows, t))
    return tuple([t for t in ranked if keep_value(rows, t) < 1.0][:limit] or ranked[:1])


def choose(state: GameState, rng: Random | None = None) -> Decision:
    """The strategy's decision for the player to move, as ``rollout.choose`` returns it.

    Deterministic: ``rng`` is accepted so that it fits ``playout``'s policy slot. The hand
    is read sorted (its order carries no meaning), so that ties between equally good
    choices fall the same way however the hand was dealt; every helper reads that sorted
    copy, and the state is never changed (it used to be sorted in place: the same
    decisions, tests/bots/test_yardsticks.py).
    """
    seat = state.to_move
    hand = sorted(state.hands[seat])
    if state.stage == MULLIGAN:
        low = tuple(t for t in hand if value_of(t) <= MULLIGAN_MAX)
        return (MULLIGAN_CHOICE, 0, 0, low[: len(state.bag)])
    if state.phases[seat] == 1:
        if should_declare(state, hand):
            return (DECLARE, 0, 0, ())
        value, chain = best_place(state, hand)
        if value > 0:
            return (PLACE, 0, 0, chain)
    else:
        scoring = best_score(state, hand)
        if scoring is not None:
            return (SCORE, scoring[0], scoring[1], scoring[2])
    if not hand:
        return (PASS, 0, 0, ())
    return (EXCHANGE, 0, 0, exchange_tiles(state, hand))
