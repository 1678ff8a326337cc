"""The PettingZoo AEC environment (``noreturn.rl.pettingzoo``).

PettingZoo's own ``api_test`` must pass for 2, 3 and 4 seats; beyond it: equal seeds give
equal games, a game played with masked random actions ends with the zero-sum rewards of
``features.rewards``, illegal actions are refused (raise) or penalized without changing the
game, an agent that is not to move sees an all-zero mask, and the rendered table never
shows a hand.
"""

from __future__ import annotations

import re
import warnings
from typing import Any

import pytest

pytest.importorskip("pettingzoo", reason="PettingZoo is not installed: pip install -e '.[rl]'")
pytest.importorskip("gymnasium", reason="Gymnasium is not installed: pip install -e '.[rl]'")

import numpy as np
from pettingzoo.test import api_test, render_test

from noreturn.engine import (
    IllegalActionError,
    NoReturnError,
    Rules,
    RulesError,
    layout,
    tile_code,
    view,
)
from noreturn.rl import features
from noreturn.rl.pettingzoo import env, raw_env
from noreturn.text.narrate import render_table

SMALL = {"colors": 3, "max_value": 5, "hand_size": 4}
"""A small variant: short games, a mask of 2 + 3*16 + 3*10*16 ids."""
EXPECTED_API_WARNINGS = (
    # api_test whitelists dict observations only for PettingZoo's own classic games by name
    "Observation is not a NumPy array",
    "Observation space for each agent probably should be",
)


def play_random(game: Any, seed: int, stop_after: int | None = None) -> list[tuple[str, Any]]:
    """Play masked random actions (dead steps with None); the (agent, action) trail."""
    pick = np.random.default_rng(seed)
    trail: list[tuple[str, Any]] = []
    for agent in game.agent_iter():
        if stop_after is not None and len(trail) >= stop_after:
            break
        obs, _, terminated, truncated, _ = game.last()
        if terminated or truncated:
            action = None
        else:
            action = int(pick.choice(np.flatnonzero(obs["action_mask"])))
        trail.append((agent, action))
        game.step(action)
    return trail


@pytest.mark.parametrize("options", [
    {"players": 2}, {"players": 3}, {"players": 4},
    {"players": 2, **SMALL}, {"players": 3, **SMALL},
    {"rules": Rules(players=4, colors=4, max_value=4, hand_size=3)},
])
def test_pettingzoo_api_test_passes(options: dict[str, Any]) -> None:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        api_test(env(**options), num_cycles=500)
    unexpected = [str(w.message) for w in caught
                  if not str(w.message).startswith(EXPECTED_API_WARNINGS)]
    assert unexpected == []


def test_agents_are_seats_and_spaces_match_the_features() -> None:
    game = env(players=3)
    game.reset(seed=0)
    rules = Rules(players=3)
    assert game.possible_agents == ["player_0", "player_1", "player_2"]
    assert game.metadata["name"] == "noreturn_v0"
    space = game.observation_space("player_1")
    assert space["observation"].shape == (features.observation_size(rules),)
    assert space["action_mask"].shape == (features.player_action_count(rules),)
    assert game.action_space("player_2").n == features.player_action_count(rules)
    state = game.unwrapped.game
    assert game.agent_selection == f"player_{state.to_move}"
    assert game.infos["player_2"]["seat"] == 2


def test_equal_seeds_give_equal_games() -> None:
    def run(seed: int) -> tuple[list[tuple[str, Any]], tuple[object, ...]]:
        game = env(players=3, **SMALL)
        game.reset(seed=seed)
        trail = play_random(game, seed=99)
        return trail, game.unwrapped.game.key()

    assert run(5) == run(5)
    first, other = env(players=3), env(players=3)
    first.reset(seed=1)
    other.reset(seed=2)
    assert first.unwrapped.game.key() != other.unwrapped.game.key()


def test_reset_without_seed_continues_the_seeded_sequence() -> None:
    def two_deals() -> list[tuple[object, ...]]:
        game = env(players=2)
        game.reset(seed=11)
        keys = [game.unwrapped.game.key()]
        game.reset()
        keys.append(game.unwrapped.game.key())
        return keys

    keys = two_deals()
    assert keys == two_deals()
    assert keys[0] != keys[1]


