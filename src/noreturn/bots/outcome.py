"""What a finished game is worth to one seat: the value every search and rollout here
maximizes (the search bot, medium's switch, the switch advisor, the review).

A win alone is a coarse signal (most sampled worlds end the same way), the margin alone
makes a bot far ahead gamble for a bigger win: the value blends the two, the margin
clipped so that beyond ``MARGIN_SCALE / 2`` points either way only the win counts.
"""

from __future__ import annotations

from noreturn.engine import GameState

MARGIN_SCALE = 60.0
"""Points of margin that count as much as half a win (clipped beyond)."""


def outcome(state: GameState, seat: int) -> tuple[int, float]:
    """A finished game's margin for ``seat`` (its score minus the best other seat's) and
    its share of first place (1, shared 1/k, or 0)."""
    scores = state.scores()
    mine = scores[seat]
    best_other = max(s for i, s in enumerate(scores) if i != seat)
    top = max(scores)
    return mine - best_other, (1.0 / scores.count(top) if mine == top else 0.0)


def reward(state: GameState, seat: int, win_weight: float,
           scale: float = MARGIN_SCALE) -> float:
    """A finished game's value for ``seat``, from 0 to 1; ``scale`` points of margin
    count as half a win (see ``MARGIN_SCALE``)."""
    margin, win = outcome(state, seat)
    scaled = max(-0.5, min(0.5, margin / scale))
    return win_weight * win + (1.0 - win_weight) * (0.5 + scaled)
