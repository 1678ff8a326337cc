"""``noreturn play``: the full-screen game, a Textual app over a ``LocalTable``.

The app owns only what is on screen: which tiles are selected, which candidate move is
chosen, the row tail aimed at, and whose hand is shown; the layout and the drawing of all
that are ``TableDisplay``'s (``display.py``), and this module adds what the keys, the
buttons and the mouse do, and the game's flow. The game (turns, legality, bots' decisions,
the log, undo, the record) is the table's. Bots think in a worker thread, so the screen
stays alive during a one-second search; a bot's answer made for a game that has changed
meanwhile (an undo) is dropped by the table. The switch advice is weighed the same way at
each phase-1 turn of the shown player (``advice.py``).
"""

from __future__ import annotations

from pathlib import Path

from textual.binding import Binding
from textual.widgets import Button

from noreturn.engine import Declare, NoReturnError, Score
from noreturn.files import OutputError
from noreturn.table import BotMove, LocalTable
from noreturn.text.lang import N_, _
from noreturn.tui import moves
from noreturn.tui.advice import AdviceLine
from noreturn.tui.display import TableDisplay
from noreturn.tui.moves import Target
from noreturn.tui.review import REVIEW_PLAYOUTS
from noreturn.tui.screens import (
    ConfirmScreen,
    EndScreen,
    HandoverScreen,
    LogScreen,
    rules_screen,
    tracker_screen,
)
from noreturn.tui.tiles import log_text
from noreturn.tui.widgets import HandView, MovePanel, PlayerPanel


