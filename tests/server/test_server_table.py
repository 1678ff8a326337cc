"""What the server needs of ``LocalTable``: no undo copies, replaying stored moves, takeovers."""

from __future__ import annotations

from random import Random

import pytest

from noreturn.engine import NoReturnError, Rules, legal_actions, parse_action
from noreturn.records import check_record
from noreturn.table import LocalTable, Seat

SMALL = Rules(players=3, colors=3, max_value=6, copies=2, hand_size=5, exchange_limit=3)
SEATS = [Seat("Ada"), Seat("Bo"), Seat("Cy", "greedy")]


def play_some(table: LocalTable, rng: Random, moves: int) -> list[tuple[str, str, int]]:
    """Random legal moves for people, the bot's for the bot: the stored form of each."""
    stored: list[tuple[str, str, int]] = []
    while len(stored) < moves and not table.is_over():
        seat = table.state.to_move
        if table.bot_to_move():
            move = table.bot_job()()  # as the server does: decided apart, then applied
            assert table.apply_bot(move)
            stored.append(("action", str(move.action), seat))
        else:
            action = rng.choice(table.legal_actions())
            assert table.try_action(action) is None
            stored.append(("action", str(action), seat))
    return stored


def rebuild(stored: list[tuple[str, str, int]], seed: str) -> LocalTable:
    table = LocalTable(SEATS, SMALL, seed=seed, undo=False)
    for kind, text, seat in stored:
        if kind == "leave":
            table.replace_by_bot(seat, text)
        else:
            table.replay(parse_action(text))
    return table


def test_the_seed_and_the_stored_moves_rebuild_the_same_game() -> None:
    table = LocalTable(SEATS, SMALL, seed="s1", undo=False)
    stored = play_some(table, Random(1), 15)
    table.replace_by_bot(1, "random")
    stored.append(("leave", "random", 1))
    stored += play_some(table, Random(2), 10_000)
    assert table.is_over()
    again = rebuild(stored, "s1")
    assert again.version == table.version == len(stored)
    assert again.record() == table.record()
    assert check_record(again.record()).valid
    for seat in (0, None):
        assert again.log(seat) == table.log(seat)
        assert again.view_for(seat) == table.view_for(seat)
    assert "Bo left the table; a random bot plays on" in table.log(None)
    assert table.record()["players"][1]["replaced_by"] == "random"
    assert table.log(1) == table.log(None)  # the person's own log is gone with them


def test_undo_off_keeps_no_copies_and_replay_refuses_what_is_not_legal() -> None:
    table = LocalTable(SEATS, SMALL, seed="s2", undo=False)
    solo = LocalTable([Seat("Ada"), Seat("Bea", "greedy"), Seat("Cy", "greedy")], SMALL,
                      seed="s2", undo=False)
    assert not solo.undo_allowed()
    play_some(solo, Random(3), 4)
    assert solo._checkpoints == []
    version = table.version
    with pytest.raises(NoReturnError, match="cannot replay"):
        table.replay(parse_action("place R1 R1 R1"))
    with pytest.raises(NoReturnError, match="draws"):
        table.replay(parse_action("draw R1"))
    assert table.version == version
    # A bot's stored move is replayed through the engine too.
    bots = LocalTable([Seat("A", "greedy"), Seat("B", "greedy"), Seat("C", "greedy")], SMALL,
                      seed="s3", undo=False)
    first = legal_actions(bots.state)[0]
    bots.replay(first)
    assert bots.version == 1


def test_a_takeover_is_refused_for_bots_and_after_the_end() -> None:
    table = LocalTable(SEATS, SMALL, seed="s4", undo=False)
    with pytest.raises(NoReturnError, match="already"):
        table.replace_by_bot(2)
    with pytest.raises(NoReturnError, match="seat must be"):
        table.replace_by_bot(7)
    play_some(table, Random(5), 10_000)
    with pytest.raises(NoReturnError, match="over"):
        table.replace_by_bot(0)
