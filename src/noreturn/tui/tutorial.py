"""``noreturn tutorial``: a guided first game in the terminal.

A two-player game against the easy bot on a prepared deal (``TUTORIAL_SEED``: one whose
hints lead through a mulligan, placing, an exchange, the declaration and scoring, checked
by ``tests/tui/test_tutorial.py``). Each lesson opens once, when the game reaches its
moment: it says what the move is, which keys make it, and why. The hint (h) always shows
the move the lesson means, so a newcomer can follow it and still play as they like; the
lessons follow the game, not a script, and the game is a real one that is saved.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from noreturn.engine import Action, Declare, Exchange, Rules, Stage
from noreturn.table import (
    TUTORIAL_BOT,
    TUTORIAL_NAME,
    TUTORIAL_PLAYERS,
    TUTORIAL_SEED,
    LocalTable,
    make_seats,
)
from noreturn.text.lang import N_, _
from noreturn.tui.app import NoReturnApp
from noreturn.tui.screens import TextScreen


@dataclass(frozen=True)
class Lesson:
    """One moment of the game and what to learn there."""

    key: str
    title: str
    text: str
    due: Callable[[LocalTable, Action], bool]
    """Whether the lesson's moment has come, from the table and the hinted move."""


def _phase(table: LocalTable) -> int:
    return table.state.phases[table.humans[0]]


def _rows(table: LocalTable) -> int:
    return sum(1 for row in table.state.rows[table.humans[0]] if row)


LESSONS = (
    Lesson("mulligan", N_("Welcome: the mulligan"),
           N_("You play against Bea, an easy bot. Before the first turn you may set aside any "
              "of your 8 tiles, once, and draw as many new ones. Low tiles (1-4) start no row "
              "and pay little: select them with their number keys (1-8), then press Enter to "
              "set them aside, or press Enter with nothing selected to keep your hand.\n\n"
              "Enter closes this note. Then, at any time, h shows a hint, ? the rules, and q "
              "quits (the game is saved)."),
           lambda table, _hinted: table.state.stage is Stage.MULLIGAN),
    Lesson("place", N_("Phase 1: building rows"),
           N_("Each turn you either place tiles or exchange them. You place tiles of one "
              "colour in your row of that colour (one row per colour). A row runs downwards: "
              "each tile must be no higher than the lowest one already in it (equal is fine). "
              "Start rows high, with 9s to 11s.\n\nSelect tiles of one colour and press Enter "
              "to place them (p picks placing when several moves are offered)."),
           lambda table, _hinted: table.state.stage is Stage.PLAY and _phase(table) == 1),
    Lesson("rows", N_("Your rows count against you, for now"),
           N_("Your rows are public, and until you score them their tiles count against you: "
              "that is the negative 'score now'. Once scored in phase 2 they count for you, a "
              "swing of twice their value. So build what you can score in time."),
           lambda table, _hinted: _phase(table) == 1 and _rows(table) >= 2),
    Lesson("exchange", N_("Exchanging"),
           N_("Nothing worth placing? Exchange: select 1 to 4 tiles that fit no row, press e, "
              "then Enter. They leave the game and you draw as many. Careful: the bag is the "
              "clock. Every tile drawn, by anyone, brings the end nearer."),
           lambda table, hinted: isinstance(hinted, Exchange) and _phase(table) == 1),
    Lesson("clock", N_("When to switch?"),
           N_("When a draw empties the bag, the round is played to its end and the game is "
              "over (sooner, once everyone is in phase 2 with empty rows). In phase 2 you "
              "score one row tail a turn, so your rows need several turns to score. Watch the "
              "bag in the top line; w weighs declaring now against waiting, and the hint says "
              "how many turns are left and how many your rows need."),
           lambda table, _hinted: _phase(table) == 1 and _rows(table) >= 3
           and len(table.state.bag) < 75),
    Lesson("declare", N_("Declaring: no return"),
           N_("Now your rows need most of the turns that are left (the hint keeps a few "
              "spare: a tile left in a row counts against you). Press d (or Enter "
              "on this hint), then y to confirm, to switch to phase 2. It is for good, "
              "there is no return, and this same turn goes on with a score."),
           lambda _table, hinted: isinstance(hinted, Declare)),
    Lesson("score", N_("Phase 2: scoring"),
           N_("Score the lowest tiles of one row: the aimed tail is marked (r: next row, + and "
              "-: more or fewer tiles). Pay with tiles of ONE colour, any colour, whose values "
              "add up to at least the tail's sum; overpaying is allowed. Select the payment and "
              "press Enter. Paid tiles leave the game; scored ones go to your pile."),
           lambda table, _hinted: table.state.stage is Stage.PLAY and _phase(table) == 2),
)

