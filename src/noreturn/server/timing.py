"""Turn timers: the times a table may choose, and the deadline of the turn under way.

A table's timer is chosen at creation (none by default): minutes for a live game, hours
for a slow table played over days. The deadline is stored with the table's row by every
write that changes whose turn it is (a move, a start, a leave, a take-back), so that every
process, and one restarted, finds the same turns whose time ran out (``turntimer.py``).
"""

from __future__ import annotations

from datetime import datetime, timedelta

from noreturn.server.errors import BadRequestError
from noreturn.table import LocalTable

TURN_TIMES = (30, 60, 120, 300, 3600, 4 * 3600, 12 * 3600, 24 * 3600, 72 * 3600)
"""The turn timers a table may choose, in seconds: 30 s to 5 min for a game played at
once, 1 h to 3 days per move for a slow table. A server may allow more
(``create_app(turn_times=...)``), e.g. a few seconds for tests."""


def check_turn_seconds(seconds: int | None, allowed: tuple[int, ...]) -> int | None:
    """``seconds`` if a table may choose it (None: no timer).

    Raises:
        BadRequestError: not one of ``allowed``.
    """
    if seconds is None or seconds in allowed:
        return seconds
    choices = ", ".join(str(s) for s in sorted(allowed))
    raise BadRequestError(f"turn_seconds {seconds}: choose one of {choices} "
                          "(or leave it out for no timer)")


def deadline_after(game: LocalTable | None, seconds: int | None,
                   moment: datetime) -> datetime | None:
    """When the turn starting at ``moment`` runs out: ``seconds`` after it if a person is
    to move in ``game`` and the table has a timer, else None (a bot's turn, no timer)."""
    if game is None or not seconds or not game.human_to_move():
        return None
    return moment + timedelta(seconds=seconds)


__all__ = ["TURN_TIMES", "check_turn_seconds", "deadline_after"]
