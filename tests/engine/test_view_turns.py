"""The view says what a bot would otherwise have to keep track of itself (issue 15, item
6): each seat's turns taken, the turns left once the bag is empty, and whether the seat to
move declared in the turn under way (docs/rules.md, "A turn" and "End of the game")."""

from __future__ import annotations

from itertools import pairwise
from random import Random

import pytest

from noreturn.bots.viewjson import view_to_json
from noreturn.engine import Declare, GameState, Rules, new_game, rollout_action, view
from strategies import random_rules


def _play(rules: Rules, seed: int) -> list[tuple[GameState, object]]:
    """Every decision of one rollout game with the action taken, and the final state."""
    rng = Random(seed)
    state = new_game(rules, rng)
    steps: list[tuple[GameState, object]] = []
    while not state.is_over():
        if state.is_chance():
            state.apply(state.sample_draw(rng))
            continue
        action = rollout_action(state, rng)
        steps.append((state.clone(), action))
        state.apply(action)
    steps.append((state, None))
    return steps


@pytest.mark.parametrize("seed", range(12))
def test_turn_counts_and_the_declaration_follow_the_game(seed: int) -> None:
    rules = Rules(players=2 + seed % 3) if seed % 2 else random_rules(Random(seed))
    steps = _play(rules, seed)
    taken = [0] * rules.players
    declared_before = False
    for (state, action), (after, _) in pairwise(steps):
        seen = view(state, state.to_move)
        assert list(seen.turns_taken) == taken
        assert seen.declared_this_turn == declared_before
        assert view(state, None).declared_this_turn == declared_before  # public
        declared_before = isinstance(action, Declare)
        if after.turns > state.turns:
            taken[state.to_move] += 1
    final = view(steps[-1][0], 0)
    assert list(final.turns_taken) == taken and sum(taken) == final.turns
    assert final.turns_left == 0 and not final.declared_this_turn


def test_turns_left_counts_down_to_the_end_once_the_bag_is_empty() -> None:
    counted = 0
    for seed in range(40):
        steps = _play(Rules(players=2 + seed % 3), 100 + seed)
        final = steps[-1][0]
        early = final.declared == final.n and not final.row_tiles  # may end before the round
        for state, _ in steps[:-1]:
            left = view(state, state.to_move).turns_left
            if not state.ending:
                assert left is None
                continue
            counted += 1
            assert left is not None and left >= final.turns - state.turns
            assert early or left == final.turns - state.turns
    assert counted > 15


def test_the_json_view_carries_the_turn_fields() -> None:
    state, _ = next((s, a) for s, a in _play(Rules(players=3), 5)
                    if isinstance(a, Declare))
    state.apply(Declare())
    data = view_to_json(view(state, state.to_move))
    assert data["declared_this_turn"] is True and data["turns_left"] is None
    me = data["players"][state.to_move]
    assert me["declared_turn"] == state.turns and me["phase"] == 2
    assert [p["turns_taken"] for p in data["players"]] == list(
        view(state, None).turns_taken)
