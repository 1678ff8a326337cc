"""Legal actions against a brute force written straight from docs/rules.md.

The engine lists actions through masks of hand positions (``legal.py``); here every
sub-multiset of the hand comes from ``itertools.combinations`` and each rule of docs/rules.md is
checked directly, one line per rule, so the two share no code. Small variants keep the
brute force quick while still holding pairs of equal tiles, several colours, long rows and
an end of the bag.
"""

from __future__ import annotations

from collections import Counter
from itertools import combinations
from random import Random

import pytest

from noreturn.engine import (
    MULLIGAN,
    Action,
    Declare,
    Draw,
    Exchange,
    GameState,
    Mulligan,
    Pass,
    Place,
    Rules,
    Score,
    colour_of,
    encode_action,
    legal_actions,
    make_tile,
    value_of,
    why_illegal,
)
from strategies import POLICIES, game_positions, random_rules

SEED_BLOCKS = range(8)
GAMES_PER_BLOCK = 400


def sub_multisets(tiles: list[int]) -> set[tuple[int, ...]]:
    """Every sub-multiset of ``tiles`` (the empty one too), each as a descending tuple."""
    return {
        tuple(sorted(chosen, reverse=True))
        for size in range(len(tiles) + 1)
        for chosen in combinations(tiles, size)
    }


def one_colour(tiles: tuple[int, ...]) -> bool:
    """docs/rules.md: PLACE and the payment of SCORE use tiles of one colour."""
    return len({colour_of(t) for t in tiles}) == 1


def expected_legal(state: GameState) -> set[Action]:
    """The legal actions, rule by rule as docs/rules.md words them."""
    if state.is_over():
        return set()
    if state.draws_due:  # a draw takes any tile from the bag
        return {Draw(t) for t in state.bag}
    seat, rules = state.to_move, state.rules
    choices = sub_multisets(state.hands[seat])
    if state.stage == MULLIGAN:  # any number of tiles, no more than the bag holds
        return {Mulligan(c) for c in choices if len(c) <= len(state.bag)}
    actions: set[Action] = {Exchange(c) for c in choices if 1 <= len(c) <= rules.exchange_limit}
    rows = state.rows[seat]
    if state.phases[seat] == 1:
        for c in choices:
            if c and one_colour(c):
                row = rows[colour_of(c[0])]
                if not row or all(value_of(t) <= row[-1] for t in c):
                    actions.add(Place(c))
        # DECLARE comes before the one action of the turn; PASS only without any action
        return actions | {Declare()} if actions else {Pass(), Declare()}
    for colour, row in enumerate(rows):
        for count in range(1, len(row) + 1):
            due = sum(row[-count:])  # the count lowest tiles are the row's last ones
            for c in choices:
                if c and one_colour(c) and sum(value_of(t) for t in c) >= due:
                    actions.add(Score(colour, count, c))
    return actions or {Pass()}


def candidates(state: GameState) -> list[Action]:
    """Legal and illegal actions around the position: every choice of hand tiles plus one
    tile not held, in every kind, every row and count (one beyond each end), every draw."""
    rules = state.rules
    hand = state.hands[state.to_move]
    stranger = next((t for t in rules.kinds() if t not in hand), None)
    pool = hand + ([stranger] if stranger is not None else [])
    choices = sub_multisets(pool)
    longest = max(len(r) for r in state.rows[state.to_move])
    out: list[Action] = [Declare(), Pass(), *(Draw(t) for t in rules.kinds())]
    for c in choices:
        out += [Mulligan(c), Exchange(c), Place(c)]
        out += [Score(row, count, c) for row in range(rules.colors)
                for count in range(longest + 2)]
    return out


def check_position(state: GameState) -> None:
    """The engine's list against the brute force: same set, no repeats, ascending ids."""
    listed = legal_actions(state)
    expected = expected_legal(state)
    assert len(listed) == len(set(listed)), "an action is listed twice"
    missing, extra = expected - set(listed), set(listed) - expected
    assert not missing and not extra, f"missing {sorted(map(str, missing))[:5]}, " \
                                      f"extra {sorted(map(str, extra))[:5]}"
    if not state.is_over():
        ids = [encode_action(state, a) for a in listed]
        assert ids == sorted(ids) and len(set(ids)) == len(ids), "not in ascending id order"


