"""The server's game (``OnlineTable``): a timed-out turn played by a bot and told in every
log, and which turns a person alone with bots may take back (issue 18)."""

from __future__ import annotations

import pytest

from noreturn.engine import Declare, NoReturnError, Rules, parse_action
from noreturn.table import OnlineTable, Seat

SMALL = Rules(players=2, colors=3, max_value=6, hand_size=5, exchange_limit=3)


def alone(seed: int = 1) -> OnlineTable:
    """Ada against a greedy bot, Ada to move."""
    table = OnlineTable([Seat("Ada"), Seat("Bea", "greedy")], SMALL, seed=seed)
    table.run_bots()
    assert table.human_to_move()
    return table


def test_a_timed_out_turn_is_played_for_the_person_and_every_log_says_so() -> None:
    table = OnlineTable([Seat("Ada"), Seat("Bo")], SMALL, seed=3, turn_seconds=60)
    mover = table.to_move()
    assert mover is not None
    name = table.names[mover]
    table.play_for(table.legal_actions()[0], "easy")
    line = f"time ran out: easy played for {name}"
    for reader in (0, 1, None):
        log = table.log(reader)
        assert line in log and log.index(line) == len(log) - 2  # then the turn itself
    with pytest.raises(NoReturnError, match="cannot play"):
        table.play_for(parse_action("place R1"), "easy")


def test_a_timed_out_turn_needs_a_person_to_move() -> None:
    table = OnlineTable([Seat("Ada", "greedy"), Seat("Bea", "greedy")], SMALL, seed=1)
    with pytest.raises(NoReturnError, match="no person is to move"):
        table.play_for(parse_action("pass"), "easy")


def test_what_may_be_taken_back() -> None:
    table = alone()
    assert table.why_no_take_back(0) == "nothing to take back yet: you have not moved"
    assert table.undo_target(0) is None
    version = table.version
    table.try_action(table.legal_actions()[0])
    table.run_bots()
    assert table.undo_target(0) == version
    assert table.why_no_take_back(1) == table.why_no_take_back(None)  # not the person
    while not any(isinstance(a, Declare) for a in table.legal_actions()):
        table.try_action(table.legal_actions()[-1])
        table.run_bots()
        if table.is_over():
            pytest.skip("the game ended before a declaration was legal")
    table.try_action(Declare())
    table.run_bots()
    if table.human_to_move():
        assert table.why_no_take_back(0) == ("a declaration cannot be taken back: there "
                                             "is no return")


def test_beside_another_person_nothing_is_taken_back_until_they_leave() -> None:
    table = OnlineTable([Seat("Ada"), Seat("Bo")], SMALL, seed=2)
    mover = table.to_move()
    table.try_action(table.legal_actions()[0])
    assert "every other seat is a bot" in (table.why_no_take_back(mover) or "")
    other = 1 - (mover or 0)
    table.replace_by_bot(other, "greedy")  # Bo leaves: a bot plays on
    assert table.why_no_take_back(mover) is not None  # nothing from before the leave


def test_after_take_back_says_so_and_notes_the_record() -> None:
    table = alone()
    version = table.version
    table.after_take_back(0, version + 5, 1234)
    assert table.version == version + 5
    assert table.log(0)[-1] == table.log(None)[-1] == "Ada took back their last turn"
    meta = table.record()["meta"]
    assert meta["taken_back"] == [{"seat": 0, "at_event": len(table.record()["events"])}]
    assert meta["reshuffled_at_events"]


def test_the_record_notes_a_timed_out_turn() -> None:
    table = OnlineTable([Seat("Ada"), Seat("Bo")], SMALL, seed=4, turn_seconds=60)
    mover = table.to_move()
    at = len(table.record()["events"])
    table.play_for(table.legal_actions()[0], "medium")
    assert table.record()["meta"]["timed_out"] == [{"seat": mover, "at_event": at,
                                                    "level": "medium"}]
    assert table.record()["events"][at]["type"] not in ("deal", "draw")
