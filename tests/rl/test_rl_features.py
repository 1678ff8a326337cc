"""The numbers every learning interface shares (``noreturn.rl.features``).

The action mask must be exactly the legal set (an agent that trusts it never plays an
illegal move and never misses a legal one), every masked id must decode to the action it
stands for, and a seat's observation tensor must not move when only what the seat cannot
see moves. The tensor is shown able to fail: a tile swapped into the seat's own hand
changes it.
"""

from __future__ import annotations

from functools import lru_cache
from random import Random

import pytest

np = pytest.importorskip("numpy", reason="the learning interfaces need numpy: "
                                         "pip install -e '.[rl]'")

from leakkit import own_tile_swaps, positions, redeal  # noqa: E402
from noreturn.engine import (  # noqa: E402 - after the skip above
    GameState,
    Rules,
    decode_action,
    encode_action,
    layout,
    legal_actions,
    view,
)
from noreturn.rl.features import (  # noqa: E402
    action_mask,
    chance_outcome_count,
    legal_ids,
    max_turns,
    observation_layout,
    observation_size,
    observation_tensor,
    player_action_count,
    rewards,
    tile_index,
)
from strategies import POLICIES, game_positions, play_game  # noqa: E402

VARIANTS = [
    Rules(),
    Rules(players=3),
    Rules(players=4),
    Rules(players=3, colors=3, max_value=5, copies=2, hand_size=4, exchange_limit=2),
    Rules(players=2, colors=1, max_value=7, copies=3, hand_size=6, exchange_limit=3),
    Rules(players=4, colors=2, max_value=4, copies=3, hand_size=2, exchange_limit=4),
]


@lru_cache(maxsize=8)
def decisions(rules: Rules, games: int) -> tuple[GameState, ...]:
    """Every decision position of ``games`` random games of ``rules``."""
    out: list[GameState] = []
    for game in range(games):
        out += [p for p in game_positions(rules, 77 + game, POLICIES[game % len(POLICIES)])
                if not p.is_chance() and not p.is_over()]
    return tuple(out)


def test_the_default_game_has_34562_player_actions_and_66_chance_outcomes() -> None:
    rules = Rules()
    assert player_action_count(rules) == 34_562 == layout(rules).draw
    assert chance_outcome_count(rules) == 66
    assert sorted(tile_index(rules, t) for t in rules.kinds()) == list(range(66))


def test_observation_sizes_are_the_documented_ones() -> None:
    """docs/rl.md quotes them."""
    assert [observation_size(Rules(players=p)) for p in (2, 3, 4)] == [686, 893, 1100]


@pytest.mark.parametrize("rules", VARIANTS, ids=str)
def test_mask_is_exactly_the_legal_set_and_ids_round_trip(rules: Rules) -> None:
    states = decisions(rules, 20)
    assert len(states) > 120
    for state in states:
        legal = legal_actions(state)
        mask = action_mask(state)
        ids = legal_ids(state)
        assert mask.dtype == np.int8 and mask.shape == (player_action_count(rules),)
        assert ids == sorted(ids) and len(set(ids)) == len(legal)
        assert list(np.flatnonzero(mask)) == ids
        for action, action_id in zip(legal, ids, strict=True):
            assert encode_action(state, action) == action_id
            assert decode_action(state, action_id) == action


def test_thousands_of_states_are_checked() -> None:
    assert sum(len(decisions(rules, 20)) for rules in VARIANTS) > 3000


def test_no_player_decides_at_chance_nodes_or_after_the_end() -> None:
    final, _ = play_game(Rules(players=3, colors=3, max_value=5, hand_size=4), 5)
    assert final.is_over() and not action_mask(final).any() and legal_ids(final) == []
    chance = game_positions(Rules(), 3)[0]
    assert chance.is_chance() and not action_mask(chance).any()


@pytest.mark.parametrize("rules", VARIANTS, ids=str)
def test_observation_has_the_documented_size_and_range(rules: Rules) -> None:
    lay = observation_layout(rules)
    assert lay.size == observation_size(rules) == lay.globals_start + 8
    for state in decisions(rules, 2)[::7]:
        for seat in range(rules.players):
            tensor = observation_tensor(view(state, seat))
            assert tensor.dtype == np.float32 and tensor.shape == (lay.size,)
            assert tensor.min() >= -1.0 and tensor.max() <= 1.0


def test_own_hand_plane_counts_the_hand() -> None:
    state = decisions(Rules(), 1)[10]
    seat = state.to_move
    tensor = observation_tensor(view(state, seat))
    rules = state.rules
    hand_plane = tensor[: chance_outcome_count(rules)] * rules.copies
    for tile in rules.kinds():
        assert hand_plane[tile_index(rules, tile)] == state.hands[seat].count(tile)


def test_a_spectator_view_is_refused_with_a_reason() -> None:
    with pytest.raises(ValueError, match="belongs to a seat"):
        observation_tensor(view(decisions(Rules(), 1)[0], None))


@pytest.mark.parametrize("block", range(3))
def test_observation_does_not_change_when_hidden_tiles_move(block: int) -> None:
    """docs/rules.md "What each player may see": re-deal the bag, the other hands and what the
    others removed; every seat's tensor stays bit for bit the same."""
    rng = Random(block)
    moved = 0
    for state in positions(10, 500 + 1000 * block):
        for seat in range(state.rules.players):
            seen = observation_tensor(view(state, seat))
            twin = redeal(state, seat, rng)
            assert np.array_equal(observation_tensor(view(twin, seat)), seen), f"seat {seat}"
            moved += twin != state
    assert moved > 50, "the re-deals hardly ever changed a position"


@pytest.mark.parametrize("block", range(2))
def test_observation_changes_when_the_own_hand_changes(block: int) -> None:
    """The control that shows the no-leak test able to fail."""
    rng = Random(block)
    changed = 0
    for state, seat, twin, partner in own_tile_swaps(positions(8, 9000 + 1000 * block), rng):
        assert not np.array_equal(observation_tensor(view(twin, seat)),
                                  observation_tensor(view(state, seat)))
        for other in range(state.rules.players):
            if other not in (seat, partner):
                assert np.array_equal(observation_tensor(view(twin, other)),
                                      observation_tensor(view(state, other)))
        changed += 1
    assert changed > 30


@pytest.mark.parametrize("seed", range(8))
def test_rewards_are_the_score_difference_and_sum_to_zero(seed: int) -> None:
    rules = VARIANTS[seed % len(VARIANTS)]
    final, actions = play_game(rules, seed)
    scores = final.scores()
    got = rewards(final)
    assert sum(got) == pytest.approx(0.0, abs=1e-9)
    for seat, reward in enumerate(got):
        others = [s for i, s in enumerate(scores) if i != seat]
        assert reward == pytest.approx(scores[seat] - sum(others) / len(others))
    if rules.players == 2:
        assert got[0] == scores[0] - scores[1]
    turns = sum(1 for a in actions if type(a).__name__ in {"Place", "Exchange", "Score", "Pass"})
    assert turns <= max_turns(rules)


def test_rewards_are_zero_before_the_end() -> None:
    state = decisions(Rules(), 1)[5]
    assert rewards(state) == [0.0, 0.0]