END_LESSON = Lesson(
    "end", N_("That is the game"),
    N_("Score = your score pile minus the tiles left in your rows. Three tips for the next "
       "game:\n  - start rows high and go down in small steps;\n  - declare a little early "
       "rather than late: a tile left in a row counts against you instead of for you, a "
       "swing of twice its value;\n  - pay with the "
       "colour you hold most of, and let the rest of that colour go with it: the refill "
       "brings fresh tiles at no cost of a turn.\n\nnoreturn play starts a game against "
       "the medium bot; noreturn play --bots hard when you win those."),
    lambda table, _hinted: table.is_over())


class TutorialApp(NoReturnApp):
    """The full-screen game with lessons at their moments (each shown once)."""

    def __init__(self, table: LocalTable, bot_delay: float = 0.6, color: bool = True,
                 advice_worlds: int | None = None) -> None:
        """Coach the one person of ``table``."""
        super().__init__(table, bot_delay, color, advice_worlds)
        self.taught: list[str] = []

    def after_change(self) -> None:
        """Draw and go on as always; then, on the person's turn, a lesson if one is due."""
        super().after_change()
        self.call_after_refresh(self._teach)

    def _teach(self) -> None:
        if self.table.is_over() or not self.table.human_to_move() or self._covered():
            return
        hinted, _reason = self.table.hint()
        for lesson in LESSONS:
            if lesson.key not in self.taught and lesson.due(self.table, hinted):
                self._show(lesson)
                return

    def _show(self, lesson: Lesson, then: Callable[[], None] | None = None) -> None:
        self.taught.append(lesson.key)
        body = f"[b]{_(lesson.title)}[/b]\n\n{_(lesson.text)}"
        self.push_screen(TextScreen(body, f"lesson-{lesson.key}"),
                         (lambda _closed: then()) if then else None)

    def _end(self) -> None:
        """The last lesson, then the end screen."""
        if END_LESSON.key in self.taught:
            super()._end()
            return
        self._show(END_LESSON, super()._end)


def tutorial_table(save_dir: Path | None = None) -> LocalTable:
    """The tutorial's game: you against the easy bot on the prepared deal."""
    return LocalTable(make_seats(TUTORIAL_PLAYERS, [TUTORIAL_NAME], [TUTORIAL_BOT]),
                      Rules(players=TUTORIAL_PLAYERS), TUTORIAL_SEED, save_dir)


def run_tutorial(save_dir: Path | None = None, bot_delay: float = 0.6,
                 color: bool = True) -> int:
    """Play the guided game full screen; the exit code (2: not in a terminal, where the
    full-screen game wrote its escape codes into a pipe and ended at once)."""
    if not (sys.stdin.isatty() and sys.stdout.isatty()):
        print(_("the tutorial is a full-screen game: run `noreturn tutorial` in a terminal "
                "(or `noreturn play --plain` to play on line prompts)"), file=sys.stderr)
        return 2
    table = tutorial_table(save_dir)
    TutorialApp(table, bot_delay, color).run()
    return 0


__all__ = ["END_LESSON", "LESSONS", "TUTORIAL_SEED", "TutorialApp", "run_tutorial",
           "tutorial_table"]
