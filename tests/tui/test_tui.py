"""The full-screen game, driven headless through Textual's pilot by keys and clicks: moves,
hints, undo, hot-seat, scoring, and the table on an 80x24 terminal.

The app and the pilot come from ``tuikit.py``; the switch advice is tested in
``test_tui_advice.py``, the end screen and its review in ``test_tui_end.py``.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from rich.cells import cell_len
from textual.pilot import Pilot
from textual.widgets import Footer
from tuikit import SMALL, drive, new_app, past_mulligan, play_to_the_end, settle, text

from noreturn.engine import Declare, Exchange, Pass, Place, Rules, colour_of, tile_code
from noreturn.records import check_record
from noreturn.table import LocalTable, make_seats
from noreturn.tui.app import NoReturnApp
from noreturn.tui.moves import Target, candidates, hand_order, payments, tiles_of
from noreturn.tui.screens import ConfirmScreen, EndScreen, HandoverScreen, LogScreen
from noreturn.tui.widgets import (
    CELL,
    STATUS_NAME,
    HandView,
    MovePanel,
    PlayerPanel,
    status_name,
)


def test_a_whole_game_by_keys_ends_with_the_engines_scores(tmp_path: Path) -> None:
    app = new_app(tmp_path, make_seats(2, ["Ada"], ["heuristic"]), Rules(players=2), seed=3)

    async def body(pilot: Pilot[str], app: NoReturnApp) -> None:
        moves = await play_to_the_end(pilot, app)
        assert moves > 20
        assert isinstance(app.screen, EndScreen)
        shown = text(app, "#result")
        state = app.table.state
        for seat, name in enumerate(app.table.names):
            arithmetic = (f"{state.ranks()[seat]}. {name}: {state.scores()[seat]} = pile "
                          f"{state.pile_sums[seat]} - rows {state.row_sum(seat)}")
            assert arithmetic in shown
        assert "Record saved: " in shown
        await pilot.press("q")

    drive(app, body)
    path = Path(app.return_value or "")
    assert path.parent == tmp_path and path == app.table.path
    record = json.loads(path.read_text())
    assert check_record(record).valid
    assert record["result"]["scores"] == app.table.state.scores()
    mine = {e["type"] for e in record["events"] if e["player"] == 0}
    assert {"mulligan", "place", "declare", "score"} <= mine  # every kind of move, by keys


def test_an_illegal_selection_is_explained_and_changes_nothing(tmp_path: Path) -> None:
    async def body(pilot: Pilot[str], app: NoReturnApp) -> None:
        await past_mulligan(pilot, app)
        order = app.order()
        first = {colour_of(t): i for i, t in reversed(list(enumerate(order)))}
        assert len(first) >= 2  # this seed's hand holds two colours
        a, b = sorted(first.values())[:2]
        before, version = app.table.state.key(), app.table.version
        await pilot.press(str(a + 1), str(b + 1), "p")
        assert "✗ not allowed: place tiles of one colour only" in text(app, "#candidates")
        await pilot.press("enter")
        assert text(app, "#message") == "not allowed: place tiles of one colour only"
        assert (app.table.state.key(), app.table.version) == (before, version)
        assert app.selected == {a, b}  # the selection stays for the player to fix
        await pilot.press("s")
        assert "declare first" in text(app, "#message")
        assert app.table.state.key() == before

    drive(new_app(tmp_path), body)


def test_declare_asks_first_and_cancel_keeps_phase_1(tmp_path: Path) -> None:
    async def body(pilot: Pilot[str], app: NoReturnApp) -> None:
        await past_mulligan(pilot, app)
        await pilot.press("d")
        assert isinstance(app.screen, ConfirmScreen)
        assert "no return" in str(app.screen.question)
        await pilot.press("n")
        assert not isinstance(app.screen, ConfirmScreen)
        assert app.table.state.phases[0] == 1
        await pilot.press("d", "y")
        assert app.table.state.phases[0] == 2
        assert app.table.human_to_move()  # the turn goes on in phase 2
        assert "[s] score" in text(app, "#candidates")
        await pilot.press("d")
        assert "already in phase 2" in text(app, "#message")

    drive(new_app(tmp_path), body)


def test_undo_takes_back_the_move_and_the_bots_reply(tmp_path: Path) -> None:
    async def body(pilot: Pilot[str], app: NoReturnApp) -> None:
        await past_mulligan(pilot, app)
        before = app.table.state.clone()
        log = app.table.log(0)
        await pilot.press("h", "enter")
        await settle(pilot)
        assert app.table.state != before
        await pilot.press("u")
        await settle(pilot)
        assert app.table.state == before
        assert app.table.log(0) == log
        assert "undone" in text(app, "#message")

    drive(new_app(tmp_path), body)


def test_the_same_move_after_an_undo_draws_from_a_freshly_ordered_bag(tmp_path: Path) -> None:
    async def body(pilot: Pilot[str], app: NoReturnApp) -> None:
        await past_mulligan(pilot, app)
        hands = set()
        for _ in range(12):
            await pilot.press("h", "enter")
            hands.add(tuple(sorted(app.table.view_for(0).hand or ())))
            await settle(pilot)
            await pilot.press("u")
            await settle(pilot)
        assert len(hands) > 1  # one hand 12 times: the undo showed the next draw
        await pilot.press("h", "enter")
        await settle(pilot)
        assert check_record(app.table.record()).valid

    drive(new_app(tmp_path), body)


def test_hint_selects_a_legal_move_and_says_why(tmp_path: Path) -> None:
    async def body(pilot: Pilot[str], app: NoReturnApp) -> None:
        await past_mulligan(pilot, app)
        await pilot.press("h")
        assert text(app, "#message").startswith("hint: ")
        hinted = app.hinted
        assert hinted is not None and hinted in app.table.legal_actions()
        if not isinstance(hinted, Declare):
            assert sorted(app.picked()) == sorted(tiles_of(hinted))
            current = app.current()
            assert current is not None and current.legal and current.action == hinted

    drive(new_app(tmp_path, seed=5), body)


@pytest.mark.parametrize("players", [2, 3, 4])
def test_the_table_fits_an_80_by_24_terminal(tmp_path: Path, players: int) -> None:
    """Every hand tile, the moves and the newest log line are on an 80x24 screen, and a
    player's facts are never broken mid-phrase ("score pile 13" stays whole)."""
    async def body(pilot: Pilot[str], app: NoReturnApp) -> None:
        await past_mulligan(pilot, app)
        for _ in range(6):  # some turns in, so that every seat has rows
            await pilot.press("h", "enter")
            await settle(pilot)
        bottom = app.query_one(Footer).region.y
        hand = app.query_one(HandView)
        assert hand.region.bottom <= bottom
        assert len(app.order()) == 8 and hand.region.width >= 8 * CELL - 1
        assert app.query_one(MovePanel).region.height > 0
        assert app.query_one(MovePanel).region.bottom <= bottom
        assert app.query_one("#lastlog").region.height == 1  # the log folded to a line
        assert not app.query_one("#logbox").display
        for panel in app.query(PlayerPanel):
            shown = str(panel.render())
            for phrase in ("score now", "score pile", "phase", "hand"):
                assert phrase in shown.replace("\n", " ")
                assert all(not line.endswith(phrase) for line in shown.split("\n"))
        await pilot.press("l")
        assert isinstance(app.screen, LogScreen)
        await pilot.press("escape")
        assert not isinstance(app.screen, LogScreen)

    seats = make_seats(players, ["Ada"], ["greedy"])
    drive(new_app(tmp_path, seats, rules=Rules(players=players), seed=5), body, size=(80, 24))


