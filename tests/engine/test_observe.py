"""The engine's gate for events, ``observe`` (docs/rules.md, "What each player may see").

For every kind of event of many random games (the engine's own random play, 2 to 4
players): everyone observes the public part; a seat other than the actor and a spectator
never receive a hidden tile (drawn or dealt, set aside, exchanged), while the actor does;
and the public part holds only tiles that the spectators' view shows after the event.
What the gate should give is worked out here from the states before and after each
event, not from the gate. The words told from it are tested in tests/text/test_narrate.py,
the no-leak tests by re-dealing in tests/test_leak.py.
"""

from __future__ import annotations

import dataclasses
from collections import Counter
from collections.abc import Iterator
from random import Random
from typing import Any

import pytest

from noreturn.engine import (
    HIDING_KINDS,
    PLAY,
    Event,
    EventKind,
    EventView,
    Exchange,
    GameState,
    Mulligan,
    NoReturnError,
    Pass,
    PrivatePart,
    PublicPart,
    Rules,
    colour_of,
    draw_event,
    event_of,
    make_tiles,
    observe,
    start_event,
    view,
)
from strategies import Played, played_events

SEEDS = range(4)
PLAYERS = (2, 3, 4)
PLAYED_KINDS = set(EventKind) - {EventKind.START, EventKind.PASS}
"""Every kind a game plays. A pass never happens (every turn starts with a full hand) and
the starting seat is chosen before the game: both are made by hand below."""


def games(players: int) -> Iterator[Played]:
    """Every event of several random games of the published size and of a small variant."""
    for seed in SEEDS:
        yield from played_events(Rules(players=players), seed)
        small = Rules(players=players, colors=3, max_value=6, hand_size=4, exchange_limit=3)
        yield from played_events(small, 100 + seed)


def observers(state: GameState) -> list[int | None]:
    """Every seat, and None for a spectator."""
    return [*range(state.n), None]


def gained(before: list[int], after: list[int]) -> Counter[int]:
    """The tiles ``after`` holds beyond ``before``."""
    return Counter(after) - Counter(before)


def hidden_tiles(played: Played) -> Counter[int]:
    """The tiles the event hid, from the states alone: what the actor drew, set aside or
    exchanged (empty for a kind that hides nothing)."""
    before, after, actor = played.before, played.after, played.event.actor
    kind = played.event.kind
    if kind in (EventKind.DEAL, EventKind.DRAW):
        return gained(before.hands[actor], after.hands[actor])
    if kind is EventKind.MULLIGAN:
        return Counter(after.mulligan_tiles[actor] or [])
    if kind is EventKind.EXCHANGE:
        return gained(before.exchanged[actor], after.exchanged[actor])
    return Counter()


def public_after(played: Played) -> PublicPart:
    """The public part the event must have, from the spectators' views around it."""
    before, after = view(played.before, None), view(played.after, None)
    actor, kind = played.event.actor, played.event.kind
    if kind in HIDING_KINDS:
        return PublicPart(actor, kind, sum(hidden_tiles(played).values()))
    if kind is EventKind.PLACE:
        grown = [c for c, row in enumerate(after.rows[actor]) if row != before.rows[actor][c]]
        assert len(grown) == 1
        colour = grown[0]
        values = after.rows[actor][colour][len(before.rows[actor][colour]):]
        return PublicPart(actor, kind, len(values), colour,
                          placed=tuple(make_tiles(colour, values)))
    if kind is EventKind.SCORE:
        scored = gained(list(before.piles[actor]), list(after.piles[actor]))
        paid = gained(list(before.paid[actor]), list(after.paid[actor]))
        colours = {colour_of(t) for t in scored}
        assert len(colours) == 1
        return PublicPart(actor, kind, sum(scored.values()), colours.pop(),
                          scored=tuple(sorted(scored.elements(), reverse=True)),
                          paid=tuple(sorted(paid.elements(), reverse=True)))
    return PublicPart(actor, kind)


def check_event(played: Played) -> None:
    """The gate's promise for one event, for every observer."""
    event = played.event
    hidden = hidden_tiles(played)
    assert event.public == public_after(played), f"{event} against the states around it"
    for observer in observers(played.before):
        seen = observe(event, observer)
        assert seen.public == event.public and seen.observer == observer
        if observer != event.actor:
            assert seen.private is None, f"{observer} sees the hidden tiles of {event}"
        elif hidden:
            assert seen.private is not None and Counter(seen.private.tiles) == hidden
        else:
            assert seen.private is None, f"{event} hides nothing"


