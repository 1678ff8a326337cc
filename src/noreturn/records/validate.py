"""Checking a game record by replaying it through the engine.

Every event becomes engine actions (``event_move``, the one conversion, shared by the
checker and the replay viewer): a ``deal`` or ``draw`` becomes one ``Draw`` per tile, every
other event one action. They are applied with the checked ``GameState.play``, so the engine's
refusals are the only source of legality; this module adds only what belongs to the record
format: the shape of each event, who it names, that draws come exactly when and as many as
the engine says are due, nothing after the end, and the result.

A rejection names the first offending event by its 0-based index, a short ``code`` and a
one-line ``reason`` (docs/record-format.md, "Checking a record": ``place R7 by player 1: R7
is higher than R6, ...``).
Problems found only after the last event (a wrong result, a result for an unfinished game)
have the index ``len(events)``.

Codes:
    ok: the record is valid (a finished game, or one in progress).
    malformed-event: missing or unknown keys, wrong types, an unknown event type.
    bad-tile: a tile code that is not written like ``R11`` or is not of this game's set.
    wrong-player: the event names a player other than the one to act or draw.
    missing-deal / missing-draw: another event where the engine awaits the deal or a draw.
    unexpected-deal: a deal after the deal, or where a draw is due.
    draw-count: a deal or draw with other than the number of tiles due, or none due.
    tile-not-in-bag: a drawn tile that the bag does not hold at that moment.
    not-in-hand: a placed, exchanged, set-aside or paid tile the player does not hold.
    illegal-action: any other rule the engine enforces (its message says which).
    after-end: an event after the game has ended.
    game-not-over: a result, but the game is not over after the last event.
    result-mismatch: the result's scores or ranks differ from the replayed game's.
"""

from __future__ import annotations

from collections.abc import Callable, Generator
from dataclasses import dataclass
from typing import Any

from noreturn.engine import (
    COLOUR_LETTERS,
    DEAL,
    MULLIGAN,
    Action,
    Declare,
    Draw,
    Event,
    Exchange,
    GameState,
    IllegalActionError,
    Mulligan,
    NoReturnError,
    Pass,
    Place,
    Rules,
    Score,
    draw_event,
    event_of,
    parse_tile,
    shortened,
    tile_code,
    tiles_text,
)
from noreturn.records.reader import check_header
from noreturn.records.writer import Record
from noreturn.text.lang import DEFAULT, speaking
from noreturn.text.narrate import in_progress

EVENT_KEYS: dict[str, tuple[str, ...]] = {
    "deal": ("player", "tiles"),
    "mulligan": ("player", "tiles"),
    "declare": ("player",),
    "place": ("player", "tiles"),
    "exchange": ("player", "tiles"),
    "score": ("player", "row", "count", "pay"),
    "pass": ("player",),
    "draw": ("player", "tiles"),
}
"""Each event type's keys besides ``type`` (docs/record-format.md, "Events"): no more, no fewer."""

DRAW_EVENTS = ("deal", "draw")
_TILE_EVENTS: dict[str, type[Mulligan] | type[Place] | type[Exchange]] = {
    "mulligan": Mulligan, "place": Place, "exchange": Exchange,
}


class EventError(NoReturnError):
    """An event the record may not hold here; ``code`` tags the kind of problem."""

    def __init__(self, code: str, reason: str) -> None:
        super().__init__(reason)
        self.code = code
        self.reason = reason


@dataclass(frozen=True, slots=True)
class Move:
    """One record event as the engine sees it: its type, its player and its actions.

    A ``deal`` or ``draw`` holds one ``Draw`` per tile, in the record's order; every other
    event holds exactly one action.
    """

    kind: str
    player: int
    actions: tuple[Action, ...]

    @property
    def tiles(self) -> tuple[int, ...]:
        """The tiles a deal or draw takes from the bag (empty for other events)."""
        return tuple(a.tile for a in self.actions if isinstance(a, Draw))

    def __str__(self) -> str:
        if self.kind in DRAW_EVENTS:
            return f"{self.kind} {tiles_text(self.tiles)}".rstrip()
        return str(self.actions[0])