@pytest.mark.parametrize("block", SEED_BLOCKS)
def test_legal_actions_match_brute_force(block: int) -> None:
    positions = 0
    for game in range(GAMES_PER_BLOCK):
        seed = block * 1000 + game
        rules = random_rules(Random(seed), small=True)
        for state in game_positions(rules, seed, POLICIES[game % len(POLICIES)]):
            check_position(state)
            positions += 1
    assert positions > GAMES_PER_BLOCK * 10


@pytest.mark.parametrize("block", range(3))
def test_why_illegal_matches_brute_force(block: int) -> None:
    """Every candidate is refused exactly when the brute force does not list it."""
    rng = Random(block)
    checked = 0
    for game in range(40):
        seed = 50_000 + block * 100 + game
        rules = random_rules(Random(seed), small=True)
        positions = game_positions(rules, seed, POLICIES[game % len(POLICIES)])
        for state in rng.sample(positions, min(12, len(positions))):
            expected = expected_legal(state)
            for action in candidates(state):
                legal = why_illegal(state, action) is None
                assert legal == (action in expected), f"{action} in {state.key()}"
                checked += 1
    assert checked > 10_000


@pytest.mark.parametrize("policy", ["builder", "kinds", "rollout", "mixed"])
def test_default_game_matches_brute_force(policy: str) -> None:
    """The published game: 8-tile hands, six colours, long rows, thousands of SCOREs."""
    rng = Random(policy)
    scores = 0
    for seed in range(3):
        positions = [p for p in game_positions(Rules(), seed, policy)
                     if not p.is_chance() and not p.is_over()]
        second = [p for p in positions if p.phases[p.to_move] == 2]
        for state in rng.sample(second, min(8, len(second))) + rng.sample(positions, 6):
            check_position(state)
            scores += sum(isinstance(a, Score) for a in legal_actions(state))
    assert scores > 0


def test_brute_force_sees_equal_tiles_once() -> None:
    """The brute force itself: a hand with a pair lists the pair once (guards the oracle)."""
    pair = [make_tile(0, 3), make_tile(0, 3), make_tile(1, 2)]
    subsets = sub_multisets(pair)
    assert len(subsets) == 3 * 2  # 0..2 red threes times 0..1 orange two
    assert (make_tile(0, 3),) in subsets


# ----------------------------------------------------------------------- chance
class StepRandom:
    """A stand-in for ``Random`` whose ``random()`` walks the middle of n equal slices, so
    n draws from it hit every bag position exactly once if sampling is uniform."""

    def __init__(self, slices: int) -> None:
        self.slices = slices
        self.i = 0

    def random(self) -> float:
        value = (self.i + 0.5) / self.slices
        self.i += 1
        return value


@pytest.mark.parametrize("seed", range(6))
def test_chance_outcomes_match_the_bag(seed: int) -> None:
    rules = random_rules(Random(seed), small=seed % 2 == 0)
    chance = [s for s in game_positions(rules, seed) if s.is_chance()]
    assert chance
    for state in chance[:: max(1, len(chance) // 40)]:
        bag = Counter(state.bag)
        outcomes = state.chance_outcomes()
        assert [d.tile for d, _ in outcomes] == sorted(bag), "one outcome per tile, ascending"
        for draw, probability in outcomes:
            assert probability == pytest.approx(bag[draw.tile] / len(state.bag))
        assert sum(p for _, p in outcomes) == pytest.approx(1.0)
        assert legal_actions(state) == [d for d, _ in outcomes]
        stepper = StepRandom(len(state.bag))
        sampled = Counter(state.sample_draw(stepper).tile  # type: ignore[arg-type]
                          for _ in range(len(state.bag)))
        assert sampled == bag, "sample_draw does not give every tile in the bag its share"
        for kind in rules.kinds():
            assert (why_illegal(state, Draw(kind)) is None) == (kind in bag)
        tile = outcomes[-1][0].tile
        child = state.clone()
        child.play(Draw(tile))
        # the last mulligan draw also returns the set-aside tiles to the bag
        assert Counter(child.bag + child.aside) == bag + Counter(state.aside) - Counter([tile])
        assert Counter(child.hands[state.to_move]) == (
            Counter(state.hands[state.to_move]) + Counter([tile])
        )
