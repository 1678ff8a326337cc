"""A readable account of a recorded game, turn by turn, for everyone or for one seat, in
the reader's language (the validator's reason for a broken record stays English).

Without a seat the account tells the whole record: every deal, draw, set-aside and exchanged
tile, and every hand. With a seat it tells only what that seat could see at the table: the
other players' deals, draws, mulligans and exchanges show as counts ("Bea drew 2 tiles"),
its own in full, and the public things (placed, scored and paid tiles, rows, phases, piles)
for all. Each event is told from ``observe(event, seat)`` and the table after each turn from
``view(state, seat)``, the engine's two gates for hidden information, so a tile that the
seat may not see is never at hand to print.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from noreturn.engine import (
    DEAL,
    HIDING_KINDS,
    PLAY,
    EventView,
    GameState,
    Rules,
    observe,
    tiles_text,
    value_of,
    view,
)
from noreturn.records.names import shown_name
from noreturn.records.reader import check_header
from noreturn.records.validate import Step, Verdict, replay_record
from noreturn.records.writer import Record
from noreturn.text.lang import _, ngettext
from noreturn.text.narrate import in_progress, narrate_event, render_table

Emit = Callable[[str], None]

HIDDEN_EVENTS = HIDING_KINDS
"""Event types whose tiles only their own player (and a full account) may see: the
engine's gate says which (its ``EventKind`` values are the record's event types)."""

INDENT = "  "


def write_account(record: Record, seat: int | None, emit: Emit) -> Verdict:
    """Tell ``record`` line by line through ``emit``; returns the validator's verdict.

    The account follows the replay up to the first offending event, if any, and then names
    the problem (in a seat's account without details that would show hidden tiles).

    Raises:
        RecordError: ``record`` is not a record.
        ValueError: ``seat`` is not a seat of the game.
    """
    rules = check_header(record)
    teller = _Teller(record, rules, seat, emit)
    verdict = replay_record(record, teller.step)
    teller.finish(verdict)
    return verdict


def player_names(record: Record) -> list[str]:
    """The seats' names as the record gives them, safe to print (``shown_name``: control
    characters as ``?``, at most 40 characters, ``P<seat>`` for a blank name)."""
    return [shown_name(p.get("name"), i) for i, p in enumerate(record["players"])]


class _Teller:
    """The account's running state: where the story stands, and how to say things."""

    def __init__(self, record: Record, rules: Rules, seat: int | None, emit: Emit) -> None:
        self.record = record
        self.players = rules.players
        if seat is not None and not 0 <= seat < self.players:
            raise ValueError(f"seat must be a seat of this game, 0 to {self.players - 1}")
        self.seat = seat
        self.emit = emit
        self.names = player_names(record)
        self.stage_before = DEAL
        self.turns_before = 0
        self.turn_open = False
        self._header(rules)

    # ------------------------------------------------------------------ the story
    def _header(self, rules: Rules) -> None:
        seats = ", ".join(_("{name} (seat {seat})").format(name=name, seat=i)
                          for i, name in enumerate(self.names))
        self.emit(f"No Return: {seats}")
        self.emit(_("Rules: {rules}").format(
            rules=", ".join(f"{k}={v}" for k, v in rules.to_dict().items())))
        starter = self.names[self.record["start_player"]]
        if self.seat is None:
            self.emit(_("{starter} starts. This account shows everything in the record.")
                      .format(starter=starter))
        else:
            self.emit(_("{starter} starts. This account shows only what {name} (seat {seat}) "
                        "could see.").format(starter=starter, name=self.names[self.seat],
                                             seat=self.seat))
        self.emit("")
        self.emit(_("Setup"))

    def step(self, step: Step) -> None:
        """Tell one replayed event, and the table when it ended a turn or the setup."""
        state = step.state
        if self.stage_before == PLAY and not self.turn_open:
            self.emit("")
            self.emit(_("Turn {number}: {name}").format(number=self.turns_before + 1,
                                                          name=self.names[step.move.player]))
            self.turn_open = True
        self.emit(INDENT + narrate_event(self.names[step.move.player], self._seen(step)))
        if state.turns > self.turns_before or (state.stage == PLAY and self.stage_before < PLAY):
            self._table(state)
            self.turn_open = False
        self.stage_before, self.turns_before = state.stage, state.turns

    def finish(self, verdict: Verdict) -> None:
        """Close the account: the final scores, the game in progress, or the problem."""
        self.emit("")
        if not verdict.valid:
            self.emit(_("INVALID record: {problem}").format(problem=self._problem(verdict)))
            return
        if not verdict.over:
            self.emit(_("The game is {status}.").format(
                status=in_progress(verdict.state.to_move, verdict.state.draws_due)))
            return
        self._final_scores(verdict.state)
        if "result" not in self.record:
            self.emit(_("(The record holds no result, though the game is over.)"))

    # ---------------------------------------------------------------- event lines
    def _seen(self, step: Step) -> EventView:
        """The event as the account's reader saw it: through the gate for a seat; in full
        (as its own player saw it) for the account of everything in the record."""
        if self.seat is None:
            return step.happened.in_full()
        return observe(step.happened, self.seat)

    # ---------------------------------------------------------------------- table
    def _table(self, state: GameState) -> None:
        seen = view(state, self.seat)
        status = (_("game over") if seen.is_over else
                  _("{name} to move").format(name=self.names[seen.to_move]))
        self.emit(INDENT + ngettext("-- table after {count} turn, {status}:",
                                    "-- table after {count} turns, {status}:",
                                    seen.turns).format(count=seen.turns, status=status))
        for line in render_table(seen, self.names).splitlines():
            self.emit(INDENT * 2 + line)
        if self.seat is None:
            for seat, name in enumerate(self.names):
                hand = view(state, seat).hand or ()
                self.emit(INDENT * 2 + _("{name}'s hand: {tiles}").format(
                    name=name, tiles=tiles_text(hand) or "-"))

    # ----------------------------------------------------------------------- end
    def _final_scores(self, state: GameState) -> None:
        seen = view(state, self.seat)
        ranks = state.ranks()
        self.emit(ngettext("Game over after {count} turn. Score = score pile - rows:",
                           "Game over after {count} turns. Score = score pile - rows:",
                           seen.turns).format(count=seen.turns))
        for seat, name in enumerate(self.names):
            pile = sum(value_of(t) for t in seen.piles[seat])
            rows = sum(sum(row) for row in seen.rows[seat])
            self.emit(INDENT + _("{name}: {pile} - {rows} = {score}, rank {rank}").format(
                name=name, pile=pile, rows=rows, score=seen.scores[seat], rank=ranks[seat]))

    def _problem(self, verdict: Verdict) -> str:
        """The verdict's reason, unless it could show tiles this seat may not see."""
        events = self.record["events"]
        index = verdict.event if verdict.event is not None else len(events)
        if self.seat is None or index >= len(events) or self._may_see(events[index], verdict):
            return _("event {index}: {reason} [{code}]").format(
                index=index, reason=verdict.reason, code=verdict.code)
        return _("event {index}: refused [{code}]; the details would show tiles that {name} "
                 "could not see (replay without --seat for them)").format(
                     index=index, code=verdict.code, name=self.names[self.seat])

    def _may_see(self, event: Any, verdict: Verdict) -> bool:
        if not isinstance(event, dict):
            return False
        if event.get("player") == self.seat and type(event.get("player")) is int:
            return True
        kind = event.get("type")  # anything, in a broken record
        return isinstance(kind, str) and kind not in HIDDEN_EVENTS and verdict.code not in (
            "not-in-hand", "malformed-event", "bad-tile")