@dataclass(frozen=True, slots=True)
class Step:
    """One event replayed: its index, the event, its move and the state just after it.

    ``state`` is the replay's own state object, which the next step may change in place:
    read it (or ``view`` it) before asking for the next step, and ``clone`` it to keep it.
    ``happened`` is the event for the engine's gate: tell a reader only what
    ``observe(step.happened, seat)`` gives it.
    """

    index: int
    event: dict[str, Any]
    move: Move
    state: GameState
    happened: Event


@dataclass(frozen=True)
class Verdict:
    """The outcome of checking a record.

    Attributes:
        valid: whether the record is accepted (finished, or a legal game in progress).
        event: the index of the first offending event (``len(events)`` for a problem with
            the result), or None when valid.
        reason: one line: what is wrong, or for a valid record its state of play.
        code: a short tag (see the module docstring); "ok" when valid.
        scores: the final scores of a valid finished game, else None.
        state: the game after the last accepted event (before the offending one).
    """

    valid: bool
    event: int | None
    reason: str
    code: str
    scores: tuple[int, ...] | None
    state: GameState

    @property
    def over(self) -> bool:
        """Whether the replayed game has ended."""
        return self.state.is_over()


def check_record(record: Record) -> Verdict:
    """Replay ``record`` through the engine and judge it.

    The judgement is docs/record-format.md, "Checking a record".

    Raises:
        RecordError: ``record`` is not a record at all (bad header); see ``read_record``.
    """
    return replay_record(record)


def replay_record(record: Record, visit: Callable[[Step], None] | None = None) -> Verdict:
    """Replay ``record`` to its end or first offending event, handing each accepted step to
    ``visit``: the ``Verdict`` (``replay_states`` driven to its return value).

    Raises:
        RecordError: the header is not a record's.
    """
    steps = replay_states(record)
    while True:
        try:
            step = next(steps)
        except StopIteration as done:
            return done.value  # type: ignore[no-any-return]  # the generator's Verdict
        if visit is not None:
            visit(step)


def replay_states(record: Record) -> Generator[Step, None, Verdict]:
    """Replay ``record`` event by event: yields a ``Step`` per accepted event.

    Stops at the first offending event; the generator's return value (``StopIteration.value``)
    is the ``Verdict``, the same one ``check_record`` gives.

    Raises:
        RecordError: the header is not a record's.
    """
    rules = check_header(record)
    state = GameState(rules, record["start_player"])
    events = record["events"]
    for index, event in enumerate(events):
        try:
            move = event_move(event, rules)
            state, happened = _play_move(state, move)
        except EventError as problem:
            return Verdict(False, index, problem.reason, problem.code, None, state)
        yield Step(index, event, move, state, happened)
    return _final_verdict(record, state, len(events))


# --------------------------------------------------------------------- events -> moves
def event_move(event: Any, rules: Rules) -> Move:
    """The engine's view of one record event; checks its shape, not the rules.

    Raises:
        EventError: "malformed-event" or "bad-tile", with the fix in the reason.
    """
    kind = _event_kind(event)
    _check_event_keys(event, kind)
    player = event["player"]
    if type(player) is not int or not 0 <= player < rules.players:
        raise EventError("malformed-event", f"{kind} event: 'player' must be a seat number "
                                            f"from 0 to {rules.players - 1}, not {_quoted(player)}")
    return Move(kind, player, _event_actions(event, kind, rules))


def _event_kind(event: Any) -> str:
    if not isinstance(event, dict):
        raise EventError("malformed-event", "an event must be an object such as "
                                            '{"type": "declare", "player": 0}')
    kind = event.get("type")
    if not isinstance(kind, str) or kind not in EVENT_KEYS:
        raise EventError("malformed-event", f"unknown event type {_quoted(kind)}: use one of "
                                            f"{', '.join(EVENT_KEYS)}")
    return kind


