"""The switch advice over the WebSocket: ``{"type": "switch"}`` and its answer.

The advisor (``noreturn.bots.switch``) plays a hundred sampled games to their end, some
0.3 s of CPU: more than every other message costs together. So the service only checks the
turn and takes the seat's view under the table's lock (``TableService.switch_job``), and the
weighing runs after, in the thread kept for brief thinking (``workers.think(brief=True)``,
with medium's switch weighing): the table's moves never wait for it, CPU-bound threads never
crowd the service calls, and the person asking never waits behind a search's seconds. The budget is
a time, ``SWITCH_SECONDS``, so a request costs the same whatever the rules.
"""

from __future__ import annotations

import asyncio
from collections import OrderedDict
from collections.abc import Awaitable, Callable
from typing import Any

from noreturn.bots.switch import Outlook, SwitchAdvice

SWITCH_SECONDS = 0.3
"""The advisor's budget per request (at least eight sampled worlds however slow)."""

NOTHING_TO_WEIGH = "nothing_to_weigh"
"""The error code of a ``switch`` asked when there is no switch to weigh (the mulligan, or
phase 2 already)."""


def _outlook(outlook: Outlook) -> dict[str, float]:
    """One line's expected end: margin in points (one decimal), win chance and the value
    the better line is chosen by (three)."""
    return {"margin": round(outlook.margin, 1), "win": round(outlook.win, 3),
            "value": round(outlook.value, 3)}


def switch_message(advice: SwitchAdvice) -> dict[str, Any]:
    """The answer to ``switch`` (docs/server-protocol.md): both outlooks, the better line,
    by how many points, the sample count, and the advisor's own sentence."""
    return {"type": "switch", "declare": _outlook(advice.declare),
            "wait": _outlook(advice.wait), "better": advice.better,
            "gain": round(advice.gain, 1), "worlds": advice.worlds, "text": advice.text()}


HELD_SEATS = 4096
"""Seats whose latest advice a process keeps (the least recently asked go first)."""


class SeatAdvice:
    """The switch advice of each seat, weighed once per version of its game.

    Kept per seat, not per connection: a seat that opens many sockets, or reconnects and
    asks again, gets the one weighing of its turn, and while it is under way a second
    question waits for it rather than queueing another (each is some 0.3 s in the one
    queue of brief thinking that every table's medium bots share). The advice is kept
    without words: each connection says it in its own language (``switch_message``)."""

    def __init__(self, most: int = HELD_SEATS) -> None:
        self._held: OrderedDict[tuple[str, int], tuple[int, asyncio.Future[SwitchAdvice]]] = (
            OrderedDict())
        self._most = most

    async def advice(self, table_id: str, seat: int, version: int,
                     weigh: Callable[[], Awaitable[SwitchAdvice]]) -> SwitchAdvice:
        """The advice for ``seat`` at ``version``: the one weighed or being weighed, else
        ``weigh()``'s (a weighing that failed is tried again)."""
        key = (table_id, seat)
        held = self._held.get(key)
        if held is None or held[0] != version or _failed(held[1]):
            held = (version, asyncio.ensure_future(weigh()))
            held[1].add_done_callback(_seen)  # a failure with no asker left: not logged
            self._held[key] = held
        self._held.move_to_end(key)
        while len(self._held) > self._most:
            self._held.popitem(last=False)
        return await asyncio.shield(held[1])  # one asker gone: the weighing goes on


def _seen(weighing: asyncio.Future[SwitchAdvice]) -> None:
    """Read a finished weighing's exception, so that asyncio does not report it as never
    retrieved when every asker has gone (an asker still there gets it raised)."""
    if not weighing.cancelled():
        weighing.exception()


def _failed(weighing: asyncio.Future[SwitchAdvice]) -> bool:
    return weighing.done() and (weighing.cancelled() or weighing.exception() is not None)


__all__ = ["HELD_SEATS", "NOTHING_TO_WEIGH", "SWITCH_SECONDS", "SeatAdvice", "switch_message"]
