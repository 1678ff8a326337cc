"""Shared helpers for the engine's property, brute-force, leak, event-gate, encoding and perft
tests.

Random rules variants (a hypothesis strategy), random games driven by one seeded ``Random``
so that a failing example replays exactly, random well-formed actions (legal or not), and
the bookkeeping the invariants need: where every tile of the set lies, and which tiles a
seat cannot see. Nothing here decides legality: the tests compare the engine against these
plain facts or against their own enumeration.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from random import Random

from hypothesis import strategies as st

from noreturn.engine import (
    DEAL,
    MULLIGAN,
    Action,
    Declare,
    Draw,
    Event,
    Exchange,
    GameState,
    Mulligan,
    Pass,
    Place,
    Rules,
    Score,
    draw_event,
    event_of,
    legal_actions,
    make_tile,
    new_game,
    rollout_action,
)

POLICIES = ("rollout", "uniform", "kinds", "builder", "mixed")
"""How a random game picks player actions.

rollout: the engine's rollout policy; uniform: uniform over ``legal_actions``; kinds: an
action kind (place, score, declare...) uniformly, then an action of that kind uniformly,
which reaches phase 2 and SCORE far more often than ``uniform``; builder: places while it
can, declares once it has rows, then scores while it can (long rows, many SCOREs, the
early end); mixed: one of the others at random on each decision.
"""

WRITABLE_COLOURS = 6
WRITABLE_VALUES = 31
"""Every tile the text form can write (``P31``), whatever the variant: well-formed input."""


@st.composite
def rules_variants(
    draw: st.DrawFn,
    players: tuple[int, int] = (2, 4),
    colors: tuple[int, int] = (1, 6),
    max_value: tuple[int, int] = (2, 11),
    copies: tuple[int, int] = (1, 3),
    hand_size: tuple[int, int] = (1, 8),
    exchange_limit: tuple[int, int] = (1, 4),
) -> Rules:
    """A playable ``Rules`` within the given inclusive ranges.

    The hand size is drawn last, bounded so that the set holds more tiles than
    players x hand_size (the rules refuse anything else).
    """
    c = draw(st.integers(*colors))
    v = draw(st.integers(*max_value))
    k = draw(st.integers(*copies))
    tiles = c * v * k
    top_players = min(players[1], tiles - 1)
    if top_players < players[0]:
        k = copies[1]
        tiles = c * v * k
        top_players = min(players[1], tiles - 1)
    if top_players < players[0]:  # even the most copies are too few: widen the colours
        c = max(c, colors[1])
        tiles = c * v * k
        top_players = min(players[1], tiles - 1)
    n = draw(st.integers(players[0], top_players))
    top_hand = min(hand_size[1], (tiles - 1) // n)
    h = draw(st.integers(min(hand_size[0], top_hand), top_hand))
    e = draw(st.integers(*exchange_limit))
    return Rules(players=n, colors=c, max_value=v, copies=k, hand_size=h, exchange_limit=e)


RANGES = {"players": (2, 4), "colors": (1, 6), "max_value": (2, 11), "copies": (1, 3),
          "hand_size": (1, 8), "exchange_limit": (1, 4)}
SMALL_RANGES = {"players": (2, 4), "colors": (1, 3), "max_value": (3, 5), "copies": (1, 2),
                "hand_size": (2, 5), "exchange_limit": (1, 3)}


def random_rules(rng: Random, small: bool = False) -> Rules:
    """A random playable variant without hypothesis (for loops over many seeds).

    ``small`` keeps to variants whose legal actions a brute force can list quickly.
    """
    while True:
        ranges = SMALL_RANGES if small else RANGES
        values = {name: rng.randint(low, high) for name, (low, high) in ranges.items()}
        if values["colors"] * values["max_value"] * values["copies"] > (
            values["players"] * values["hand_size"]
        ):
            return Rules(**values)


# ------------------------------------------------------------------ random play
DECLARE_CHANCE = 0.15
"""How often ``kinds`` declares when it could do something else: declaring at once with
empty rows would end most games after a turn or two (the early end)."""


def _by_kind(actions: list[Action], rng: Random) -> Action:
    kinds: dict[type, list[Action]] = {}
    for action in actions:
        kinds.setdefault(type(action), []).append(action)
    if len(kinds) > 1 and Declare in kinds:
        if rng.random() < DECLARE_CHANCE:
            return Declare()
        del kinds[Declare]
    group = kinds[rng.choice(sorted(kinds, key=lambda k: k.__name__))]
    return rng.choice(group)


def _builder(state: GameState, actions: list[Action], rng: Random) -> Action:
    seat = state.to_move
    if Declare() in actions and rng.random() < (0.2 if state.rows[seat] != [[]] * len(
        state.rows[seat]) else 0.02):
        return Declare()
    useful = [a for a in actions if isinstance(a, Place | Score)]
    if useful and rng.random() < 0.85:
        return rng.choice(useful)
    return rng.choice([a for a in actions if not isinstance(a, Declare)] or actions)


def choose(state: GameState, rng: Random, policy: str = "mixed") -> Action:
    """An action for ``state`` (a ``Draw`` at a chance node) picked by ``policy``.

    Draws come from ``sample_draw`` (each tile in the bag equally likely), or under
    ``uniform`` sometimes uniformly over the distinct tiles, so rare tiles get drawn too.
    """
    if policy == "mixed":
        policy = rng.choice(POLICIES[:-1])
    if state.is_chance():
        if policy == "uniform" and rng.random() < 0.5:
            return rng.choice(legal_actions(state))
        return state.sample_draw(rng)
    if policy == "rollout":
        return rollout_action(state, rng)
    actions = legal_actions(state)
    if policy == "uniform":
        return rng.choice(actions)
    return _by_kind(actions, rng) if policy == "kinds" else _builder(state, actions, rng)


def play_game(
    rules: Rules,
    seed: int,
    policy: str = "mixed",
    each: Callable[[GameState, Action], None] | None = None,
    limit: int | None = None,
) -> tuple[GameState, list[Action]]:
    """Play a game from the deal with ``Random(seed)``, by the checked ``play``.

    ``each(state, action)`` is called after every action with the state that resulted.
    Stops after ``limit`` actions if given. Returns the final state and the actions.
    """
    rng = Random(seed)
    state = new_game(rules, rng)
    actions: list[Action] = []
    while not state.is_over() and (limit is None or len(actions) < limit):
        action = choose(state, rng, policy)
        state.play(action)
        actions.append(action)
        if each is not None:
            each(state, action)
    return state, actions


def game_positions(rules: Rules, seed: int, policy: str = "mixed") -> list[GameState]:
    """Every position of one random game, from before the deal to the end (copies)."""
    positions: list[GameState] = []
    rng = Random(seed)
    state = new_game(rules, rng)
    positions.append(state.clone())
    while not state.is_over():
        state.apply(choose(state, rng, policy))
        positions.append(state.clone())
    return positions


@dataclass(frozen=True)
class Played:
    """One event of a random game, as the logs tell it, with the states around it.

    ``action`` is the player's action, or None for a run of draws (a deal, a mulligan
    redraw, a refill), which is one event as in the logs and records.
    """

    before: GameState
    action: Action | None
    event: Event
    after: GameState


def played_events(rules: Rules, seed: int, policy: str = "rollout") -> list[Played]:
    """Every event of one random game played by ``choose`` under ``policy`` (by default
    the engine's own random play: ``rollout_action`` and ``sample_draw``), each with
    copies of the state before and after it; a seat's consecutive draws make one event."""
    rng = Random(seed)
    state = new_game(rules, rng)
    played: list[Played] = []
    run: tuple[GameState, list[int]] | None = None  # a run of draws: state before, tiles

    def end_run() -> None:
        nonlocal run
        if run is not None:
            before, tiles = run
            event = draw_event(before.to_move, tiles, dealt=before.stage == DEAL)
            played.append(Played(before, None, event, state.clone()))
            run = None

    while not state.is_over():
        action = choose(state, rng, policy)
        if isinstance(action, Draw):
            if run is not None and run[0].to_move != state.to_move:
                end_run()
            if run is None:
                run = (state.clone(), [])
            run[1].append(action.tile)
            state.apply(action)
            continue
        end_run()
        before = state.clone()
        state.apply(action)
        played.append(Played(before, action, event_of(before, action), state.clone()))
    end_run()
    return played


def sample_positions(
    rules: Rules, seed: int, count: int, policy: str = "mixed", decisions_only: bool = False
) -> list[GameState]:
    """``count`` positions picked at random from one random game (repeats possible)."""
    rng = Random(seed ^ 0x5EED)
    positions = game_positions(rules, seed, policy)
    if decisions_only:
        positions = [p for p in positions if not p.is_chance() and not p.is_over()]
    return [rng.choice(positions) for _ in range(count)] if positions else []


# ---------------------------------------------------------- random well-formed actions
def random_tiles(state: GameState, rng: Random, most: int | None = None) -> tuple[int, ...]:
    """A random multiset of tiles: often taken from the hand to move, else anything writable.

    Taking from the hand makes a fair share of the random actions legal or nearly legal;
    writable tiles outside the variant (``P31`` in a 3-colour game) test the tile check.
    """
    hand = state.hands[state.to_move]
    most = state.rules.hand_size + 1 if most is None else most
    size = rng.randint(0, most)
    mode = rng.random()
    if mode < 0.5 and hand:
        return tuple(rng.sample(hand, min(size, len(hand))))
    if mode < 0.6:
        return tuple(make_tile(rng.randrange(WRITABLE_COLOURS), rng.randint(1, WRITABLE_VALUES))
                     for _ in range(size))
    colour = rng.randrange(state.rules.colors)
    same = rng.random() < 0.5
    return tuple(
        make_tile(colour if same else rng.randrange(state.rules.colors),
                  rng.randint(1, state.rules.max_value))
        for _ in range(size)
    )


def _same_colour_tiles(state: GameState, rng: Random) -> tuple[int, ...]:
    """A random non-empty choice of hand tiles of one colour (the shape of PLACE and of a
    payment), or random tiles when the hand is empty."""
    hand = state.hands[state.to_move]
    if not hand:
        return random_tiles(state, rng)
    colour = rng.choice(hand) >> 5
    same = [t for t in hand if t >> 5 == colour]
    return tuple(rng.sample(same, rng.randint(1, len(same))))


def _near_miss(state: GameState, rng: Random) -> Action:
    """An action of the kind the position calls for, often legal, often just not."""
    seat = state.to_move
    if state.is_chance():
        return Draw(rng.choice(state.bag) if state.bag and rng.random() < 0.7
                    else rng.choice(state.rules.kinds()))
    if state.stage == MULLIGAN:
        return Mulligan(random_tiles(state, rng))
    rows = [c for c, row in enumerate(state.rows[seat]) if row]
    if state.phases[seat] == 2 and rows:
        colour = rng.choice(rows)
        count = rng.randint(0, len(state.rows[seat][colour]) + 1)
        return Score(colour, count, _same_colour_tiles(state, rng))
    if state.phases[seat] == 1 and rng.random() < 0.7:
        return Place(_same_colour_tiles(state, rng))
    return Exchange(random_tiles(state, rng, state.rules.exchange_limit + 1))


def random_action(state: GameState, rng: Random) -> Action:
    """A random well-formed action (one its text form can write): half the time of the
    kind the position calls for, the other half of any kind."""
    if rng.random() < 0.5:
        return _near_miss(state, rng)
    kind = rng.randrange(7)
    if kind == 0:
        return Mulligan(random_tiles(state, rng))
    if kind == 1:
        return Exchange(random_tiles(state, rng, state.rules.exchange_limit + 1))
    if kind == 2:
        return Place(random_tiles(state, rng))
    if kind == 3:
        longest = max((len(r) for r in state.rows[state.to_move]), default=0)
        return Score(rng.randrange(WRITABLE_COLOURS), rng.randint(0, longest + 1),
                     random_tiles(state, rng))
    if kind == 4:
        return Declare()
    if kind == 5:
        return Pass()
    if state.bag and rng.random() < 0.5:
        return Draw(rng.choice(state.bag))
    return Draw(make_tile(rng.randrange(WRITABLE_COLOURS), rng.randint(1, WRITABLE_VALUES)))


# ------------------------------------------------------------------- bookkeeping
def row_tiles(state: GameState, seat: int) -> list[int]:
    """The tiles of ``seat``'s rows (rows hold values; the colour is the row's)."""
    return [make_tile(c, v) for c, row in enumerate(state.rows[seat]) for v in row]


def tile_places(state: GameState) -> Counter[int]:
    """Every tile in the game by where it lies: bag, hands, rows, piles, removed, set aside."""
    found: Counter[int] = Counter(state.bag)
    found.update(state.aside)
    for seat in range(state.rules.players):
        found.update(state.hands[seat])
        found.update(row_tiles(state, seat))
        found.update(state.piles[seat])
        found.update(state.exchanged[seat])
        found.update(state.paid[seat])
    return found


def hidden_from(state: GameState, seat: int | None) -> Counter[int]:
    """The tiles ``seat`` (None: a spectator) cannot see, computed from their places.

    The bag, the other hands, what the others exchanged, and the set-aside pool except the
    seat's own tiles in it while the mulligan runs.
    """
    hidden: Counter[int] = Counter(state.bag)
    hidden.update(state.aside)
    for other in range(state.rules.players):
        if other != seat:
            hidden.update(state.hands[other])
            hidden.update(state.exchanged[other])
    if seat is not None and state.stage == MULLIGAN and state.mulligan_tiles[seat]:
        hidden.subtract(state.mulligan_tiles[seat])
    return +hidden