@pytest.mark.parametrize("name", ["W" * 40, "漢字" * 10])  # 40 cells either way
def test_a_long_name_leaves_your_turn_on_the_top_line(tmp_path: Path, name: str) -> None:
    """A name of 40 cells pushed "your turn (phase 1)" off an 80-column top line."""
    async def body(pilot: Pilot[str], app: NoReturnApp) -> None:
        await past_mulligan(pilot, app)
        top = text(app, "#status")
        assert top.endswith("…, your turn (phase 1)") and cell_len(top) <= 80, top
        assert cell_len(status_name(name)) <= STATUS_NAME
        assert status_name("Ada") == "Ada"

    drive(new_app(tmp_path, make_seats(2, [name], ["greedy"]), rules=Rules(players=2), seed=2),
          body, size=(80, 24))


@pytest.mark.parametrize("seed", [1, 2])  # Bob starts, Ada starts
def test_hotseat_hides_each_hand_until_its_player_is_ready(tmp_path: Path, seed: int) -> None:
    seats = make_seats(2, ["Ada", "Bob"], hotseat=True)

    async def body(pilot: Pilot[str], app: NoReturnApp) -> None:
        for _ in range(3):
            seat = app.table.to_move()
            assert seat is not None
            assert isinstance(app.screen, HandoverScreen)
            assert app.table.names[seat] in text(app, "Static")
            assert "hidden" in str(app.query_one(HandView).content)
            assert app.candidates() == []
            await pilot.press("enter")
            assert app.shown == seat and app.revealed
            assert "hidden" not in str(app.query_one(HandView).content)
            await pilot.press("u")
            assert "only for games against bots" in text(app, "#message")
            await pilot.press("h", "enter")
            await settle(pilot)

    drive(new_app(tmp_path, seats, seed=seed), body)


