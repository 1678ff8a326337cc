"""``LocalTable``: the game at a local table, shared by the full-screen and plain front ends."""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from pathlib import Path
from random import Random

import pytest
from typer.testing import CliRunner

from noreturn.bots.switch import switch_advice
from noreturn.cli import app
from noreturn.engine import (
    Action,
    Declare,
    Exchange,
    Mulligan,
    Place,
    Rules,
    Score,
    View,
    legal_actions,
    parse_action,
    parse_tile,
)
from noreturn.records import check_record
from noreturn.table import LocalTable, Seat, SeatsError, make_seats

SMALL = Rules(players=2, colors=3, max_value=6, copies=2, hand_size=5, exchange_limit=3)
TILE = re.compile(r"\b[ROYGBP]\d{1,2}\b")


def play_hints(table: LocalTable, decisions: int = 10_000) -> int:
    """Play the suggested move at each decision of the person (up to ``decisions``)."""
    made = 0
    while made < decisions:
        table.run_bots()
        if table.is_over():
            break
        action, reason = table.hint()
        assert action in table.legal_actions(), reason
        assert table.try_action(action) is None
        made += 1
    return made


def test_make_seats_put_you_first_and_cycle_the_bot_specs() -> None:
    seats = make_seats(4, ["Bea"], ["greedy", "hard"])
    assert [s.bot for s in seats] == [None, "greedy", "hard", "greedy"]
    assert seats[0].name == "Bea" and len({s.name for s in seats}) == 4
    hot = make_seats(3, ["Ada", "Bob"], hotseat=True)
    assert [s.human for s in hot] == [True] * 3
    assert [s.name for s in hot] == ["Ada", "Bob", "Bo"]  # a name like the others
    assert [s.name for s in make_seats(4, ["Bo"], hotseat=True)] == ["Bo", "Ada", "Cleo", "Dan"]


@pytest.mark.parametrize(("players", "names", "hotseat", "says"), [
    (2, ["Ada", "Bob", "Cyd"], True, "3 names for 2 players: give at most 2"),
    (3, ["Ada", "Bob"], False, "2 names for one person against bots (or --hotseat)"),
    (3, ["Ada", "Ada"], True, "a name is given twice"),
])
def test_make_seats_refuse_names_that_would_be_dropped_or_confused(
        players: int, names: list[str], hotseat: bool, says: str) -> None:
    with pytest.raises(ValueError, match=says.replace("(", r"\(").replace(")", r"\)")):
        make_seats(players, names, hotseat=hotseat)


def test_more_bots_than_bot_seats_is_refused_naming_the_option() -> None:
    """``--bots medium,hard`` at two players played medium alone, without a word."""
    with pytest.raises(SeatsError, match="2 bots for one bot seat at 2 players") as caught:
        make_seats(2, ["Ada"], ["medium", "hard"])
    assert caught.value.option == "--bots"
    with pytest.raises(SeatsError, match="4 bots for 2 bot seats at 3 players: give at most 2"):
        make_seats(3, ["Ada"], ["easy"] * 4)
    assert [s.bot for s in make_seats(3, ["Ada"], ["easy", "hard"])] == [None, "easy", "hard"]
    assert all(s.human for s in make_seats(2, ["Ada"], ["easy", "hard"], hotseat=True))
    said = " ".join(CliRunner().invoke(app, ["play", "--plain", "--bots", "medium,hard"])
                    .output.split())
    assert "Invalid value for --bots: 2 bots for one bot seat" in said


def test_a_whole_game_against_bots_ends_with_a_valid_record(tmp_path: Path) -> None:
    table = LocalTable(make_seats(3, ["Ada"], ["greedy", "medium"]), seed=11, save_dir=tmp_path)
    assert play_hints(table) > 5
    assert table.is_over()
    record = json.loads(table.save().read_text())
    verdict = check_record(record)
    assert verdict.valid, verdict.reason
    assert record["result"]["scores"] == table.state.scores()
    assert record["players"][1] == {"name": "Bea", "kind": "bot", "policy": "greedy"}
    assert table.log(0)[-1].startswith("game over: Ada ")
    lines = table.result_lines()
    assert len(lines) == 3 and all(" = pile " in line and " - rows " in line for line in lines)


def test_the_same_seed_deals_the_same_game() -> None:
    one = LocalTable(make_seats(2, ["Ada"], ["greedy"]), seed="same")
    two = LocalTable(make_seats(2, ["Ada"], ["greedy"]), seed="same")
    play_hints(one)
    play_hints(two)
    assert one.record()["events"] == two.record()["events"]


