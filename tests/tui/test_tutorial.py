"""``noreturn tutorial``: the guided first game shows each lesson at its moment, once."""

from __future__ import annotations

import asyncio
from pathlib import Path

from textual.pilot import Pilot
from tuikit import settle

from noreturn.engine import Declare
from noreturn.text.lang import speaking
from noreturn.tui.screens import EndScreen, TextScreen
from noreturn.tui.tutorial import END_LESSON, LESSONS, TutorialApp, tutorial_table


def test_following_the_hints_meets_every_lesson_in_order(tmp_path: Path) -> None:
    app = TutorialApp(tutorial_table(tmp_path), bot_delay=0, advice_worlds=8)
    seen: list[str] = []

    async def body(pilot: Pilot[str]) -> None:
        await settle(pilot)
        while not isinstance(app.screen, EndScreen):
            await pilot.pause()
            if isinstance(app.screen, TextScreen):  # a lesson: read it, then go on
                seen.append(str(app.screen.id).removeprefix("lesson-"))
                assert app.screen.query_one(".body").render()  # it says something
                await pilot.press("enter")
                continue
            await pilot.press("h")
            await pilot.press(*(("d", "y") if isinstance(app.hinted, Declare) else ("enter",)))
            await settle(pilot)

    async def run() -> None:
        async with app.run_test(size=(80, 24)) as pilot:
            await body(pilot)

    asyncio.run(run())
    assert seen == [lesson.key for lesson in LESSONS] + [END_LESSON.key]
    assert app.table.is_over() and app.table.path is not None
    scores = app.table.state.scores()
    assert scores[0] > scores[1]  # the prepared deal lets a newcomer who follows win


def test_the_newcomer_has_a_name_the_log_can_say_in_both_languages() -> None:
    """Named "You", the log read "You was dealt ..." and, in German, "Du erhielt ..."."""
    for lang, dealt in (("en", "Ada was dealt "), ("de", "Ada erhielt ")):
        with speaking(lang):
            table = tutorial_table()
            table.run_bots()
            assert table.log(0)[0].startswith(dealt), table.log(0)[0]
