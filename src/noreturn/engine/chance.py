"""A secret order for the bag: where a table's draws come from, and how an undo re-seeds it.

The state's own bag has no order that means anything (``GameState.bag``); a table that
wants one game per seed keeps the order here instead, drawn from the top. Tiles that go
back into the bag later (the set-aside mulligan tiles) go in at random places, as the rules
shuffle them in.

``reshuffled`` is what makes undo fair: a person who took a move back has seen the tiles
that move drew, so the bag they draw from next must be ordered afresh by a new secret seed.
Only the order changes, never which tiles are in the bag, so the game stays the same game
and its record stays valid.
"""

from __future__ import annotations

from collections.abc import Iterable
from random import Random

from noreturn.engine.actions import Draw
from noreturn.engine.state import GameState


class ShuffledBag:
    """The bag's tiles in one secret order, drawn from the top (the end of ``order``)."""

    def __init__(self, tiles: Iterable[int], rng: Random) -> None:
        """Shuffle ``tiles`` with ``rng``, which also places tiles coming back later."""
        self.rng = rng
        self.order = list(tiles)
        rng.shuffle(self.order)

    def next_draw(self, state: GameState) -> Draw:
        """The next tile for ``state``; set-aside tiles are shuffled back first when due."""
        if len(self.order) < len(state.bag):  # tiles came back from the mulligan
            for tile in _missing(state.bag, self.order):
                self.order.insert(self.rng.randrange(len(self.order) + 1), tile)
        return Draw(self.order.pop())


def reshuffled(state: GameState, seed: int | str) -> ShuffledBag:
    """The tiles in ``state``'s bag now, in a fresh order given by ``seed`` alone.

    Whatever order came before (and whatever a player saw of it) says nothing about this
    one; the bag's content is ``state.bag``'s, tile for tile.
    """
    return ShuffledBag(sorted(state.bag), Random(f"reshuffle:{seed}"))


def _missing(bag: list[int], order: list[int]) -> list[int]:
    """Tiles in ``bag`` but not in ``order`` (multiset difference), ascending."""
    rest = sorted(bag)
    for tile in order:
        rest.remove(tile)
    return rest