@pytest.mark.parametrize("options", [{"players": 2}, {"players": 3, **SMALL}, {"players": 4}])
def test_masked_random_game_ends_with_zero_sum_final_rewards(options: dict[str, Any]) -> None:
    game = env(**options)
    game.reset(seed=3)
    final: dict[str, float] = {}
    pick = np.random.default_rng(0)
    for agent in game.agent_iter():
        obs, reward, terminated, truncated, info = game.last()
        if terminated or truncated:
            final[agent] = reward
            assert info["scores"] == game.unwrapped.game.scores()
            game.step(None)
            continue
        assert reward == 0.0  # nothing before the end
        game.step(int(pick.choice(np.flatnonzero(obs["action_mask"]))))
    state = game.unwrapped.game
    assert state.is_over()
    assert game.agents == []
    expected = features.rewards(state)
    assert final == {f"player_{s}": expected[s] for s in range(state.n)}
    assert sum(final.values()) == pytest.approx(0.0)


def first_illegal_id(mask: np.ndarray[Any, Any]) -> int:
    """An id the mask rules out."""
    return int(np.flatnonzero(mask == 0)[0])


@pytest.mark.parametrize(("action", "words"), [
    (None, "integer id"),
    ("place", "integer id"),
    (1.0, "integer id"),
    (True, "integer id"),
    (np.array([3]), "integer id"),
    (-1, "out of range"),
    (10**9, "out of range"),
])
def test_bad_action_raises_and_changes_nothing(action: Any, words: str) -> None:
    game = env(players=2)
    game.reset(seed=4)
    before = (game.unwrapped.game.key(), game.agent_selection, dict(game.rewards),
              dict(game._cumulative_rewards))
    with pytest.raises(IllegalActionError, match=words):
        game.step(action)
    after = (game.unwrapped.game.key(), game.agent_selection, dict(game.rewards),
             dict(game._cumulative_rewards))
    assert after == before


def test_illegal_id_raises_naming_the_rule_and_changes_nothing() -> None:
    game = env(players=2)
    game.reset(seed=4)
    agent = game.agent_selection
    state = game.unwrapped.game
    key = state.key()
    # DECLARE (id 1) is never legal during the mulligan
    assert game.observe(agent)["action_mask"][1] == 0
    with pytest.raises(IllegalActionError, match=rf"{agent}: action id 1 .*mulligan"):
        game.step(1)
    assert state.key() == key
    assert game.agent_selection == agent


def test_non_canonical_id_of_a_legal_action_is_refused() -> None:
    # 4 tiles from 3 kinds: every hand holds a pair, and every mulligan is legal
    game = env(players=2, colors=1, max_value=3, copies=4, hand_size=4)
    game.reset(seed=0)
    state = game.unwrapped.game
    hand = sorted(state.hands[state.to_move])
    pos = next(p for p in range(len(hand) - 1) if hand[p] == hand[p + 1])
    base = layout(state.rules).mulligan
    mask = game.observe(game.agent_selection)["action_mask"]
    assert mask[base + (1 << pos)] == 1
    assert mask[base + (1 << (pos + 1))] == 0
    with pytest.raises(IllegalActionError, match=f"its id is {base + (1 << pos)}"):
        game.step(base + (1 << (pos + 1)))


def test_penalize_mode_keeps_the_game_and_charges_the_agent() -> None:
    game = env(players=2, illegal_action="penalize", illegal_reward=-0.25)
    game.reset(seed=6)
    agent = game.agent_selection
    other = next(a for a in game.agents if a != agent)
    key = game.unwrapped.game.key()
    mask = game.observe(agent)["action_mask"]
    game.step(first_illegal_id(mask))
    assert game.unwrapped.game.key() == key
    assert game.agent_selection == agent
    _, reward, terminated, truncated, info = game.last()
    assert (reward, terminated, truncated) == (-0.25, False, False)
    assert "mulligan" in info["illegal_action"]
    assert game.rewards[other] == 0.0
    assert "illegal_action" not in game.infos[other]
    game.step(10**9)  # out of range: penalized too
    _, reward, _, _, info = game.last()
    assert reward == -0.25  # the last step's penalty, not the sum (last() resets per step)
    assert "out of range" in info["illegal_action"]
    game.step(int(np.flatnonzero(mask)[0]))
    assert game.unwrapped.game.key() != key
    assert "illegal_action" not in game.infos[agent]


