"""The switch advisor: at a phase-1 turn, what declaring now is worth against waiting.

No Return's one big decision is when to leave phase 1, and it cannot be taken back. The
advisor answers it the way the search bot weighs any move: it imagines the hidden tiles
(``sample_world``: the other hands and the bag dealt at random from what this seat has not
seen), and in each imagined world plays both lines to the end with the plan (``plan.py``)
in every seat:

- **declare now**: the declaration, then the plan's phase-2 play from this very turn;
- **wait**: the plan's best move that stays in phase 1 this turn (a placement, or an
  exchange), after which the plan switches when its own rule says so.

Both lines meet the same world and the same later draws (common random numbers), so their
difference is measured with far fewer samples than either value alone. Each line's value is
what a player cares about: the expected final margin (own score minus the best other seat's)
and the chance of finishing first. The advice reads only the seat's view: it is the same
whatever the hidden tiles really are.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from random import Random

from noreturn.bots import plan
from noreturn.bots.search import outcome, reward
from noreturn.engine import (
    Declare,
    GameState,
    Stage,
    View,
    playout,
    sample_world,
    to_action,
)
from noreturn.text.lang import _


@dataclass(frozen=True, slots=True)
class Outlook:
    """How one line is expected to end for the advised seat.

    Attributes:
        margin: the mean final margin, own score minus the best other seat's (points).
        win: the chance of finishing first (a shared first place counts as a share).
        value: the mean worth of the game's end as the bots weigh it (``search.reward``
            at ``DECLARE_WIN_WEIGHT``: the win and the margin, clipped, half each), 0 to 1.
    """

    margin: float
    win: float
    value: float


@dataclass(frozen=True, slots=True)
class SwitchAdvice:
    """Declaring now against waiting, measured over ``worlds`` sampled worlds."""

    declare: Outlook
    wait: Outlook
    worlds: int

    @property
    def gain(self) -> float:
        """Points of expected margin that declaring now gains over waiting (negative:
        waiting is better)."""
        return self.declare.margin - self.wait.margin

    @property
    def better(self) -> str:
        """``"declare"`` or ``"wait"``: the line worth more as the bots weigh a game (the
        win and the margin), so that the advice and medium's switch judge alike. By the
        margin alone, declaring "looked better" at 17 of 186 four-player positions near
        the switch where medium waited, most with less chance to win (docs/bots.md)."""
        return "declare" if self.declare.value > self.wait.value else "wait"

    def text(self) -> str:
        """One line for a player: both outlooks and which is better, and how."""
        verdict = (_("declaring now looks better") if self.better == "declare"
                   else _("waiting looks better"))
        best, other = ((self.declare, self.wait) if self.better == "declare"
                       else (self.wait, self.declare))
        gain = f"{abs(self.gain):.0f}"
        if best.margin >= other.margin:  # the margin agrees
            why = _("{verdict} by {gain} points").format(verdict=verdict, gain=gain)
        elif best.win > other.win:  # more wins, a smaller margin on average
            why = _("{verdict}: it wins more often, though by {gain} points less on "
                    "average").format(verdict=verdict, gain=gain)
        else:  # (rare: the clipped margins of its worlds, not their mean, favour it)
            why = verdict
        return _("declare now: margin {declare_margin}, win {declare_win} · wait: margin "
                 "{wait_margin}, win {wait_win} → {why} ({worlds} samples)").format(
            declare_margin=f"{self.declare.margin:+.0f}", declare_win=f"{self.declare.win:.0%}",
            wait_margin=f"{self.wait.margin:+.0f}", wait_win=f"{self.wait.win:.0%}",
            why=why, worlds=self.worlds)


def can_advise(view: View) -> bool:
    """Whether there is a switch to weigh: the seat's own turn in play, in phase 1."""
    return (view.seat is not None and view.my_turn and view.stage is Stage.PLAY
            and view.phases[view.seat] == 1)


def switch_advice(view: View, *, seconds: float = 0.5, worlds: int | None = None,
                  rng: Random | None = None) -> SwitchAdvice | None:
    """Weigh declaring now against waiting for the seat of ``view``; ``None`` when there
    is no switch to weigh (see ``can_advise``).

    The budget is ``worlds`` sampled worlds when given (the same ``rng`` seed then gives
    the same advice), else ``seconds`` of wall clock (at least eight worlds).
    """
    if not can_advise(view):
        return None
    seat = view.seat or 0
    rng = rng or Random()
    deadline = time.perf_counter() + seconds
    sums = {"declare": [0.0, 0.0, 0.0], "wait": [0.0, 0.0, 0.0]}
    count = 0
    while (count < worlds) if worlds is not None else (
            count < 8 or time.perf_counter() < deadline):
        for line, state in zip(("declare", "wait"), both_lines(view, rng), strict=True):
            margin, win = outcome(state, seat)
            sums[line][0] += margin
            sums[line][1] += win
            sums[line][2] += reward(state, seat, DECLARE_WIN_WEIGHT)
        count += 1
    declare, wait = (Outlook(*(total / count for total in sums[k]))
                     for k in ("declare", "wait"))
    return SwitchAdvice(declare, wait, count)


DECLARE_WIN_WEIGHT = 0.5
"""How ``declare_value`` weighs the win against the margin: as the label of the switch fitted
to simulation did (``benchmarks/switch_fit.py``), whose rollouts' switch this is."""


def declare_value(view: View, worlds: int, rng: Random) -> float:
    """What declaring now gains over waiting for ``view``'s seat, as the search values a
    finished game (the win and the margin, ``reward``), over ``worlds`` sampled worlds: the
    switch medium thinks about at three and four players (``planner.py``)."""
    seat = view.seat or 0
    total = 0.0
    for _world in range(worlds):
        declared, waited = both_lines(view, rng)
        total += (reward(declared, seat, DECLARE_WIN_WEIGHT)
                  - reward(waited, seat, DECLARE_WIN_WEIGHT))
    return total / worlds


def both_lines(view: View, rng: Random) -> tuple[GameState, GameState]:
    """One sampled world of ``view``'s seat played to the end both ways, on the same later
    draws: declaring now, and the plan's best move that stays in phase 1 (then the plan in
    every seat). ``rng`` draws the world, then the draws' seed."""
    declared = sample_world(view, rng)
    waited = declared.clone()
    seed = rng.random()
    declared.apply(Declare())
    waited.apply(to_action(plan.decide(waited, plan.params_for(view.rules.players),
                                       may_declare=False)))
    playout(declared, Random(seed), plan.choose)
    playout(waited, Random(seed), plan.choose)
    return declared, waited


__all__ = ["Outlook", "SwitchAdvice", "both_lines", "can_advise", "declare_value",
           "switch_advice"]
