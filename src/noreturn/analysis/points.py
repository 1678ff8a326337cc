"""A seat's decisions and draws in a record, each kept as what that seat knew then.

This is the one place where the review meets the record's full game state, and it hands
on nothing of it but ``view(state, seat)``: the seat's own hand and the public table. A
decision is the view just before the seat's event and the move it played; a draw is the
views around the seat's own draw. Everything after this module (the evaluation, the luck)
sees only those views, so a review cannot depend on the tiles the seat could not see:
``tests/analysis/test_review_hidden.py`` re-deals them and gets the same review.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from noreturn.engine import Action, GameState, Stage, View, WordedError, tile_code, view
from noreturn.records import Record, RecordError, Step, check_header, replay_record
from noreturn.records.account import player_names
from noreturn.text.lang import DEFAULT, speaking
from noreturn.text.narrate import in_progress

DECISION_EVENTS = ("mulligan", "declare", "place", "exchange", "score")
"""The events that are a choice of their player. A ``pass`` is not one: it happens only
when nothing else is legal."""
DRAW_EVENTS = ("deal", "draw")
"""The events that take tiles from the bag."""
MAX_EVENTS = 5_000
"""The longest record the review weighs. It keeps each decision's view, which holds every
row and pile so far, so its memory grows with the square of the game's length: a game of the
largest rules the engine allows, one tile a turn (36,828 events), took gigabytes before
the first playout. A game of the published size has a few hundred events."""


class ReviewError(WordedError):
    """A record that cannot be reviewed (not a record, illegal, a bad seat); one line,
    with the fix, kept as a template and its values so a front end says it in the
    reader's language (``text.refusals.error_text``)."""


@dataclass(frozen=True, slots=True)
class DecisionPoint:
    """One decision of a seat, as the seat saw it.

    Attributes:
        index: the record's event index of the move played.
        seat: the deciding seat.
        turn: the seat's own turn number (1 for its first turn), 0 for the mulligan.
        kind: ``"mulligan"``, ``"phase 1"`` (a phase-1 turn: declaring is one of the
            choices) or ``"phase 2"`` (a phase-2 action, the one right after declaring
            included: the declaration is its own decision).
        view: the seat's view just before the move.
        played: the move played.
    """

    index: int
    seat: int
    turn: int
    kind: str
    view: View
    played: Action


@dataclass(frozen=True, slots=True)
class DrawPoint:
    """One draw of a seat (its deal, its mulligan redraw or a refill), as the seat saw it.

    Attributes:
        index: the record's event index of the draw (or deal).
        seat: the drawing seat.
        kind: ``"deal"``, ``"mulligan"`` or ``"refill"``.
        tiles: the tiles drawn, as codes (the seat saw them: they are in its hand).
        after: the seat's view right after the draw.
        before: the seat's view right before the draw, for a deal; None otherwise, as the
            value before a redraw or refill is the value of the move that caused it.
        decision: the event index of that move (None for a deal).
    """

    index: int
    seat: int
    kind: str
    tiles: tuple[str, ...]
    after: View
    before: View | None
    decision: int | None


@dataclass(frozen=True, slots=True)
class SeatPoints:
    """Everything a review of one seat reads: its decisions and its draws."""

    seat: int
    decisions: tuple[DecisionPoint, ...]
    draws: tuple[DrawPoint, ...]


@dataclass(frozen=True, slots=True)
class GameFacts:
    """What a review reports about the game itself (all public once the record is read).

    Attributes:
        names: each seat's name.
        events: the number of events in the record.
        over: whether the game has ended.
        scores: the final scores when over, else the scores as they stand.
        to_move: the seat to move (or to draw) next.
        draws_due: how many tiles that seat is yet to draw (0: it is to act).
    """

    names: tuple[str, ...]
    events: int
    over: bool
    scores: tuple[int, ...]
    to_move: int
    draws_due: int

    @property
    def status(self) -> str:
        """One line, in English as the JSON gives it (the validator's words): "game over"
        or what the record is waiting for."""
        if self.over:
            return "game over"
        with speaking(DEFAULT):
            return in_progress(self.to_move, self.draws_due)


