"""The JSON bodies of the HTTP API (docs/server-protocol.md), as pydantic models.

FastAPI builds ``/openapi.json`` from these, so the schema clients read is the one the
server checks and answers with. Nothing here can hold a hidden tile: a ``Table`` is the
public description of a table, and tokens appear only in ``Created`` (once, to the creator).
"""

from __future__ import annotations

from datetime import datetime
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from noreturn.engine import Rules

NAME_LENGTH = 40
MAX_TURN_SECONDS = 7 * 24 * 3600
"""The longest turn timer a body may hold (the server allows fewer: ``timing.py``)."""
PUBLISHED = Rules()
"""The published game: a server table may use at most its size in every parameter (a
server policy, docs/server-protocol.md; the engine itself accepts larger variants)."""
TableStatus = Literal["lobby", "playing", "finished", "closed", "abandoned"]
"""A table's stage: ``closed`` by its creator, ``abandoned`` by the idle sweep."""


class _Strict(BaseModel):
    """Request bodies refuse unknown keys, so a typo is an error, not silently ignored."""

    model_config = ConfigDict(extra="forbid")


class SeatIn(_Strict):
    """A seat of a new table: a person (``name``) or a bot (``level``)."""

    kind: Literal["human", "bot"]
    name: str | None = Field(default=None, max_length=NAME_LENGTH,
                             description="shown to everyone; a default is chosen when empty")
    level: str | None = Field(
        default=None, max_length=64,
        description="for a bot: easy, medium, hard, expert, random, greedy, heuristic or "
                    "search:time=S / search:iterations=N (default medium)")


def _bounded(name: str, low: int, high: int, what: str) -> Any:
    """An optional strict whole number from ``low`` to ``high`` (``"3"`` is refused: a
    client that sends a string has a bug worth hearing about)."""
    return Field(default=None, ge=low, le=high, strict=True,
                 description=f"{what}: {low} to {high} (published game: "
                             f"{getattr(PUBLISHED, name)}); left out: the published value")


class RulesIn(_Strict):
    """A new table's size parameters (docs/rules.md, "Size parameters"), each at most the
    published game's.

    The bound keeps every server table's moves as cheap as the published game's: larger
    variants (tens of thousands of tiles, thousands of legal actions a turn) are for
    research with the engine, not for a shared server.
    """

    colors: int | None = _bounded("colors", 1, PUBLISHED.colors, "colours")
    max_value: int | None = _bounded("max_value", 1, PUBLISHED.max_value, "highest value")
    copies: int | None = _bounded("copies", 1, PUBLISHED.copies, "copies of each tile")
    hand_size: int | None = _bounded("hand_size", 1, PUBLISHED.hand_size, "hand size")
    exchange_limit: int | None = _bounded("exchange_limit", 1, PUBLISHED.exchange_limit,
                                          "tiles one exchange may remove")
    players: int | None = Field(default=None, ge=2, le=4, strict=True,
                                description="the number of seats, if given")

    def given(self) -> dict[str, int]:
        """The parameters the client gave (the engine fills in the rest)."""
        return self.model_dump(exclude_none=True)


class CreateTable(_Strict):
    """``POST /api/tables``: 2-4 seats, optional size parameters (docs/rules.md) and an
    optional turn timer (``timing.TURN_TIMES``)."""

    seats: list[SeatIn] = Field(min_length=2, max_length=4)
    rules: RulesIn | None = Field(
        default=None, description="the size parameters; players is the number of seats")
    turn_seconds: int | None = Field(
        default=None, ge=1, le=MAX_TURN_SECONDS, strict=True,
        description="the turn timer: seconds a person has per turn, one of 30, 60, 120, "
                    "300, 3600, 14400, 43200, 86400, 259200; left out: no timer")
    timeout_level: str | None = Field(
        default=None, max_length=64,
        description="the bot that plays a person's turn when their time runs out "
                    "(a bot level; default medium)")


class TokenBody(_Strict):
    """A request made for one seat: its seat token."""

    token: str | None = Field(default=None, max_length=200)


class JoinBody(TokenBody):
    """Join a seat, optionally with a new name."""

    name: str | None = Field(default=None, max_length=NAME_LENGTH)


class SeatOut(BaseModel):
    """A seat as everyone may see it."""

    seat: int
    kind: Literal["human", "bot"]
    name: str
    level: str | None
    joined: bool


class ResultOut(BaseModel):
    """A finished game's scores and ranks, by seat."""

    scores: list[int]
    ranks: list[int]


class TimerOut(BaseModel):
    """A table's turn timer: seconds per turn, and the bot that plays a turn whose time ran
    out."""

    seconds: int
    level: str


class Table(BaseModel):
    """A table's public description: the lobby shows these."""

    id: str
    status: TableStatus
    created_at: datetime
    rules: dict[str, int]
    seats: list[SeatOut]
    version: int
    result: ResultOut | None
    timer: TimerOut | None = None


class SeatLink(BaseModel):
    """A human seat's secret link, shown once to the table's creator."""

    seat: int
    name: str
    token: str
    link: str


class Created(BaseModel):
    """The answer to creating a table."""

    table: Table
    creator_token: str = Field(description="closes the table (POST /api/tables/{id}/close); "
                                           "shown this once, only its hash is stored")
    seat_links: list[SeatLink]
    spectator_link: str


class ReplayStep(BaseModel):
    """One turn of a finished game: what happened, the public table after it, and every
    seat's hand then (the game is over: nothing is hidden any more)."""

    log: str
    view: dict[str, Any]
    hands: list[list[str]]
    event: int


class Replay(BaseModel):
    """A finished game, turn by turn, as spectators saw it."""

    names: list[str]
    steps: list[ReplayStep]


class ErrorOut(BaseModel):
    """An error: what is wrong and how to fix it."""

    detail: str
