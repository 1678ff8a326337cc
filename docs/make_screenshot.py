"""Regenerate docs/tui.svg and docs/tui.png (the full-screen table in the middle of a game)
and docs/tutorial.svg and docs/tutorial.png (the guided first game, in German).

Run from the repository root: ``python docs/make_screenshot.py``. It plays a seeded game
against two bots headless (Textual's pilot), pressing the hint key and Enter, until you are
in phase 2 with a row to score; then it aims at a row tail, picks a payment and saves the
screen as SVG. The tutorial is shot in German at 80x24, at its lesson on placing. The PNG
is made with ``rsvg-convert`` (Debian: ``apt-get install
librsvg2-bin``, and ``fonts-firacode`` for the font the SVG names) when it is installed,
else with ``cairosvg`` (PyPI) when that is.
"""

from __future__ import annotations

import asyncio
import shutil
import subprocess
import tempfile
from pathlib import Path

from textual.pilot import Pilot

from noreturn.engine import Declare, Rules
from noreturn.table import LocalTable, make_seats
from noreturn.text.lang import set_language
from noreturn.tui.app import NoReturnApp
from noreturn.tui.moves import payments
from noreturn.tui.tutorial import TutorialApp, tutorial_table

DOCS = Path(__file__).resolve().parent
SIZE = (132, 40)
SEED = 6


async def settle(pilot: Pilot[str], app: NoReturnApp) -> None:
    """Wait until the bots have moved."""
    while app.bot_busy or app.table.bot_to_move():
        await app.workers.wait_for_complete()
        await pilot.pause()


def ready(app: NoReturnApp) -> bool:
    """In phase 2, with a row to score and a payment for its lowest tile."""
    state = app.table.state
    if state.stage != 2 or state.phases[0] != 2 or not app.table.human_to_move():
        return False
    target = app.target
    return target is not None and bool(payments(app.table, target))


async def play_to_middle(pilot: Pilot[str], app: NoReturnApp) -> None:
    """Follow the hints until the table looks like the middle of a game."""
    await settle(pilot, app)
    while not app.table.is_over():
        app.redraw()
        if ready(app):
            return
        await pilot.press("h")
        await pilot.press(*(("d", "y") if isinstance(app.hinted, Declare) else ("enter",)))
        await settle(pilot, app)
    raise SystemExit("the game ended before phase 2: try another SEED")


async def shoot(svg: Path) -> None:
    """Play, aim, and save the screen."""
    table = LocalTable(make_seats(3, ["Ada"], ["easy", "medium"]), Rules(players=3),
                       seed=SEED, save_dir=Path(tempfile.mkdtemp()))
    app = NoReturnApp(table, bot_delay=0)
    async with app.run_test(size=SIZE) as pilot:
        await play_to_middle(pilot, app)
        assert app.target is not None
        pay = payments(app.table, app.target)[0]
        app.selected = {i for i, t in enumerate(app.order()) if t in pay}
        app.choice = "s"
        app.say("Enter scores; s/e choose, r/+/- aim, h hint, u undo, t tiles, ? rules", "cyan")
        app.redraw()
        await pilot.pause()
        svg.write_text(app.export_screenshot(title="noreturn play"), encoding="utf-8")


def to_png(svg: Path, png: Path) -> None:
    """Convert with rsvg-convert, or cairosvg.

    Rich writes spaces as no-break spaces, and librsvg drops those at the start of a text
    element ("B11and drew"); plain spaces with ``xml:space="preserve"`` keep every column.
    The SVG names the font Fira Code (Debian: fonts-firacode); without it the symbols come
    from a fallback font, a little wider.
    """
    text = svg.read_text(encoding="utf-8").replace("&#160;", " ")
    text = text.replace("<svg ", '<svg xml:space="preserve" ', 1)
    with tempfile.TemporaryDirectory() as tmp:
        fixed = Path(tmp) / "screen.svg"
        fixed.write_text(text, encoding="utf-8")
        if shutil.which("rsvg-convert"):
            subprocess.run(["rsvg-convert", "-o", str(png), str(fixed)], check=True)
            return
        import cairosvg  # type: ignore[import-not-found]  # noqa: PLC0415 - the fallback

        cairosvg.svg2png(url=str(fixed), write_to=str(png))


async def shoot_tutorial(svg: Path) -> None:
    """The tutorial in German at 80x24: past the mulligan, at the lesson on placing."""
    set_language("de")
    app = TutorialApp(tutorial_table(Path(tempfile.mkdtemp())), bot_delay=0)
    async with app.run_test(size=(80, 24)) as pilot:
        for _step in range(50):
            await settle(pilot, app)
            await pilot.pause()
            if "lesson-place" in {screen.id for screen in app.screen_stack}:
                break
            if app.screen.id and app.screen.id.startswith("lesson-"):
                await pilot.press("escape")
            else:
                await pilot.press("h", "enter")
        else:
            raise SystemExit("the lesson on placing never came")
        svg.write_text(app.export_screenshot(title="noreturn tutorial"), encoding="utf-8")
    set_language("en")


def main() -> None:
    """Write docs/tui.svg, docs/tui.png, docs/tutorial.svg and docs/tutorial.png."""
    svg, png = DOCS / "tui.svg", DOCS / "tui.png"
    asyncio.run(shoot(svg))
    to_png(svg, png)
    lesson_svg, lesson_png = DOCS / "tutorial.svg", DOCS / "tutorial.png"
    asyncio.run(shoot_tutorial(lesson_svg))
    to_png(lesson_svg, lesson_png)
    print(f"wrote {svg}, {png}, {lesson_svg} and {lesson_png}")


if __name__ == "__main__":
    main()