def test_agent_not_to_move_observes_an_all_zero_mask() -> None:
    game = env(players=4)
    game.reset(seed=8)
    play_random(game, seed=1, stop_after=10)
    state = game.unwrapped.game
    for seat, agent in enumerate(game.agents):
        obs = game.observe(agent)
        np.testing.assert_array_equal(
            obs["observation"], features.observation_tensor(view(state, seat)))
        if agent == game.agent_selection:
            np.testing.assert_array_equal(obs["action_mask"], features.action_mask(state))
            assert obs["action_mask"].sum() > 0
        else:
            assert not obs["action_mask"].any()


def hand_codes_in(text: str, tiles: list[int]) -> set[str]:
    """The codes of ``tiles`` that appear in ``text`` as words."""
    return {tile_code(t) for t in tiles if re.search(rf"\b{tile_code(t)}\b", text)}


def test_ansi_render_is_the_public_table_without_any_hand() -> None:
    game = env(players=3, render_mode="ansi")
    game.reset(seed=2)
    play_random(game, seed=2, stop_after=12)
    state = game.unwrapped.game
    names = game.possible_agents
    text = game.render()
    assert text == (render_table(view(state, None), names)
                     + f"\nto move: {game.agent_selection}")
    assert "hand:" not in text
    for seat in range(state.n):
        assert hand_codes_in(text, state.hands[seat]) == set()
        # control: a seat's own table text does show its hand, so the check can fail
        own = render_table(view(state, seat), names)
        assert hand_codes_in(own, state.hands[seat])


def test_render_without_mode_returns_none() -> None:
    game = env(players=2)
    game.reset(seed=0)
    with pytest.warns(UserWarning, match="render_mode=None"):
        assert game.render() is None
    game.close()


def test_bad_options_are_refused_with_a_clear_message() -> None:
    with pytest.raises(ValueError, match="illegal_action must be 'raise' or 'penalize'"):
        raw_env(illegal_action="ignore")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="render_mode must be None, 'human' or 'ansi'"):
        raw_env(render_mode="rgb_array")
    with pytest.raises(ValueError, match="illegal_reward must be a finite number"):
        raw_env(illegal_reward=float("nan"))
    with pytest.raises(RulesError, match="not both"):
        raw_env(rules=Rules(players=3), players=3)
    with pytest.raises(RulesError, match="players must be a whole number from 2 to 4"):
        raw_env(players=5)
    game = raw_env()
    with pytest.raises(NoReturnError, match="call reset"):
        game.observe("player_0")
    with pytest.raises(NoReturnError, match="unknown agent 'player_2'"):
        game.observation_space("player_2")


def test_pettingzoo_render_test_passes_and_human_mode_prints(
        capsys: pytest.CaptureFixture[str]) -> None:
    """PettingZoo's render_test makes the env with render_mode="human" first, which was
    refused."""
    render_test(lambda render_mode=None: env(render_mode=render_mode, **SMALL))
    game = env(render_mode="human", **SMALL)
    game.reset(seed=1)
    assert game.render() is None and "to move: " in capsys.readouterr().out


def test_each_agent_has_its_own_spaces() -> None:
    """One space object for every agent: seeding one agent's space reseeded them all."""
    game = raw_env(players=3)
    first, second = game.action_space("player_0"), game.action_space("player_1")
    assert first is not second and first == second
    assert game.observation_space("player_0") is not game.observation_space("player_1")
    assert game.action_space("player_0") is first  # the same object on every call
    first.seed(1)
    alone = first.sample()
    first.seed(1)
    second.seed(2)
    assert first.sample() == alone
