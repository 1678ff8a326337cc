"""Invariants that hold after every action of every game, over random rules variants.

Each example is a rules variant, a seed and a play policy; the seed drives the whole game,
so hypothesis shrinks and replays failures exactly. After every action (draws included) the
checks below run on the new position.
"""

from __future__ import annotations

from collections import Counter
from itertools import pairwise
from random import Random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from noreturn.engine import (
    PLAY,
    Action,
    Draw,
    GameState,
    IllegalActionError,
    Rules,
    legal_actions,
    new_game,
    playout,
    resolve_chance,
    rollout_action,
    why_illegal,
)
from strategies import (
    POLICIES,
    choose,
    game_positions,
    play_game,
    random_action,
    random_rules,
    rules_variants,
    tile_places,
)

SEEDS = st.integers(0, 2**32 - 1)
VARIANTS = st.one_of(rules_variants(), st.integers(0, 2**32 - 1).map(
    lambda seed: random_rules(Random(seed))))
"""Rules drawn two ways: hypothesis' own (which favours the small and the extreme, and
shrinks well) and uniformly over the ranges (which reaches the default sizes often)."""
WHY_SAMPLE = 300
PLAY_SAMPLE = 64
"""At most this many legal actions per position get ``why_illegal``, and are played on a
clone with the checked ``play``: all of them where there are few (small variants), a random
sample where there are hundreds (over a whole game a sample finds a disagreement too)."""
RANDOM_ACTIONS = 6


class Invariants:
    """Checks one game position by position, remembering the previous one."""

    def __init__(self, state: GameState, seed: int) -> None:
        self.rng = Random(seed ^ 0xC0FFEE)
        self.rules = state.rules
        self.all_tiles = Counter(state.rules.all_tiles())
        self.previous = state.clone()

    def after(self, state: GameState, action: Action) -> None:
        """Run every check on ``state``, reached from the previous position by ``action``."""
        self.conservation(state)
        self.hands(state)
        self.rows(state, action)
        self.counters(state)
        self.legal(state)
        self.refusals(state)
        self.previous = state.clone()

    def conservation(self, state: GameState) -> None:
        """Every tile of the set lies in exactly one place."""
        assert tile_places(state) == self.all_tiles, "a tile appeared, vanished or doubled"

    def hands(self, state: GameState) -> None:
        """No hand above hand_size; a turn starts full while the bag lasts (Refill)."""
        assert all(len(h) <= self.rules.hand_size for h in state.hands)
        if state.stage == PLAY and not state.is_chance() and state.bag:
            assert len(state.hands[state.to_move]) == self.rules.hand_size, (
                "a turn starts with a full hand while the bag holds tiles"
            )

    def rows(self, state: GameState, action: Action) -> None:
        """Rows read non-increasing, change only at their end and only by their owner's
        action, grow only in phase 1 and shrink only by SCORE in phase 2."""
        before = self.previous
        actor = before.to_move
        for seat in range(self.rules.players):
            for colour in range(self.rules.colors):
                old, new = before.rows[seat][colour], state.rows[seat][colour]
                assert all(a >= b for a, b in pairwise(new)), (
                    f"row {seat}/{colour} goes up: {new}"
                )
                if seat != actor or isinstance(action, Draw):
                    assert new == old, "a row changed outside its owner's action"
                elif len(new) > len(old):
                    assert new[: len(old)] == old, "a row changed before its end"
                    assert before.phases[seat] == 1 == state.phases[seat], "grew in phase 2"
                else:
                    assert old[: len(new)] == new, "a row changed other than at its end"
                    assert len(new) == len(old) or before.phases[seat] == 2

    def counters(self, state: GameState) -> None:
        """The state's running totals agree with what they total; phases never go back."""
        assert state.row_tiles == sum(len(r) for rows in state.rows for r in rows)
        assert state.declared == state.phases.count(2)
        assert state.pile_sums == [sum(t & 31 for t in p) for p in state.piles]
        assert all(p >= q for p, q in zip(state.phases, self.previous.phases, strict=True))

    def legal(self, state: GameState) -> None:
        """Listed actions are distinct, pass ``why_illegal`` and play on a clone."""
        actions = legal_actions(state)
        assert bool(actions) != state.is_over(), "only a finished game has no legal action"
        assert len(set(actions)) == len(actions), "an action is listed twice"
        sample = actions if len(actions) <= WHY_SAMPLE else self.rng.sample(actions, WHY_SAMPLE)
        for action in sample:
            assert why_illegal(state, action) is None, f"{action} listed but refused"
        key = state.key()
        for action in self.rng.sample(actions, min(PLAY_SAMPLE, len(actions))):
            child = state.clone()
            child.play(action)
            assert state.key() == key, "playing on a clone changed the original"

    def refusals(self, state: GameState) -> None:
        """Random actions are refused exactly when not listed, naming the same reason,
        and a refusal changes nothing."""
        legal = set(legal_actions(state))
        key = state.key()
        for _ in range(RANDOM_ACTIONS):
            action = random_action(state, self.rng)
            reason = why_illegal(state, action)
            assert (reason is None) == (action in legal), f"{action}: why_illegal says {reason}"
            trial = state.clone()
            if action in legal:
                trial.play(action)
                continue
            with pytest.raises(IllegalActionError) as refused:
                trial.play(action)
            assert reason is not None and reason in str(refused.value)
            assert trial.key() == key, f"refused {action} but changed the state"


