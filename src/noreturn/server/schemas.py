"""The JSON bodies of the HTTP API (docs/server-protocol.md), as pydantic models.

FastAPI builds ``/openapi.json`` from these, so the schema clients read is the one the
server checks and answers with. Nothing here can hold a hidden tile: a ``Table`` is the
public description of a table, and tokens appear only in ``Created`` (once, to the creator).
"""

from __future__ import annotations

from datetime import datetime
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

NAME_LENGTH = 40


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
                    "ismcts:time=S / ismcts:iterations=N (default medium)")


class CreateTable(_Strict):
    """``POST /api/tables``: 2-4 seats and optional size parameters (docs/rules.md)."""

    seats: list[SeatIn] = Field(min_length=2, max_length=4)
    rules: dict[str, int] | None = Field(
        default=None, description="colors, max_value, copies, hand_size, exchange_limit; "
                                  "players is the number of seats")


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


class Table(BaseModel):
    """A table's public description: the lobby shows these."""

    id: str
    status: Literal["lobby", "playing", "finished"]
    created_at: datetime
    rules: dict[str, int]
    seats: list[SeatOut]
    version: int
    result: ResultOut | None


class SeatLink(BaseModel):
    """A human seat's secret link, shown once to the table's creator."""

    seat: int
    name: str
    token: str
    link: str


class Created(BaseModel):
    """The answer to creating a table."""

    table: Table
    seat_links: list[SeatLink]
    spectator_link: str


class ReplayStep(BaseModel):
    """One turn of a finished game: what happened and the public table after it."""

    log: str
    view: dict[str, Any]


class Replay(BaseModel):
    """A finished game, turn by turn, as spectators saw it."""

    names: list[str]
    steps: list[ReplayStep]


class ErrorOut(BaseModel):
    """An error: what is wrong and how to fix it."""

    detail: str
