"""The engine's two gates leak nothing hidden (docs/rules.md, "What each player may see"):
``view(state, seat)`` for states and ``observe(event, seat)`` for events.

The test is by indistinguishability: re-deal everything a seat cannot see (the bag, the
other hands, what the others exchanged or set aside) in another way that agrees with what
it can see, and its view must not change. A control re-deal that changes the seat's own
hand must change its view, so the test is shown able to fail. Events are tested the same
way, for every kind: the event of the same shape in the re-dealt world (other tiles drawn,
set aside or exchanged, the same public tiles) must look the same to every seat but the
actor; a leaky gate planted as a control fails. tests/engine/test_observe.py checks the event
gate against the states around each event.
"""

from __future__ import annotations

import dataclasses
from collections import Counter
from collections.abc import Callable, Iterator
from random import Random

import pytest

from leakkit import own_tile_swaps, positions, redeal, seats
from noreturn.bots.viewjson import view_to_json
from noreturn.engine import (
    Event,
    EventKind,
    EventView,
    Exchange,
    GameState,
    Mulligan,
    Rules,
    View,
    draw_event,
    event_of,
    observe,
    view,
)
from strategies import (
    POLICIES,
    Played,
    hidden_from,
    played_events,
    random_rules,
    sample_positions,
)

REDEALS = 3
VIEW_FIELDS = {
    "rules", "seat", "stage", "start_player", "to_move", "draws_due", "turns", "ending",
    "phases", "rows", "piles", "paid", "hand_counts", "bag_count", "exchanged_counts",
    "mulligan_counts", "scores", "hand", "own_exchanged", "own_mulligan",
    "turns_taken", "turns_left", "declared_turns",
}
"""The fields reviewed for leaks. A new field fails ``test_view_fields_are_reviewed`` until
someone checks that it holds only what its seat may see and adds it here."""
NUMBER_FIELDS = {
    "rules", "seat", "stage", "start_player", "to_move", "draws_due", "turns", "ending",
    "phases", "hand_counts", "bag_count", "exchanged_counts", "mulligan_counts", "scores",
    "turns_taken", "turns_left", "declared_turns",
}
"""Fields of counts and flags: a tuple of counts can equal a tuple of small tile ints by
chance, so the container scan leaves them to the re-deal test."""


@pytest.mark.parametrize("block", range(4))
def test_views_do_not_change_when_hidden_tiles_move(block: int) -> None:
    rng = Random(block)
    redealt = 0
    for state in positions(16, 1000 * block):
        for seat in seats(state):
            seen = view(state, seat)
            for _ in range(REDEALS):
                twin = redeal(state, seat, rng)
                assert view(twin, seat) == seen, f"seat {seat} can tell hidden tiles apart"
                redealt += twin != state
    assert redealt > 100, "the re-deals hardly ever changed a position"


@pytest.mark.parametrize("block", range(3))
def test_a_seat_sees_its_own_hand_change(block: int) -> None:
    """The control: a tile swapped into a seat's hand changes its view, and no view but
    its own and (if the tile came from a hand) that hand's owner's."""
    rng = Random(block)
    changed = 0
    for state, seat, twin, partner in own_tile_swaps(positions(12, 7000 + 1000 * block), rng):
        assert view(twin, seat) != view(state, seat)
        for onlooker in seats(state):
            if onlooker not in (seat, partner):
                assert view(twin, onlooker) == view(state, onlooker)
        changed += 1
    assert changed > 50


@pytest.mark.parametrize("block", range(3))
def test_unseen_is_exactly_what_is_hidden(block: int) -> None:
    for state in positions(16, 20_000 + 1000 * block):
        for seat in seats(state):
            assert view(state, seat).unseen() == hidden_from(state, seat), f"seat {seat}"


def test_view_fields_are_reviewed() -> None:
    assert {f.name for f in dataclasses.fields(View)} == VIEW_FIELDS
    seen = view(sample_positions(Rules(), 5, 1)[0], 0)
    assert not hasattr(seen, "__dict__"), "a View can carry no undeclared attribute"


def containers(value: object) -> Iterator[object]:
    """Every value inside ``value``, containers included, walked recursively."""
    yield value
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        for f in dataclasses.fields(value):
            yield from containers(getattr(value, f.name))
    elif isinstance(value, dict):
        for key, item in value.items():
            yield from containers(key)
            yield from containers(item)
    elif isinstance(value, list | tuple | set | frozenset):
        for item in value:
            yield from containers(item)


def public_collections(state: GameState, seat: int | None) -> set[tuple[int, ...]]:
    """Tile collections ``seat`` may see, as sorted tuples: a secret that happens to equal
    one of them is no leak."""
    seen = [*state.piles, *state.paid]
    seen += [list(r) for rows in state.rows for r in rows]
    if seat is not None:
        seen += [state.hands[seat], state.exchanged[seat], state.mulligan_tiles[seat] or []]
    return {tuple(sorted(c)) for c in seen}


