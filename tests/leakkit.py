"""Re-deals of what a seat cannot see, for the no-leak tests (``test_leak.py``) and the
learning interfaces' observation tests (``rl/test_rl_features.py``).

``redeal`` shuffles every tile hidden from a seat among the hidden places, keeping every
count and everything the seat has seen: its view must not change. ``swap_own_tile`` is
the control, a re-deal that changes the seat's own hand, which its view must show.
``positions`` gives states of every stage to try them on.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from random import Random

from noreturn.engine import MULLIGAN, GameState, Rules
from strategies import POLICIES, game_positions, hidden_from, random_rules, tile_places


def seats(state: GameState) -> list[int | None]:
    """Every seat, and None for a spectator."""
    return [*range(state.rules.players), None]


def redeal(state: GameState, seat: int | None, rng: Random) -> GameState:
    """A copy of ``state`` with the tiles hidden from ``seat`` shuffled among hidden places.

    Every count stays (bag, hand sizes, how many each seat exchanged or set aside), and so
    does everything ``seat`` has seen; the set-aside pool stays the seat's own tiles plus
    the others' while the mulligan runs. After the mulligan, the others' set-aside tiles
    are history (they went back to the bag), so any tiles of the set will do.
    """
    other = state.clone()
    pool = list(hidden_from(state, seat).elements())
    rng.shuffle(pool)

    def take(count: int) -> list[int]:
        return [pool.pop() for _ in range(count)]

    other.bag = take(len(state.bag))
    others = [s for s in range(state.rules.players) if s != seat]
    for s in others:
        other.hands[s] = take(len(state.hands[s]))
        other.exchanged[s] = take(len(state.exchanged[s]))
    in_mulligan = state.stage == MULLIGAN
    own = state.mulligan_tiles[seat] if seat is not None else None
    other.aside = list(own) if in_mulligan and own else []
    for s in others:
        chosen = state.mulligan_tiles[s]
        if chosen is None:
            continue
        if in_mulligan:
            drawn = take(len(chosen))
            other.mulligan_tiles[s] = drawn
            other.aside += drawn
        else:
            other.mulligan_tiles[s] = rng.sample(state.rules.all_tiles(), len(chosen))
    assert not pool, "the re-deal must place every hidden tile"
    assert tile_places(other) == tile_places(state)
    return other


def swap_own_tile(
    state: GameState, seat: int, rng: Random
) -> tuple[GameState, int | None] | None:
    """A copy where one tile of ``seat``'s hand trades places with a tile of another kind
    from the bag or another hand, and that hand's seat (None: the bag); None if there is
    no such pair."""
    other = state.clone()
    owners: list[int | None] = [None, *(s for s in range(state.rules.players) if s != seat)]
    places = [other.bag if s is None else other.hands[s] for s in owners]
    hidden = {t for p in places for t in p}
    pairs = [(h, t) for h in sorted(set(state.hands[seat])) for t in sorted(hidden) if t != h]
    if not pairs:
        return None
    mine, theirs = rng.choice(pairs)
    where = next(i for i, p in enumerate(places) if theirs in p)
    places[where][places[where].index(theirs)] = mine
    other.hands[seat][other.hands[seat].index(mine)] = theirs
    return other, owners[where]


def own_tile_swaps(
    states: Iterable[GameState], rng: Random
) -> Iterator[tuple[GameState, int, GameState, int | None]]:
    """For every seat of every state with a tile to swap: ``(state, seat, twin, partner)``
    from ``swap_own_tile`` (the control re-deal of the no-leak tests)."""
    for state in states:
        for seat in range(state.rules.players):
            swapped = swap_own_tile(state, seat, rng)
            if swapped is not None:
                yield state, seat, *swapped


def positions(count_games: int, seed: int) -> Iterator[GameState]:
    """Positions of every stage from random games over random variants and the default:
    a sample of each game, plus a few from its mulligan once tiles are set aside (few in a
    sample, and the only time the set-aside pool is not empty)."""
    for game in range(count_games):
        rules = Rules() if game % 4 == 0 else random_rules(Random(seed + game))
        played = game_positions(rules, seed + game, POLICIES[game % len(POLICIES)])
        rng = Random(seed + game)
        yield from rng.sample(played, min(25, len(played)))
        yield from [p for p in played if p.aside][:4]
