"""The slow builder of ``examples/slow_builder.py``: a beginner-like yardstick that speaks the
external-bot protocol. Its choices, and a whole legal game through the protocol."""

from __future__ import annotations

from types import ModuleType
from typing import Any

from examplekit import EXAMPLES, protocol_game
from examplekit import load as load_script

from noreturn.records import check_record

EXAMPLE = EXAMPLES / "slow_builder.py"


def load() -> ModuleType:
    """The example as a module, so that its ``choose`` can be asked directly."""
    return load_script(EXAMPLE, "slow_builder")


def a_view(bag: int, rows: dict[str, list[str]] | None = None) -> dict[str, Any]:
    """A two-player view in play, seat 0, with ``bag`` tiles in the bag."""
    own = {"R": [], "O": [], "Y": [], "G": [], "B": [], "P": [], **(rows or {})}
    return {"stage": "play", "seat": 0, "bag_count": bag, "players": [{"rows": own}, {}]}


def test_it_declares_only_once_the_bag_is_down_to_late() -> None:
    choose = load().choose
    legal = ["declare", "place G10", "exchange R1"]
    assert choose(a_view(31), legal, 30) == "place G10"
    assert choose(a_view(30), legal, 30) == "declare"
    assert choose(a_view(12), legal, 10) == "place G10"


def test_it_places_one_or_two_tiles_the_worth_most() -> None:
    legal = ["place R8 R7 R6", "place B9 B8", "place G10", "exchange R1"]
    assert load().choose(a_view(80), legal, 30) == "place B9 B8"  # 17; three tiles never


def test_it_scores_the_tail_worth_most_net_of_a_third_of_its_payment() -> None:
    view = a_view(20, {"R": ["R11", "R9", "R2"]})
    legal = ["score R x1 pay B2", "score R x2 pay B8 B3", "exchange B2"]
    assert load().choose(view, legal, 30) == "score R x2 pay B8 B3"  # 11 - 3.3 against 2 - 0.6


def test_with_nothing_to_place_or_score_it_exchanges_its_lowest_tile() -> None:
    legal = ["exchange R5", "exchange B2", "exchange R5 B2"]
    assert load().choose(a_view(80), legal, 30) == "exchange B2"
    assert load().choose({"stage": "mulligan"}, ["mulligan", "mulligan B2"], 30) == "mulligan"


def test_it_plays_a_whole_legal_game_through_the_protocol() -> None:
    result, bot = protocol_game(EXAMPLE)
    assert result.forfeits == []  # an illegal answer would have been a forfeit
    assert bot.program_name == "slow_builder.py" and result.decisions[1] > 10
    assert result.record is not None and check_record(result.record).valid
    declared = [e for e in result.record["events"] if e["type"] == "declare"]
    assert [e["player"] for e in declared].count(1) == 1  # it does declare, once
