"""The tables' logic over the database: one object for the web app and the tests.

``TableService`` is the lobby (``lobby.py``), play (``play.py``), the bots' turns
(``botturns.py``), timed-out turns and take-backs (``turns.py``) and the chat (``chat.py``)
over one table store (``store.py``: every SQL statement, and the one
cache of tables). Everything a table is lives in the database: the seats, the secret seed
and every accepted move; a game is dealt from the seed with the stored moves replayed. So
a restart loses nothing, and a second process needs no other state than the database's.

Concurrency: the service is synchronous and thread-safe; the web app calls it from worker
threads, so neither the database nor a thinking bot blocks the event loop. Calls on one
table are serialized by a lock (one of a fixed set of striped locks); across processes the
moves table's primary key (table_id, index), with index = the version the move was made
at, lets one move per version through and refuses the other (a ``stale`` error).

Tokens (``auth.py``) are stored as SHA-256 digests and compared in constant time; the
seed, which fixes the bag, never leaves the server while the game runs.
"""

from __future__ import annotations

from collections.abc import Callable

from sqlalchemy import Engine

from noreturn.server.auth import hash_token
from noreturn.server.botturns import FAST_RUN, BotTurns
from noreturn.server.chat import TableChat
from noreturn.server.errors import (
    OVER,
    TABLE_ID,
    BadRequestError,
    ConflictError,
    ForbiddenError,
    NotFoundError,
    ServiceError,
    over_message,
)
from noreturn.server.lobby import (
    BOT_LEVELS,
    MAX_BOT_ITERATIONS,
    MAX_BOT_SECONDS,
    TAKEOVER_LEVEL,
    Lobby,
    check_level,
    clean_name,
)
from noreturn.server.play import Acted, Play, Welcome
from noreturn.server.players import Players
from noreturn.server.recent import Recent
from noreturn.server.rematch import Rematches
from noreturn.server.store import TableStore
from noreturn.server.timing import TURN_TIMES
from noreturn.server.turns import Turns

HELD_HINTS = 1024
"""Hints a process keeps (``recent.Recent``): an action and a sentence each."""
HELD_REPLAYS = 64
"""Finished games' replays a process keeps: some 250 KB (two players) to 540 KB (four) of
Python objects each, so a few dozen, not thousands."""


class TableService(Lobby, Play, BotTurns, Turns, TableChat, Rematches):
    """The tables of one database; see the module docstring."""

    def __init__(self, engine: Engine, cache_size: int = 256,
                 turn_times: tuple[int, ...] = TURN_TIMES) -> None:
        """Serve the tables in ``engine``'s database (migrated already); a new table may
        choose one of ``turn_times`` as its turn timer."""
        self.engine = engine
        self.turn_times = turn_times
        self.store = TableStore(engine, cache_size)
        self.games = self.store.games
        """The cache under the store (``games.Games``): its locks, for tests and tools."""
        self.sessions = self.store.sessions
        self._not_waiting: dict[str, int] = {}
        self.hints = Recent(HELD_HINTS)
        self.replays = Recent(HELD_REPLAYS)
        self.players = Players(engine)
        """Player keys' histories, ratings and the leaderboard (players.py)."""
        self.after_game: Callable[[str], object] | None = None
        """Called with a table's id after its game ended and was rated (the server's
        reviewer queues it, ``reviewer.Reviewer.offer``): must not block."""
        self.games.finished = self._game_over

    def _game_over(self, table_id: str) -> None:
        """A table's game ended (``games.Games.finished``): rate it, then tell
        ``after_game`` if a person sat at it. A game of bots alone is reviewed only when
        someone asks for its review: forty of them, ending at once, filled the review
        queue for everyone for tens of minutes."""
        self.players.finished(table_id)
        if self.after_game is not None and self._had_people(table_id):
            self.after_game(table_id)

    def _had_people(self, table_id: str) -> bool:
        """Whether a person sat at the table (one who left and was replaced counts): from
        the game this process just stored (True if it holds none)."""
        _known, game = self.games.known(table_id)
        if game is None:
            return True
        return any(entry.get("kind") == "human" for entry in game.record()["players"])


__all__ = [
    "BOT_LEVELS", "FAST_RUN", "MAX_BOT_ITERATIONS", "MAX_BOT_SECONDS", "OVER", "TABLE_ID",
    "TAKEOVER_LEVEL", "Acted", "BadRequestError", "ConflictError", "ForbiddenError",
    "NotFoundError", "ServiceError", "TableService", "Welcome", "check_level", "clean_name",
    "hash_token", "over_message",
]
