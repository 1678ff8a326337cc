"""A game at one local table: seats (people or bots), turns, logs, undo, help, the record.

Free of any user interface and of any network: both terminal front ends (``noreturn.tui``)
and the web server (``noreturn.server``) sit on ``LocalTable``. ``local`` holds the table,
``help`` what it offers the person to move (hint, tile tracker, switch advice), ``online``
the server's game (turn timer, take-backs rebuilt from stored moves), ``seats``
who sits where and where records are saved, decided before a game exists, ``tutorial``
the guided first game's prepared deal.
"""

from noreturn.table.help import ADVICE_SECONDS
from noreturn.table.local import BotMove, LocalTable
from noreturn.table.online import OnlineTable
from noreturn.table.seats import (
    BOT_NAMES,
    DEFAULT_BOT,
    Seat,
    SeatsError,
    default_save_dir,
    make_seats,
)
from noreturn.table.tutorial import (
    TUTORIAL_BOT,
    TUTORIAL_NAME,
    TUTORIAL_PLAYERS,
    TUTORIAL_SEED,
)

__all__ = [
    "ADVICE_SECONDS", "BOT_NAMES", "DEFAULT_BOT", "TUTORIAL_BOT", "TUTORIAL_NAME",
    "TUTORIAL_PLAYERS", "TUTORIAL_SEED", "BotMove", "LocalTable", "OnlineTable", "Seat",
    "SeatsError", "default_save_dir", "make_seats",
]
