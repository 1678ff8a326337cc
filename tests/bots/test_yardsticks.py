"""The frozen yardsticks do not move: ``heuristic-v1`` and ``ismcts-v1`` choose today what
they chose when they were frozen, on every stored position (``yardsticks-v1.json``).

Every claim that a new bot is stronger is measured against these two, so a change to code
they share (sampling, the engine's rollout, the heuristic policy) that changed their play
would quietly move the bar. This test catches it.
"""

from __future__ import annotations

import json
from random import Random

import pytest
from make_yardsticks import FIXTURE, decisions

from noreturn.bots.yardsticks import policy_v1
from noreturn.engine import Rules, new_game, rollout_action

GAMES = json.loads(FIXTURE.read_text())["games"]
CASES = [(g, d) for g, game in enumerate(GAMES) for d in range(len(game["decisions"]))]


def test_the_fixture_spans_every_table_size_and_both_phases() -> None:
    sizes = {game["record"]["rules"]["players"] for game in GAMES}
    assert sizes == {2, 3, 4}
    kinds = {d["heuristic-v1"].split()[0] for game in GAMES for d in game["decisions"]}
    assert {"place", "score", "exchange"} <= kinds
    assert len(CASES) >= 60


@pytest.mark.parametrize(("game", "point"), CASES)
def test_a_yardstick_decides_as_when_it_was_frozen(game: int, point: int) -> None:
    stored = GAMES[game]["decisions"][point]
    assert decisions(GAMES[game]["record"], stored["after_event"], stored["seed"]) == stored


def test_the_frozen_policy_reads_a_state_without_changing_it() -> None:
    rng = Random(11)
    for players in (2, 3, 4):
        state = new_game(Rules(players=players), rng)
        while not state.is_over():
            if state.is_chance():
                state.apply(state.sample_draw(rng))
                continue
            hands = [list(hand) for hand in state.hands]
            before = state.clone()
            policy_v1.choose(state, rng)
            assert state.hands == hands, "choose changed the order of a hand"
            assert state == before
            state.apply(rollout_action(state, rng))
