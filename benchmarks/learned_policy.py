"""The distilled network of ``distill_study.py`` as a policy, fast enough to play a seat's
playouts.

A candidate is described by what it leaves the seat (27 features: the rows, the hand's
paying power, the plan's turn budget, the lead, the rivals' pace; own hand and public
table only). ``ranker_study.features`` plays the move on a copy of the state to read
them, and ``distill_study collect`` saves those for training; here they are read off the
move itself (what it adds to or takes from the rows, the hand, the pile), the table's
part once a decision, among ``candidates.turn_candidates`` (legal as they come, so no
list of every legal move is made): 0.4 ms a decision compiled against 1.5 ms
(``tests/bots/test_studies.py`` shows the features equal). The network then scores them
with numpy as it was trained: each candidate's features, their difference from the plan
choice's, and whether it is the plan's choice.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from random import Random
from typing import Any

import numpy as np

from noreturn.bots import plan
from noreturn.bots.candidates import turn_candidates
from noreturn.engine import (
    MULLIGAN,
    TILE_COLOUR,
    TILE_VALUE,
    Action,
    Declare,
    Exchange,
    GameState,
    Place,
    Score,
    colour_sums,
    fits_row,
    placed_values,
    tiles_value,
    turns_taken,
)

FEATURES = ("declares", "phase 2", "row points", "row tiles", "points scored", "power",
            "second power", "hand left", "scoring turns", "turns short", "turns spare",
            "tiles fitting", "keep value", "rows", "row ends", "late row points",
            "power in phase 2", "late power in phase 1", "overpaid", "tiles exchanged",
            "turns left if declaring", "lead", "lead if declaring", "rival pace",
            "rival pace if declaring", "rivals in phase 2", "exchanged times rival pace")
"""What ``move_features`` describes a candidate by, in its order."""


@dataclass(frozen=True)
class Table:
    """What every candidate of one decision shares: the seat, the plan's turns left and
    constants, the rivals' pace (tiles taken a turn) and phases, the best rival's
    projected score."""

    seat: int
    left: float
    params: plan.Params
    pace: float
    rivals_in_2: float
    best_rival: int


def rival_pace(state: GameState, seat: int) -> float:
    """Tiles the other seats took from the bag per turn so far (all public)."""
    taken_by = turns_taken(state)
    others = [s for s in range(state.n) if s != seat]
    return sum(plan.tiles_taken(state, s) / max(1, taken_by[s]) for s in others) / len(others)


def table(state: GameState) -> Table:
    """The shared part of the features at ``state`` (the seat to move)."""
    seat = state.to_move
    p = plan.params_for(state.rules.players)
    others = [s for s in range(state.n) if s != seat]
    return Table(seat, plan.turns_left(state, p), p, rival_pace(state, seat),
                 sum(1 for s in others if state.phases[s] == 2) / len(others),
                 max(plan.projected(state, s) for s in others))


def after_move(state: GameState, action: Action, seat: int
               ) -> tuple[list[list[int]], list[int], int, int, int]:
    """What ``action`` leaves: the rows, the hand, and the points scored and paid and the
    tiles exchanged by it (before the refill)."""
    rows = state.rows[seat]
    hand = list(state.hands[seat])
    scored = paid = exchanged = 0
    gone: tuple[int, ...] = ()
    if isinstance(action, Place):
        colour = TILE_COLOUR[action.tiles[0]]
        rows = [*rows[:colour],
                rows[colour] + placed_values(action.tiles),
                *rows[colour + 1:]]
        gone = action.tiles
    elif isinstance(action, Score):
        row = rows[action.row]
        scored, paid = sum(row[-action.count:]), tiles_value(action.pay)
        rows = [*rows[:action.row], row[:-action.count], *rows[action.row + 1:]]
        gone = action.pay
    elif isinstance(action, Exchange):
        gone, exchanged = action.tiles, len(action.tiles)
    for tile in gone:
        hand.remove(tile)
    return rows, hand, scored, paid, exchanged


def move_features(state: GameState, action: Action, shared: Table) -> list[float]:
    """``FEATURES`` of ``action`` at ``state``, as the plan sees what it leaves."""
    rows, hand, scored, paid, exchanged = after_move(state, action, shared.seat)
    p, left, pace = shared.params, shared.left, shared.pace
    powers = [*sorted(colour_sums(hand).values(), reverse=True), 0, 0]
    declares = 1.0 if isinstance(action, Declare) else 0.0
    phase2 = 1.0 if declares or state.phases[shared.seat] == 2 else 0.0
    needed = float(plan.scoring_turns(rows, powers[0], p.typical))
    keep = sum([plan.keep_value(rows, t, p) for t in hand]) if not phase2 else 0.0
    fitting = sum(1 for t in hand if rows[TILE_COLOUR[t]]
                  and fits_row(rows[TILE_COLOUR[t]], TILE_VALUE[t]))
    late = 1.0 - min(left / 12.0, 1.0)
    row_points = float(sum([sum(r) for r in rows]))
    lead = state.pile_sums[shared.seat] + scored + row_points - shared.best_rival
    return [declares, phase2, row_points, float(sum([len(r) for r in rows])), float(scored),
            float(powers[0]), float(powers[1]), float(len(hand)), needed,
            max(0.0, needed - left), max(0.0, left - needed), float(fitting), keep,
            float(sum(1 for r in rows if r)), float(sum([r[-1] for r in rows if r])),
            late * row_points, phase2 * powers[0], (1 - phase2) * late * powers[0],
            float(max(0, paid - scored)) if scored else 0.0, float(exchanged),
            declares * left, lead, declares * lead, pace, declares * pace,
            shared.rivals_in_2, exchanged * pace]


Scorer = Callable[[list[list[float]]], int]
"""The index of the best of a position's candidates, given their features (the plan's
choice first)."""


def scorer(weights: Any) -> Scorer:
    """The network of ``weights`` (a mapping of arrays, as ``numpy.load`` reads the
    ``.npz`` file that ``distill_study.py train`` saves) as a ``Scorer``."""
    mean, scale = weights["mean"], weights["scale"]
    w0, b0, w1, b1 = weights["w0"].T, weights["b0"], weights["w1"][0], weights["b1"][0]

    def best(rows: list[list[float]]) -> int:
        x = np.array(rows, dtype=np.float32)
        first = np.zeros((len(rows), 1), dtype=np.float32)
        first[0] = 1.0
        x = (np.hstack([x, x - x[0], first]) - mean) / scale
        return int(np.argmax(np.tanh(x @ w0 + b0) @ w1 + b1))

    return best


def load(path: str) -> Scorer:
    """The network saved at ``path`` (an ``.npz`` file)."""
    with np.load(path) as saved:
        return scorer({name: saved[name] for name in saved.files})



def pick(state: GameState, best: Scorer) -> Action:
    """The network's move at ``state``: the plan's at the mulligan, the one candidate if
    there is only one."""
    options = turn_candidates(state)
    if state.stage == MULLIGAN or len(options) == 1:
        return options[0]
    shared = table(state)
    return options[best([move_features(state, action, shared) for action in options])]


def chooser(best: Scorer) -> Callable[[GameState, Random], Action]:
    """The network as a policy of actions, for a seat of a game or a study."""
    return lambda state, _rng: pick(state, best)

