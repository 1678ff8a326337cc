"""What a local table keeps as the game goes: the state, the bag, the record, the logs.

``Progress`` is all of it together, so that an undo puts back one object; ``TurnNote`` is
a player's action waiting for its refill, so the log tells both in one line; ``BotMove``
is a bot's decision tied to the version it was made for.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from random import Random

from noreturn.engine import Action, Event, GameState, ShuffledBag, draw_event, observe
from noreturn.records import RecordWriter
from noreturn.text.lang import Later
from noreturn.text.narrate import narrate_turn


@dataclass
class TurnNote:
    """A player's action waiting for its refill, so the log tells both in one line."""

    seat: int
    action: Event | None  # None: draws with no action before them (a deal)
    drawn: list[int] = field(default_factory=list)
    dealt: bool = False

    def line(self, name: str, reader: int | None) -> str:
        """``Bea placed O9 O8 and drew 2``: the action and its refill as ``reader`` (a
        seat, None: spectators) observes them through the engine's gate."""
        action = None if self.action is None else observe(self.action, reader)
        drawn = None
        if self.drawn:
            drawn = observe(draw_event(self.seat, self.drawn, self.dealt), reader)
        return narrate_turn(name, action, drawn)


@dataclass
class Progress:
    """Everything that changes as the game goes: what an undo puts back, all together."""

    state: GameState
    deck: ShuffledBag
    writer: RecordWriter
    rngs: list[Random]
    logs: dict[int | None, list[Later]]
    turn: TurnNote | None = None
    version: int = 0


@dataclass(frozen=True)
class BotMove:
    """A bot's decision, tied to the table version it was made for (stale ones are dropped)."""

    version: int
    seat: int
    action: Action
    note: str = ""


__all__ = ["BotMove", "Progress", "TurnNote"]