@pytest.mark.parametrize("block", range(2))
def test_view_holds_no_secret_container(block: int) -> None:
    """No field of a view holds the bag, another hand or another seat's removed tiles, and
    none shares an object with the state (which a bot could read or change)."""
    for state in positions(12, 40_000 + 1000 * block):
        owned = {id(x) for x in containers(state.hands) if isinstance(x, list)}
        owned |= {id(state.bag), id(state.aside), id(state.rows), id(state.piles)}
        for seat in seats(state):
            seen = view(state, seat)
            inside = list(containers(seen))
            assert not any(isinstance(x, GameState) for x in inside)
            assert not {id(x) for x in inside if isinstance(x, list)} & owned
            tiled = [getattr(seen, name) for name in sorted(VIEW_FIELDS - NUMBER_FIELDS)]
            shapes = {tuple(sorted(x)) for x in containers(tiled)
                      if isinstance(x, list | tuple) and all(type(t) is int for t in x)}
            shapes -= public_collections(state, seat)
            secrets = [state.bag, state.aside]
            for other in range(state.rules.players):
                if other != seat:
                    secrets += [state.hands[other], state.exchanged[other]]
                    secrets.append(state.mulligan_tiles[other] or [])
            for secret in secrets:
                if len(secret) >= 2:
                    assert tuple(sorted(secret)) not in shapes, f"seat {seat} sees {secret}"


def test_unseen_counts_are_a_counter_of_the_set() -> None:
    """``unseen`` never goes negative and never invents tiles (a sanity bound)."""
    state = sample_positions(Rules(), 3, 1, "rollout")[0]
    for seat in seats(state):
        unseen = view(state, seat).unseen()
        assert isinstance(unseen, Counter)
        assert not unseen - Counter(state.rules.all_tiles())


@pytest.mark.parametrize("block", range(2))
def test_the_json_view_does_not_change_when_hidden_tiles_move(block: int) -> None:
    """What external bots and web clients get (``view_to_json``), the turn counts and the
    declaration fields included, tells no re-deal of hidden tiles apart either."""
    rng = Random(50 + block)
    for state in positions(6, 30_000 + 1000 * block):
        for seat in seats(state):
            seen = view_to_json(view(state, seat))
            assert {"turns_left", "declared_this_turn"} <= set(seen)
            assert view_to_json(view(redeal(state, seat, rng), seat)) == seen


# ------------------------------------------------------------------------- events
Gate = Callable[[Event, "int | None"], EventView]


def leaky_gate(event: Event, observer: int | None) -> EventView:
    """The control: a gate that shows every observer the event in full."""
    return dataclasses.replace(event.in_full(), observer=observer)


def events(count_games: int, seed: int) -> Iterator[Played]:
    """Every event of random games over random variants and the default, by every policy
    (a seat's run of draws is one event, as the logs and records tell it)."""
    for game in range(count_games):
        rules = Rules(players=2 + game % 3) if game % 4 == 0 else random_rules(
            Random(seed + game))
        yield from played_events(rules, seed + game, POLICIES[game % len(POLICIES)])


def redealt_event(played: Played, twin: GameState, rng: Random) -> Event:
    """The event of ``played``'s shape in the re-dealt world ``twin``: its hidden tiles
    drawn from the twin's bag or hand, its public tiles the same."""
    event, actor, action = played.event, played.event.actor, played.action
    count = event.public.count
    if action is None:
        return draw_event(actor, rng.sample(twin.bag, count), event.kind is EventKind.DEAL)
    if isinstance(action, Mulligan | Exchange):
        return event_of(twin, type(action)(tuple(rng.sample(twin.hands[actor], count))))
    return event_of(twin, action)


def event_changes(gate: Gate, count_games: int, seed: int) -> tuple[int, set[EventKind]]:
    """How often an observer other than the actor tells an event from its re-dealt twin
    through ``gate``, and the kinds of event tried."""
    rng = Random(seed)
    changed, kinds = 0, set[EventKind]()
    for played in events(count_games, seed):
        kinds.add(played.event.kind)
        for observer in seats(played.before):
            if observer == played.event.actor:
                continue
            twin = redealt_event(played, redeal(played.before, observer, rng), rng)
            changed += gate(twin, observer) != gate(played.event, observer)
    return changed, kinds


@pytest.mark.parametrize("block", range(2))
def test_event_views_do_not_change_when_hidden_tiles_move(block: int) -> None:
    changed, kinds = event_changes(observe, 10, 60_000 + 1000 * block)
    assert not changed, "a seat tells apart events that differ only in hidden tiles"
    assert kinds >= set(EventKind) - {EventKind.START, EventKind.PASS}


def test_a_leaky_event_gate_is_caught() -> None:
    changed, _ = event_changes(leaky_gate, 4, 61_000)
    assert changed > 50


def event_secrets(gate: Gate, count_games: int, seed: int) -> int:
    """How many secret tile collections of the state after an event (the bag, another
    hand, another seat's exchanged or set-aside tiles) an observer finds, whole, in what
    ``gate`` gives it of the event, besides collections it may see anyway (a secret can
    equal one of them by chance: copies of a tile are interchangeable)."""
    found = 0
    for played in events(count_games, seed):
        state = played.after
        for seat in seats(state):
            inside = containers(gate(played.event, seat))
            shapes = {tuple(sorted(x)) for x in inside
                      if isinstance(x, list | tuple) and all(type(t) is int for t in x)}
            shapes -= public_collections(state, seat)
            if seat == played.event.actor:  # its own hidden tiles are its to see
                shapes.discard(tuple(sorted(played.event.hidden or ())))
            secrets = [state.bag, state.aside]
            for other in range(state.rules.players):
                if other != seat:
                    secrets += [state.hands[other], state.exchanged[other]]
                    secrets.append(state.mulligan_tiles[other] or [])
            found += sum(len(s) >= 2 and tuple(sorted(s)) in shapes for s in secrets)
    return found


@pytest.mark.parametrize("block", range(2))
def test_event_views_hold_no_secret_container(block: int) -> None:
    assert not event_secrets(observe, 8, 70_000 + 1000 * block)


def test_the_event_scan_catches_a_leaky_gate() -> None:
    assert event_secrets(leaky_gate, 4, 71_000) > 10
