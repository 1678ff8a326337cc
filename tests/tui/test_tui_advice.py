"""The switch advice line of the full-screen game: weighed at each phase-1 turn, shown in
full by ``w``, dropped when it comes for a turn gone by, and fitting an 80x24 terminal.

The advisor runs in a worker with a budget of a few worlds (``tuikit.ADVICE_WORLDS``), so
these tests wait for it as for the bots; one holds it back to show the screen stays alive.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from pathlib import Path

import pytest
from textual.pilot import Pilot
from textual.widgets import Footer
from tuikit import drive, new_app, past_mulligan, settle, text

from noreturn.bots.switch import Outlook, SwitchAdvice
from noreturn.engine import Rules
from noreturn.tui.advice import WEIGHING, AdviceLine
from noreturn.tui.app import NoReturnApp


def test_the_switch_advice_is_weighed_at_each_phase_1_turn_and_w_shows_it(
        tmp_path: Path) -> None:
    async def body(pilot: Pilot[str], app: NoReturnApp) -> None:
        await pilot.press("w")
        assert text(app, "#message") == "nothing to weigh: the mulligan comes first"
        assert text(app, "#advice") == ""
        await past_mulligan(pilot, app)
        line = text(app, "#advice")
        assert line.startswith("switch: declare ") and " · wait " in line, line
        assert line.count("✓") == 1
        await pilot.press("w")
        full = text(app, "#message")
        assert full.startswith("switch: declare now: margin ") and full.endswith("(8 samples)")
        await pilot.press("h", "enter")  # a phase-1 move: the next turn is weighed afresh
        await settle(pilot)
        turn = app.query_one(AdviceLine).slot.turn
        assert turn == (app.table.version, 0) and text(app, "#advice").startswith("switch: ")
        await pilot.press("d", "y")
        await pilot.pause()
        assert text(app, "#advice") == ""
        await pilot.press("w")
        assert text(app, "#message").startswith("nothing to weigh: you have declared phase 2")

    drive(new_app(tmp_path, seed=5), body)


def test_an_answer_weighed_for_a_turn_gone_by_is_dropped(tmp_path: Path) -> None:
    async def body(pilot: Pilot[str], app: NoReturnApp) -> None:
        await past_mulligan(pilot, app)
        line = app.query_one(AdviceLine)
        old = line.slot.turn
        assert old is not None and line.slot.advice is not None
        shown = text(app, "#advice")
        await pilot.press("h", "enter")
        await settle(pilot)
        now = line.slot.advice
        assert line.slot.turn != old
        stale = SwitchAdvice(Outlook(99, 1.0, 1.0), Outlook(-99, 0.0, 0.0), 8)
        line._advised(old, stale, "")
        assert line.slot.advice is now and "+99" not in text(app, "#advice")
        assert shown.startswith("switch: ")

    drive(new_app(tmp_path, seed=5), body)


def test_w_while_the_advice_is_weighed_shows_it_when_it_comes(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The advisor is held back: the screen still answers keys, then the line arrives."""
    release = threading.Event()
    advice = SwitchAdvice(Outlook(12, 0.64, 0.67), Outlook(8, 0.58, 0.61), 8)
    app = new_app(tmp_path, seed=5)

    def slow_job(*_: object) -> Callable[[], SwitchAdvice]:
        def weigh() -> SwitchAdvice:
            release.wait(10)
            return advice
        return weigh

    monkeypatch.setattr(app.table, "switch_job", slow_job)

    async def body(pilot: Pilot[str], app: NoReturnApp) -> None:
        await pilot.press("enter")  # keep the hand; the bot answers; Ada's turn is weighed
        for _ in range(100):
            await pilot.pause()
            if text(app, "#advice") == WEIGHING:
                break
        assert text(app, "#advice") == WEIGHING
        await pilot.press("w")
        assert text(app, "#message") == WEIGHING
        await pilot.press("1")  # the screen is alive while the advisor thinks
        assert app.selected == {0}
        release.set()
        await settle(pilot)
        assert text(app, "#advice") == "switch: declare +12 (win 64%) ✓ · wait +8 (58%)"
        assert text(app, "#message") == f"switch: {advice.text()}"

    drive(app, body)


def test_the_switch_line_fits_an_80_by_24_terminal(tmp_path: Path) -> None:
    async def body(pilot: Pilot[str], app: NoReturnApp) -> None:
        await past_mulligan(pilot, app)
        line = app.query_one(AdviceLine)
        shown = text(app, "#advice")
        assert shown.startswith("switch: ")
        assert len(shown) <= line.content_region.width, (shown, line.content_region)
        assert 0 < line.region.bottom <= app.query_one(Footer).region.y  # on screen

    drive(new_app(tmp_path, rules=Rules(players=2), seed=5), body, size=(80, 24))
