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


__all__ = ["NOTHING_TO_WEIGH", "SWITCH_SECONDS", "switch_message"]
