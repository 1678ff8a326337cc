"""The switch advice on the terminal: one line in the move panel at each phase-1 turn.

Weighing declaring now against waiting costs some 0.3 s of sampled games, so the app runs
it in a worker thread as soon as a phase-1 turn of the shown player begins, and the line
fills in when the answer comes. Each answer is tied to the turn it was asked for (the
table's version and the seat): an answer that comes after the turn moved on (a move, an
undo, a hand-over) is dropped, never shown against a table it was not weighed for.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import partial

from rich.text import Text
from textual import events
from textual.message import Message
from textual.widgets import Static

from noreturn.bots.switch import Outlook, SwitchAdvice
from noreturn.table import ADVICE_SECONDS, LocalTable
from noreturn.text.lang import N_, _

Turn = tuple[int, int]
"""The turn an answer is for: the table's version and the seat advised."""

WEIGHING = N_("switch: weighing declaring now against waiting…")


@dataclass
class AdviceSlot:
    """The advice for the current turn: which turn it is for and, once weighed, the answer.

    Attributes:
        turn: the turn being weighed or weighed (None: none yet).
        advice: the answer for ``turn`` (None: still weighing, or it failed).
        failed: why the advisor gave no answer ("" when it did, or has not yet).
        wanted: the player asked for the full line before the answer came.
    """

    turn: Turn | None = None
    advice: SwitchAdvice | None = None
    failed: str = ""
    wanted: bool = False

    def begin(self, turn: Turn) -> bool:
        """Make ``turn`` the current one; False when it already was (nothing to start)."""
        if turn == self.turn:
            return False
        self.turn, self.advice, self.failed, self.wanted = turn, None, "", False
        return True

    def finish(self, turn: Turn, advice: SwitchAdvice | None, failed: str = "") -> bool:
        """Keep the answer for ``turn``; False (dropped) when the turn has moved on."""
        if turn != self.turn:
            return False
        self.advice, self.failed = advice, failed
        return True

    def clear(self) -> None:
        """No turn to weigh (a bot's turn, phase 2, a hidden hand)."""
        self.begin((-1, -1))

    @property
    def pending(self) -> bool:
        """Whether the current turn is still being weighed."""
        return self.turn not in (None, (-1, -1)) and self.advice is None and not self.failed


def short_text(advice: SwitchAdvice) -> str:
    """``switch: declare +12 (win 64%) · wait +8 (58%) ✓``: the line for the move panel,
    short enough for an 80-column terminal (the better line is ticked)."""
    def part(label: str, name: str, outlook: Outlook, win: str) -> str:
        tick = " ✓" if advice.better == name else ""
        return f"{label} {outlook.margin:+.0f} ({win}{outlook.win:.0%}){tick}"

    declare = part(_("declare"), "declare", advice.declare, _("win") + " ")
    return _("switch: {declare} · {wait}").format(
        declare=declare, wait=part(_("wait"), "wait", advice.wait, ""))


def advice_line(slot: AdviceSlot, color: bool) -> Text:
    """The move panel's switch line: the answer, or that it is being weighed, or nothing."""
    line = Text(no_wrap=True, overflow="ellipsis")
    if slot.advice is not None:
        line.append(short_text(slot.advice), style="bold cyan" if color else "bold")
    elif slot.failed:
        line.append(_("switch: no advice ({why})").format(why=slot.failed), style="dim")
    elif slot.pending:
        line.append(_(WEIGHING), style="dim")
    return line


class AdviceLine(Static):
    """The switch line of the move panel, which weighs the advice for the turn it follows.

    The app tells it which seat is shown (``follow``); at that seat's phase-1 turns it starts
    a worker thread with the table's ``switch_job`` and shows the answer when it comes. A
    click on it asks for the full line, as the ``w`` key does (``Asked``); a full line asked
    for before the answer came is posted when it does (``Said``).
    """

    class Asked(Message):
        """The line was clicked."""

    class Said(Message):
        """The full advice, for the message area, when it was asked for before it came."""

        def __init__(self, text: str, style: str) -> None:
            """The line and its style."""
            super().__init__()
            self.text, self.style = text, style

    def __init__(self, table: LocalTable, worlds: int | None, color: bool, *,
                 id: str | None = None) -> None:
        """Weigh ``table``'s switches over ``worlds`` worlds (None: ``ADVICE_SECONDS``)."""
        super().__init__(id=id)
        self.table, self.worlds, self.color = table, worlds, color
        self.slot = AdviceSlot()

    def follow(self, seat: int | None) -> None:
        """Weigh the switch if ``seat`` (None: no hand shown) is to decide in phase 1 and
        its turn is new; show the line as it stands."""
        table = self.table
        if seat is None or table.to_move() != seat or table.why_no_switch_advice():
            self.slot.clear()
        elif self.slot.begin((table.version, seat)):
            job = table.switch_job(ADVICE_SECONDS, self.worlds)
            self.run_worker(partial(self._weigh, (table.version, seat), job), thread=True,
                            group="advice")
        self.update(advice_line(self.slot, self.color))

    def full(self) -> tuple[str, str]:
        """The full advice and its style for the message area, or why there is none; while
        it is weighed, says so and posts it (``Said``) when it comes."""
        problem = self.table.why_no_switch_advice()
        if problem is not None:
            return problem, "yellow"
        if self.slot.pending:
            self.slot.wanted = True
            return _(WEIGHING), "cyan"
        return self._full()

    def _full(self) -> tuple[str, str]:
        advice = self.slot.advice
        if advice is None:
            return _("switch: no advice ({why})").format(why=self.slot.failed), "yellow"
        return _("switch: {advice}").format(advice=advice.text()), "cyan"

    def _weigh(self, turn: Turn, job: Callable[[], SwitchAdvice]) -> None:
        """In a worker thread: the advice (the table is not read here). A failing advisor
        says so on its line: advice must never end a game."""
        try:
            advice, failed = job(), ""
        except Exception as exc:  # any failure: shown on the line, the game goes on
            advice, failed = None, _("the advisor failed: {error}").format(error=exc)
        self.app.call_from_thread(self._advised, turn, advice, failed)

    def _advised(self, turn: Turn, advice: SwitchAdvice | None, failed: str) -> None:
        """Show an answer that is still for the turn on screen; drop a stale one."""
        if not self.slot.finish(turn, advice, failed):
            return
        if self.slot.wanted:
            self.post_message(self.Said(*self._full()))
        self.update(advice_line(self.slot, self.color))

    def on_click(self, event: events.Click) -> None:
        """Ask for the full line."""
        self.post_message(self.Asked())


__all__ = ["WEIGHING", "AdviceLine", "AdviceSlot", "Turn", "advice_line", "short_text"]
