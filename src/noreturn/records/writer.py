"""Writing a game as a version 1 record (docs/record-format.md) while it is played.

The engine draws one tile per chance event; a record groups a player's consecutive draws
into one ``deal`` or ``draw`` event. The writer watches every action just before it is
applied and keeps the record up to date, so a game can be saved at any moment.
"""

from __future__ import annotations

import copy
import json
import os
from pathlib import Path
from typing import Any

from noreturn import __version__
from noreturn.engine import (
    COLOUR_LETTERS,
    DEAL,
    Action,
    Declare,
    Draw,
    Exchange,
    GameState,
    Mulligan,
    Pass,
    Place,
    Score,
    tile_code,
)

FORMAT = "no-return-record"
VERSION = 1

Record = dict[str, Any]


def default_players(count: int, kind: str = "bot") -> list[dict[str, str]]:
    """Seat descriptions ``P0, P1, ...`` for games without named players."""
    return [{"name": f"P{i}", "kind": kind} for i in range(count)]


class RecordWriter:
    """Builds the record of one game from the actions applied to it.

    Call ``observe(state, action)`` with the state just before each action (draws
    included) is applied, and ``record(state)`` for the record as it stands.
    """

    def __init__(
        self,
        state: GameState,
        players: list[dict[str, Any]] | None = None,
        meta: dict[str, Any] | None = None,
    ) -> None:
        """Start the record of ``state``, a game before its first draw."""
        self.rules = state.rules
        self.start_player = state.start
        self.players = players if players is not None else default_players(state.n)
        self.meta = meta
        self.events: list[dict[str, Any]] = []
        """The events so far, their tile lists kept as tuples: a dict of strings, numbers
        and tuples of strings is no work for the garbage collector, which a server holding
        hundreds of games in memory would otherwise scan (two containers per event) in
        every full collection. ``record`` gives them as lists."""
        self._drawing = False

    def observe(self, state: GameState, action: Action) -> None:
        """Note ``action``, about to be applied to ``state`` by the player to move."""
        seat = state.to_move
        if isinstance(action, Draw):
            code = tile_code(action.tile)
            last = self.events[-1] if self.events else None
            if self._drawing and last is not None and last["player"] == seat:
                last["tiles"] = (*last["tiles"], code)
            else:
                kind = "deal" if state.stage == DEAL else "draw"
                self.events.append({"type": kind, "player": seat, "tiles": (code,)})
                self._drawing = True
            return
        self._drawing = False
        self.events.append({key: tuple(value) if type(value) is list else value
                            for key, value in action_event(seat, action).items()})

    def record(self, state: GameState | None = None) -> Record:
        """The record so far; with the final ``state`` of a finished game, its result too."""
        record: Record = {
            "format": FORMAT,
            "version": VERSION,
            "rules": self.rules.to_dict(),
            "players": copy.deepcopy(self.players),
            "start_player": self.start_player,
            "events": [{key: list(value) if type(value) is tuple else value
                        for key, value in event.items()} for event in self.events],
        }
        if state is not None and state.is_over():
            record["result"] = {"scores": state.scores(), "ranks": state.ranks()}
        if self.meta is not None:
            record["meta"] = copy.deepcopy(self.meta)
        return record


def action_event(seat: int, action: Action) -> dict[str, Any]:
    """The record event of a player's action (not a draw)."""
    if isinstance(action, Score):
        return {"type": "score", "player": seat, "row": COLOUR_LETTERS[action.row],
                "count": action.count, "pay": [tile_code(t) for t in action.pay]}
    if isinstance(action, (Mulligan, Exchange, Place)):
        kind = {Mulligan: "mulligan", Exchange: "exchange", Place: "place"}[type(action)]
        return {"type": kind, "player": seat, "tiles": [tile_code(t) for t in action.tiles]}
    if isinstance(action, (Declare, Pass)):
        return {"type": str(action), "player": seat}
    raise TypeError(f"not a player action: {action!r}")


def default_meta() -> dict[str, Any]:
    """The ``meta`` this program writes: date and program."""
    from datetime import date  # noqa: PLC0415 - only writers need it

    return {"date": date.today().isoformat(), "app": f"noreturn {__version__}"}


def dumps(record: Record) -> str:
    """The record as JSON text: one key, and one event, per line, so eyes and diffs follow."""
    parts = []
    for key, value in record.items():
        if key == "events" and value:
            text = "[\n  " + ",\n  ".join(json.dumps(e) for e in value) + "\n ]"
        else:
            text = json.dumps(value)
        parts.append(f" {json.dumps(key)}: {text}")
    return "{\n" + ",\n".join(parts) + "\n}\n"


def write_record(record: Record, path: str | Path) -> Path:
    """Write ``record`` to ``path`` as JSON; returns the path.

    The text goes to a temporary file beside it that then takes its name (``os.replace``,
    atomic): a game saved again at every turn must never be left half written, by a full
    disk or a process killed in the middle, over the turn before.
    """
    target = Path(path)
    temporary = target.with_name(f".{target.name}.{os.getpid()}.tmp")
    try:
        temporary.write_text(dumps(record), encoding="utf-8")
        os.replace(temporary, target)
    finally:
        temporary.unlink(missing_ok=True)
    return target
