"""The simplest opponents: ``random`` and ``greedy``.

``greedy`` looks one action ahead with a plain evaluation (``evaluate.action_values``): the
immediate change of its score plus a little credit for rows it can still score. It plays
legal, sensible-looking moves without a plan, which makes it the gentle ``easy`` level.
"""

from __future__ import annotations

from collections.abc import Sequence
from random import Random

from noreturn.bots.base import parse_options, register
from noreturn.bots.evaluate import action_values
from noreturn.engine import Action, View


class RandomBot:
    """Uniform over the legal actions."""

    name = "random"

    def act(self, view: View, legal: Sequence[Action], rng: Random) -> Action:
        """Any legal action, each equally likely."""
        return legal[int(rng.random() * len(legal))]


class GreedyBot:
    """The action with the best one-ply value; ties broken at random."""

    name = "greedy"

    def act(self, view: View, legal: Sequence[Action], rng: Random) -> Action:
        """The legal action whose plain evaluation is highest."""
        scores = action_values(view, legal)
        top = max(scores)
        best = [action for action, value in zip(legal, scores, strict=True) if value == top]
        return best[int(rng.random() * len(best))]


@register("random", "uniform over the legal actions")
def _random(options: str) -> RandomBot:
    parse_options(options, {})
    return RandomBot()


@register("greedy", "one-ply: the best immediate change by a plain evaluation")
def _greedy(options: str) -> GreedyBot:
    parse_options(options, {})
    return GreedyBot()
