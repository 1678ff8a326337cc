"""The single-agent Gymnasium environment (``noreturn.rl.gymnasium``).

Gymnasium's ``check_env`` must pass; beyond it: the id is registered on import (once), the
mask in the observation and in ``info`` is exactly the legal set, a game played with masked
random actions terminates with the score difference as reward, illegal actions are
penalized (default) or refused without changing the game, and the opponents and seat
options do what they say.
"""

from __future__ import annotations

import subprocess
import sys
import warnings
from random import Random
from typing import Any

import pytest

gymnasium = pytest.importorskip(
    "gymnasium", reason="Gymnasium is not installed: pip install -e '.[rl]'")

import numpy as np  # noqa: E402 - after the skip above
from gymnasium.utils.env_checker import check_env  # noqa: E402

from noreturn.bots import BotError  # noqa: E402
from noreturn.engine import (  # noqa: E402
    IllegalActionError,
    NoReturnError,
    Rules,
    RulesError,
    tile_code,
    view,
)
from noreturn.rl import features  # noqa: E402
from noreturn.rl import gymnasium as nr_gym  # noqa: E402
from noreturn.rl.gymnasium import ENV_ID, NoReturnEnv, env  # noqa: E402
from noreturn.text.narrate import render_table  # noqa: E402

SMALL = {"colors": 3, "max_value": 5, "hand_size": 4}
"""A small variant for long loops."""


def masked_random_episode(game: NoReturnEnv, seed: int, check: bool = False
                          ) -> tuple[float, bool, bool, dict[str, Any], int]:
    """Play masked random actions to the end: last reward, terminated, truncated, info, steps.

    With ``check``, every step's mask (observation and info) is compared with the legal set.
    """
    pick = np.random.default_rng(seed)
    obs, info = game.reset(seed=seed)
    steps = 0
    while True:
        mask = obs["action_mask"]
        if check:
            legal = np.zeros_like(mask)
            legal[features.legal_ids(game.game)] = 1
            np.testing.assert_array_equal(mask, legal)
            np.testing.assert_array_equal(info["action_mask"], mask)
            assert info["action_mask"] is not mask
            assert game.game.to_move == game.seat
        obs, reward, terminated, truncated, info = game.step(
            int(pick.choice(np.flatnonzero(mask))))
        steps += 1
        if terminated or truncated:
            return reward, terminated, truncated, info, steps
        assert reward == 0.0


@pytest.mark.parametrize("options", [{}, {"players": 3, **SMALL}, {"players": 4}])
def test_check_env_passes_without_warnings(options: dict[str, Any]) -> None:
    made = gymnasium.make(ENV_ID, **options)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        check_env(made.unwrapped)  # with a spec: the ansi render mode is checked too
    assert [str(w.message) for w in caught] == []


def test_make_gives_the_environment_with_its_options() -> None:
    made = gymnasium.make(ENV_ID, players=3, seat=2, opponents="random")
    assert isinstance(made.unwrapped, NoReturnEnv)
    assert made.unwrapped.rules == Rules(players=3)
    assert made.unwrapped.seat == 2
    obs, info = made.reset(seed=0)
    assert obs in made.observation_space
    assert info["seat"] == 2


def test_registering_again_changes_nothing_and_does_not_warn() -> None:
    spec = gymnasium.spec(ENV_ID)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        nr_gym.register()
    assert gymnasium.spec(ENV_ID) is spec
    assert spec.entry_point == "noreturn.rl.gymnasium:NoReturnEnv"


def test_module_prefixed_id_works_without_importing_the_module_first() -> None:
    code = ("import gymnasium; e = gymnasium.make('noreturn.rl.gymnasium:noreturn/NoReturn-v0',"
            " players=2, colors=3, max_value=5, hand_size=4); print(e.reset(seed=1)[1]['seat'])")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=60, check=False)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "0"


@pytest.mark.parametrize("options", [{"players": 2}, {"players": 3, **SMALL}])
def test_masks_in_observation_and_info_are_the_legal_set(options: dict[str, Any]) -> None:
    masked_random_episode(env(**options), seed=1, check=True)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_masked_random_game_terminates_with_the_score_difference(seed: int) -> None:
    game = env(players=2, seat=1)
    reward, terminated, truncated, info, _ = masked_random_episode(game, seed)
    assert (terminated, truncated) == (True, False)
    scores = game.game.scores()
    assert info["scores"] == scores
    assert reward == scores[1] - scores[0] == features.rewards(game.game)[1]
    assert not info["action_mask"].any()
    with pytest.raises(NoReturnError, match="call reset"):
        game.step(0)


def test_equal_seeds_give_equal_episodes() -> None:
    def run() -> tuple[Any, ...]:
        game = env(players=3, opponents="heuristic", **SMALL)
        result = masked_random_episode(game, seed=7)
        return result[0], result[3]["scores"], game.game.key()

    assert run() == run()


