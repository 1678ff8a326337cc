"""The guided first game's prepared deal, shared by every front end that teaches it.

The terminal (``noreturn tutorial``) and the browser (``POST /api/tutorial``) teach on the
same game, so a lesson written for one moment comes at that moment in both. Front ends
never import one another, so the deal lives here, in the layer both sit on.
"""

from __future__ import annotations

TUTORIAL_SEED = 9
"""The prepared deal: its hints set tiles aside, place, exchange at the fourth turn, declare
and score, and the newcomer who follows them wins (chosen again on 2026-12-06, when the plan
began to fish before building and the deal of before brought its exchange too soon;
checked by ``tests/tui/test_tutorial.py`` and ``tests/server/test_server_tutorial.py``)."""
TUTORIAL_BOT = "easy"
"""The one opponent of the guided game: a bot that plays soundly but never sharply."""
TUTORIAL_PLAYERS = 2
"""One newcomer and the bot."""
TUTORIAL_NAME = "Ada"
"""The newcomer's seat, as in ``noreturn play``. Not "You": the log tells each seat's
moves by its name, and "You was dealt" ("Du erhielt") is no sentence."""

__all__ = ["TUTORIAL_BOT", "TUTORIAL_NAME", "TUTORIAL_PLAYERS", "TUTORIAL_SEED"]