def _check_event_keys(event: dict[str, Any], kind: str) -> None:
    wanted = EVENT_KEYS[kind]
    missing = [key for key in wanted if key not in event]
    if missing:
        raise EventError("malformed-event", f"{kind} event: the key {_quoted(missing[0])} "
                                            f"is missing; a {kind} event has type, "
                                            f"{', '.join(wanted)}")
    extra = sorted(key for key in event if key != "type" and key not in wanted)
    if extra:
        raise EventError("malformed-event", f"{kind} event: unknown key {_quoted(extra[0])}; "
                                            f"a {kind} event has only type, {', '.join(wanted)}")


def _event_actions(event: dict[str, Any], kind: str, rules: Rules) -> tuple[Action, ...]:
    if kind in DRAW_EVENTS:
        return tuple(Draw(t) for t in _tiles(event["tiles"], kind, "tiles", rules))
    if kind in _TILE_EVENTS:
        return (_TILE_EVENTS[kind](_tiles(event["tiles"], kind, "tiles", rules)),)
    if kind == "score":
        row, count = event["row"], event["count"]
        if not isinstance(row, str) or len(row) != 1 or row not in COLOUR_LETTERS:
            raise EventError("malformed-event", f"score event: 'row' must be a colour letter "
                                                f"({COLOUR_LETTERS}), not {_quoted(row)}")
        if type(count) is not int:
            raise EventError("malformed-event", f"score event: 'count' must be a whole number, "
                                                f"not {_quoted(count)}")
        pay = _tiles(event["pay"], kind, "pay", rules)
        return (Score(COLOUR_LETTERS.index(row), count, pay),)
    return (Declare(),) if kind == "declare" else (Pass(),)


def _quoted(value: Any) -> object:
    """A value of the record as its reason quotes it: cut short (``shortened``), since a
    hostile record's value may be megabytes long."""
    return shortened(repr(value))


def _tiles(codes: Any, kind: str, key: str, rules: Rules) -> tuple[int, ...]:
    """Tile codes in their written form only (``R11``; not ``r11`` or ``R011``)."""
    if not isinstance(codes, list) or not all(isinstance(c, str) for c in codes):
        raise EventError("malformed-event", f"{kind} event: {key!r} must be a list of tile "
                                            f"codes such as [\"R11\", \"B3\"]")
    if len(codes) > rules.tile_count:  # read no further: each would be quoted back
        raise EventError("malformed-event", f"{kind} event: {key!r} lists {len(codes):,} "
                                            f"tiles, more than the game's {rules.tile_count}")
    tiles = []
    for code in codes:
        try:
            tile = parse_tile(code)
        except NoReturnError:
            tile = -1
        if tile < 0 or tile_code(tile) != code or not rules.is_tile(tile):
            letters = ", ".join(COLOUR_LETTERS[:rules.colors])
            raise EventError("bad-tile", f"{kind} event: {_quoted(code)} is not a tile of this "
                                         f"game: write a colour letter ({letters}) and a "
                                         f"value from 1 to {rules.max_value}, such as "
                                         f"R{rules.max_value}")
        tiles.append(tile)
    return tuple(tiles)


# ----------------------------------------------------------------- moves -> the engine
def _play_move(state: GameState, move: Move) -> tuple[GameState, Event]:
    """Check that ``move`` may come now and play it; returns the state after it and the
    engine's ``Event`` of it (told from the state before it: a SCORE's row tiles).

    A deal or draw of several tiles is played on a copy, so that a refusal part-way through
    leaves ``state`` as it was before the event (``play`` leaves a refused action unapplied).
    """
    _check_turn(state, move)
    if move.kind in DRAW_EVENTS:
        happened = draw_event(move.player, move.tiles, dealt=move.kind == "deal")
    else:
        happened = event_of(state, move.actions[0])
    target = state.clone() if len(move.actions) > 1 else state
    for action in move.actions:
        _play(target, move, action)
    return target, happened


def _play(state: GameState, move: Move, action: Action) -> None:
    try:
        state.play(action)
    except IllegalActionError as refusal:
        reason = str(refusal).removeprefix(f"{action}: ")
        raise EventError(_refusal_code(action, reason), _says(move, reason)) from None


