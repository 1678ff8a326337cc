"""What the other seats' public play says about their hands: weights for ``sample_world``.

A search that deals the unseen tiles uniformly imagines rivals who hold whatever the bag
holds. Real hands are not like that: a player still building (phase 1) has put the tiles
that fit its rows on them, so it holds fewer such tiles than a uniform deal gives it, and
keeps more high tiles of colours it has not started (for payments and for rows to come).
In the plan's own games with four players a phase-1 hand held 0.57-0.83 times the uniform
share of tiles that fit its rows and 1.3-1.4 times the share of mid and high tiles of
colours without a row; with two players it held 1.75 times the share of high tiles above
its rows and 0.4-0.6 of the low ones it cannot use. After the switch a hand is close to
uniform (0.85-1.16), so a phase-2 hand is dealt uniformly.

The weights are those ratios: ``python benchmarks/hand_model.py --players P --games G``
measures them (the plan's hands against uniform deals of the same views, by the tile's
class: where it stands to the rival's row of its colour, and its value band) and prints
this table. A class's weight makes each of its tiles that many times as likely to be in
the rival's hand as a uniform deal would (``sample_world``'s ``hand_weights``).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from noreturn.engine import TILE_COLOUR, TILE_LIMIT, TILE_VALUE, Stage, View, row_limit

Classes = tuple[tuple[float, float, float], tuple[float, float, float],
                tuple[float, float, float]]
"""Weights by class, each by value band (low, mid, high): tiles that fit the rival's row
of their colour, tiles above it, tiles of a colour the rival has no row of."""

PHASE1_WEIGHTS: dict[int, Classes] = {
    2: ((0.65, 0.72, 0.68), (0.42, 0.98, 1.75), (0.61, 1.56, 1.24)),
    3: ((0.66, 0.68, 0.53), (0.78, 0.89, 1.04), (1.15, 1.19, 1.30)),
    4: ((0.68, 0.57, 0.83), (0.74, 0.71, 0.67), (0.95, 1.30, 1.37)),
}
"""Measured on 2026-12-06 in the plan's self-play (``hand_model.py``: 200 games with two
players, 150 with three and four), a phase-1 rival's hand against uniform deals."""

FITS, ABOVE, NO_ROW = 0, 1, 2


def value_band(value: int, max_value: int) -> int:
    """0, 1 or 2: a low, mid or high value (1-4, 5-8, 9-11 with the standard tiles)."""
    return min(2, 3 * (value - 1) // max_value)


def tile_class(tile: int, rows: Sequence[Sequence[int]]) -> int:
    """``FITS``, ``ABOVE`` or ``NO_ROW``: where ``tile`` stands to the row of its colour."""
    row = rows[TILE_COLOUR[tile]]
    if not row:
        return NO_ROW
    return FITS if TILE_VALUE[tile] <= row_limit(row) else ABOVE


def rival_weights(view: View, rival: int, unseen: Iterable[int]) -> list[float] | None:
    """Each tile's weight for ``rival``'s hand (indexed by tile; ``unseen``: the tiles that
    may be in it), or None: deal it uniformly (a phase-2 hand, the mulligan, or a table size
    the model was not measured for: it was measured in play)."""
    table = PHASE1_WEIGHTS.get(view.rules.players)
    if table is None or view.stage is not Stage.PLAY or view.phases[rival] != 1:
        return None
    rows = view.rows[rival]
    top = view.rules.max_value
    weights = [1.0] * TILE_LIMIT
    for tile in unseen:
        weights[tile] = table[tile_class(tile, rows)][value_band(TILE_VALUE[tile], top)]
    return weights


def hand_weights(view: View) -> dict[int, list[float]]:
    """The weights of every other seat whose hand the model leans (``rival_weights``)."""
    unseen = list(view.unseen())
    leaning: dict[int, list[float]] = {}
    for rival in range(view.rules.players):
        if rival != view.seat and (weights := rival_weights(view, rival, unseen)) is not None:
            leaning[rival] = weights
    return leaning
