"""Sampled worlds: a full game state consistent with what one seat knows.

A search bot cannot look at the hidden tiles, so it imagines them: every tile the seat has
not seen (``View.unseen``) is dealt at random over the places it cannot see into, with the
counts it does know (each other hand's size, the bag's size, how many tiles each other
player exchanged, and while the mulligan runs, how many each set aside). Everything public
is copied. Each sample is a possible truth; averaging over many is how a search copes with
not knowing.

This lives in the engine because it builds a ``GameState`` field by field: only the engine
may do that, so a world can never break an invariant the rules rely on. Bots, hints and the
OpenSpiel adapter all sample through ``sample_world``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from random import Random

from noreturn.engine.errors import RulesError
from noreturn.engine.state import MULLIGAN, GameState
from noreturn.engine.tiles import tiles_value
from noreturn.engine.view import View


def sample_world(view: View, rng: Random,
                 hand_weights: Mapping[int, Sequence[float]] | None = None) -> GameState:
    """A random game state that agrees with everything ``view`` shows.

    ``hand_weights``, if given, leans the deal of some other hands: ``hand_weights[seat]
    [tile]`` is how likely, relative to 1, an unseen ``tile`` is to be in ``seat``'s hand
    rather than elsewhere (a model of what that player's public play says about its hand;
    ``bots/inference.py``). Each such hand is drawn first, tile by tile in proportion to
    the weights (weighted sampling without replacement); every other place gets a uniform
    share of the rest. Weights change only which world is likely, never whether it agrees
    with the view: every weight must be positive.

    Raises:
        RulesError: the view is a spectator's (no seat), which has no hand to keep; a
            weight is not positive.
    """
    if view.seat is None or view.hand is None:
        raise RulesError("a world is sampled for a seat's view, not a spectator's")
    seat = view.seat
    state = GameState(view.rules, view.start_player)
    _copy_public(state, view)
    hidden = list(view.unseen().elements())
    rng.shuffle(hidden)
    every_unseen = hidden[:]

    def take(count: int) -> list[int]:
        taken = hidden[len(hidden) - count:] if count else []
        del hidden[len(hidden) - count:]
        return taken

    leaning = {other: weights for other, weights in (hand_weights or {}).items()
               if other != seat}
    for other, weights in leaning.items():
        state.hands[other] = _weighted_pick(hidden, weights, view.hand_counts[other], rng)
    in_mulligan = state.stage == MULLIGAN
    for other in range(state.n):
        if other == seat:
            state.hands[other] = list(view.hand)
            state.exchanged[other] = list(view.own_exchanged)
            own = view.own_mulligan
            state.mulligan_tiles[other] = None if own is None else list(own)
            continue
        if other not in leaning:
            state.hands[other] = take(view.hand_counts[other])
        state.exchanged[other] = take(view.exchanged_counts[other])
        count = view.mulligan_counts[other]
        # Set-aside tiles are a place of their own only while the mulligan runs; after it
        # they are back in the bag, and the list only says how many the player took.
        state.mulligan_tiles[other] = None if count is None else (
            take(count) if in_mulligan else every_unseen[:count])
    if in_mulligan:
        state.aside = [t for m in state.mulligan_tiles if m for t in m]
    state.bag = hidden
    if len(hidden) != view.bag_count:
        raise RulesError("sample_world: {left} tiles left for a bag of {bag}",
                         {"left": len(hidden), "bag": view.bag_count})
    return state


def _weighted_pick(hidden: list[int], weights: Sequence[float], count: int,
                   rng: Random) -> list[int]:
    """Take ``count`` tiles out of ``hidden`` (in place), each drawn in proportion to its
    weight among those left: the ``count`` largest keys ``u ** (1 / weight)``
    (Efraimidis and Spirakis, 2006). The rest keeps its random order."""
    if count <= 0:
        return []
    keyed = []
    for at, tile in enumerate(hidden):
        weight = weights[tile]
        if not weight > 0:
            raise RulesError("sample_world: tile weight {weight} is not positive",
                             {"weight": weight})
        keyed.append((rng.random() ** (1.0 / weight), at))
    keyed.sort(reverse=True)
    chosen = sorted(at for _key, at in keyed[:count])
    picked = [hidden[at] for at in chosen]
    for at in reversed(chosen):
        del hidden[at]
    return picked


def _copy_public(state: GameState, view: View) -> None:
    """Copy what everyone sees: rows, piles, payments, phases, whose turn and the clock."""
    state.stage = view.stage
    state.to_move = view.to_move
    state.draws_due = view.draws_due
    state.ending = view.ending
    state.turns = view.turns
    state.phases = list(view.phases)
    state.declared = sum(p == 2 for p in view.phases)
    state.declared_turns = list(view.declared_turns)
    state.rows = [[list(r) for r in rows] for rows in view.rows]
    state.row_tiles = sum(len(r) for rows in view.rows for r in rows)
    state.piles = [list(p) for p in view.piles]
    state.pile_sums = [tiles_value(p) for p in view.piles]
    state.paid = [list(p) for p in view.paid]
