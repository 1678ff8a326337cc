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
from noreturn.records.names import NAME_LENGTH

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
        description="the turn timer: seconds a person has per turn, one of those GET "
                    "/api/turn-times lists (by default 30, 60, 120, 300, 3600, 14400, "
                    "43200, 86400, 259200); left out: no timer")
    timeout_level: str | None = Field(
        default=None, max_length=64,
        description="the bot that plays a person's turn when their time runs out "
                    "(a bot level; default medium)")


PLAYER_KEY_PATTERN = r"^[A-Za-z0-9_-]+$"
"""A player key's characters: URL-safe base64, as the browser makes it (player.js)."""
PLAYER_KEY_LENGTH = (32, 128)
"""A player key's shortest and longest length: the browser's is 43 characters (32 random
bytes); a shorter one would be guessable, a longer one is no use."""


def _player_key(required: bool = False) -> Any:
    """The field of a player key: a secret the browser keeps, stored only as a hash."""
    return Field(default=... if required else None, min_length=PLAYER_KEY_LENGTH[0],
                 max_length=PLAYER_KEY_LENGTH[1], pattern=PLAYER_KEY_PATTERN,
                 description="this browser's player key (32-128 URL-safe characters, made "
                             "once at random and kept in the browser): ties the seat to "
                             "the person's history and rating; only its SHA-256 is stored")


class TokenBody(_Strict):
    """A request made for one seat: its seat token."""

    token: str | None = Field(default=None, max_length=200)


class JoinBody(TokenBody):
    """Join a seat, optionally with a new name and the person's player key."""

    name: str | None = Field(default=None, max_length=NAME_LENGTH)
    player_key: str | None = _player_key()


class StartBody(TokenBody):
    """Start the game (joining the starter's seat), optionally with a player key."""

    player_key: str | None = _player_key()


class KeyBody(_Strict):
    """``POST /api/me``: whose games (the key travels in the body, never in a URL, so
    it stays out of access logs)."""

    player_key: str = _player_key(required=True)
    limit: int = Field(default=50, ge=1, le=200, strict=True,
                       description="at most this many tables, newest first")


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
    rematch: str | None = Field(
        default=None, description="a finished game's rematch: the id of the table that "
                                  "replays it with the same seats (POST .../rematch)")


class Rating(BaseModel):
    """An openskill rating (Plackett-Luce): ``ordinal`` = mu - 3 sigma orders the board."""

    name: str
    kind: Literal["human", "bot"]
    mu: float
    sigma: float
    ordinal: float
    games: int


class Ranked(Rating):
    """A line of the leaderboard."""

    rank: int


class MyTable(BaseModel):
    """A table in a person's history: the table, their seat, their ordinal after it
    (None until it was rated, or when it was not)."""

    table: Table
    seat: int
    ordinal_after: float | None


class MyGames(BaseModel):
    """``POST /api/me``: a person's rating (None before a rated game) and tables."""

    rating: Rating | None
    tables: list[MyTable]


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
