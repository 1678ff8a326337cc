"""The table on screen: the layout, what the player has selected, and the drawing.

``TableDisplay`` is the Textual app's first half: it composes the widgets, keeps what is on
screen only (which tiles are selected, which candidate move is chosen, the row tail aimed
at, whose hand is shown) and draws everything from the table's view and that selection.
What the keys, the buttons and the mouse do, and the game's flow (bots thinking in a
worker thread, the hot-seat hand-over, the end), are ``NoReturnApp``'s, in ``app.py``.
"""

from __future__ import annotations

import os

from rich.text import Text
from textual.app import App, ComposeResult
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.widgets import Button, Footer, Static

from noreturn.engine import Action, View
from noreturn.table import LocalTable
from noreturn.text.lang import _
from noreturn.text.narrate import bot_word
from noreturn.tui import moves
from noreturn.tui.advice import AdviceLine
from noreturn.tui.moves import Candidate, Target
from noreturn.tui.tiles import log_text, speak_bindings
from noreturn.tui.widgets import HandView, MovePanel, PlayerPanel, score_help, status_text

CSS = """
Screen { layout: vertical; }
#status { height: 1; background: $boost; padding: 0 1; }
#main { height: 1fr; }
#left { width: 2fr; }
#opponents { height: auto; max-height: 50%; }
PlayerPanel { border: round $primary-darken-2; padding: 0 1; height: auto; width: 1fr; }
#me { border: round $accent; }
HandView { border: round $accent; height: 5; padding: 0 1; }
#move { border: round $secondary; height: auto; padding: 0 1; }
#message { height: auto; min-height: 1; }
#advice { height: 1; }
#buttons { height: 1; }
#buttons Button { min-width: 8; margin: 0 1 0 0; }
#logbox { width: 1fr; border: round $primary-darken-2; }
#lastlog { height: 1; display: none; padding: 0 1; }
#opponents { overflow-y: auto; }
Screen.-narrow #logbox { display: none; }
Screen.-narrow #lastlog { display: block; }
Screen.-short PlayerPanel { border: none; padding: 0 0; }
Screen.-short #me { border: none; background: $boost; }
Screen.-short HandView { border: none; height: 3; padding: 0 0; }
Screen.-short #move { border: none; padding: 0 0; }
Screen.-short #buttons { display: none; }
.dialog { width: 64; height: auto; border: thick $warning; padding: 1 2; background: $panel; }
.dialog.wide { width: 96; max-width: 100%; }
.dialog.tall { height: 90%; }
#fulllog { height: 1fr; }
TextScreen .text { height: auto; }
#review-status { height: auto; margin-top: 1; }
#review-body { height: 1fr; padding: 0 1; }
.buttons { height: 3; margin-top: 1; }
ConfirmScreen, TextScreen, HandoverScreen, LogScreen { align: center middle; }
EndScreen { align: center bottom; }
"""


