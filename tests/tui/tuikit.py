"""Helpers of the full-screen game's tests: a small game's app, the headless pilot, waits.

The tests of the game (``test_tui.py``), the switch advice (``test_tui_advice.py``), the end
screen (``test_tui_end.py``) and the German screens (``test_german.py``) all drive the app
the same way; they import these from here rather than from one another. Bots are fast
(``greedy``) and move with no delay; the rules are a small variant so that a whole game takes
a few seconds. Each test runs its own event loop (no pytest plugin).
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from pathlib import Path

from textual.pilot import Pilot

from noreturn.engine import Declare, Rules
from noreturn.table import LocalTable, Seat, make_seats
from noreturn.tui.app import NoReturnApp
from noreturn.tui.screens import EndScreen

SMALL = Rules(players=2, colors=3, max_value=6, copies=2, hand_size=5, exchange_limit=3)
SIZE = (120, 40)
ADVICE_WORLDS = 8
"""The switch advisor's budget at each phase-1 turn: a few worlds, not a time."""

Body = Callable[[Pilot[str], NoReturnApp], Awaitable[None]]


def new_app(tmp_path: Path, seats: list[Seat] | None = None, rules: Rules = SMALL,
            seed: int = 1, color: bool = True) -> NoReturnApp:
    table = LocalTable(seats or make_seats(2, ["Ada"], ["greedy"]), rules, seed, tmp_path)
    return NoReturnApp(table, bot_delay=0, color=color, advice_worlds=ADVICE_WORLDS)


def drive(app: NoReturnApp, body: Body, size: tuple[int, int] = SIZE) -> None:
    """Run ``body`` against ``app`` in a headless terminal of ``size`` columns and lines."""
    async def run() -> None:
        async with app.run_test(size=size) as pilot:
            await settle(pilot)
            await body(pilot, app)

    asyncio.run(run())


async def settle(pilot: Pilot[str]) -> None:
    """Wait until no bot is thinking or due to move."""
    app = pilot.app
    assert isinstance(app, NoReturnApp)
    for _ in range(1000):
        await app.workers.wait_for_complete()
        await pilot.pause()
        if not app.bot_busy and not app.table.bot_to_move():
            return
    raise AssertionError("the bots never finished")


def text(app: NoReturnApp, selector: str) -> str:
    """The plain text a Static widget shows."""
    return str(app.screen.query_one(selector).content)  # type: ignore[attr-defined]


async def past_mulligan(pilot: Pilot[str], app: NoReturnApp) -> None:
    """Keep the hand at the mulligan (Enter on no selection), then wait for the bots."""
    assert app.table.state.stage == 1
    await pilot.press("enter")
    await settle(pilot)
    assert app.table.state.stage == 2 and app.table.human_to_move()


async def play_to_the_end(pilot: Pilot[str], app: NoReturnApp) -> int:
    """Play the hinted move (declaring when it says so) until the game is over; how many
    moves the person made (a whole game by keys checks there were many)."""
    moves = 0
    while not app.table.is_over():
        assert app.is_running, "the app stopped: a fault in a handler (its traceback follows)"
        await pilot.press("h")
        if isinstance(app.hinted, Declare):
            await pilot.press("d", "y")
        else:
            await pilot.press("enter")
        await settle(pilot)
        moves += 1
    assert isinstance(app.screen, EndScreen)
    return moves


async def review_done(pilot: Pilot[str]) -> None:
    """Wait for the review worker and its answer."""
    await pilot.app.workers.wait_for_complete()
    await pilot.pause()
    await pilot.pause()
