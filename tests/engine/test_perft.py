"""Golden legal-action counts ("perft") of fixed positions: tests/engine/perft.json.

A change in legal-action generation, in ``apply`` or in the end of the game shows up here
as a changed count. The file's header defines the counts; ``benchmarks/perft.py --update``
rewrites it when a change is meant, and without ``--update`` times the same positions.
The counting is written again here, not imported, so the check does not share code with the
script that wrote the numbers.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from noreturn.engine import GameState, Rules, Stage, legal_actions, new_game, parse_action

PERFT = json.loads((Path(__file__).parent / "perft.json").read_text())
POSITIONS: list[dict[str, Any]] = PERFT["positions"]


def decision_leaves(state: GameState, depth: int) -> int:
    """Leaves of the player-decision tree: chance nodes and the end are leaves."""
    if depth == 0 or state.is_chance() or state.is_over():
        return 1
    total = 0
    for action in legal_actions(state):
        child = state.clone()
        child.apply(action)
        total += decision_leaves(child, depth - 1)
    return total


def replay(entry: dict[str, Any]) -> GameState:
    state = new_game(Rules.from_dict(entry["rules"]), start_player=entry["start_player"])
    for text in entry["actions"]:
        state.play(parse_action(text))
    return state


def test_file_header_defines_the_counts() -> None:
    assert PERFT["format"] == "noreturn-perft/1"
    about = " ".join(PERFT["about"])
    assert "chance node" in about and "perft[d]" in about


def test_positions_cover_every_stage_and_variant() -> None:
    assert len(POSITIONS) >= 20
    assert {p["stage"] for p in POSITIONS} == {stage.text for stage in Stage}
    assert len({json.dumps(p["rules"], sort_keys=True) for p in POSITIONS}) >= 5
    assert len({p["name"] for p in POSITIONS}) == len(POSITIONS)
    assert any(p["phases"][p["to_move"]] == 2 for p in POSITIONS)
    assert any(p["bag"] == 0 and p["stage"] == "play" for p in POSITIONS)
    assert any("3" in p["perft"] and p["perft"]["3"] > 100 for p in POSITIONS)


@pytest.mark.parametrize("entry", POSITIONS, ids=[p["name"] for p in POSITIONS])
def test_counts_match_the_file(entry: dict[str, Any]) -> None:
    state = replay(entry)
    assert (state.stage.text, state.to_move, state.phases, len(state.bag),
            state.turns) == (entry["stage"], entry["to_move"], entry["phases"], entry["bag"],
                             entry["turns"]), "the replay reached another position"
    actions = legal_actions(state)
    assert len(actions) == entry["legal"]
    if not state.is_chance() and not state.is_over():
        assert decision_leaves(state, 1) == entry["legal"]
    for depth, leaves in entry["perft"].items():
        assert decision_leaves(state, int(depth)) == leaves, f"perft {depth}"