def seat_points(record: Record, seats: Sequence[int] | None = None
                ) -> tuple[GameFacts, list[SeatPoints]]:
    """The decisions and draws of each of ``seats`` (None: every seat) in ``record``, and
    the game's facts.

    A record of a game in progress is read up to its last event.

    Raises:
        ReviewError: the record is not a record, breaks a rule (naming the event, as
            ``noreturn validate`` does), or a seat is not one of its seats.
    """
    try:
        rules = check_header(record)
    except RecordError as problem:
        raise ReviewError(problem.template, problem.params) from None
    if len(record["events"]) > MAX_EVENTS:
        raise ReviewError("the record has {events} events; the review weighs games of at most "
                          "{most} (one of the published size has a few hundred): replay it "
                          "instead", {"events": len(record["events"]), "most": MAX_EVENTS})
    seats = range(rules.players) if seats is None else list(dict.fromkeys(seats))
    for seat in seats:
        if type(seat) is not int or not 0 <= seat < rules.players:
            raise ReviewError("seat {seat} is not a seat of this game: it has seats 0 to "
                              "{last}", {"seat": seat, "last": rules.players - 1})
    walk = _Walk(seats, GameState(rules, record["start_player"]))
    verdict = replay_record(record, walk.note)
    if not verdict.valid:
        raise ReviewError("the record breaks the rules at event {event}: {problem} [{code}]; "
                          "only a valid record can be reviewed (noreturn validate checks one)",
                          {"event": verdict.event, "problem": verdict.reason,
                           "code": verdict.code})
    state = verdict.state
    facts = GameFacts(tuple(player_names(record)),
                      len(record["events"]), state.is_over(), tuple(state.scores()),
                      state.to_move, state.draws_due)
    return facts, [SeatPoints(s, tuple(walk.decisions[s]), tuple(walk.draws[s]))
                   for s in seats]


class _Walk:
    """The points of each seat, gathered event by event; keeps only the seats' views."""

    def __init__(self, seats: Sequence[int], start: GameState) -> None:
        self.before = {s: view(start, s) for s in seats}
        """Each seat's view before the coming event (the state itself is not kept)."""
        self.decisions: dict[int, list[DecisionPoint]] = {s: [] for s in seats}
        self.draws: dict[int, list[DrawPoint]] = {s: [] for s in seats}
        self.last_decision: dict[int, int] = {}

    def note(self, step: Step) -> None:
        """Note ``step`` if it is a decision or a draw of a reviewed seat; then move every
        reviewed seat's view past it."""
        seat = step.move.player
        if seat in self.before:
            if step.move.kind in DECISION_EVENTS:
                self._decision(step, self.before[seat])
            elif step.move.kind in DRAW_EVENTS:
                self._draw(step, self.before[seat], view(step.state, seat))
        for s in self.before:
            self.before[s] = view(step.state, s)

    def _decision(self, step: Step, before: View) -> None:
        seat = step.move.player
        if before.stage is Stage.MULLIGAN:
            turn, kind = 0, "mulligan"
        else:
            turn = before.turns_taken[seat] + 1
            kind = "phase 1" if before.phases[seat] == 1 else "phase 2"
        self.decisions[seat].append(
            DecisionPoint(step.index, seat, turn, kind, before, step.move.actions[0]))
        self.last_decision[seat] = step.index

    def _draw(self, step: Step, before: View, after: View) -> None:
        seat = step.move.player
        tiles = tuple(tile_code(t) for t in step.move.tiles)
        if step.move.kind == "deal":
            point = DrawPoint(step.index, seat, "deal", tiles, after, before, None)
        else:
            kind = "mulligan" if before.stage is Stage.MULLIGAN else "refill"
            point = DrawPoint(step.index, seat, kind, tiles, after, None,
                              self.last_decision[seat])
        self.draws[seat].append(point)