class TableDisplay(App[str]):
    """The table on screen and the selection; ``NoReturnApp`` adds keys, mouse and flow."""

    CSS = CSS
    HORIZONTAL_BREAKPOINTS = [(0, "-narrow"), (110, "-roomy")]  # noqa: RUF012 - Textual's
    VERTICAL_BREAKPOINTS = [(0, "-short"), (34, "-tall")]  # noqa: RUF012 - declared classvars
    """Below 110 columns the log folds into its newest line (``l`` shows it all); below 34
    lines the panels lose their frames and rows share lines: the table fits 80x24."""
    TITLE = "No Return"
    ENABLE_COMMAND_PALETTE = False

    def __init__(self, table: LocalTable, bot_delay: float = 0.6, color: bool = True,
                 advice_worlds: int | None = None) -> None:
        """Show ``table``; bots wait ``bot_delay`` seconds before moving, so moves can be seen.

        Without ``color`` the screen is monochrome (tiles keep their letters and symbols).
        ``advice_worlds`` fixes the switch advisor's budget (None: a time), for tests.
        """
        if not color:
            os.environ["NO_COLOR"] = "1"  # Textual's own switch to a monochrome screen
        super().__init__()
        speak_bindings(self)
        self.title = _("No Return")  # in German with the game's German name
        self.table = table
        self.bot_delay = bot_delay
        self.color = color
        self.shown = table.humans[0] if table.humans else 0
        self.revealed = len(table.humans) <= 1
        self.selected: set[int] = set()
        self.cursor = 0
        self.choice = ""
        self.target: Target | None = None
        self.bot_busy = False
        self.hinted: Action | None = None
        self.advice_worlds = advice_worlds
        self._message = Text()
        self._handing_over = False
        self._ended = False
        self.play_again = False
        """Whether the players asked, at the end, for another game with the same seats."""
        self._save_problem = ""

    # ------------------------------------------------------------------- layout
    def compose(self) -> ComposeResult:
        """Status line; opponents, you, your hand and the move; the log; the keys."""
        yield Static(id="status")
        yield Static(id="lastlog")
        with Horizontal(id="main"):
            with Vertical(id="left"):
                with Horizontal(id="opponents"):
                    for i in range(len(self.table.seats) - 1):
                        yield PlayerPanel(id=f"opponent{i}")
                yield PlayerPanel(id="me")
                yield HandView(id="hand")
                with Vertical(id="move"):
                    yield MovePanel(id="candidates")
                    yield Static(id="message")
                    yield AdviceLine(self.table, self.advice_worlds, self.color, id="advice")
                    with Horizontal(id="buttons"):
                        for ident, label in (("play", "Play ⏎"), ("declare", "Declare"),
                                             ("hint", "Hint"), ("undo", "Undo"),
                                             ("tracker", "Tiles"), ("rules", "Rules"),
                                             ("quit_game", "Quit")):
                            yield Button(label, id=ident, compact=True)
            with VerticalScroll(id="logbox"):
                yield Static(id="log")
        yield Footer()

    def on_mount(self) -> None:
        """Keys go to the app, not to a focused button; then the game goes on."""
        for button in self.query(Button):
            button.can_focus = False
        self.query_one("#hand").border_title = _("Your hand")
        self.query_one("#move").border_title = _("Your move")
        self.query_one("#logbox").border_title = _("Log")
        self.after_change()

    def after_change(self) -> None:
        """After any change: draw (the app also lets a bot move, hands over or ends)."""
        self.redraw()

    # ------------------------------------------------------------------ drawing
    def seen(self) -> View:
        """The table as the shown player may see it."""
        return self.table.view_for(self.shown)

    def order(self) -> list[int]:
        """The shown hand in screen order."""
        return moves.hand_order(self.seen().hand or ())

    def picked(self) -> tuple[int, ...]:
        """The selected tiles."""
        order = self.order()
        return tuple(order[i] for i in sorted(self.selected) if i < len(order))

    def candidates(self) -> list[Candidate]:
        """The candidate moves for the selection (none when it is not your turn)."""
        seen = self.seen()
        if not seen.my_turn or not self.revealed:
            return []
        return moves.candidates(self.table, seen, self.picked(), self._target(seen))

    def _target(self, seen: View) -> Target | None:
        if self.target is None or not seen.rows[self.shown][self.target.row]:
            self.target = moves.first_target(seen)
        return self.target

    def current(self) -> Candidate | None:
        """The chosen candidate."""
        options = self.candidates()
        for option in options:
            if option.key == self.choice:
                return option
        return options[0] if options else None

    def redraw(self) -> None:
        """Draw everything from the table and the selection."""
        seen = self.seen()
        self._draw_status(seen)
        self._draw_players(seen)
        order = self.order() if self.revealed else None
        self.query_one(HandView).show(order, self.selected, self.cursor, self.color)
        self._draw_move(seen)
        self.query_one(AdviceLine).follow(self.shown if self.revealed else None)
        self.query_one("#message", Static).update(self._message)
        log = self.table.log(self.shown) if self.revealed else []
        self.query_one("#log", Static).update(log_text(log[-300:], self.color))
        self.query_one("#logbox", VerticalScroll).scroll_end(animate=False)
        self.query_one("#lastlog", Static).update(log_text(log[-1:], self.color))

    def on_resize(self) -> None:
        """Panels pack their lines by width: draw again once the new sizes are laid out."""
        self.call_after_refresh(self.redraw)

    def _draw_status(self, seen: View) -> None:
        thinking = self.bot_busy or self.table.bot_to_move()
        self.query_one("#status", Static).update(
            status_text(seen, self.table.names, thinking))

    def _draw_players(self, seen: View) -> None:
        count = len(self.table.seats)
        others = [(self.shown + i) % count for i in range(1, count)]
        packed = self.screen_stack[0].has_class("-short")
        for i, seat in enumerate(others):
            self.query_one(f"#opponent{i}", PlayerPanel).show(
                seen, seat, self._title(seat), self.color, packed=packed)
        aim = self.target if seen.phases[self.shown] == 2 and seen.my_turn else None
        self.query_one("#me", PlayerPanel).show(
            seen, self.shown, _("{name} (you)").format(name=self._title(self.shown)), self.color,
            aim, packed)

    def _title(self, seat: int) -> str:
        spec = self.table.seats[seat].bot
        return self.table.names[seat] + (f" [{bot_word(spec)}]" if spec else "")

    def _draw_move(self, seen: View) -> None:
        panel = self.query_one(MovePanel)
        options = self.candidates()
        if not options:
            panel.show([], "", [Text(_("Waiting…") if not seen.is_over else _("Game over."),
                                     style="dim")], self.color)
            return
        current = self.current()
        self.choice = current.key if current else ""
        help_lines = score_help(self.table, seen, self.target, self.color)
        panel.show(options, self.choice, help_lines, self.color)

    def say(self, text: str, style: str = "") -> None:
        """Show a message under the moves."""
        self._message = Text(text, style=style if self.color else "bold")
        self.query_one("#message", Static).update(self._message)

    def _reset_selection(self) -> None:
        self.selected.clear()
        self.cursor = 0
        self.target = None
        self.hinted = None


__all__ = ["TableDisplay"]
