"""Undo at a local table never shows the future: the bag is ordered afresh after each undo.

A person who takes a move back has seen what that move drew; if the bag kept its order,
the same move (or any move drawing as many tiles) would draw the same tiles again.
"""

from __future__ import annotations

import io
import re
from collections import Counter
from pathlib import Path

from typer.testing import CliRunner

from noreturn.cli import app
from noreturn.engine import GameState, Rules, reshuffled
from noreturn.records import check_record
from noreturn.table import LocalTable, make_seats
from noreturn.tui.plain import run_plain

TRIES = 40


def _ready(seed: int) -> LocalTable:
    """A game against a greedy bot where the person is to move in play."""
    table = LocalTable(make_seats(2, ["Ada"], ["greedy"]), seed=seed)
    table.run_bots()
    assert table.try_action(table.legal_actions()[0]) is None  # the mulligan: keep
    table.run_bots()
    assert table.human_to_move()
    return table


def test_the_same_move_after_an_undo_draws_from_a_fresh_order() -> None:
    same = 0
    for seed in range(TRIES):
        table = _ready(seed)
        bag = Counter(table.state.bag)
        action, _ = table.hint()
        assert table.try_action(action) is None
        first = Counter(table.view_for(0).hand)
        assert table.undo() is None
        assert Counter(table.state.bag) == bag  # the same tiles, only their order is new
        assert table.try_action(action) is None
        same += Counter(table.view_for(0).hand) == first
        table.run_bots()
        assert check_record(table.record()).valid
    assert same <= TRIES // 4, f"{same} of {TRIES} replays drew the same tiles again"


def test_a_whole_game_with_undos_is_a_valid_record_that_says_where_the_bag_was_reshuffled(
    tmp_path: Path,
) -> None:
    table = _ready(7)
    table.save_dir = tmp_path
    undone: list[int] = []
    while not table.is_over():
        action, _ = table.hint()
        assert table.try_action(action) is None
        if len(undone) < 3 and table.why_no_undo() is None:
            assert table.undo() is None
            undone.append(len(table.record()["events"]))
            assert table.try_action(action) is None
        table.run_bots()
    record = table.record()
    assert check_record(record).valid and "result" in record
    assert len(undone) == 3
    assert record["meta"]["reshuffled_at_events"] == undone
    assert record["meta"]["seed"] == table.seed
    checked = CliRunner().invoke(app, ["validate", str(table.save())])
    assert checked.exit_code == 0 and "OK " in checked.output, checked.output


def test_reshuffled_keeps_the_bags_tiles_and_depends_on_its_seed_only() -> None:
    state = GameState(Rules(players=2), 0)
    bag = reshuffled(state, "a")
    assert sorted(bag.order) == sorted(state.bag)
    assert reshuffled(state, "a").order == bag.order != reshuffled(state, "b").order


DREW = re.compile(r"^Ada exchanged \S+ and drew (\S+)$", re.MULTILINE)


def test_plain_undo_then_the_same_move_draws_anew(tmp_path: Path) -> None:
    """``--plain``: keep the hand, exchange the lowest tile (move 1), undo, the same again."""
    same = 0
    for seed in range(TRIES // 2):
        out: list[str] = []
        run_plain(rules=Rules(players=2), seed=seed, bots=["greedy"], write=out.append,
                  stdin=io.StringIO("\n1\nundo\n1\nquit\n"),
                  save_dir=tmp_path)
        draws = DREW.findall("\n".join(out))
        assert len(draws) == 2, out
        same += draws[0] == draws[1]
    assert same <= TRIES // 8
