"""The HTTP routes of people across tables: rematches, a person's games, the leaderboard.

Apart from ``app.py`` so that the app's module stays the adapter it is; the logic is the
service's (``rematch.py``, ``players.py``), each call in a worker thread. A player key
travels in a request body only (``POST /api/me``), never in a URL: URLs end up in access
logs and ``Referer`` headers.
"""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Query

from noreturn.server.botrunner import BotRunner
from noreturn.server.broadcast import Broadcaster
from noreturn.server.limits import CREATE_LIMIT, CREATE_LIMITED
from noreturn.server.players import MIN_GAMES
from noreturn.server.schemas import ErrorOut, KeyBody, MyGames, Ranked, Table, TokenBody
from noreturn.server.service import TableService
from noreturn.server.workers import run

MALFORMED: dict[int | str, dict[str, Any]] = {
    400: {"model": ErrorOut, "description": "malformed: the body is not JSON"}}
REMATCH_ANSWERS: dict[int | str, dict[str, Any]] = {
    **MALFORMED,
    403: {"model": ErrorOut, "description": "the token holds no seat at this table"},
    404: {"model": ErrorOut, "description": "no such table"},
    409: {"model": ErrorOut, "description": "the game did not end (yet)"},
    **CREATE_LIMITED}


def people_routes(service: TableService, hub: Broadcaster, bots: BotRunner) -> APIRouter:
    """``POST /tables/{id}/rematch``, ``POST /me``, ``GET /leaderboard``: under
    ``/api``, in ``app.api_routes``."""
    router = APIRouter()

    @router.post("/tables/{table_id}/rematch", response_model=Table, tags=["seats"],
                 responses=REMATCH_ANSWERS, dependencies=CREATE_LIMIT)
    async def rematch(table_id: str, body: TokenBody) -> dict[str, Any]:
        """The finished game's rematch: a new table with the same seats, which each
        person's seat token holds too (``/play/NEW#token=SAME``). Only a seated person
        may ask; asking again gives the same rematch. Every page of the old table hears
        of it (its ``Table`` has ``rematch``)."""
        made = await run(service.rematch, table_id, body.token)
        await hub.publish(table_id)
        if made["status"] == "playing":
            bots.kick(made["id"])
        return made

    @router.post("/me", response_model=MyGames, tags=["players"], responses=MALFORMED)
    async def my_games(body: KeyBody) -> dict[str, Any]:
        """The player key's rating and tables, newest first (the key in the body, so it
        stays out of logs). An unknown key has no rating and no tables."""
        return await run(service.players.history, body.player_key, body.limit)

    @router.get("/leaderboard", response_model=list[Ranked], tags=["players"])
    async def leaderboard(
        min_games: int = Query(MIN_GAMES, ge=1, le=10_000,
                               description="only players with this many rated games"),
        limit: int = Query(100, ge=1, le=500, description="at most this many lines"),
    ) -> list[dict[str, Any]]:
        """Players by rating (openskill ordinal, mu - 3 sigma), best first: people under
        the name they last played with, and the bot levels."""
        return await run(service.players.leaderboard, min_games, limit)

    return router


__all__ = ["people_routes"]
