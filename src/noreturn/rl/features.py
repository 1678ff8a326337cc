"""What a learning agent gets: an observation tensor, an action mask and the reward.

Shared by the PettingZoo, Gymnasium and OpenSpiel interfaces so that all three agree on
every number (docs/rl.md describes them for people).

* The **observation** is built from a ``View`` only, never from the ``GameState``, so it
  holds exactly what that seat may see: the view gate of the engine is the one place that
  decides what is hidden. Seats are numbered relative to the observer (0 = itself, 1 = the
  next seat to play, ...), so one network can play any seat.
* The **action ids** are the engine's dense encoding (``noreturn.engine.encoding``) without
  the chance draws: ``player_action_count(rules)`` ids, fixed for a variant.
* The **reward** is the final score difference: a seat's score minus the mean score of the
  other seats. With two players that is plain "mine minus yours"; with more it still sums
  to zero over the table, so every game is zero-sum.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from functools import lru_cache

import numpy as np
import numpy.typing as npt

from noreturn.engine import (
    GameState,
    Rules,
    Stage,
    View,
    colour_of,
    encode_actions,
    layout,
    legal_actions,
    tiles_value,
    value_of,
)

SEAT_SCALARS = 9
"""Per seat: phase 2, to move, hand count, exchanged count, mulligan done, mulligan count,
score, row sum, pile sum."""
GLOBAL_SCALARS = len(Stage) + 4
"""The stage (one-hot), bag count, last round flag, draws due, turns."""

Observation = npt.NDArray[np.float32]
Mask = npt.NDArray[np.int8]


def player_action_count(rules: Rules) -> int:
    """How many action ids a player can choose from in ``rules`` (chance draws excluded)."""
    return layout(rules).draw


def chance_outcome_count(rules: Rules) -> int:
    """How many distinct tiles a draw can bring: one chance outcome per tile kind."""
    return rules.colors * rules.max_value


def tile_index(rules: Rules, tile: int) -> int:
    """The position of ``tile`` among the kinds of ``rules``: colour-major, value-minor."""
    return colour_of(tile) * rules.max_value + value_of(tile) - 1


@dataclass(frozen=True, slots=True)
class ObservationLayout:
    """Where each part sits in the flat observation tensor of one variant.

    Tile planes hold, per tile kind (``tile_index``), the count divided by ``copies``:
    the own hand, the own exchanged tiles, the own set-aside tiles, the tiles still unseen,
    then per relative seat its rows, score pile and paid tiles. Then per relative seat
    ``SEAT_SCALARS`` numbers, then ``GLOBAL_SCALARS``. Every entry lies in [-1, 1].
    """

    kinds: int
    players: int
    own_planes: int = 4
    seat_planes: int = 3

    @property
    def seat_planes_start(self) -> int:
        """Index of the first per-seat tile plane."""
        return self.own_planes * self.kinds

    @property
    def scalars_start(self) -> int:
        """Index of the first per-seat scalar."""
        return self.seat_planes_start + self.players * self.seat_planes * self.kinds

    @property
    def globals_start(self) -> int:
        """Index of the first global scalar."""
        return self.scalars_start + self.players * SEAT_SCALARS

    @property
    def size(self) -> int:
        """The length of the tensor."""
        return self.globals_start + GLOBAL_SCALARS


@lru_cache(maxsize=64)
def observation_layout(rules: Rules) -> ObservationLayout:
    """The observation layout of ``rules``."""
    return ObservationLayout(kinds=chance_outcome_count(rules), players=rules.players)


def observation_size(rules: Rules) -> int:
    """The length of the observation tensor of ``rules``."""
    return observation_layout(rules).size


def total_points(rules: Rules) -> int:
    """The sum of the values of every tile of the set."""
    return rules.colors * rules.copies * rules.max_value * (rules.max_value + 1) // 2


@lru_cache(maxsize=64)
def _scales(rules: Rules) -> tuple[float, float, float]:
    """Divisors that bring scores, tile counts and turns into [-1, 1]."""
    return float(total_points(rules)), float(rules.tile_count), float(max_turns(rules))


def max_turns(rules: Rules) -> int:
    """An upper bound on the turns of a game.

    Every turn but a pass takes at least one tile out of the hand for good, so there are
    at most ``tile_count`` of them; a pass happens only when nothing else is legal, which
    a full hand never allows, and the round completed after the bag runs empty adds at
    most one turn per seat.
    """
    return rules.tile_count + rules.players


def clear_to_move(tensor: Observation, rules: Rules) -> None:
    """Set every seat's "to move" entry of an observation ``tensor`` to 0 (in place): at
    OpenSpiel's first chance node, which chooses who starts, nobody is to move yet. A
    tensor cut short before the seats' scalars (a private-only observer's) is left."""
    lay = observation_layout(rules)
    for rel in range(rules.players):
        at = lay.scalars_start + rel * SEAT_SCALARS + 1  # (after "phase 2")
        if at < tensor.size:
            tensor[at] = 0.0


def observation_tensor(seen: View) -> Observation:
    """The flat float32 tensor of a seat's ``View`` (layout in ``ObservationLayout``).

    Raises:
        ValueError: ``seen`` is a spectator's view (an agent always sits at a seat).
    """
    if seen.seat is None or seen.hand is None:
        raise ValueError("an observation belongs to a seat: pass view(state, seat), not None")
    rules = seen.rules
    lay = observation_layout(rules)
    points, tiles, turns = _scales(rules)
    out = np.zeros(lay.size, dtype=np.float32)
    kinds, copies = lay.kinds, float(rules.copies)

    def plane(start: int, tiles_in: Iterable[int]) -> None:
        for tile in tiles_in:
            out[start + tile_index(rules, tile)] += 1.0 / copies

    plane(0, seen.hand)
    plane(kinds, seen.own_exchanged)
    plane(2 * kinds, seen.own_mulligan or ())
    for tile, count in seen.unseen().items():
        out[3 * kinds + tile_index(rules, tile)] = count / copies
    n = rules.players
    for rel in range(n):
        seat = (seen.seat + rel) % n
        base = lay.seat_planes_start + rel * lay.seat_planes * kinds
        for colour, row in enumerate(seen.rows[seat]):
            for value in row:
                out[base + colour * rules.max_value + value - 1] += 1.0 / copies
        plane(base + kinds, seen.piles[seat])
        plane(base + 2 * kinds, seen.paid[seat])
        mulligan = seen.mulligan_counts[seat]
        row_sum = sum(sum(r) for r in seen.rows[seat])
        pile_sum = tiles_value(seen.piles[seat])
        first = lay.scalars_start + rel * SEAT_SCALARS
        out[first:first + SEAT_SCALARS] = (
            seen.phases[seat] == 2,
            seat == seen.to_move and not seen.is_over,
            seen.hand_counts[seat] / rules.hand_size,
            seen.exchanged_counts[seat] / tiles,
            mulligan is not None,
            (mulligan or 0) / rules.hand_size,
            seen.scores[seat] / points,
            row_sum / points,
            pile_sum / points,
        )
    glob = lay.globals_start
    out[glob + seen.stage] = 1.0  # a Stage is its own index: DEAL 0 ... OVER 3
    out[glob + len(Stage):] = (
        seen.bag_count / tiles, seen.ending, seen.draws_due / rules.hand_size,
        min(seen.turns / turns, 1.0),
    )
    return out


def action_mask(state: GameState) -> Mask:
    """1 at the id of every legal action of the player to move, 0 elsewhere (int8).

    All zeros at a chance node or when the game is over: no player decides there.
    """
    mask = np.zeros(player_action_count(state.rules), dtype=np.int8)
    mask[legal_ids(state)] = 1
    return mask


def legal_ids(state: GameState) -> list[int]:
    """The ids of the legal actions of the player to move, ascending (empty at chance)."""
    if state.is_chance() or state.is_over():
        return []
    return encode_actions(state, legal_actions(state))


def rewards(state: GameState) -> list[float]:
    """Each seat's final score minus the mean score of the others (zero until the end)."""
    if not state.is_over():
        return [0.0] * state.n
    scores = state.scores()
    total = sum(scores)
    return [float(s - (total - s) / (state.n - 1)) for s in scores]
