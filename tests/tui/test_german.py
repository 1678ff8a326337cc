"""A whole game in German, in the full-screen game and with plain prompts.

Every sentence a player reads there goes through the catalog; these games check that the
German one is the one shown, from the first hand to the result, and that no English
sentence of ours is left on the way (the notation of moves, R11 or "score R x2 pay B7",
stays as it is: it is the game's notation, not a sentence).
"""

from __future__ import annotations

import io
import re
from pathlib import Path

import pytest
from rich.cells import cell_len
from textual.pilot import Pilot
from textual.widgets import Button, Footer
from tuikit import drive, new_app, settle, text

from noreturn.engine import Declare, Rules
from noreturn.table import LocalTable, make_seats
from noreturn.text.lang import _, set_language, speaking
from noreturn.tui.app import NoReturnApp
from noreturn.tui.plain import run_plain
from noreturn.tui.screens import RULES_TEXT, ConfirmScreen, EndScreen
from noreturn.tui.widgets import MovePanel

ENGLISH = ("your turn", "Your hand", "hint:", "Record saved", "not allowed", "score now",
           "placed", "exchanged", "drew", "scored", "Game over", "the bag", "phase 2 (no")
"""Pieces of our English sentences that must not show in a German game."""


def test_a_whole_game_in_german_in_the_full_screen_game(tmp_path: Path) -> None:
    set_language("de")
    app = new_app(tmp_path, make_seats(2, ["Ada"], ["heuristic"]), Rules(players=2), seed=3)
    seen: list[str] = []

    def look(app: NoReturnApp) -> None:
        screen = app.screen
        for selector in ("#status", "#message", "#lastlog", "#candidates", "#log", "#me"):
            seen.extend(str(w.content) for w in screen.query(selector))  # type: ignore[attr-defined]
        seen.extend(str(getattr(w, "border_title", "") or "") for w in screen.query("*"))

    async def body(pilot: Pilot[str], app: NoReturnApp) -> None:
        while not app.table.is_over():
            look(app)
            await pilot.press("h")
            look(app)
            if isinstance(app.hinted, Declare):
                await pilot.press("d")
                seen.append(text(app, "#question"))
                seen.append(str(app.screen.query_one("#yes", Button).label))
                await pilot.press("j")  # "ja" (the dialog said "y" and took only y)
            else:
                await pilot.press("enter")
            await settle(pilot)
        assert isinstance(app.screen, EndScreen)
        seen.append(text(app, "#result"))
        await pilot.press("q")

    drive(app, body)
    shown = "\n".join(seen)
    for german in ("Deine Hand", "Dein Zug", "Beutel", "dein Zug (Phase 1)", "Tipp: ",
                   "In Phase 2 wechseln?", "wertete", "Spielende. Punkte = Punktestapel",
                   "Aufzeichnung gespeichert", "Stand", "Wechseln (j)"):
        assert german in shown, german
    for english in ENGLISH:
        assert english not in shown, english


def test_the_footer_names_the_keys_in_german(tmp_path: Path) -> None:
    set_language("de")
    app = new_app(tmp_path)

    async def body(pilot: Pilot[str], app: NoReturnApp) -> None:
        described = {b.binding.description for b in app.active_bindings.values()}
        assert {"Tipp", "wechseln", "Regeln", "Ende", "zurück"} <= described

    drive(app, body)


@pytest.mark.parametrize("lang", ["en", "de"])
def test_every_key_of_the_footer_shows_at_80_columns(tmp_path: Path, lang: str) -> None:
    """The German words ran 15 columns past the edge: "? Regeln" and "q beenden" were
    cut off, the keys to the rules and to quitting."""
    set_language(lang)
    app = new_app(tmp_path)

    async def body(pilot: Pilot[str], app: NoReturnApp) -> None:
        keys = list(app.query_one(Footer).children)
        assert len(keys) == 9 and max(key.region.right for key in keys) <= 80

    drive(app, body, size=(80, 24))


def test_j_does_not_confirm_a_declaration_in_english(tmp_path: Path) -> None:
    """j answers yes in German only: in English a stray key must not confirm a switch
    that cannot be taken back."""
    set_language("en")
    app = new_app(tmp_path)

    async def body(pilot: Pilot[str], app: NoReturnApp) -> None:
        await settle(pilot)
        answers: list[bool | None] = []
        app.push_screen(ConfirmScreen("Switch to phase 2?"), answers.append)
        await settle(pilot)
        await pilot.press("j")
        assert isinstance(app.screen, ConfirmScreen)
        assert str(app.screen.query_one("#yes", Button).label) == "Yes (y)"
        await pilot.press("n")
        await settle(pilot)
        assert answers == [False]

    drive(app, body)


@pytest.mark.parametrize("lang", ["en", "de"])
def test_the_mulligan_line_fits_80_columns(tmp_path: Path, lang: str) -> None:
    """"keep your whole hand (select tiles to set aside instead)  ✓ legal: Enter plays it"
    took 87 columns (the German 92): its last words broke onto a line of their own."""
    set_language(lang)
    app = NoReturnApp(LocalTable(make_seats(2, ["Ada"], ["greedy"]), Rules(players=2), 3,
                                 tmp_path), bot_delay=0)

    async def body(pilot: Pilot[str], app: NoReturnApp) -> None:
        await settle(pilot)
        panel = app.query_one(MovePanel)
        lines = str(panel.render()).splitlines()
        assert lines and all(cell_len(line) <= panel.content_region.width for line in lines)
        assert any("[m]" in line for line in lines), lines

    drive(app, body, size=(80, 24))


def test_a_whole_game_in_german_with_plain_prompts(tmp_path: Path) -> None:
    set_language("de")
    out: list[str] = []
    code = run_plain(players=2, name="Ada", seed=5, stdin=io.StringIO("Q3\n" + "1\n" * 400),
                     save_dir=tmp_path, write=out.append)
    assert code == 0
    shown = "\n".join(out)
    for german in ("No Return: du bist Ada", "deine Hand:", "dein Zug> ", "tauschte",
                   "'Q3' ist kein Stein: Steine zum Beiseitelegen (R3 B5), Enter behält",
                   "Endstand:", "= Stapel", "Aufzeichnung gespeichert"):
        assert german in shown, german
    for english in (*ENGLISH, "final scores", "your move> ", "record saved"):
        assert english not in shown, english


@pytest.mark.parametrize("lang", ["en", "de"])
def test_the_rules_dialog_breaks_no_line_again_at_80_columns(lang: str) -> None:
    """Lines of 84 to 92 letters broke again in the 80-column dialog, each leaving a word
    alone ("colour);", "that row."): at most 70 letters a line, markup aside."""
    with speaking(lang):
        text = _(RULES_TEXT)
    lines = [re.sub(r"\[/?[a-z]+\]", "", line) for line in text.splitlines()]
    assert len(lines) > 20 and max(map(len, lines)) <= 70