def _refusal_code(action: Action, reason: str) -> str:
    """Label the engine's refusal; the engine alone decided that the action is illegal."""
    if isinstance(action, Draw):
        return "tile-not-in-bag"  # the only refusal left once the count and tiles are right
    if reason.startswith(("you do not hold", "you hold only")):
        return "not-in-hand"
    return "illegal-action"


def _check_turn(state: GameState, move: Move) -> None:
    """The record-level order: the end, the deal and the draws due, the player named."""
    if state.is_over():
        raise EventError("after-end", _says(move, "the game is already over; remove this "
                                                  "event and every one after it"))
    due, seat = state.draws_due, state.to_move
    if due:
        expected = "deal" if state.stage == DEAL else "draw"
        if move.kind != expected:
            code = {"deal": "missing-deal", "draw": "missing-draw"}[expected]
            if move.kind == "deal":
                code = "unexpected-deal"
            raise EventError(code, _says(move, f"player {seat} must first {_verb(expected)} "
                                               f"{_tiles_n(due)} (a {expected} event)"))
    elif move.kind in DRAW_EVENTS:
        code = "unexpected-deal" if move.kind == "deal" else "draw-count"
        raise EventError(code, _says(move, f"no draw is due now: player {seat} is to act "
                                           f"({_why_no_draw(state)})"))
    if move.player != seat:
        doing = "draw" if due else "act"
        raise EventError("wrong-player", _says(move, f"it is player {seat}'s turn to {doing}"))
    if due and len(move.actions) != due:
        raise EventError("draw-count", _says(move, f"player {seat} must {_verb(move.kind)} "
                                                   f"exactly {_tiles_n(due)} here, not "
                                                   f"{len(move.actions)}"))


def _why_no_draw(state: GameState) -> str:
    if state.stage == MULLIGAN:
        return "the deal is done, the mulligan comes next"
    if not state.bag:
        return "the bag is empty"
    return "a draw follows only an action that left a hand short"


def _verb(kind: str) -> str:
    return "be dealt" if kind == "deal" else "draw"


MOVE_TEXT_LIMIT = 200
"""The most characters of a move a reason quotes: a move of thousands of tiles (the largest
rules allow such a game) is cut, so a verdict stays one readable line."""


def _says(move: Move, reason: str) -> str:
    text = str(move)
    if len(text) > MOVE_TEXT_LIMIT:
        text = text[:MOVE_TEXT_LIMIT - 3] + "..."
    return f"{text} by player {move.player}: {reason}"


def _tiles_n(count: int) -> str:
    return f"{count} tile{'s' if count != 1 else ''}"


# ------------------------------------------------------------------------- the end
def _final_verdict(record: Record, state: GameState, end: int) -> Verdict:
    result = record.get("result")
    if result is None:
        return Verdict(True, None, _state_of_play(state), "ok",
                       tuple(state.scores()) if state.is_over() else None, state)
    if not state.is_over():
        return Verdict(False, end, f"result: the record has a result, but the game is not over "
                                   f"after its last event ({_state_of_play(state)}); remove "
                                   f"the result or add the missing events",
                       "game-not-over", None, state)
    scores, ranks = state.scores(), state.ranks()
    if result["scores"] != scores:
        return Verdict(False, end, f"result: scores {result['scores']} should be {scores} "
                                   f"(score pile minus rows)", "result-mismatch", None, state)
    if result["ranks"] != ranks:
        return Verdict(False, end, f"result: ranks {result['ranks']} should be {ranks} for "
                                   f"scores {scores} (a rank is 1 + the number of strictly "
                                   f"higher scores)", "result-mismatch", None, state)
    return Verdict(True, None, "game over", "ok", tuple(scores), state)


def _state_of_play(state: GameState) -> str:
    """``game over``, or what the game waits for: the words ``replay`` and ``review`` say
    in the reader's language, here always in English (the validator's format)."""
    if state.is_over():
        return "game over"
    with speaking(DEFAULT):
        return in_progress(state.to_move, state.draws_due)
