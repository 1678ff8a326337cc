"""The end of a game in the full-screen app: playing again, the end screen over the final
table, and the review of a person's decisions it offers (worst first, failing as a line,
one per person at a hot-seat table, called off on leaving).

The reviews get a tiny budget of playouts: the screens are tested here, the review itself
in tests/analysis.
"""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest
from textual.pilot import Pilot
from textual.screen import ModalScreen
from textual.widgets import Button
from tuikit import drive, new_app, play_to_the_end, review_done, text

from noreturn.engine import Rules
from noreturn.records import check_record
from noreturn.table import LocalTable, Seat
from noreturn.tui.app import NoReturnApp
from noreturn.tui.review import ReviewScreen, worst_first
from noreturn.tui.screens import EndScreen


def test_play_again_leaves_the_saved_game_and_asks_for_another(tmp_path: Path) -> None:
    async def body(pilot: Pilot[str], app: NoReturnApp) -> None:
        await play_to_the_end(pilot, app)
        await pilot.press("a")
        await pilot.pause()

    app = new_app(tmp_path, seed=2)
    drive(app, body)
    assert app.play_again and app.return_value == str(app.table.path)
    assert check_record(json.loads(Path(app.return_value).read_text())).valid


def test_play_command_starts_a_new_deal_with_the_same_players(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from noreturn.tui import app as app_module  # noqa: PLC0415
    from noreturn.tui import play  # noqa: PLC0415

    tables: list[LocalTable] = []

    def fake_tui(table: LocalTable, delay: float, color: bool) -> tuple[Path | None, bool]:
        tables.append(table)
        return None, len(tables) < 3  # again, again, then leave

    monkeypatch.setattr(app_module, "run_tui", fake_tui)
    tty = type("Tty", (), {"isatty": staticmethod(lambda: True)})()
    code = play.play_command(Rules(players=3), ["Ada"], ["easy", "medium"], 5,
                             save_dir=tmp_path, stdin=tty, stdout=tty, write=lambda _: None)
    assert code == 0 and len(tables) == 3
    assert all(t.seats == tables[0].seats for t in tables)
    assert len({t.seed for t in tables}) == 3  # a new deal each time


def test_the_end_screen_keeps_the_final_table_in_sight(tmp_path: Path) -> None:
    """The result lies over the table, not instead of it; v hides it to show all of it."""
    async def body(pilot: Pilot[str], app: NoReturnApp) -> None:
        await play_to_the_end(pilot, app)
        end = app.screen
        assert isinstance(end, ModalScreen) and app.screen_stack[0].query_one("#me").display
        dialog = end.query_one(".dialog")
        assert dialog.region.y > 2  # the top of the table shows above the result
        await pilot.press("v")
        assert not dialog.display and app.screen is end
        await pilot.press("v")
        assert dialog.display
        await pilot.press("v", "escape")  # Escape brings the result back, not leave
        assert dialog.display and app.screen is end and app.is_running

    drive(new_app(tmp_path, seed=2), body, size=(80, 24))


def test_the_end_screen_reviews_the_persons_decisions_worst_first(tmp_path: Path) -> None:
    app = new_app(tmp_path, seed=2)
    app.review_playouts = 4  # a tiny budget: the screens are tested, not the review

    async def body(pilot: Pilot[str], app: NoReturnApp) -> None:
        await play_to_the_end(pilot, app)
        end = app.screen
        await pilot.press("r")
        await review_done(pilot)
        assert isinstance(app.screen, ReviewScreen)
        shown = text(app, "#review-text")
        seat = app.screen.seat
        assert seat.seat == 0 and seat.decisions
        assert f"Accuracy {seat.accuracy:.0f}" in shown
        assert "Switch window: " in shown and "declaring was best at own turns: " in shown
        # a newcomer who followed the hints saw them faulted, with no word on why
        assert "The hint is a quick rule of thumb and this review a deeper search" in " ".join(
            shown.split())
        worst = seat.decisions[worst_first(seat)[0]]
        assert worst.loss == max(d.loss for d in seat.decisions)
        assert f"{worst.label:<10} {worst.loss:>5.1f}  played {worst.played}" in shown
        await pilot.press("escape")
        assert app.screen is end
        assert "review of Ada done" in text(app, "#review-status")
        await pilot.click("#review-0")  # shown again at once, from the review made
        await pilot.pause()
        assert isinstance(app.screen, ReviewScreen)
        await pilot.press("q")
        assert app.screen is end
        await pilot.press("q")

    drive(app, body, size=(80, 24))
    assert app.return_value == str(app.table.path)


def test_a_review_that_fails_is_a_line_on_the_end_screen(tmp_path: Path) -> None:
    app = new_app(tmp_path, seed=2)
    app.review_playouts = 4

    async def body(pilot: Pilot[str], app: NoReturnApp) -> None:
        await play_to_the_end(pilot, app)
        end = app.screen
        assert isinstance(end, EndScreen)
        end.record = {"format": "not a record"}
        await pilot.press("r")
        await review_done(pilot)
        assert app.screen is end
        assert text(app, "#review-status").startswith("the review failed: ")
        await pilot.press("q")

    drive(app, body)


def test_hotseat_offers_each_person_a_review(tmp_path: Path) -> None:
    app = new_app(tmp_path, [Seat("Ada", "greedy"), Seat("Bo", "greedy")])
    app.table.run_bots()
    record = app.table.record()

    async def body(pilot: Pilot[str], app: NoReturnApp) -> None:
        end = EndScreen(app.table.result_lines(), "", None, record, [(0, "Ada"), (1, "Bo")],
                        playouts=4)
        assert isinstance(app.screen, EndScreen)
        await app.pop_screen()  # the app's own, which offers no review: bots played here
        await app.push_screen(end)
        assert {b.id for b in end.query(Button)} >= {"review-0", "review-1"}
        await pilot.click("#review-1")
        await review_done(pilot)
        assert isinstance(app.screen, ReviewScreen) and app.screen.seat.name == "Bo"
        await pilot.press("escape")
        assert app.screen is end
        await pilot.press("q")

    drive(app, body)


def test_leaving_during_a_review_calls_it_off(tmp_path: Path) -> None:
    app = new_app(tmp_path, seed=2)
    app.review_playouts = 20_000  # seconds a decision: over half a minute in all
    left: list[float] = []

    async def body(pilot: Pilot[str], app: NoReturnApp) -> None:
        await play_to_the_end(pilot, app)
        await pilot.press("r")
        await pilot.pause()
        assert "reviewing Ada" in text(app, "#review-status")
        await pilot.press("r")
        assert "still reviewing Ada" in text(app, "#review-status")
        left.append(time.monotonic())
        await pilot.press("q")

    drive(app, body)
    assert app.return_value == str(app.table.path)
    # the decision under way is called off within a world, and no further one starts
    assert time.monotonic() - left[0] < 10
