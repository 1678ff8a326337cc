"""The ``declare-at`` bot: another bot made to leave phase 1 at a set trigger, no sooner.

No Return's big question is when to declare. To measure it (``noreturn study switch``)
the same bot is made to declare at a given moment and compared with itself left free. The
wrapper changes nothing but the declaration:

- before its trigger holds, declaring is taken out of the legal actions the inner bot is
  offered, so it plays its best move that stays in phase 1 (the plan reads it so:
  ``planner.PlanBot``; the search bot searches only what is offered);
- at its first own phase-1 turn on which the trigger holds, it declares, whatever the
  inner bot would do; after that (phase 2) the inner bot plays every decision.

The triggers (``Trigger``), all read from the seat's own view at the start of its turn:

- ``bag=X``: the bag holds at most X tiles;
- ``turns=T``: the plan's own estimate of the turns left (``plan.turns_left``, the clock
  the plan declares by) is at most T;
- ``points=P``: the tiles in the seat's own rows add up to at least P points.

Without a trigger the wrapper only watches: it lets the inner bot play as it likes and
notes where it declared, so that the free bot's switch can be set beside the study's.
Either way ``declared`` says where the declaration happened (``None``: never, as when the
game ended before the trigger held).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from random import Random

from noreturn.bots import plan
from noreturn.bots.base import (
    Bot,
    BotSpecError,
    Budget,
    budget_of,
    make_bot,
    parse_options,
    register,
)
from noreturn.engine import Action, Declare, View, sample_world

TRIGGER_KINDS = ("bag", "turns", "points")
"""The kinds of trigger, in the order the study reports them."""

TRIGGER_TEXT = {
    "bag": "the bag holds at most {value:g} tiles",
    "turns": "the plan's estimate of the turns left is at most {value:g}",
    "points": "the own rows hold at least {value:g} points",
}
"""Each trigger in words, for help texts, tables and plots."""


@dataclass(frozen=True, slots=True)
class Trigger:
    """When a restricted bot must declare: ``kind`` (``TRIGGER_KINDS``) and its value."""

    kind: str
    value: float

    def __post_init__(self) -> None:
        """Refuse a trigger that cannot be read, with the fix in the message.

        Raises:
            BotSpecError: an unknown kind, or a negative value.
        """
        if self.kind not in TRIGGER_KINDS:
            raise BotSpecError("trigger {name}: use one of {keys} (e.g. bag=40, turns=8, "
                               "points=60)",
                               {"name": repr(self.kind), "keys": ", ".join(TRIGGER_KINDS)})
        if not self.value >= 0:
            raise BotSpecError("trigger {key}={value}: the value must be 0 or more (tiles in "
                               "the bag, turns left or points in the rows)",
                               {"key": self.kind, "value": format(self.value, "g")})

    def holds(self, view: View) -> bool:
        """Whether the trigger holds for the seat of ``view`` now."""
        reading = measure(view, self.kind)
        return reading >= self.value if self.kind == "points" else reading <= self.value

    @property
    def label(self) -> str:
        """Short text: ``bag<=40``, ``turns<=8``, ``points>=60``."""
        sign = ">=" if self.kind == "points" else "<="
        return f"{self.kind}{sign}{self.value:g}"

    def text(self) -> str:
        """The trigger in words."""
        return TRIGGER_TEXT[self.kind].format(value=self.value)


def measure(view: View, kind: str) -> float:
    """What a trigger of ``kind`` reads in ``view``, for the seat of the view: the bag's
    tiles, the plan's turns left, or the points in the seat's own rows."""
    if kind == "bag":
        return float(view.bag_count)
    if kind == "points":
        return float(sum(sum(row) for row in view.rows[view.seat or 0]))
    # the plan's clock reads only public counts, so any world of the view gives the same
    state = sample_world(view, Random(0))
    return plan.turns_left(state, plan.params_for(view.rules.players))


@dataclass(frozen=True, slots=True)
class Declared:
    """Where a seat declared: the turn (all seats' turns so far), and what each trigger
    read at that moment (bag tiles, the plan's turns left, points in the own rows)."""

    turn: int
    bag: int
    turns_left: float
    points: int


class DeclareAt:
    """``inner`` made to declare at ``trigger`` (see the module docstring); without a
    trigger it plays as ``inner`` and only notes where it declared."""

    def __init__(self, inner: Bot, trigger: Trigger | None) -> None:
        self.inner = inner
        self.trigger = trigger
        self.name = inner.name if trigger is None else f"{inner.name}@{trigger.label}"
        self.declared: Declared | None = None

    @property
    def budget(self) -> Budget | None:
        """The inner bot's budget (``Bot.budget``): the wrapper thinks as long as it does,
        so a server schedules a wrapped search bot as a search bot."""
        return budget_of(self.inner)

    def start_game(self, seat: int, names: Sequence[str]) -> None:
        """Pass the start of a game on to the inner bot, if it listens (``Bot``)."""
        start = getattr(self.inner, "start_game", None)
        if callable(start):
            start(seat, names)

    def end_game(self, final_view: View) -> None:
        """Pass the end of a game on to the inner bot, if it listens (``Bot``)."""
        end = getattr(self.inner, "end_game", None)
        if callable(end):
            end(final_view)

    def act(self, view: View, legal: Sequence[Action], rng: Random) -> Action:
        """Declare when the trigger first holds; before, the inner bot's choice among the
        legal actions without the declaration; after (or with no choice), its choice."""
        declare = next((a for a in legal if isinstance(a, Declare)), None)
        if declare is None:
            return self.inner.act(view, legal, rng)
        if self.trigger is None:
            action = self.inner.act(view, legal, rng)
        elif self.trigger.holds(view):
            action = declare
        else:
            return self.inner.act(view, [a for a in legal if a is not declare], rng)
        if isinstance(action, Declare):
            self.declared = Declared(view.turns, view.bag_count, measure(view, "turns"),
                                     int(measure(view, "points")))
        return action


def _declare_at(options: str) -> DeclareAt:
    """``declare-at:bag=40`` (one trigger), with ``bot=NAME`` the bot to restrict (a
    registered name or level without options; default ``medium``)."""
    values = parse_options(options, {"bag": float, "turns": float, "points": float,
                                     "bot": str})
    inner = str(values.pop("bot", "medium"))
    if len(values) != 1:
        raise BotSpecError("declare-at takes one trigger: bag=X, turns=T or points=P "
                           "(e.g. declare-at:bag=40,bot=medium)")
    [(kind, value)] = values.items()
    return DeclareAt(make_bot(inner), Trigger(kind, float(value)))


register("declare-at", "another bot made to declare at a trigger: declare-at:bag=40, "
                       "turns=8 or points=60, bot=medium")(_declare_at)

__all__ = ["TRIGGER_KINDS", "TRIGGER_TEXT", "DeclareAt", "Declared", "Trigger", "measure"]