class NoReturnApp(TableDisplay):
    """The table on screen; the app's result is the saved record's path (or "")."""

    review_playouts = REVIEW_PLAYOUTS
    """The budget of the review offered at the end (playouts a decision); tests lower it."""

    BINDINGS = [  # noqa: RUF012 - Textual's declared class attribute
        Binding("enter", "play", N_("play"), key_display="⏎"),
        Binding("d", "declare", N_("declare")),
        Binding("h", "hint", N_("hint")),
        Binding("w", "switch_advice", N_("switch")),
        Binding("u", "undo", N_("undo")),
        Binding("t", "tracker", N_("tiles")),
        Binding("l", "log", N_("log")),
        Binding("question_mark", "rules", N_("rules"), key_display="?"),
        Binding("q", "quit_game", N_("quit")),
        *[Binding(str(n), f"select_tile({n - 1})", show=False) for n in range(1, 10)],
        Binding("left", "cursor(-1)", show=False),
        Binding("right", "cursor(1)", show=False),
        Binding("space", "toggle_cursor", show=False),
        Binding("c,escape", "clear", show=False),
        Binding("up", "choose(-1)", show=False),
        Binding("down", "choose(1)", show=False),
        Binding("p", "pick('p')", show=False),
        Binding("e", "pick('e')", show=False),
        Binding("s", "pick('s')", show=False),
        Binding("m", "pick('m')", show=False),
        Binding("x", "pick('x')", show=False),
        Binding("r", "next_row", show=False),
        Binding("plus,equals_sign", "resize(1)", show=False),
        Binding("minus", "resize(-1)", show=False),
    ]

    # -------------------------------------------------------------- game flow
    def after_change(self) -> None:
        """After any change: draw, then let a bot move, hand over, or end."""
        table = self.table
        if table.is_over():
            self.redraw()
            self._end()
            return
        seat = table.to_move()
        if table.human_to_move():
            table.save_progress()  # (a closed terminal loses at most this turn)
            if seat is not None and (seat != self.shown or not self.revealed):
                self._hand_over(seat)
        self.redraw()
        if table.bot_to_move():
            self._schedule_bot()

    def _hand_over(self, seat: int) -> None:
        """Hot seat: hide everything private and wait for ``seat``'s player."""
        self.revealed = False
        self.shown = seat
        self._reset_selection()
        if self._handing_over:
            return
        self._handing_over = True

        def ready(_: None) -> None:
            self._handing_over = False
            self.revealed = True
            self.redraw()

        self.push_screen(HandoverScreen(self.table.names[seat]), ready)

    def _schedule_bot(self) -> None:
        if self.bot_busy:
            return
        self.bot_busy = True
        if self.bot_delay > 0:
            self.set_timer(self.bot_delay, self._start_bot)
        else:
            self.call_later(self._start_bot)

    def _start_bot(self) -> None:
        self.run_worker(self._think, thread=True, group="bot", exit_on_error=True)

    def _think(self) -> None:
        """In a worker thread: the bot's decision (the table is not changed here)."""
        move = self.table.decide_bot()
        self.call_from_thread(self._bot_done, move)

    def _bot_done(self, move: BotMove) -> None:
        self.bot_busy = False
        self.table.apply_bot(move)
        self.after_change()

    def _end(self) -> None:
        if self._ended:
            return
        self._ended = True
        path = self._save()
        note = self.table.save_note if path else self._save_problem
        table = self.table
        reviewers = [(seat, table.names[seat]) for seat in table.humans]
        self.push_screen(EndScreen(table.result_lines(), path, note, table.record(), reviewers,
                                   self.review_playouts))

    def _save(self) -> str:
        """Save the record: its path, or "" when no folder took it (``_save_problem`` says
        why, and ``noreturn play`` shows the record itself after the app): a failed save
        must not end the game in a traceback."""
        try:
            return str(self.table.save())
        except OutputError as exc:
            self._save_problem = str(exc)
            return ""

    # ------------------------------------------------------------------ actions
    def _covered(self) -> bool:
        """Whether another screen (a question, the rules, a hand-over) is over the table.

        The app's keys stay bound under those screens; they must not act on a table that
        cannot be seen.
        """
        return len(self.screen_stack) > 1

    def _may_act(self) -> bool:
        """Whether the shown player may act now; says why not otherwise."""
        if self.table.is_over() or self._covered():
            return False
        if not self.revealed or self.table.to_move() != self.shown:
            name = self.table.names[self.table.state.to_move]
            self.say(_("wait: it is {name}'s turn").format(name=name), "yellow")
            return False
        return True

    def action_select_tile(self, index: int) -> None:
        """Select or unselect hand tile ``index``."""
        if not self._may_act() or index >= len(self.order()):
            return
        self.selected ^= {index}
        self.cursor = index
        self._drop_hint()
        self.redraw()

    def action_cursor(self, step: int) -> None:
        """Move the hand cursor."""
        if self._covered():
            return
        size = len(self.order())
        if size:
            self.cursor = (self.cursor + step) % size
            self.redraw()

    def action_toggle_cursor(self) -> None:
        """Select or unselect the tile at the cursor."""
        self.action_select_tile(self.cursor)

    def action_clear(self) -> None:
        """Unselect everything."""
        if self._covered():
            return
        self.selected.clear()
        self._drop_hint()
        self.redraw()

    def action_choose(self, step: int) -> None:
        """Choose the previous or next candidate."""
        if self._covered():
            return
        keys = [o.key for o in self.candidates()]
        if keys:
            at = keys.index(self.choice) if self.choice in keys else 0
            self.choice = keys[(at + step) % len(keys)]
            self._drop_hint()
            self.redraw()

    def action_pick(self, key: str) -> None:
        """Choose the candidate of one kind (p, e, s, m)."""
        if key in [o.key for o in self.candidates()]:
            if key != self.choice:
                self._drop_hint()
            self.choice = key
            self.redraw()
        elif self._may_act():
            self.say({"p": _("you can place only in phase 1"),
                      "s": _("you can score only in phase 2: declare first (d)"),
                      "m": _("the mulligan is over")}.get(key, _("not now")), "yellow")

    def action_next_row(self) -> None:
        """Aim the score at the next row."""
        if self._covered():
            return
        self.target = moves.next_row(self.seen(), self.target)
        self._drop_hint()
        self.redraw()

    def action_resize(self, step: int) -> None:
        """Aim the score at one more (or one fewer) tile of the row."""
        if self._covered():
            return
        self.target = moves.resize(self.seen(), self.target, step)
        self._drop_hint()
        self.redraw()

    def _drop_hint(self) -> None:
        """The selection changed: a hint about the old one would mislead, so it goes."""
        if self.hinted is not None:
            self.hinted = None
            self.say("")

    def action_play(self) -> None:
        """Play the chosen candidate, if the engine allows it; otherwise say why not. After
        a hint to declare, Enter declares (asking first, as d does)."""
        if not self._may_act():
            return
        if isinstance(self.hinted, Declare):
            self.action_declare()
            return
        option = self.current()
        if option is None:
            return
        if option.action is None:
            self.say(_("not yet: {problem}").format(problem=option.problem), "yellow")
            return
        problem = self.table.try_action(option.action)
        if problem is not None:
            self.say(_("not allowed: {problem}").format(problem=problem), "bold red")
            return
        self._reset_selection()
        self.say(_("you played: {action}").format(action=option.action), "green")
        self.after_change()

    def action_declare(self) -> None:
        """Ask, then declare phase 2: it cannot be taken back."""
        if not self._may_act():
            return
        problem = self.table.why_not(Declare())
        if problem is not None:
            self.say(_("not allowed: {problem}").format(problem=problem), "bold red")
            return

        def answer(yes: bool | None) -> None:
            if not yes:
                self.say(_("still in phase 1"), "yellow")
                return
            self.table.try_action(Declare())
            self.hinted = None
            self.say(_("you declared phase 2: now score or exchange"), "green")
            self.after_change()

        self.push_screen(ConfirmScreen(
            _("Declare phase 2?\n\nYou will never place a tile again: there is no return, "
              "and it cannot be undone. This turn goes on with a score or an exchange."),
            yes=_("Declare")), answer)

    def action_hint(self) -> None:
        """Select the tiles of the suggested move and say why it is suggested."""
        if not self._may_act():
            return
        try:
            action, reason = self.table.hint()
        except NoReturnError as exc:
            self.say(str(exc), "yellow")
            return
        self.hinted = action
        if isinstance(action, Declare):
            self.say(_("hint: declare phase 2 (Enter or d) — {reason}").format(reason=reason),
                     "cyan")
            self.redraw()
            return
        self.selected = moves.pick_tiles(self.order(), moves.tiles_of(action))
        self.choice = moves.key_of(action)
        if isinstance(action, Score):
            self.target = Target(action.row, action.count)
        self.say(_("hint: {reason}. Enter plays it.").format(reason=reason), "cyan")
        self.redraw()

    def action_switch_advice(self) -> None:
        """The switch advice in full: now, or as soon as it is weighed."""
        if self._may_act():
            self.say(*self.query_one(AdviceLine).full())

    def action_undo(self) -> None:
        """Take back your last move (only against bots)."""
        if self._covered():
            return
        if self.bot_busy:
            self.say(_("wait until the bots have moved, then undo"), "yellow")
            return
        problem = self.table.undo()
        if problem is not None:
            self.say(_("cannot undo: {problem}").format(problem=problem), "yellow")
            return
        self._reset_selection()
        self.say(_("undone: your move again (the bag is shuffled afresh)"), "green")
        self.after_change()

    def action_tracker(self) -> None:
        """The tile tracker for the shown player."""
        if self._covered():
            return
        if self.revealed:
            self.push_screen(tracker_screen(self.table.unseen(self.shown), self.table.rules,
                                            self.color))

    def action_log(self) -> None:
        """The whole log (on a narrow screen only its newest line shows)."""
        if self._covered() or not self.revealed:
            return
        self.push_screen(LogScreen(log_text(self.table.log(self.shown), self.color)))

    def action_rules(self) -> None:
        """The rules in brief."""
        if self._covered():
            return
        self.push_screen(rules_screen())

    def action_quit_game(self) -> None:
        """Quit after a confirmation; the game so far is saved."""
        if self._covered() and not isinstance(self.screen, HandoverScreen):
            return
        if self.table.is_over():
            self.exit(self._save())
            return

        def answer(yes: bool | None) -> None:
            if yes:
                self.exit(self._save())

        self.push_screen(ConfirmScreen(
            _("Quit this game?\n\nThe game so far is saved, and noreturn replay shows it."),
            yes=_("Quit"), default_yes=True), answer)  # nothing lost: it resumes

    # -------------------------------------------------------------------- mouse
    def on_end_screen_again(self, message: EndScreen.Again) -> None:
        """Play again: leave this game (saved), and ``run_tui`` says another is wanted."""
        self.play_again = True
        self.exit(str(self.table.path) if self.table.path else "")

    def on_hand_view_toggled(self, message: HandView.Toggled) -> None:
        """A click on a hand tile."""
        self.action_select_tile(message.index)

    def on_player_panel_aimed(self, message: PlayerPanel.Aimed) -> None:
        """A click on one of your row tiles aims the score there."""
        if message.seat == self.shown:
            self.target = message.target
            self._drop_hint()
            self.redraw()

    def on_move_panel_chosen(self, message: MovePanel.Chosen) -> None:
        """A click on a candidate chooses it."""
        self.action_pick(message.key)

    def on_advice_line_asked(self, message: AdviceLine.Asked) -> None:
        """A click on the switch line shows it in full."""
        self.action_switch_advice()

    def on_advice_line_said(self, message: AdviceLine.Said) -> None:
        """The full advice, asked for before it was weighed, has come."""
        self.say(message.text, message.style)

    def on_button_pressed(self, event: Button.Pressed) -> None:
        """The buttons do what their keys do."""
        action = getattr(self, f"action_{event.button.id}", None)
        if callable(action):
            action()


def run_tui(table: LocalTable, bot_delay: float = 0.6, color: bool = True) -> tuple[
        Path | None, bool]:
    """Play ``table`` full screen; returns the saved record's path (None if not saved) and
    whether the players asked to play again."""
    app = NoReturnApp(table, bot_delay, color)
    result = app.run()
    return (Path(result) if result else None), app.play_again


__all__ = ["NoReturnApp", "run_tui"]
