"""Any key, in any order, at any terminal size: the full-screen game never breaks.

A person new to the game presses keys to find out what they do, and resizes the window
while a dialog is open. Random keys (every binding of the game and its screens, and keys
bound to nothing), with resizes down to 20x8, must leave a game that goes on: one that
still ends by keys with the engine's scores and a valid record. A fault in a handler
would end the app with a traceback (the pilot raises it here).
"""

from __future__ import annotations

from pathlib import Path
from random import Random

import pytest
from textual.pilot import Pilot
from tuikit import SMALL, drive, new_app, play_to_the_end, settle

from noreturn.engine import Rules
from noreturn.records import check_record
from noreturn.table import make_seats
from noreturn.tui.app import NoReturnApp
from noreturn.tui.screens import ConfirmScreen, EndScreen

KEYS = ("enter", "d", "h", "w", "u", "t", "l", "question_mark", "1", "2", "3", "4", "5",
        "6", "7", "8", "9", "left", "right", "space", "c", "escape", "up", "down", "p", "e",
        "s", "m", "x", "r", "plus", "minus", "y", "n", "k", "j", "pageup", "pagedown",
        "tab", "shift+tab", "a", "z", "0", "backspace", "v", "f1")
"""The game's and its screens' bindings, and keys bound to nothing. ``q`` is left out
(its dialog would end the game early), as are the end screen's own keys once there."""

SIZES = ((80, 24), (40, 12), (20, 8), (160, 50), (81, 23))


async def press_at_random(pilot: Pilot[str], app: NoReturnApp, rng: Random,
                          presses: int) -> int:
    """Press ``presses`` random keys (the hinted move now and then, so the game moves on),
    resizing now and then; how many turns the person made."""
    start = app.table.state.turns
    for _ in range(presses):
        if isinstance(app.screen, EndScreen):
            break
        key = rng.choice(KEYS) if rng.random() < 0.7 else rng.choice(("h", "enter", "y"))
        await pilot.press(key)
        assert app.is_running, f"the app stopped at {key!r}: a fault (its traceback follows)"
        if rng.random() < 0.03:
            await pilot.resize_terminal(*rng.choice(SIZES))
        if rng.random() < 0.1:
            await settle(pilot)
    await settle(pilot)
    return app.table.state.turns - start


@pytest.mark.parametrize(("seed", "players"), [(1, 2), (2, 3)])
def test_random_keys_and_resizes_leave_a_game_that_ends_with_a_valid_record(
    tmp_path: Path, seed: int, players: int,
) -> None:
    async def body(pilot: Pilot[str], app: NoReturnApp) -> None:
        turns = await press_at_random(pilot, app, Random(seed), 200)
        assert turns > 0  # the keys played, not only opened and closed screens
        for _ in range(5):  # close what the keys left open (a dialog, the rules, ...)
            if app.screen is app.screen_stack[0] or isinstance(app.screen, EndScreen):
                break
            await pilot.press("escape")
            await settle(pilot)
        assert not isinstance(app.screen, ConfirmScreen)
        await pilot.resize_terminal(80, 24)
        if not app.table.is_over():
            await play_to_the_end(pilot, app)
        assert app.table.is_over()
        record = app.table.record()
        assert check_record(record).valid
        assert record["result"]["scores"] == app.table.state.scores()

    rules = SMALL if players == 2 else Rules(players=3, colors=3, max_value=6, copies=2,
                                             hand_size=5, exchange_limit=3)
    app = new_app(tmp_path, make_seats(players, ["Ada"], ["greedy"]), rules=rules, seed=seed)
    drive(app, body, size=(80, 24))