@settings(max_examples=300, deadline=None)
@given(rules=VARIANTS, seed=SEEDS, policy=st.sampled_from(POLICIES))
def test_invariants_after_every_action(rules: Rules, seed: int, policy: str) -> None:
    checker = Invariants(new_game(rules, Random(seed)), seed)
    final, _ = play_game(rules, seed, policy, each=checker.after)
    assert final.is_over()
    assert legal_actions(final) == []


@settings(max_examples=150, deadline=None)
@given(rules=VARIANTS, seed=SEEDS, cut=st.floats(0, 1))
def test_clone_is_independent(rules: Rules, seed: int, cut: float) -> None:
    positions = game_positions(rules, seed)
    original = positions[int(cut * (len(positions) - 1))]
    key = original.key()
    copy = original.clone()
    assert copy == original and copy.key() == key
    rng = Random(seed)
    while not copy.is_over():
        copy.play(choose(copy, rng))
    assert original.key() == key, "playing the clone to the end changed the original"
    poked = original.clone()
    _poke_every_container(poked)
    assert original.key() == key, "a container is shared between a state and its clone"
    assert poked != original


def _poke_every_container(state: GameState) -> None:
    """Change every list a clone holds, as a careless caller might."""
    state.bag.append(0)
    state.aside.append(0)
    state.pile_sums[0] += 1
    state.phases[0] = 9
    for seat in range(state.rules.players):
        for listing in (state.hands, state.piles, state.exchanged, state.paid):
            listing[seat].append(0)
        for row in state.rows[seat]:
            row.append(0)
        chosen = state.mulligan_tiles[seat]
        if chosen is not None:
            chosen.append(0)


@settings(max_examples=100, deadline=None)
@given(rules=VARIANTS, seed=SEEDS, policy=st.sampled_from(POLICIES))
def test_same_seed_same_game(rules: Rules, seed: int, policy: str) -> None:
    first, first_actions = play_game(rules, seed, policy)
    second, second_actions = play_game(rules, seed, policy)
    assert first_actions == second_actions
    assert first.key() == second.key()


def _loop_with_actions(state: GameState, rng: Random, draws: str) -> None:
    """Play to the end by ``rollout_action`` + ``apply``; draws by ``sample_draw`` or
    ``resolve_chance``, the two ways the engine offers."""
    while not state.is_over():
        if state.is_chance():
            if draws == "sample":
                state.apply(state.sample_draw(rng))
            else:
                resolve_chance(state, rng)
        else:
            state.apply(rollout_action(state, rng))


@settings(max_examples=300, deadline=None)
@given(rules=VARIANTS, seed=SEEDS, cut=st.floats(0, 1),
       draws=st.sampled_from(("sample", "resolve")))
def test_playout_follows_the_rollout_policy(
    rules: Rules, seed: int, cut: float, draws: str
) -> None:
    positions = game_positions(rules, seed, "rollout")
    start = positions[int(cut * (len(positions) - 1))]
    fast, slow = start.clone(), start.clone()
    turns = playout(fast, Random(seed + 1))
    _loop_with_actions(slow, Random(seed + 1), draws)
    assert fast == slow, "playout and rollout_action + apply took different games"
    assert turns == fast.turns - start.turns


@pytest.mark.parametrize("seed", range(3))
def test_default_game_invariants(seed: int) -> None:
    """The published game itself, every action checked, under each policy."""
    rules = Rules()
    checker = Invariants(new_game(rules, Random(seed)), seed)
    final, _ = play_game(rules, seed, POLICIES[seed], each=checker.after)
    assert final.is_over()
