"""The moves the search (hard, expert) weighs at a decision, and a learned policy picks
among: the plan's own choice first, then the moves that differ from it in substance.

At a turn: the declaration; placing a colour's highest placeable tiles (one, two, ... of
them); each scoring tail with the plan's payments for it; exchanging the one, two, ...
least useful tiles. At the mulligan: the plan's set-asides by threshold and by colour.
Compiled with mypyc in a wheel (``setup.py``), as the plan is: a playout policy that
picks among them (the study's ``benchmarks/learned_policy.py``) lists them at every turn
of its seat, which ``turn_candidates`` lets it do without a list of every legal move.
"""

from __future__ import annotations

from collections.abc import Sequence

from noreturn.bots import plan
from noreturn.engine import (
    TILE_COLOUR,
    TILE_VALUE,
    Action,
    Declare,
    Exchange,
    GameState,
    Mulligan,
    Place,
    Score,
    colour_sums,
    placeable,
    row_dues,
    to_action,
)

MULLIGAN_LOWS = range(8)
"""The mulligans searched by threshold: every tile up to 0, 1, ... 7 set aside."""

MULLIGAN_COLOUR_RULES = tuple((colours, weak) for colours in (1, 2, 3) for weak in (7, 11))
"""The mulligans searched by colour (``plan.set_aside``): besides the plan's low tiles,
the tiles up to ``weak`` outside the ``colours`` strongest colours (11: all of them)."""


def candidates(state: GameState, legal: Sequence[Action]) -> list[Action]:
    """The moves worth searching at ``state`` (the seat to move decides), plan's first;
    only those in ``legal`` (all of it, should none be)."""
    allowed = set(legal)
    return [a for a in turn_candidates(state) if a in allowed] or list(legal)


def turn_candidates(state: GameState) -> list[Action]:
    """``candidates`` before the check against the legal moves, each once: the moves of
    the seat's phase (no placement in phase 2, no score in phase 1), so a playout policy
    that picks among them needs no list of every legal move."""
    seat = state.to_move
    chosen: list[Action] = [to_action(plan.choose(state))]
    hand = sorted(state.hands[seat])
    p = plan.params_for(state.rules.players)
    if isinstance(chosen[0], Mulligan):
        asides = [plan.set_aside(hand, most) for most in MULLIGAN_LOWS]
        asides += [plan.set_aside(hand, p.mulligan_max, colours, weak)
                   for colours, weak in MULLIGAN_COLOUR_RULES]
        chosen += [Mulligan(tuple(sorted(aside[: len(state.bag)], reverse=True)))
                   for aside in asides]
        return list(dict.fromkeys(chosen))
    rows = state.rows[seat]
    if state.phases[seat] == 1:
        chosen.append(Declare())
        for tiles in placeable(hand, rows).values():
            tiles.sort(reverse=True)
            chosen += [Place(tuple(tiles[:k])) for k in range(1, len(tiles) + 1)]
    else:
        chosen += _scores(hand, rows, p)
    chosen += _exchanges(state, p)
    return list(dict.fromkeys(chosen))


def _scores(hand: list[int], rows: list[list[int]], p: plan.Params) -> list[Action]:
    """Each row tail with the plan's payments for it: the cheapest, with the rest of its
    colour given up, keeping paying power, keeping it all."""
    scores: list[Action] = []
    for colour, row in enumerate(rows):
        for count, due in enumerate(row_dues(row), 1):
            for keep, dump in ((0.0, 0), (0.0, p.dump_max), (p.keep_power, p.dump_max),
                               (1.0, p.dump_max)):
                pay = plan.payment(hand, due, keep, dump)
                if pay:
                    scores.append(Score(colour, count, tuple(sorted(pay, reverse=True))))
    return scores


def _exchanges(state: GameState, p: plan.Params) -> list[Action]:
    """Exchanges of the one, two, ... least useful tiles (as the plan ranks them)."""
    seat = state.to_move
    hand = sorted(state.hands[seat])
    if state.phases[seat] == 1:
        ranked = sorted(hand, key=lambda t: plan.keep_value(state.rows[seat], t, p))
    else:
        sums = colour_sums(hand)
        strongest = max(sums, key=lambda c: sums[c]) if sums else -1
        ranked = sorted(hand, key=lambda t: (TILE_COLOUR[t] == strongest, TILE_VALUE[t]))
    most = min(state.rules.exchange_limit, len(ranked))
    return [Exchange(tuple(sorted(ranked[:k], reverse=True))) for k in range(1, most + 1)]
