"""The distilled network of ``distill_study.py`` as a playout policy, fast enough to play a
seat's whole playout.

``distill_study.network`` describes each candidate by cloning the state and applying the
move (``ranker_study.features``), after listing every legal move to check the candidates
against: some 1.5 ms a decision compiled, sixty times the plan's. Here the same features
are computed from the move itself (what it adds to or takes from the rows, the hand, the
pile), the table's part once a decision, and the candidates come from
``search.turn_candidates``, which are legal by construction. The network picks the same
move (``tests/bots/test_studies.py`` compares the features), in a fraction of the time.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from random import Random

import numpy as np

from noreturn.bots import plan
from noreturn.bots.search import Policy as PlayoutPolicy
from noreturn.bots.search import turn_candidates
from noreturn.engine import (
    MULLIGAN,
    TILE_COLOUR,
    TILE_VALUE,
    Action,
    Decision,
    Declare,
    Exchange,
    GameState,
    Place,
    Score,
    colour_sums,
    fits_row,
    tiles_value,
    turns_taken,
)


@dataclass(frozen=True)
class Table:
    """What every candidate of one decision shares: the seat, the plan's turns left and
    constants, the rivals' pace and phases, the best rival's projected score."""

    seat: int
    left: float
    params: plan.Params
    pace: float
    rivals_in_2: float
    best_rival: int


def table(state: GameState) -> Table:
    """The shared part of the features at ``state`` (the seat to move)."""
    seat = state.to_move
    p = plan.params_for(state.rules.players)
    taken_by = turns_taken(state)
    others = [s for s in range(state.n) if s != seat]
    pace = sum(plan.tiles_taken(state, s) / max(1, taken_by[s]) for s in others) / len(others)
    return Table(seat, plan.turns_left(state, p), p, pace,
                 sum(state.phases[s] == 2 for s in others) / len(others),
                 max(plan.projected(state, s) for s in others))


def after_move(state: GameState, action: Action, seat: int
               ) -> tuple[list[list[int]], list[int], int, int, int]:
    """What ``action`` leaves: the rows, the hand, and the points scored, paid and the
    tiles exchanged by it (the refill not counted)."""
    rows = state.rows[seat]
    hand = list(state.hands[seat])
    scored = paid = exchanged = 0
    if isinstance(action, Place):
        colour = TILE_COLOUR[action.tiles[0]]
        rows = [*rows[:colour],
                rows[colour] + sorted((TILE_VALUE[t] for t in action.tiles), reverse=True),
                *rows[colour + 1:]]
        gone: tuple[int, ...] = action.tiles
    elif isinstance(action, Score):
        row = rows[action.row]
        scored, paid = sum(row[-action.count:]), tiles_value(action.pay)
        rows = [*rows[:action.row], row[:-action.count], *rows[action.row + 1:]]
        gone = action.pay
    elif isinstance(action, Exchange):
        gone, exchanged = action.tiles, len(action.tiles)
    else:
        gone = ()
    for tile in gone:
        hand.remove(tile)
    return rows, hand, scored, paid, exchanged


def move_features(state: GameState, action: Action, shared: Table) -> list[float]:
    """``ranker_study.features`` of ``action``, from the move rather than a played copy."""
    rows, hand, scored, paid, exchanged = after_move(state, action, shared.seat)
    p, left, pace = shared.params, shared.left, shared.pace
    powers = [*sorted(colour_sums(hand).values(), reverse=True), 0, 0]
    declares = float(isinstance(action, Declare))
    phase2 = 1.0 if declares or state.phases[shared.seat] == 2 else 0.0
    needed = plan.scoring_turns(rows, powers[0], p.typical)
    keep = sum(plan.keep_value(rows, t, p) for t in hand) if not phase2 else 0.0
    fitting = sum(1 for t in hand if rows[TILE_COLOUR[t]]
                  and fits_row(rows[TILE_COLOUR[t]], TILE_VALUE[t]))
    late = 1.0 - min(left / 12.0, 1.0)
    row_points = sum(map(sum, rows))
    lead = state.pile_sums[shared.seat] + scored + row_points - shared.best_rival
    return [declares, phase2, row_points, sum(map(len, rows)), scored, powers[0], powers[1],
            len(hand), needed, max(0.0, needed - left), max(0.0, left - needed), fitting,
            keep, sum(1 for r in rows if r), sum(r[-1] for r in rows if r),
            late * row_points, phase2 * powers[0], (1 - phase2) * late * powers[0],
            max(0, paid - scored) if scored else 0, exchanged, declares * left, lead,
            declares * lead, pace, declares * pace, shared.rivals_in_2, exchanged * pace]


def scorer(path: str) -> Callable[[list[list[float]]], int]:
    """The saved network (``distill_study.py train``): the index of the best-scored of a
    position's candidates, given their features (the plan's choice first)."""
    saved = np.load(path)
    mean, scale = saved["mean"], saved["scale"]
    w0, b0, w1, b1 = saved["w0"].T, saved["b0"], saved["w1"][0], float(saved["b1"][0])

    def best(rows: list[list[float]]) -> int:
        x = np.array(rows, dtype=np.float32)
        first = np.zeros((len(rows), 1), dtype=np.float32)
        first[0] = 1.0
        x = (np.hstack([x, x - x[0], first]) - mean) / scale
        return int(np.argmax(np.tanh(x @ w0 + b0) @ w1 + b1))

    return best


def pick(state: GameState, best: Callable[[list[list[float]]], int]) -> Action:
    """The network's move at a turn: the plan's at the mulligan, the one candidate if
    there is one."""
    options = turn_candidates(state)
    if state.stage == MULLIGAN or len(options) == 1:
        return options[0]
    shared = table(state)
    return options[best([move_features(state, a, shared) for a in options])]


def fast_policy(path: str, seat: int, decision: Callable[[Action], Decision]
                ) -> PlayoutPolicy:
    """A playout policy: the network for ``seat``, the plan for the others; ``decision``
    turns the network's action into the playout's tuple (``distill_study.decision``)."""
    best = scorer(path)

    def policy(state: GameState, rng: Random) -> Decision:
        if state.to_move == seat and state.stage != MULLIGAN:
            return decision(pick(state, best))
        return plan.choose(state, rng)

    return policy


def chooser(path: str) -> Callable[[GameState, Random], Action]:
    """The network as a policy of actions (``distill_study``'s ``Policy``)."""
    best = scorer(path)
    return lambda state, _rng: pick(state, best)
