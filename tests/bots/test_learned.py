"""The learned playout policy (``bots/learned.py``, ``bots/weights.py``) and hard's use of
it (``search:own=learned``): legal moves, the network read as trained, repeatable."""

from __future__ import annotations

from random import Random

import numpy as np
import pytest

from noreturn.bots import BotError, Deck, learned, make_bot, play_game, weights
from noreturn.bots.candidates import turn_candidates
from noreturn.bots.search import SearchBot
from noreturn.engine import MULLIGAN, GameState, Rules, legal_actions, to_action, view
from strategies import game_positions

INPUTS = 2 * len(learned.FEATURES) + 1


def _weights_on(feature: str, sign: float = 1.0) -> learned.Scorer:
    """A network whose score rises with one feature alone (``sign``: or falls; 0: the
    same score for every candidate)."""
    w0 = np.zeros((1, INPUTS), dtype=np.float32)
    w0[0, learned.FEATURES.index(feature)] = 0.01 * sign
    return weights.scorer({"mean": np.zeros(INPUTS, dtype=np.float32),
                           "scale": np.ones(INPUTS, dtype=np.float32),
                           "w0": w0, "b0": np.zeros(1, dtype=np.float32),
                           "w1": np.ones((1, 1), dtype=np.float32),
                           "b1": np.zeros(1, dtype=np.float32)})


def _turns(players: int, seed: int) -> list[GameState]:
    return [s for policy in ("builder", "mixed")
            for s in game_positions(Rules(players=players), seed, policy)
            if not s.is_chance() and not s.is_over() and s.stage != MULLIGAN]


def test_the_network_is_read_as_trained_a_score_for_each_candidate() -> None:
    """Weights on "points scored" pick the candidate that scores most; the same weights
    negated, one that scores least."""
    most, least = _weights_on("points scored"), _weights_on("points scored", -1.0)
    checked = 0
    for state in _turns(3, 5):
        options = turn_candidates(state)
        if len(options) < 2:
            continue
        shared = learned.table(state)
        points = [learned.move_features(state, a, shared)[4] for a in options]
        assert points[options.index(learned.pick(state, most))] == max(points)
        assert points[options.index(learned.pick(state, least))] == min(points)
        checked += 1
    assert checked > 20


@pytest.mark.parametrize("players", [2, 3, 4])
def test_the_learned_playout_policy_plays_only_legal_moves(players: int) -> None:
    best = _weights_on("row points")
    for state in _turns(players, 7)[::2]:
        seat = state.to_move
        decided = learned.playout_policy(seat, best)(state, Random(1))
        assert to_action(decided) in legal_actions(state)
        other = learned.playout_policy((seat + 1) % players, best)(state, Random(1))
        assert to_action(other) in legal_actions(state)  # the plan, for the other seats


def test_hard_with_its_own_playouts_learned_plays_legally_and_repeatably() -> None:
    """``own``: the learned policy's pick leads the candidates and plays the searching
    seat's playouts; with an iteration budget the same seed gives the same game."""
    best = _weights_on("row points")
    alike = _weights_on("row points", 0.0)  # every candidate alike: the plan's, first
    rules = Rules(players=2, colors=3, max_value=6, hand_size=5)  # a short game

    def game() -> tuple[list[int], int]:
        bots = [SearchBot(iterations=3, own=lambda _players: alike), make_bot("easy")]
        result = play_game(rules, bots, Deck(rules, 11), seed=11)
        assert result.forfeits == []
        return result.scores, result.turns

    assert game() == game()
    bot = SearchBot(iterations=4, own=lambda _players: best)
    state = _turns(3, 9)[5]
    legal = legal_actions(state)
    bot._scorer = best  # as act sets it for the table size
    assert bot.candidates(state, legal)[0] == learned.pick(state, best)
    assert bot.act(view(state, state.to_move), legal, Random(2)) in legal


def test_the_own_option_names_its_choices() -> None:
    assert make_bot("search:own=plan").own is None  # type: ignore[attr-defined]
    with pytest.raises(BotError, match="use own=plan or own=learned"):
        make_bot("search:own=network")