@pytest.mark.parametrize("players", PLAYERS)
def test_only_the_actor_observes_hidden_tiles_in_every_kind_of_event(players: int) -> None:
    kinds: Counter[str] = Counter()
    for played in games(players):
        check_event(played)
        kind = played.event.kind
        kinds[kind] += 1
        if kind is EventKind.MULLIGAN:
            kinds["mulligan, kept" if not played.event.public.count else "mulligan, tiles"] += 1
        if kind is EventKind.DRAW:
            kinds[f"draw, {played.before.stage}"] += 1
    assert set(kinds) >= PLAYED_KINDS, f"kinds never played: {PLAYED_KINDS - set(kinds)}"
    for wanted in ("mulligan, kept", "mulligan, tiles", "draw, mulligan", "draw, play"):
        assert kinds[wanted], f"no {wanted} in these games"


def test_a_pass_and_the_start_hide_nothing() -> None:
    """The two kinds a random game does not play, made by hand."""
    played = [p for p in played_events(Rules(), 5) if p.before.stage == PLAY]
    state = played[len(played) // 2].before
    events = [event_of(state, Pass()), start_event(2)]
    assert [e.public for e in events] == [PublicPart(state.to_move, EventKind.PASS),
                                          PublicPart(2, EventKind.START)]
    for event in events:
        for observer in (*range(4), None):
            assert observe(event, observer) == EventView(observer, event.public, None)


@pytest.mark.parametrize("players", PLAYERS)
def test_events_that_differ_only_in_hidden_tiles_look_the_same_to_others(players: int) -> None:
    """The same kind and count of hidden tiles, other tiles: no one but the actor can tell
    the two events apart (the control: the actor can)."""
    rng = Random(players)
    told = 0
    for played in games(players):
        event = played.event
        if not event.hidden:
            continue
        other_tiles = rng.sample(played.before.rules.all_tiles(), len(event.hidden))
        if Counter(other_tiles) == Counter(event.hidden):
            continue
        twin = twin_event(played, tuple(other_tiles))
        for observer in observers(played.before):
            same = observe(twin, observer) == observe(event, observer)
            assert same == (observer != event.actor), f"{observer}: {event} and {twin}"
        told += 1
    assert told > 100


def twin_event(played: Played, tiles: tuple[int, ...]) -> Event:
    """The event of the same kind as ``played``'s with ``tiles`` as its hidden tiles,
    made by the engine as the original was."""
    event = played.event
    if played.action is None:
        return draw_event(event.actor, tiles, dealt=event.kind is EventKind.DEAL)
    kind = Mulligan if isinstance(played.action, Mulligan) else Exchange
    return event_of(played.before, kind(tiles))


def test_the_full_event_and_the_unknown_one() -> None:
    """``in_full`` is the actor's view (for a record's full account); ``without_hidden``
    leaves only the public part, for everyone, the actor included."""
    event = draw_event(1, (33, 34, 66))
    assert event.in_full() == observe(event, 1) == EventView(
        1, PublicPart(1, EventKind.DRAW, 3), PrivatePart((33, 34, 66)))
    unknown = event.without_hidden()
    assert unknown.public == event.public and unknown.hidden is None
    for observer in (0, 1, 2, None):
        assert observe(unknown, observer).private is None


@pytest.mark.parametrize("observer", [-1, "0", True, 1.0])
def test_an_observer_is_a_seat_number_or_none(observer: Any) -> None:
    with pytest.raises(NoReturnError, match="seat number or None"):
        observe(draw_event(0, (33,)), observer)


def test_event_fields_are_reviewed() -> None:
    """A new field fails here until someone checks that ``observe`` gives it only to an
    observer who may see it, and adds it."""
    assert [f.name for f in dataclasses.fields(PublicPart)] == [
        "actor", "kind", "count", "colour", "placed", "scored", "paid"]
    assert [f.name for f in dataclasses.fields(PrivatePart)] == ["tiles"]
    assert [f.name for f in dataclasses.fields(EventView)] == ["observer", "public", "private"]
    assert [f.name for f in dataclasses.fields(Event)] == ["public", "hidden"]
    hiding = {EventKind.DEAL, EventKind.DRAW, EventKind.MULLIGAN, EventKind.EXCHANGE}
    assert hiding == HIDING_KINDS
    seen = observe(draw_event(0, (33,)), 0)
    assert not hasattr(seen, "__dict__") and not hasattr(seen.public, "__dict__")
