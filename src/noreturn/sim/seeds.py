"""The base seed of a run's deals, when a seat is a program of someone else's.

Every deal of a tournament or study is ``Deck(rules, f"{seed}:{deal}")``: whoever knows
the seed knows every hand and the order of every draw. An ``external:`` bot is a program
that sees its own hand; with a seed a person types (0, 1, 2, ...) it could deal each small
seed itself and find the one whose deal gives it its hand, and then know everything
hidden. So a run with such a seat and no ``--seed`` draws a fresh 63-bit seed, said before
the run (to the person, not to the bots) and kept in results.json, and a small seed given
with one is played as asked, with a warning.
"""

from __future__ import annotations

import secrets
from collections.abc import Sequence

DEFAULT_SEED = 0
"""The seed of a run without ``--seed`` whose bots are all built in: reproducible."""
GUESSABLE_BELOW = 2**32
"""Seeds below this can be searched through by a program that wants to: some four
billion decks, each as cheap to deal as the engine makes it."""


def has_outside_bot(specs: Sequence[str]) -> bool:
    """Whether any spec runs a program (``external:``, also inside another bot's spec)."""
    return any("external:" in spec for spec in specs)


def base_seed(seed: int | None, specs: Sequence[str]) -> tuple[int, str | None]:
    """The seed to deal by, and what to tell the person running the run (None: nothing).

    ``seed`` is the one given (None: none given)."""
    outside = has_outside_bot(specs)
    if seed is None:
        if not outside:
            return DEFAULT_SEED, None
        fresh = secrets.randbits(63)
        return fresh, (f"deals from a fresh seed, {fresh}, since an external bot could "
                       f"rebuild those of a small one; --seed {fresh} plays them again")
    if outside and abs(seed) < GUESSABLE_BELOW:
        return seed, (f"warning: an external bot could rebuild every deal of --seed {seed} "
                      "(a small number) and so know the other hands and the draws to come; "
                      "leave --seed out for a fresh seed")
    return seed, None


__all__ = ["DEFAULT_SEED", "GUESSABLE_BELOW", "base_seed", "has_outside_bot"]
