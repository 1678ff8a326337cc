"""The screens over the table: confirm, rules, tile tracker, hand-over and the end.

Each is small and closes with a key or a click; none touches the game. The app decides what
a screen's answer means, so every change of the game stays in one place.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Sequence
from functools import partial
from typing import Any

from rich.text import Text
from textual import events
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.message import Message
from textual.screen import ModalScreen, Screen
from textual.widgets import Button, Static
from textual.worker import get_current_worker

from noreturn.analysis import Budget, SeatReview, StoppedError, review_record
from noreturn.engine import Rules, make_tile
from noreturn.records import parse_record
from noreturn.text.lang import N_, _, ngettext, pgettext
from noreturn.tui.review import REVIEW_PLAYOUTS, ReviewScreen
from noreturn.tui.tiles import colour_label, speak_bindings

RULES_TEXT = N_("""\
[b]No Return in brief[/b]

132 tiles: six colours x values 1-11 x two of each. Everyone holds 8
hidden tiles. Before the first turn each player may set aside any
tiles once and redraw (the mulligan).

[b]Phase 1[/b] — each turn one action:
  • [b]PLACE[/b] tiles of one colour on your row of that colour (one
    row per colour); each tile placed must be no higher than the
    lowest tile already in that row.
  • [b]EXCHANGE[/b] 1-4 tiles: they leave the game, and you draw as
    many.

[b]Declare[/b] — at the start of a turn you may switch to phase 2, for
good (no return). The same turn goes on with a phase-2 action.

[b]Phase 2[/b] — each turn one action:
  • [b]SCORE[/b] the k lowest tiles of one row, paying with hand tiles
    of [i]one[/i] colour whose values sum to at least theirs (any
    colour; the excess is lost).
  • [b]EXCHANGE[/b] as in phase 1.

After each turn you refill to 8. When the bag runs empty the round is
completed. [b]Score[/b] = your score pile - the tiles still in your
rows. Highest score wins.