def test_an_illegal_action_is_explained_and_changes_nothing() -> None:
    table = LocalTable(make_seats(2, ["Ada"], ["greedy"]), SMALL, seed=1)
    play_hints(table, decisions=1)  # past the mulligan
    table.run_bots()
    before, version, record = table.state.key(), table.version, table.record()
    hand = sorted(table.state.hands[table.state.to_move])
    reason = table.try_action(Score(0, 1, (hand[0],)))
    assert reason == "you are in phase 1: declare phase 2 before you score"
    assert table.try_action(Exchange((parse_tile("R1"),) * 9)) is not None
    assert (table.state.key(), table.version, table.record()) == (before, version, record)


def test_undo_restores_state_record_and_log_exactly() -> None:
    table = LocalTable(make_seats(2, ["Ada"], ["greedy"]), seed=4)
    play_hints(table, decisions=3)
    table.run_bots()
    state, record, log = table.state.clone(), table.record(), table.log(0)
    action, _ = table.hint()
    assert table.try_action(action) is None
    table.run_bots()
    assert table.state != state
    assert table.undo() is None
    assert table.state == state
    undone = table.record()
    events = len(record["events"])
    assert undone["meta"].pop("reshuffled_at_events") == [events]  # see test_table_undo
    assert (undone, table.log(0)) == (record, log)
    assert table.try_action(action) is None


def test_undo_is_refused_with_two_people_and_after_a_declaration() -> None:
    hot = LocalTable(make_seats(2, ["Ada", "Bob"], hotseat=True), SMALL, seed=2)
    action, _ = hot.hint()
    assert hot.try_action(action) is None
    assert hot.undo() == "undo is only for games against bots"
    solo = LocalTable(make_seats(2, ["Ada"], ["greedy"]), SMALL, seed=2)
    assert solo.undo() == "nothing to undo yet"
    play_hints(solo, decisions=1)
    solo.run_bots()
    assert solo.try_action(Declare()) is None
    assert solo.undo() == "a declaration cannot be undone: there is no return"
    assert solo.state.phases[0] == 2


def test_a_bot_answer_for_a_game_that_changed_is_dropped() -> None:
    table = LocalTable(make_seats(2, ["Ada"], ["greedy"]), SMALL, seed=3)
    table.run_bots()
    assert table.try_action(table.hint()[0]) is None
    while not table.bot_to_move():
        play_hints(table, decisions=1)
    assert table.why_no_undo() is None
    move = table.decide_bot()
    assert table.undo() is None
    assert not table.apply_bot(move)
    assert table.human_to_move()


class _Answers:
    """A bot answering each legal action as a new, equal value, or always one that is
    not legal."""

    name = "answers"

    def __init__(self, legal_copy: bool) -> None:
        self.legal_copy = legal_copy

    def act(self, _view: View, legal: Sequence[Action], _rng: Random) -> Action:
        return parse_action(str(legal[-1])) if self.legal_copy else Place((999,))


@pytest.mark.parametrize("legal_copy", [True, False])
def test_a_bot_answer_counts_as_legal_by_value_not_only_by_identity(legal_copy: bool) -> None:
    """A bot's answer is checked against the legal actions (identity first, then value):
    an equal copy of one is played as it is; anything else goes to the fallback bot."""
    table = LocalTable(make_seats(2, [], ["greedy"]), SMALL, seed=4)
    seat = table.state.to_move
    table.bots[seat] = _Answers(legal_copy)
    legal = legal_actions(table.state)
    move = table.decide_bot()
    if legal_copy:
        assert (move.action, move.note) == (legal[-1], "")
        assert all(move.action is not action for action in legal)
    else:
        assert move.action in legal and "not legal" in move.note


def test_hints_are_legal_all_game_long() -> None:
    table = LocalTable(make_seats(2, ["Ada"], ["medium"]), seed=8)
    assert play_hints(table) > 0  # play_hints checks each hint against the legal actions
    with pytest.raises(ValueError, match="turn"):
        table.hint()


def test_switch_advice_weighs_only_a_persons_phase_1_turn() -> None:
    table = LocalTable(make_seats(2, ["Ada"], ["greedy"]), SMALL, seed=4)
    table.run_bots()
    assert table.why_no_switch_advice() == "nothing to weigh: the mulligan comes first"
    with pytest.raises(ValueError, match="mulligan comes first"):
        table.switch_advice(worlds=4)
    assert table.try_action(Mulligan(())) is None
    assert table.why_no_switch_advice() == "nothing to weigh: it is Bea's turn"
    table.run_bots()
    assert table.why_no_switch_advice() is None
    seen = table.view_for(0)
    job = table.switch_job(worlds=8, rng=Random(1))
    assert table.try_action(Declare()) is None
    assert job() == switch_advice(seen, worlds=8, rng=Random(1))  # the turn it was asked at
    with pytest.raises(ValueError, match="declared phase 2 already"):
        table.switch_advice(worlds=4)