def test_penalize_mode_keeps_the_game_and_truncates_after_the_limit() -> None:
    game = env(players=2, illegal_reward=-0.5, illegal_limit=3)
    obs, _ = game.reset(seed=5)
    key = game.game.key()
    illegal = int(np.flatnonzero(obs["action_mask"] == 0)[0])
    legal = int(np.flatnonzero(obs["action_mask"])[0])
    for _ in range(2):
        after, reward, terminated, truncated, info = game.step(illegal)
        assert (reward, terminated, truncated) == (-0.5, False, False)
        assert "mulligan" in info["illegal_action"] or "action id" in info["illegal_action"]
        np.testing.assert_array_equal(after["observation"], obs["observation"])
        assert game.game.key() == key
    _, reward, _, _, info = game.step(legal)  # a legal action resets the count
    assert reward == 0.0
    assert "illegal_action" not in info
    assert game.game.key() != key
    for count in range(1, 4):
        _, reward, terminated, truncated, info = game.step(-3)
        assert "out of range" in info["illegal_action"]
        assert (reward, terminated, truncated) == (-0.5, False, count == 3)
    with pytest.raises(NoReturnError, match="episode is over"):
        game.step(legal)


def test_raise_mode_refuses_and_changes_nothing() -> None:
    game = env(players=2, illegal_action="raise")
    obs, _ = game.reset(seed=5)
    key = game.game.key()
    with pytest.raises(IllegalActionError, match=r"action id 1 .*mulligan"):
        game.step(1)  # DECLARE during the mulligan
    with pytest.raises(IllegalActionError, match="out of range"):
        game.step(features.player_action_count(game.rules))
    with pytest.raises(IllegalActionError, match="integer id"):
        game.step("1")  # type: ignore[arg-type]
    assert game.game.key() == key
    game.step(int(np.flatnonzero(obs["action_mask"])[0]))
    assert game.game.key() != key


def test_opponents_list_is_given_to_the_other_seats_in_order_and_cycled() -> None:
    game = env(players=4, seat=1, opponents=["random", "greedy"])
    game.reset(seed=0)
    assert game.opponents_by_seat == {2: "random", 3: "greedy", 0: "random"}
    assert game.opponents_by_seat.keys() == {0, 2, 3}


def test_opponent_hooks_are_called_once_per_game(monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[tuple[str, int]] = []

    class Recorder:
        name = "recorder"

        def act(self, seen: Any, legal: list[Any], rng: Random) -> Any:
            return legal[0]

        def start_game(self, seat: int, names: list[str]) -> None:
            calls.append(("start", seat))

        def end_game(self, final: Any) -> None:
            assert final.seat is not None and final.hand is not None
            calls.append(("end", final.seat))

    monkeypatch.setattr(nr_gym, "make_bot", lambda spec: Recorder())
    game = env(players=2, seat=0, **SMALL)
    masked_random_episode(game, seed=3)
    assert calls == [("start", 1), ("end", 1)]
    game.reset(seed=4)
    game.reset(seed=5)  # a game left unfinished is ended before the next starts
    game.close()
    assert calls[2:] == [("start", 1), ("end", 1), ("start", 1), ("end", 1)]


def test_random_seat_is_drawn_per_reset_from_the_seed() -> None:
    game = env(players=4, seat="random", opponents="random", **SMALL)
    seats = []
    for seed in range(12):
        obs, info = game.reset(seed=seed)
        assert info["seat"] == game.seat
        assert game.game.to_move == game.seat
        assert obs["action_mask"].any()
        seats.append(game.seat)
    assert len(set(seats)) > 1
    assert [game.reset(seed=s)[1]["seat"] for s in range(12)] == seats


def hand_codes_in(text: str, tiles: list[int]) -> set[str]:
    """The codes of ``tiles`` that appear in ``text``."""
    return {tile_code(t) for t in tiles if tile_code(t) in text.split()}


def test_ansi_render_shows_the_public_table_only() -> None:
    game = env(players=2, render_mode="ansi")
    obs, _ = game.reset(seed=2)
    game.step(int(np.flatnonzero(obs["action_mask"])[0]))
    text = game.render()
    assert text is not None
    names = game.names()
    assert text == render_table(view(game.game, None), names) + f"\nto move: {names[0]}"
    for seat in range(2):
        assert hand_codes_in(text, game.game.hands[seat]) == set()
    assert hand_codes_in(render_table(view(game.game, 0), names), game.game.hands[0])


@pytest.mark.parametrize(("options", "error", "words"), [
    ({"seat": 2}, ValueError, "seat must be 0..1 or 'random'"),
    ({"seat": "north"}, ValueError, "seat must be"),
    ({"opponents": "wizard"}, BotError, "no bot named 'wizard'"),
    ({"opponents": []}, BotError, "non-empty list"),
    ({"opponents": ["random", "greedy"]}, BotError, "2 opponents for 1 other seat: give at"),
    ({"illegal_action": "ignore"}, ValueError, "illegal_action must be"),
    ({"illegal_limit": 0}, ValueError, "illegal_limit must be"),
    ({"render_mode": "rgb_array"}, ValueError, "render_mode must be"),
    ({"rules": Rules(), "colors": 3}, RulesError, "not both"),
    ({"rules": {"players": 2}}, RulesError, "must be a noreturn.engine.Rules"),
    ({"hand_size": 0}, RulesError, "hand_size must be"),
])
def test_bad_options_are_refused_with_a_clear_message(
        options: dict[str, Any], error: type[Exception], words: str) -> None:
    with pytest.raises(error, match=words):
        env(**options)


def test_using_the_environment_before_reset_says_so() -> None:
    game = env()
    with pytest.raises(NoReturnError, match="call reset"):
        game.step(0)
