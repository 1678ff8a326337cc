"""``POST /api/tutorial``: the browser's guided first game, one click from the lobby.

A newcomer should not have to fill in a form of seats and bot levels to learn the game, so
this makes the whole table at once: one person against the easy bot, dealt from the
prepared deal the terminal's tutorial uses (``noreturn.table.TUTORIAL_SEED``), already
started. The answer is ``POST /api/tables``'s, with the seat link marked ``&tutorial=1``:
the table page (``static/tutorial.js``) then shows the lessons at their moments.

The prepared deal is public (it is in the source), so a tutorial table's bag is no secret;
that is the point of a prepared game, and nothing else is played on it. A tutorial table
is a table like any other (its link, record and replay work), created under the same
per-address limit as ``POST /api/tables``: each costs the same to keep. One difference: the
lobby's public list leaves it out (``store.UNLISTED_SEED``), since a newcomer's guided game
against the easy bot is of no interest to anyone else and would crowd the list.
"""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request
from pydantic import BaseModel, ConfigDict, Field

from noreturn.records.names import NAME_LENGTH
from noreturn.server.limits import CREATE_LIMIT, CREATE_LIMITED
from noreturn.server.schemas import Created, CreateTable, ErrorOut, SeatIn
from noreturn.server.service import TableService
from noreturn.server.workers import run
from noreturn.table import TUTORIAL_BOT, TUTORIAL_NAME, TUTORIAL_SEED

MARK = "&tutorial=1"
"""Added to the seat link's fragment: the table page teaches while this is in it."""
DEFAULT_NAME = TUTORIAL_NAME
"""The newcomer's name when the page sends none (``table.TUTORIAL_NAME``)."""

router = APIRouter(prefix="/api")


class TutorialBody(BaseModel):
    """``POST /api/tutorial``: optionally the newcomer's name (unknown keys are refused, as
    in every request body: a typo is an error, not silently ignored)."""

    model_config = ConfigDict(extra="forbid")

    name: str | None = Field(default=None, max_length=NAME_LENGTH,
                             description="the newcomer's seat name (default: You)")


def create_tutorial(service: TableService, name: str | None) -> dict[str, Any]:
    """Create and start the guided game's table; ``POST /api/tables``'s answer, the seat
    link marked for the lessons.

    Raises:
        BadRequestError: a bad name (control characters).
    """
    body = CreateTable(seats=[SeatIn(kind="human", name=name or DEFAULT_NAME),
                              SeatIn(kind="bot", level=TUTORIAL_BOT)])
    created = service.create(body, seed=str(TUTORIAL_SEED))
    seat = created["seat_links"][0]
    created["table"] = service.start(created["table"]["id"], seat["token"])
    seat["link"] += MARK
    return created


@router.post("/tutorial", status_code=201, response_model=Created, tags=["tables"],
             responses={400: {"model": ErrorOut, "description": "a bad name"},
                        **CREATE_LIMITED},
             dependencies=CREATE_LIMIT)
async def tutorial(request: Request, body: TutorialBody | None = None) -> dict[str, Any]:
    """Start a guided first game: you against the easy bot on the prepared deal, already
    started. The seat link (shown this once) ends in ``&tutorial=1``, which makes the
    table page show the lessons. Counts against the same limit as creating a table."""
    service: TableService = request.app.state.service
    created = await run(create_tutorial, service, body.name if body else None)
    request.app.state.bots.kick(created["table"]["id"])  # the bot may move first
    return created


__all__ = ["DEFAULT_NAME", "MARK", "TutorialBody", "create_tutorial", "router"]