def test_the_rules_and_the_tile_tracker_open_and_close(tmp_path: Path) -> None:
    async def body(pilot: Pilot[str], app: NoReturnApp) -> None:
        await pilot.press("question_mark")
        assert app.screen.id == "rules"
        assert "Phase 1" in text(app, ".body")
        await pilot.press("escape")
        assert app.screen.id != "rules"
        await pilot.press("t")
        assert app.screen.id == "tracker"
        unseen = sum(app.table.unseen(0).values())
        assert f"{unseen} tiles unseen in all." in text(app, ".body")
        await pilot.press("escape")
        assert app.screen.id != "tracker"

    drive(new_app(tmp_path), body)


def test_the_mouse_selects_tiles_chooses_and_plays(tmp_path: Path) -> None:
    async def body(pilot: Pilot[str], app: NoReturnApp) -> None:
        await past_mulligan(pilot, app)
        assert await pilot.click(HandView, offset=(3, 2))  # inside the first tile's face
        assert app.selected == {0}
        await pilot.click(MovePanel, offset=(4, 1))  # the second candidate: exchange
        assert app.choice == "e"
        before = app.table.version
        await pilot.click("#play")
        await settle(pilot)
        assert app.table.version != before
        assert app.table.record()["events"][-3:][0]["type"] in ("exchange", "draw")

    drive(new_app(tmp_path), body)


@pytest.mark.parametrize("key", ["y", "enter"])
def test_quit_asks_then_saves_the_game_so_far(tmp_path: Path, key: str) -> None:
    async def body(pilot: Pilot[str], app: NoReturnApp) -> None:
        await pilot.press("q")
        assert isinstance(app.screen, ConfirmScreen)
        await pilot.press(key)  # Enter quits: nothing is lost, the game resumes

    app = new_app(tmp_path)
    drive(app, body)
    record = json.loads(Path(app.return_value or "").read_text())
    assert "result" not in record and check_record(record).valid


def test_each_of_the_persons_turns_is_on_disk_before_the_game_ends(tmp_path: Path) -> None:
    # A closed terminal window runs no quit handler: the record is written at each turn.
    async def body(pilot: Pilot[str], app: NoReturnApp) -> None:
        await past_mulligan(pilot, app)
        for _ in range(2):
            await pilot.press("h", "enter")
            await settle(pilot)
        (saved,) = tmp_path.glob("*.json")
        record = json.loads(saved.read_text())
        assert check_record(record).valid and "result" not in record
        assert len(record["events"]) == len(app.table.record()["events"])
        mine = [e["type"] for e in record["events"] if e["player"] == 0]
        assert mine[:2] == ["deal", "mulligan"]
        assert len([kind for kind in mine[2:] if kind != "draw"]) >= 2  # the two moves

    drive(new_app(tmp_path), body)


@pytest.mark.parametrize("color", [True, False])
def test_tiles_carry_letter_and_symbol_with_or_without_colour(tmp_path: Path,
                                                              color: bool) -> None:
    async def body(pilot: Pilot[str], app: NoReturnApp) -> None:
        hand = str(app.query_one(HandView).content)
        for tile in app.order():
            code = "ROYGBP"[colour_of(tile)] + str(tile & 31)
            assert "♥●★♣♦▲"[colour_of(tile)] + code in hand

    drive(new_app(tmp_path, color=color), body)


