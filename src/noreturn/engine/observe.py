"""What each seat observes of an event: the one gate for hidden information in events.

``view(state, seat)`` says what a seat may see of a state; this module is its twin for the
things that happen between states (docs/rules.md, "What each player may see"). The table's
log, the OpenSpiel observation strings, the server's replays and the records' accounts all
tell events from what ``observe`` returns, so the rule "who may see which tile of an
event" is written once, here, and a front end cannot get it wrong by passing a flag.

An ``Event`` is what happened, in full: a ``PublicPart`` that every seat and spectator
observes (who, what kind, how many tiles, and the tiles the rules show to all: placed
tiles, a SCORE's row tiles and payment) and the ``hidden`` tiles that only the actor may
see (the tiles drawn or dealt, set aside at the mulligan, or exchanged). ``observe(event,
observer)`` is the gate, in the spirit of OpenSpiel's observers: an ``EventView`` whose
``private`` part is filled only for the actor. Everything is data, so the words for an
event (``noreturn.text.narrate``) and any other rendering start from the same facts, and the
gate is tested once for every kind of event (tests/engine/test_observe.py).

Never hand an ``Event`` to a seat: give it ``observe(event, seat)``, as a seat is given
``view(state, seat)`` and never the state.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum

from noreturn.engine.actions import (
    Action,
    Declare,
    Draw,
    Exchange,
    Mulligan,
    Pass,
    Place,
    Score,
)
from noreturn.engine.errors import NoReturnError
from noreturn.engine.state import DEAL, GameState
from noreturn.engine.tiles import colour_of, make_tiles


class EventKind(StrEnum):
    """What kind of thing happened; the values are the record format's event types
    (docs/record-format.md), plus ``start``: the chance event that picks the first seat."""

    START = "start"
    DEAL = "deal"
    MULLIGAN = "mulligan"
    DECLARE = "declare"
    PLACE = "place"
    EXCHANGE = "exchange"
    SCORE = "score"
    PASS = "pass"
    DRAW = "draw"


HIDING_KINDS = frozenset({EventKind.DEAL, EventKind.DRAW, EventKind.MULLIGAN,
                          EventKind.EXCHANGE})
"""The kinds whose tiles only the actor sees; every other kind hides nothing."""


@dataclass(frozen=True, slots=True)
class PublicPart:
    """What everyone observes of an event, spectators included.

    Attributes:
        actor: the seat that acted, drew or was dealt (the starting seat for ``START``).
        kind: what happened.
        count: how many tiles the event moved: drawn or dealt, set aside, exchanged,
            placed, or taken from the row by a SCORE (0 for the other kinds). For the
            kinds in ``HIDING_KINDS`` this count is all that others learn.
        colour: the row a PLACE added to or a SCORE took from; None for other kinds.
        placed: the tiles a PLACE added to its row, descending.
        scored: the tiles a SCORE moved from its row to the pile, in the row's order.
        paid: the tiles a SCORE paid with, descending.
    """

    actor: int
    kind: EventKind
    count: int = 0
    colour: int | None = None
    placed: tuple[int, ...] = ()
    scored: tuple[int, ...] = ()
    paid: tuple[int, ...] = ()


@dataclass(frozen=True, slots=True)
class PrivatePart:
    """What only the actor observes of an event: the tiles it hides from the others.

    Attributes:
        tiles: the tiles drawn or dealt (in the order drawn), set aside or exchanged
            (descending).
    """

    tiles: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class EventView:
    """What one observer saw of one event: the event's public part, and its private part
    when this observer may see it (``None`` otherwise, or when the event hides nothing).

    Attributes:
        observer: the seat observing, or None for a spectator.
        public: what everyone observed.
        private: the hidden tiles, for the actor alone.
    """

    observer: int | None
    public: PublicPart
    private: PrivatePart | None

    @property
    def actor(self) -> int:
        """The seat the event is about."""
        return self.public.actor

    @property
    def kind(self) -> EventKind:
        """What happened."""
        return self.public.kind


@dataclass(frozen=True, slots=True)
class Event:
    """One thing that happened, in full: what ``observe`` filters for each observer.

    Attributes:
        public: what everyone observes.
        hidden: the tiles only the actor may see (``()`` when the event hides none), or
            None when they are not known: the past of a world imagined from one seat's
            view (``sample_world``), where the other seats' hidden tiles never existed.
    """

    public: PublicPart
    hidden: tuple[int, ...] | None = ()

    @property
    def actor(self) -> int:
        """The seat the event is about."""
        return self.public.actor

    @property
    def kind(self) -> EventKind:
        """What happened."""
        return self.public.kind

    def in_full(self) -> EventView:
        """The event as its actor saw it, which is all of it (no event hides anything
        from its own actor): for a record's full account and tests, never for a seat
        other than the actor (give it ``observe``)."""
        return observe(self, self.actor)

    def without_hidden(self) -> Event:
        """The same event with its hidden tiles unknown (see ``hidden``)."""
        return Event(self.public, None)


def observe(event: Event, observer: int | None) -> EventView:
    """What ``observer`` (a seat, or None for a spectator) observes of ``event``.

    Everyone observes the public part. The private part is filled only for the actor, and
    only when the event hid tiles and they are known: another seat or a spectator can
    never receive them, whatever the caller (docs/rules.md, "What each player may see").

    Raises:
        NoReturnError: ``observer`` is neither None nor a seat number.
    """
    if observer is not None and (type(observer) is not int or observer < 0):
        raise NoReturnError(f"an observer is a seat number or None, not {observer!r}")
    hidden = event.hidden
    private = PrivatePart(hidden) if hidden and observer == event.public.actor else None
    return EventView(observer, event.public, private)


# ------------------------------------------------------------------- making events
def start_event(seat: int) -> Event:
    """The chance event that makes ``seat`` the starting player (public)."""
    return Event(PublicPart(seat, EventKind.START))


def draw_event(actor: int, tiles: Sequence[int], dealt: bool = False) -> Event:
    """``actor`` drawing ``tiles`` (one run of draws: the deal, a mulligan redraw or a
    refill; ``dealt``: the deal). Others observe only how many."""
    kind = EventKind.DEAL if dealt else EventKind.DRAW
    return Event(PublicPart(actor, kind, len(tiles)), tuple(tiles))


def event_of(state: GameState, action: Action) -> Event:
    """The event of ``action`` by the seat to move in ``state``, which is the state
    *before* the action (a SCORE's row tiles are read there). A ``Draw`` is a run of
    one draw (a deal while the state deals).

    The action is not checked (a records replay tells an event before the engine judges
    it): give a legal one, or the event tells something that did not happen.
    """
    actor = state.to_move
    if isinstance(action, Draw):
        return draw_event(actor, (action.tile,), dealt=state.stage == DEAL)
    if isinstance(action, Mulligan):
        return Event(PublicPart(actor, EventKind.MULLIGAN, len(action.tiles)), action.tiles)
    if isinstance(action, Exchange):
        return Event(PublicPart(actor, EventKind.EXCHANGE, len(action.tiles)), action.tiles)
    if isinstance(action, Place):
        colour = colour_of(action.tiles[0]) if action.tiles else None
        return Event(PublicPart(actor, EventKind.PLACE, len(action.tiles), colour,
                                placed=action.tiles))
    if isinstance(action, Score):
        return Event(_score_part(state, actor, action))
    if isinstance(action, Declare):
        return Event(PublicPart(actor, EventKind.DECLARE))
    if isinstance(action, Pass):
        return Event(PublicPart(actor, EventKind.PASS))
    raise NoReturnError(f"{action!r} is not an action")


def _score_part(state: GameState, actor: int, action: Score) -> PublicPart:
    """A SCORE's public part: its row tiles (the row's last ``count``) and payment; no row
    tiles for a row the game does not have (an unchecked action may name one)."""
    rows = state.rows[actor]
    row = rows[action.row] if 0 <= action.row < len(rows) else []
    scored = tuple(make_tiles(action.row, row[max(len(row) - action.count, 0):]))
    return PublicPart(actor, EventKind.SCORE, action.count, action.row, scored=scored,
                      paid=action.pay)
