"""The racer of ``examples/racer.py``: a plain, greedy yardstick that speaks the external-bot
protocol. Its choices, a whole legal game through the protocol, and the same play as the
in-process racer that ``benchmarks/tune_plan.py`` weighs the plan against."""

from __future__ import annotations

import sys
from random import Random
from typing import Any

from examplekit import EXAMPLES, load, protocol_game

from noreturn.bots import Deck
from noreturn.bots.viewjson import view_to_json
from noreturn.engine import OVER, GameState, Rules, legal_actions, view

ROOT = EXAMPLES.parent
EXAMPLE = EXAMPLES / "racer.py"


def a_view(phase: int, turns: int, hand: list[str],
           rows: dict[str, list[str]] | None = None) -> dict[str, Any]:
    """A two-player view in play, seat 0."""
    own = {"R": [], "O": [], "Y": [], "G": [], "B": [], "P": [], **(rows or {})}
    return {"stage": "play", "seat": 0, "hand": hand,
            "players": [{"rows": own, "phase": phase, "turns_taken": turns}, {}]}


def test_it_builds_the_placement_worth_most_then_declares() -> None:
    choose = load(EXAMPLE, "racer").choose
    legal = ["declare", "place R8 R7 R6", "place B9 B8", "exchange R1"]
    assert choose(a_view(1, 3, []), legal, 9) == "place R8 R7 R6"  # 21 against 17
    assert choose(a_view(1, 9, []), legal, 9) == "declare"


def test_it_scores_the_tail_worth_most_of_those_paid_at_half_their_value() -> None:
    view = a_view(2, 12, ["B8", "B3", "B2"], {"R": ["R11", "R9", "R2"]})
    legal = ["score R x1 pay B2", "score R x1 pay B3", "score R x2 pay B8 B3", "exchange B2"]
    # worth: 2, 2 - 0.2 * 1 overpaid, 11: the biggest tail
    assert load(EXAMPLE, "racer").choose(view, legal, 9) == "score R x2 pay B8 B3"
    costly = ["score R x1 pay B8", "exchange B2"]  # 2 for 8: under half, not scored
    assert load(EXAMPLE, "racer").choose(view, costly, 9) == "exchange B2"


def test_its_mulligan_gives_back_the_tiles_up_to_5() -> None:
    view = {"stage": "mulligan", "hand": ["R5", "B6", "G1"]}
    legal = ["mulligan", "mulligan R5", "mulligan G1", "mulligan R5 G1", "mulligan R5 B6 G1"]
    assert load(EXAMPLE, "racer").choose(view, legal, 9) == "mulligan R5 G1"


def test_it_plays_a_whole_legal_game_through_the_protocol() -> None:
    result, bot = protocol_game(EXAMPLE)
    assert result.forfeits == [] and bot.program_name == "racer.py"
    declared = [e for e in (result.record or {})["events"] if e["type"] == "declare"]
    assert [e["player"] for e in declared].count(1) == 1


def test_the_benchmarks_racer_is_the_example_asked_in_process() -> None:
    """``tune_plan.py`` weighs the plan against the racer in-process, for speed, by asking
    the example itself: whole legal games at every table size."""
    sys.path.insert(0, str(ROOT / "benchmarks"))
    try:
        in_process = load(ROOT / "benchmarks" / "tune_plan.py", "tune_plan_racer").racer
    finally:
        sys.path.remove(str(ROOT / "benchmarks"))
    example = load(EXAMPLE, "racer")
    for players in (2, 3, 4):
        rules = Rules(players=players)
        deck = Deck(rules, players)
        state = GameState(rules, deck.start_player)
        while state.stage != OVER:
            if state.draws_due:
                state.apply(deck.next_draw(state))
                continue
            legal = legal_actions(state)
            mine = in_process(state, Random(0))
            assert mine in legal
            seen = view_to_json(view(state, state.to_move))
            assert str(mine) == example.choose(seen, [str(a) for a in legal], 9)
            state.apply(mine)