def test_scoring_shows_the_sum_to_pay_and_the_payments_that_suffice(tmp_path: Path) -> None:
    table = LocalTable(make_seats(2, ["Ada"], ["heuristic"]), Rules(players=2), 6, tmp_path)
    while not (table.state.phases[0] == 2 and table.human_to_move()
               and any(len(r) >= 2 for r in table.state.rows[0])):
        table.run_bots()
        assert table.try_action(table.hint()[0]) is None
    rows = [c for c, r in enumerate(table.state.rows[0]) if r]
    line, colour = next((i, c) for i, c in enumerate(rows) if len(table.state.rows[0][c]) >= 2)
    values = table.state.rows[0][colour]

    async def body(pilot: Pilot[str], app: NoReturnApp) -> None:
        # the row's line and first column in the panel's content (after the facts, which
        # take one line at this width); border 1 + padding 1, the colour tag, a value.
        # A resize draws the panels again after the next refresh: let that pass first,
        # or the spans read here may be those of the width before the layout.
        await pilot.pause()
        row_line, first = next((y, x) for y, x, c, _ in app.query_one("#me", PlayerPanel)._spans
                               if c == colour)
        assert row_line == 1 + line
        await pilot.click("#me", offset=(1 + 1 + first + 3 + 1, 1 + row_line))
        assert app.target == Target(colour, len(values))
        shown = text(app, "#candidates")
        assert f"= {sum(values)} to pay" in shown and "Payments that suffice: " in shown
        await pilot.press("minus")
        assert app.target == Target(colour, len(values) - 1)
        assert f"= {sum(values[1:])} to pay" in text(app, "#candidates")
        suffice = payments(app.table, app.target)
        if suffice:
            labels = " ".join("♥●★♣♦▲"[colour_of(t)] + tile_code(t) for t in suffice[0])
            assert labels in text(app, "#candidates")
        await pilot.press("r")
        assert app.target is not None and app.target.count == 1
        assert app.target.row == rows[(line + 1) % len(rows)]

    drive(NoReturnApp(table, bot_delay=0), body)


def test_candidates_follow_the_selection_and_offer_pass_only_with_an_empty_hand() -> None:
    table = LocalTable(make_seats(2, ["Ada"], ["greedy"]), SMALL, 2)
    table.run_bots()
    assert table.try_action(table.hint()[0]) is None  # the mulligan
    table.run_bots()
    seen = table.view_for(0)
    nothing = candidates(table, seen, (), None)
    assert [(c.key, c.action, c.problem) for c in nothing] == [
        ("p", None, "select tiles of one colour"), ("e", None, "select 1 or more tiles")]
    top = hand_order(seen.hand or ())[0]
    place, exchange = candidates(table, seen, (top,), None)
    assert place.action == Place((top,)) and exchange.action == Exchange((top,))
    assert place.problem == table.why_not(Place((top,)))
    table.state.hands[0].clear()  # as after paying with the last tiles when the bag is empty
    last = candidates(table, table.view_for(0), (), None)[-1]
    assert (last.key, last.action, last.legal) == ("x", Pass(), True)


def test_enter_after_a_hint_to_declare_asks_and_declares(tmp_path: Path) -> None:
    async def body(pilot: Pilot[str], app: NoReturnApp) -> None:
        await past_mulligan(pilot, app)
        while True:
            await pilot.press("h")
            if isinstance(app.hinted, Declare):
                break
            await pilot.press("enter")
            await settle(pilot)
        assert "Enter or d" in text(app, "#message")
        await pilot.press("enter")
        assert isinstance(app.screen, ConfirmScreen)
        await pilot.press("enter")  # a second Enter is no yes: the declaration is for good
        assert not isinstance(app.screen, ConfirmScreen) and app.table.state.phases[0] == 1
        await pilot.press("d")
        assert isinstance(app.screen, ConfirmScreen)
        await pilot.press("y")
        assert app.table.state.phases[0] == 2 and app.hinted is None
        await pilot.press("enter")  # Enter now plays the chosen phase-2 move, not a declaration
        assert not isinstance(app.screen, ConfirmScreen)

    drive(new_app(tmp_path, rules=Rules(players=2), seed=5), body)


def test_the_rules_fit_80_by_24_and_scroll(tmp_path: Path) -> None:
    async def body(pilot: Pilot[str], app: NoReturnApp) -> None:
        await pilot.press("question_mark")
        text_box = app.screen.query_one(".text")
        assert text_box.region.y >= 1 and text_box.region.bottom <= 24  # its top in sight
        assert text_box.max_scroll_y > 0
        await pilot.press("pagedown")
        assert text_box.scroll_y > 0
        assert app.screen.query_one("#close").region.bottom <= 24

    drive(new_app(tmp_path), body, size=(80, 24))


def test_a_hint_goes_when_the_selection_changes(tmp_path: Path) -> None:
    async def body(pilot: Pilot[str], app: NoReturnApp) -> None:
        await past_mulligan(pilot, app)
        await pilot.press("h")
        assert app.hinted is not None and text(app, "#message").startswith("hint:")
        await pilot.press("c")
        assert app.hinted is None and text(app, "#message") == ""
        await pilot.press("h", "1")
        assert app.hinted is None and text(app, "#message") == ""

    drive(new_app(tmp_path), body)
