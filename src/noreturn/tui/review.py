"""The review offered at the end of a game: one person's decisions judged, worst first.

The end screen runs ``noreturn.analysis.review_record`` for one seat in a worker thread
with a small budget (``REVIEW_PLAYOUTS``), so the wait is short and the screen stays
alive; ``ReviewScreen`` then shows the seat's accuracy and luck, its switch window and
each decision, worst first, with the better move found and the points it cost
(docs/review.md). ``noreturn review FILE`` weighs the same record deeper.
"""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.screen import Screen
from textual.widgets import Button, Static

from noreturn.analysis import Budget, SeatReview
from noreturn.analysis.report import label_word, labels_text, turns_text
from noreturn.text.lang import N_, _
from noreturn.text.numbers import decimal
from noreturn.tui.tiles import speak_bindings

REVIEW_PLAYOUTS = 200
"""Playouts per decision of the review at the end of a game: one seat of a full two-player
game (31 decisions, heuristic bots, standard rules) took 8.7 s on one core, so the wait is
short; ``noreturn review`` defaults to 500. Tests make it tiny."""

LABEL_STYLES = {"best": "green", "good": "green", "inaccuracy": "yellow",
                "mistake": "bold yellow", "blunder": "bold red"}


def summary_lines(seat: SeatReview) -> list[str]:
    """The accuracy and luck line, then the switch window line."""
    declared = (_("you never declared") if seat.declared_turn is None
                else _("declared at own turn {turn}").format(turn=seat.declared_turn))
    window = turns_text(seat.best_declare_turns) or _("none")
    return [
        _("Accuracy {accuracy} · mean loss {loss} · luck {luck} ± {se}").format(
            accuracy=decimal(seat.accuracy, 0), loss=decimal(seat.mean_loss),
            luck=decimal(seat.luck, 0, True), se=decimal(seat.luck_se, 0)),
        _("Switch window: {declared}; declaring was best at own turns: {window}").format(
            declared=declared, window=window),
    ]


def worst_first(seat: SeatReview) -> list[int]:
    """Positions of the seat's decisions, the largest loss first (ties in game order)."""
    return sorted(range(len(seat.decisions)), key=lambda i: -seat.decisions[i].loss)


def review_text(seat: SeatReview, budget: Budget | None = None) -> Text:
    """The whole review of one seat, for a terminal 80 columns wide."""
    out = Text(_("Review of {name}").format(name=seat.name) + "\n", style="bold")
    accuracy, window = summary_lines(seat)
    out.append(f"{accuracy}\n", style="bold")
    out.append(f"{window}\n")
    out.append(f"{labels_text(seat)}\n", style="dim")
    if budget is not None:
        out.append(_("A quick look ({budget} a decision); losses are points of expected "
                     "final margin.").format(budget=budget.text()) + "\n", style="dim")
    out.append(_("Accuracy is 100 with no loss and falls as losses grow; luck is what your "
                 "own draws were worth against an average draw. The hint is a quick rule of "
                 "thumb and this review a deeper search: it may fault a hinted move.") + "\n",
               style="dim")
    out.append("\n" + _("Your decisions, worst first (points lost, the better move below):")
               + "\n", style="bold")
    for i in worst_first(seat):
        d = seat.decisions[i]
        turn = _("mulligan") if d.kind == "mulligan" else _("own turn {turn}").format(turn=d.turn)
        out.append(f"{turn:>9}  ")
        out.append(f"{label_word(d.label):<10}",
                   style=LABEL_STYLES.get(d.label, ""))
        out.append(f" {decimal(d.loss):>5}  " + _("played {action}").format(action=d.played)
                   + "\n")
        if d.best != d.played:
            out.append(f"{'':>29}" + _("better {action}").format(action=d.best) + "\n",
                       style="cyan")
    return out


class ReviewScreen(Screen[None]):
    """One seat's review, scrollable; Escape or q goes back to the end screen."""

    BINDINGS = [  # noqa: RUF012 - Textual's declared class attribute
        Binding("escape,q", "close", N_("close")),
    ]

    def __init__(self, seat: SeatReview, budget: Budget | None = None) -> None:
        """Show the review of ``seat`` made with ``budget``."""
        super().__init__(id="review")
        self.seat = seat
        self.budget = budget
        speak_bindings(self)

    def compose(self) -> ComposeResult:
        """The review text in a scrolling pane, and a Close button."""
        with VerticalScroll(id="review-body"):
            yield Static(review_text(self.seat, self.budget), id="review-text")
        yield Button(_("Close (Esc)"), id="close-review")

    def on_button_pressed(self, event: Button.Pressed) -> None:
        """Close by click."""
        event.stop()
        self.dismiss()

    def action_close(self) -> None:
        """Close by key."""
        self.dismiss()


__all__ = ["REVIEW_PLAYOUTS", "ReviewScreen", "review_text", "summary_lines", "worst_first"]