def test_switch_advice_at_the_table_is_the_advisors_for_the_persons_view() -> None:
    table = LocalTable(make_seats(2, ["Ada"], ["greedy"]), SMALL, seed=4)
    table.run_bots()
    table.try_action(Mulligan(()))
    table.run_bots()
    advice = table.switch_advice(worlds=8, rng=Random(2))
    assert advice == switch_advice(table.view_for(0), worlds=8, rng=Random(2))
    assert advice.worlds == 8 and advice.text().endswith("(8 samples)")


def _hidden_tiles(line: str) -> list[str]:
    """Tile codes in the private part of a log line about someone else."""
    head, _, drew = line.partition(" and drew ")
    public = " placed " in head or " scored " in head
    return TILE.findall(drew) + ([] if public else TILE.findall(head))


@pytest.mark.parametrize("hotseat", [False, True])
def test_log_lines_never_show_another_seats_hidden_tiles(hotseat: bool) -> None:
    seats = (make_seats(3, ["Ada", "Bob", "Cyd"], hotseat=True) if hotseat
             else make_seats(3, ["Ada"], ["greedy", "random"]))
    table = LocalTable(seats, seed=5)
    play_hints(table)  # in the hot seat, each person in turn
    assert table.is_over()
    names = table.names
    for reader in [*table.humans, None]:
        own_codes = 0
        for line in table.log(reader):
            speaker = next((s for s, n in enumerate(names) if line.startswith(n + " ")), None)
            if speaker is None:
                continue
            if speaker == reader:
                own_codes += len(_hidden_tiles(line))
            else:
                assert _hidden_tiles(line) == [], (reader, line)
        if reader is not None:  # the check can fail: your own lines do show your tiles
            assert own_codes > 0


def test_each_turn_is_one_line_with_its_refill() -> None:
    table = LocalTable([Seat("Ada"), Seat("Bea", "greedy")], seed=9)
    play_hints(table, decisions=4)
    lines = table.log(0)
    deals = [line for line in lines if " was dealt " in line]
    assert "Bea was dealt 8 tiles" in deals
    assert any(re.fullmatch(r"Ada was dealt( [ROYGBP]\d+){8}", line) for line in deals)
    own = [line for line in lines if line.startswith("Ada ") and " and drew " in line]
    theirs = [line for line in lines if line.startswith("Bea ") and " and drew " in line]
    assert own and all(re.search(r" and drew( [ROYGBP]\d+)+$", line) for line in own)
    assert theirs and all(re.search(r" and drew \d+$", line) for line in theirs)


def test_place_is_judged_by_the_engine() -> None:
    table = LocalTable(make_seats(2, ["Ada"], ["greedy"]), SMALL, seed=6)
    play_hints(table, decisions=1)
    table.run_bots()
    hand = table.state.hands[table.state.to_move]
    colours = sorted({t >> 5 for t in hand})
    assert len(colours) > 1  # this seed's hand: the test needs two colours
    mixed = tuple(min(t for t in hand if t >> 5 == c) for c in colours[:2])
    assert table.try_action(Place(mixed)) == "place tiles of one colour only"


def test_legal_texts_follow_every_change_of_the_game_undo_and_takeover_included() -> None:
    """They are kept per version: a stale list would offer moves of an earlier turn."""
    table = LocalTable(make_seats(2, ["Ada"], ["greedy"]), seed=9)
    seen: list[list[str]] = []
    undone = False
    for turn in range(12):
        table.run_bots()
        if table.is_over():
            break
        texts = table.legal_texts()
        assert texts == [str(a) for a in table.legal_actions()] and texts
        texts.append("not a move")  # the caller's copy: the kept list is not touched
        assert "not a move" not in table.legal_texts()
        seen.append(table.legal_texts())
        if turn >= 5 and not undone and table.undo() is None:
            undone = True
            assert table.legal_texts() == seen[-2]
            continue
        assert table.try_action(table.hint()[0]) is None
        assert table.legal_texts() == [str(a) for a in table.legal_actions()]
    assert undone and len(seen) >= 6
    table.run_bots()
    if not table.is_over():
        table.replace_by_bot(0, "greedy")
        assert table.legal_texts() == [] and table.legal_actions() == []