[b]Keys[/b]: 1-9 or ←/→ and Space pick tiles · p place · e exchange ·
s score · ↑/↓ choose · Enter play · d declare · r / + / - choose the
row tail to score · c clear · h hint · w when to switch (declare now
or wait?) · u undo · t tile tracker · l log · ? rules · q quit. The
mouse works too: click tiles, a row tile to aim a score, a move, the
buttons.""")
"""The rules in brief and the keys, in Rich markup; shown through ``_()``. Lines of at
most 70 letters: longer ones broke again in the 80-column dialog, a word left alone."""


class ConfirmScreen(ModalScreen[bool]):
    """A yes/no question; answers True for yes.

    y (and the language's own key: j for "ja") and n answer; Enter presses the button that
    has the focus, which is No unless ``default_yes``: a question whose yes cannot be taken
    back (the declaration) must not be answered by the Enter that played the move before
    it, or by a second Enter after a hint that said "Enter or d"."""

    BINDINGS = [  # noqa: RUF012 - Textual's declared class attribute
        Binding("y", "answer(True)", N_("yes")),
        Binding("n,escape", "answer(False)", N_("no")),
    ]

    def __init__(self, question: str, yes: str = "", no: str = "",
                 default_yes: bool = False) -> None:
        """Ask ``question`` with buttons labelled ``yes`` and ``no`` ("Yes", "No"), the
        focus on No (on Yes if ``default_yes``)."""
        super().__init__()
        self.question, self.yes, self.no = question, yes or _("Yes"), no or _("No")
        self.default_yes = default_yes
        speak_bindings(self)

    def on_mount(self) -> None:
        """The default answer has the focus: Enter presses it."""
        self.query_one("#yes" if self.default_yes else "#no", Button).focus()

    def compose(self) -> ComposeResult:
        """The question and two buttons."""
        with Vertical(classes="dialog"):
            yield Static(self.question, id="question")
            with Horizontal(classes="buttons"):
                key = pgettext("answer key", "y")  # (German: j, for "ja"; y answers too)
                yield Button(f"{self.yes} ({key})", id="yes", variant="warning")
                yield Button(f"{self.no} (n)", id="no")

    def on_button_pressed(self, event: Button.Pressed) -> None:
        """A click answers."""
        self.dismiss(event.button.id == "yes")

    def on_key(self, event: events.Key) -> None:
        """The language's own key for yes answers too (German: j); in English j does
        nothing here, so a stray key never confirms what cannot be taken back."""
        key = pgettext("answer key", "y")
        if key != "y" and event.key == key:
            event.stop()
            self.dismiss(True)

    def action_answer(self, yes: bool) -> None:
        """A key answers."""
        self.dismiss(yes)


class TextScreen(ModalScreen[None]):
    """A text over the table, closed by Escape, q, Enter or a click on Close."""

    BINDINGS = [  # noqa: RUF012 - Textual's declared class attribute
        Binding("escape,q,enter,question_mark,t", "close", N_("close")),
        Binding("up,k", "scroll_text(-1)", show=False),
        Binding("down,j", "scroll_text(1)", show=False),
        Binding("pageup", "scroll_text(-10)", show=False),
        Binding("pagedown,space", "scroll_text(10)", show=False),
    ]

    def __init__(self, body: str | Text, screen_id: str) -> None:
        """Show ``body`` (Rich markup or Text)."""
        super().__init__(id=screen_id)
        self.body = body
        speak_bindings(self)

    def compose(self) -> ComposeResult:
        """The text (scrolling when the screen is short) and a Close button."""
        with Vertical(classes="dialog wide"):
            with VerticalScroll(classes="text"):
                yield Static(self.body, classes="body")
            yield Button(_("Close (Esc)"), id="close")

    def on_mount(self) -> None:
        """Fit the screen: the text scrolls rather than losing its top (the rules at 80x24)."""
        self.on_resize()

    def action_scroll_text(self, lines: int) -> None:
        """Scroll the text by keys (the mouse wheel works too)."""
        self.query_one(".text", VerticalScroll).scroll_relative(y=lines, animate=False)

    def on_resize(self) -> None:
        """The text's room: the screen less the frame and the button."""
        self.query_one(".text").styles.max_height = max(4, self.app.size.height - 9)

    def on_button_pressed(self, event: Button.Pressed) -> None:
        """Close on the button."""
        self.dismiss()

    def action_close(self) -> None:
        """Close on a key."""
        self.dismiss()


class LogScreen(ModalScreen[None]):
    """The whole log over the table, scrolled to its end; Escape, q, l or Enter close it."""

    BINDINGS = [  # noqa: RUF012 - Textual's declared class attribute
        Binding("escape,q,l,enter", "close", N_("close")),
    ]

    def __init__(self, log: Text) -> None:
        """Show ``log`` (the lines the shown player may see)."""
        super().__init__(id="logscreen")
        self.log_lines = log
        speak_bindings(self)

    def compose(self) -> ComposeResult:
        """The log in a scrolling box and a Close button."""
        with Vertical(classes="dialog wide tall"):
            with VerticalScroll(id="fulllog"):
                yield Static(self.log_lines)
            yield Button(_("Close (Esc)"), id="close")

    def on_mount(self) -> None:
        """Start at the newest line."""
        self.query_one("#fulllog", VerticalScroll).scroll_end(animate=False)

    def on_button_pressed(self, event: Button.Pressed) -> None:
        """Close on the button."""
        self.dismiss()

    def action_close(self) -> None:
        """Close on a key."""
        self.dismiss()


def rules_screen() -> TextScreen:
    """The short rules and the keys."""
    return TextScreen(_(RULES_TEXT), "rules")


def tracker_text(unseen: Counter[int], rules: Rules, color: bool) -> Text:
    """A colour x value grid of how many of each tile a player has not seen yet."""
    out = Text(_("Tiles you have not seen yet (in the bag or other hands, or removed unseen)")
               + "\n\n", style="bold")
    values = range(rules.max_value, 0, -1)
    out.append("          " + "".join(f"{v:>4}" for v in values) + "\n")
    for colour in range(rules.colors):
        label = colour_label(colour, color)
        label.pad_right(10 - len(label.plain))
        out.append_text(label)
        for v in values:
            count = unseen[make_tile(colour, v)]
            out.append(f"{count if count else '·':>4}", style="bold" if count else "dim")
        out.append("\n")
    total = sum(unseen.values())
    out.append("\n" + ngettext("{n} tile unseen in all.", "{n} tiles unseen in all.", total).format(
        n=total))
    return out


def tracker_screen(unseen: Counter[int], rules: Rules, color: bool) -> TextScreen:
    """The tile tracker."""
    return TextScreen(tracker_text(unseen, rules, color), "tracker")


class HandoverScreen(Screen[None]):
    """Hot seat: hides the table until the next player has the keyboard."""

    BINDINGS = [  # noqa: RUF012 - Textual's declared class attribute
        Binding("enter,space", "ready", N_("ready")),
    ]

    def __init__(self, name: str) -> None:
        """Hand the keyboard to ``name``."""
        super().__init__(id="handover")
        self.player = name
        speak_bindings(self)

    def compose(self) -> ComposeResult:
        """A plain message and a button: nothing of anyone's hand."""
        with Vertical(classes="dialog"):
            yield Static(_("Pass the keyboard to [b]{name}[/b].\n\n{name}, press Enter when the "
                           "others cannot see the screen.").format(name=self.player))
            yield Button(_("I am {name}: show my hand").format(name=self.player), id="ready",
                         variant="primary")

    def on_button_pressed(self, event: Button.Pressed) -> None:
        """Ready by click."""
        self.dismiss()

    def action_ready(self) -> None:
        """Ready by key."""
        self.dismiss()


class _CancelledError(Exception):
    """The review was called off (the game was left): its worker stops at the next job."""


class EndScreen(ModalScreen[None]):
    """The final scores with their arithmetic, the ranks and where the record is, over the
    lower part of the final table, which stays in sight above it (every row at the end).

    With the game's ``record`` and the people's seats (``reviewers``) it offers each person
    a review of their decisions (``tui/review.py``): ``r`` or a click on Review runs it in
    a worker thread, the screen says how far it has got and stays usable (q still leaves),
    and the review screen opens when it is done. A review that fails is a line here.
    """

    BINDINGS = [  # noqa: RUF012 - Textual's declared class attribute
        Binding("q,enter,escape", "leave", N_("leave")),
        Binding("r", "review", N_("review")),
        Binding("v", "view_table", N_("view the table")),
        Binding("a", "again", N_("play again")),
    ]

    def __init__(self, lines: list[str], path: str, note: str | None = None,
                 record: dict[str, Any] | None = None,
                 reviewers: Sequence[tuple[int, str]] = (),
                 playouts: int = REVIEW_PLAYOUTS) -> None:
        """Show the result ``lines`` and the record's ``path`` ("": not saved), with the
        ``note`` of a save that went elsewhere or failed; offer a review of each of the
        ``reviewers`` (seat, name) of ``record`` at ``playouts`` a decision."""
        super().__init__(id="end")
        self.lines, self.path, self.note = lines, path, note
        self.record = record
        self.reviewers = list(reviewers) if record is not None else []
        self.budget = Budget(playouts=playouts)
        self.reviews: dict[int, SeatReview] = {}
        self.reviewing: int | None = None
        self.asked_again = False
        speak_bindings(self)

    def compose(self) -> ComposeResult:
        """Scores, record path, a Review button per person and a Leave button."""
        body = Text(_("Game over. Score = score pile - tiles left in rows.") + " ", style="bold")
        body.append(_("(v: the table)") + "\n\n", style="dim")
        for line in self.lines:
            body.append(f"  {line}\n", style="bold" if line.startswith("1.") else "")
        if self.note:
            body.append(f"\n{self.note}", style="bold")
        if self.path:
            body.append("\n" + _("Record saved: {path}\nReplay it: noreturn replay {path}").format(
                path=self.path))
        else:
            body.append("\n" + _("The record is shown when you leave: keep it as a .json file."))
        with Vertical(classes="dialog wide"):
            yield Static(body, id="result")
            if self.reviewers:
                yield Static("", id="review-status")
            with Horizontal(classes="buttons"):
                for seat, name in self.reviewers:
                    label = (_("Review (r)") if len(self.reviewers) == 1
                             else _("Review {name}").format(name=name))
                    yield Button(label, id=f"review-{seat}")
                yield Button(_("Play again (a)"), id="again")
                yield Button(_("Leave (q)"), id="leave", variant="primary")

    def on_button_pressed(self, event: Button.Pressed) -> None:
        """Review or leave by click."""
        button = event.button.id or ""
        if button.startswith("review-"):
            self.start_review(int(button.removeprefix("review-")))
        elif button == "again":
            self.action_again()
        else:
            self.action_leave()

    def action_view_table(self) -> None:
        """Hide the result, so the whole final table shows; v again brings it back."""
        dialog = self.query_one(".dialog")
        dialog.display = not dialog.display

    class Again(Message):
        """The players asked for another game with the same seats."""

    def action_again(self) -> None:
        """Ask the app for a new game with the same players (it leaves this one)."""
        self.workers.cancel_group(self, "review")
        self.post_message(self.Again())

    def action_leave(self) -> None:
        """Leave by key (a review under way is called off); with the result hidden (v),
        the key brings it back first: Escape after v had left the game, and the review
        and "play again" with it."""
        dialog = self.query_one(".dialog")
        if not dialog.display:
            dialog.display = True
            return
        self.workers.cancel_group(self, "review")
        self.app.exit(self.path)

    def action_review(self) -> None:
        """Review the first person's decisions (hot seat: the buttons review each)."""
        if self.reviewers:
            self.start_review(self.reviewers[0][0])

    def start_review(self, seat: int) -> None:
        """Show ``seat``'s review: at once if it is done, else once it is."""
        if seat in self.reviews:
            self.app.push_screen(ReviewScreen(self.reviews[seat], self.budget))
            return
        if self.reviewing is not None:
            self.asked_again = True  # the progress lines say "still" from now on
            self._status(_("still reviewing {name}…").format(name=self._seat_name(self.reviewing)),
                         "yellow")
            return
        self.reviewing, self.asked_again = seat, False
        self._status(_("reviewing {name}… (q leaves at once)").format(name=self._seat_name(seat)),
                     "cyan")
        self.run_worker(partial(self._review, seat), thread=True, group="review",
                        exit_on_error=False)

    def _review(self, seat: int) -> None:
        """In a worker thread: the review of ``seat``; its answer goes back to the screen."""
        worker = get_current_worker()

        def progress(done: int, total: int) -> None:
            if worker.is_cancelled:
                raise _CancelledError
            self.app.call_from_thread(self._progressed, seat, done, total)

        try:
            record = parse_record(json.dumps(self.record))
            review = review_record(record, [seat], budget=self.budget, workers=1,
                                   progress=progress, stop=lambda: worker.is_cancelled)
        except (_CancelledError, StoppedError):
            return
        except Exception as exc:  # any failure is a line, never a traceback
            if not worker.is_cancelled:
                self.app.call_from_thread(self._failed, f"{type(exc).__name__}: {exc}")
            return
        if not worker.is_cancelled:
            self.app.call_from_thread(self._reviewed, review.seats[0])

    def _progressed(self, seat: int, done: int, total: int) -> None:
        words = (_("still reviewing {name}… {done}/{total}") if self.asked_again
                 else _("reviewing {name}… {done}/{total}"))
        self._status(words.format(name=self._seat_name(seat), done=done, total=total),
                     "yellow" if self.asked_again else "cyan")

    def _reviewed(self, review: SeatReview) -> None:
        self.reviewing = None
        self.reviews[review.seat] = review
        self._status(_("review of {name} done: r or Review shows it again").format(
            name=review.name), "green")
        if self.app.screen is self:
            self.app.push_screen(ReviewScreen(review, self.budget))

    def _failed(self, problem: str) -> None:
        self.reviewing = None
        self._status(_("the review failed: {problem}").format(problem=problem), "bold red")

    def _status(self, text: str, style: str) -> None:
        self.query_one("#review-status", Static).update(Text(text, style=style))

    def _seat_name(self, seat: int) -> str:
        return dict(self.reviewers).get(seat, _("seat {seat}").format(seat=seat))
