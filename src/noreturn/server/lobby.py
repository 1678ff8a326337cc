"""The lobby: tables made, listed, joined, started, left; records and replays given out.

Everything before and around play that a person does with a seat token over HTTP. The
rows are the store's (``store.py``); what is decided here is who may do what, and with
which names and bots. The public ``Table`` has names, kinds and counts only; the record and
the replay are given out only once the game is over (a record in progress would show
hidden tiles), and the seed never leaves the server while the game runs.
"""

from __future__ import annotations

import secrets
import unicodedata
from typing import Any

from noreturn.bots.base import LEVELS, BotError, bot_names, budget_of, make_bot
from noreturn.bots.planner import SWITCH_WORLDS
from noreturn.engine import NoReturnError, Rules
from noreturn.records.names import name_refusal
from noreturn.server.auth import hash_token, new_token
from noreturn.server.db import SeatRow, TableRow, now
from noreturn.server.errors import OVER, BadRequestError, ConflictError, over_message
from noreturn.server.games import public_table
from noreturn.server.players import bind, unbind
from noreturn.server.recent import Recent
from noreturn.server.replay import public_replay
from noreturn.server.schemas import CreateTable, SeatIn
from noreturn.server.store import TableStore
from noreturn.server.timing import check_turn_seconds, deadline_after
from noreturn.table import BOT_NAMES
from noreturn.text.lang import _, language, ngettext

TAKEOVER_LEVEL = "medium"
"""The bot that plays on for a person who leaves during the game."""
NOT_SEATED = frozenset({"external"})
"""Registered bots a table may never seat: ``external:`` would run a command on the
server. Every other registered bot (``noreturn.bots.base.register``) may sit, so a new bot
is one new file and no server edit; a bot that runs anything outside this process belongs
here."""
MAX_BOT_SECONDS = 3.0
"""The longest a thinking bot (one with a ``Budget``) may think per move here: the
``expert`` level's time. Bot decisions queue for a few threads (``workers.THINKERS``), so
this bounds a table's turn."""
MAX_BOT_ITERATIONS = 500
"""The most search iterations a thinking bot may spend per move here. An iteration costs
what the bot makes of it: a sampled world with every candidate played out for ``search``
(``search:iterations=200`` took 0.86 s a decision with four players, so 500 is some two
seconds), one playout for ``ismcts`` (1.6 ms); 20,000 once let one table hold the thinking
queue, which every table shares, for minutes."""
MAX_BRIEF_WORLDS = max(SWITCH_WORLDS.values())
"""The most sampled worlds a bot that thinks briefly (``plan:worlds=N``) may weigh its
switch by here: as many as medium. Those decisions share one queue sized for medium's
10-35 ms (``workers.BRIEF_THINKERS``); 1,000 worlds took 1.7 s."""


def seatable_levels() -> tuple[str, ...]:
    """Bot specs a table may seat: the player-facing levels first, then every other
    registered bot name but ``NOT_SEATED``, from the bots' registry (so a bot added there
    is seatable here)."""
    others = sorted(n for n in bot_names() if n not in LEVELS and n not in NOT_SEATED)
    return (*LEVELS, *others)


BOT_LEVELS = seatable_levels()
"""The bot specs a table may seat (``seatable_levels``), read once: the built-in bots are
all registered by then."""


def check_level(level: str | None) -> str:
    """The bot spec for ``level`` (default ``medium``), if a table may seat it.

    A thinking bot (one with a ``Budget``: ``budget_of``) may spend at most
    ``MAX_BOT_SECONDS`` or ``MAX_BOT_ITERATIONS`` per move, and one that weighs its switch
    by sampled worlds at most ``MAX_BRIEF_WORLDS``; which bots think is the bot's own say
    (the bot protocol), never a list here.

    Raises:
        BadRequestError: an unknown level, bad options, or a search budget above the limits.
    """
    spec = (level or TAKEOVER_LEVEL).strip()
    name = spec.partition(":")[0]
    if name not in BOT_LEVELS:
        raise BadRequestError(f"no bot level {name!r}: choose one of {', '.join(BOT_LEVELS)}")
    try:
        bot = make_bot(spec)
    except BotError as exc:
        raise BadRequestError(f"bot level {spec!r}: {exc}") from exc
    budget = budget_of(bot)
    if budget is not None and ((budget.seconds or 0) > MAX_BOT_SECONDS
                               or (budget.iterations or 0) > MAX_BOT_ITERATIONS):
        raise BadRequestError(f"bot level {spec!r}: at most time={MAX_BOT_SECONDS:g} or "
                              f"iterations={MAX_BOT_ITERATIONS} per move on this server")
    worlds = getattr(bot, "worlds", None)
    if isinstance(worlds, int) and worlds > MAX_BRIEF_WORLDS:
        raise BadRequestError(f"bot level {spec!r}: at most worlds={MAX_BRIEF_WORLDS} on "
                              "this server")
    return spec


def clean_name(name: str | None, default: str) -> str:
    """A player's name: trimmed, ``default`` when empty; no control characters.

    Raises:
        BadRequestError: the name is too long or holds control characters.
    """
    # one spelling of each letter: "Zoë" typed as e and a combining diaeresis is "Zoë"
    text = unicodedata.normalize("NFC", " ".join((name or "").split()))
    if not text:
        return default
    refused = name_refusal(text)
    if refused:
        template, blanks = refused
        raise BadRequestError(_(template).format_map(blanks))
    return text


def same_name(a: str, b: str) -> bool:
    """Whether two names would read as one at the table: equal once letters that are
    the same in another form (compatibility forms: "ﬁ" and "fi", full-width letters) and
    case are set aside, so no one joins as another seat's name in another spelling."""
    return name_key(a) == name_key(b)


def name_key(name: str) -> str:
    """A name as ``same_name`` compares it."""
    return unicodedata.normalize("NFKC", name).casefold()


def table_rules(body: CreateTable) -> Rules:
    """The rules of a new table: the size parameters given, as many players as seats.

    Raises:
        BadRequestError: ``players`` is not the number of seats, or the engine refuses
            the parameters.
    """
    count = len(body.seats)
    rules_in = body.rules.given() if body.rules else {}
    if rules_in.get("players", count) != count:
        raise BadRequestError(f"rules: players is {rules_in['players']} but there are "
                              f"{count} seats: leave players out, the seats count")
    try:
        return Rules.from_dict({**rules_in, "players": count})
    except NoReturnError as exc:
        raise BadRequestError(str(exc)) from exc


def seat_names(seats: list[SeatIn]) -> list[str]:
    """Each seat's name: the one given, else ``Player N`` for a person and a bot's name
    nobody took.

    Raises:
        BadRequestError: a level for a person, two equal names, or a bad name.
    """
    taken: set[str] = set()
    names: list[str] = []
    for i, seat in enumerate(seats):
        if seat.kind == "human" and seat.level:
            raise BadRequestError(f"seat {i}: a level is for bots; leave it out for a person")
        if seat.kind == "human":
            default = f"Player {i + 1}"
        else:
            default = next((n for n in BOT_NAMES if name_key(n) not in taken and all(
                not same_name(n, (s.name or "").strip()) for s in seats)), f"Bot {i + 1}")
        name = clean_name(seat.name, default)
        if name_key(name) in taken:
            raise BadRequestError(_("two seats are named {name}: give each a different "
                                    "name").format(name=repr(name)))
        taken.add(name_key(name))
        names.append(name)
    return names


class Lobby:
    """The lobby's requests on the tables of a ``TableStore`` (module docstring)."""

    store: TableStore
    turn_times: tuple[int, ...]
    """The turn timers a new table may choose (``timing.TURN_TIMES`` by default)."""
    replays: Recent[tuple[str, str], dict[str, Any]]
    """Finished games' replays, by table and language: a finished game never changes, and
    each replay is rebuilt move by move (some 30 ms)."""

    def create(self, body: CreateTable, seed: str | None = None) -> dict[str, Any]:
        """A new table; the answer holds each human seat's token, shown this once.

        A table of bots only starts at once (there is nobody to press start). ``seed``
        deals a prepared game (the tutorial's, ``tutorial.py``); left out, a secret one.

        Raises:
            BadRequestError: bad rules, names or bot levels.
        """
        rules = table_rules(body)
        names = seat_names(body.seats)
        levels = [check_level(s.level) if s.kind == "bot" else None for s in body.seats]
        turn_seconds = check_turn_seconds(body.turn_seconds, self.turn_times)
        timeout_level = check_level(body.timeout_level) if turn_seconds else None
        table_id = secrets.token_urlsafe(9)
        tokens = {i: new_token() for i, s in enumerate(body.seats) if s.kind == "human"}
        creator_token = new_token()
        moment = now()
        table_values: dict[str, Any] = {
            "id": table_id, "created_at": moment, "updated_at": moment,
            "status": "lobby" if tokens else "playing", "rules": rules.to_dict(),
            "seed": seed or secrets.token_hex(16), "version": 0, "result": None, "record": None,
            "creator_hash": hash_token(creator_token), "bot_due": not tokens,
            "turn_seconds": turn_seconds, "timeout_level": timeout_level,
            "turn_deadline": None}
        seat_values: list[dict[str, Any]] = [
            {"table_id": table_id, "seat": i, "kind": s.kind, "name": names[i],
             "level": levels[i], "token_hash": hash_token(tokens[i]) if i in tokens else None,
             "joined": s.kind == "bot", "replaced_by": None}
            for i, s in enumerate(body.seats)]
        return {
            "table": self.store.create(table_values, seat_values),
            "creator_token": creator_token,
            "seat_links": [{"seat": i, "name": names[i], "token": token,
                            "link": f"/play/{table_id}#token={token}"}
                           for i, token in tokens.items()],
            "spectator_link": f"/watch/{table_id}",
        }

    def list_tables(self, limit: int = 50, status: str | None = None) -> list[dict[str, Any]]:
        """The lobby: the newest tables first, public data only, tutorial tables left out
        (``store.newest_tables``: one indexed query, no game built, no record read)."""
        return self.store.newest_tables(limit, status)

    def get(self, table_id: str) -> dict[str, Any]:
        """One table's public description."""
        return self.store.public(table_id)

    def join(self, table_id: str, token: str | None, name: str | None,
             player_key: str | None = None) -> dict[str, Any]:
        """Mark the token's seat as joined; in the lobby its name may change, and a player
        key ties the seat to its person (players.py; fixed once the game starts)."""
        with self.store.transaction(table_id) as session:
            row, seats, seat = self.store.holder(session, table_id, token, detached=True)
            if row.status in OVER:
                raise ConflictError(over_message(row.status), "over")
            was = row.status
            if name is not None:
                seat.name = self._new_name(row, seats, seat, name)
            seat.joined = True
            row.updated_at = now()
            self.store.write_seat(session, row, seat, was)
            if player_key and was == "lobby":
                bind(session, table_id, seat.seat, player_key, seat.name)
            self.store.keep(session, row, seats)
            return public_table(row, seats)

    @staticmethod
    def _new_name(row: TableRow, seats: list[SeatRow], seat: SeatRow, name: str) -> str:
        """The name a join gives its seat.

        Raises:
            ConflictError: a new name once the game started; BadRequestError: a bad name,
                or another seat's.
        """
        new = clean_name(name, seat.name)
        if new != seat.name and row.status != "lobby":
            raise ConflictError(_("names are fixed once the game has started"))
        if any(same_name(s.name, new) for s in seats if s.seat != seat.seat):
            raise BadRequestError(_("another seat is named {name}: choose another "
                                    "name").format(name=repr(new)))
        return new

    def start(self, table_id: str, token: str | None,
              player_key: str | None = None) -> dict[str, Any]:
        """Start the game (the token's seat counts as joined, with ``player_key`` if
        given, as in ``join``).

        Raises:
            ConflictError: a person has not joined yet (named), or the game started already.
        """
        with self.store.transaction(table_id) as session:
            row, seats, seat = self.store.holder(session, table_id, token, detached=True)
            if row.status in OVER:
                raise ConflictError(over_message(row.status), "over")
            if row.status != "lobby":
                raise ConflictError(_("the game has started already"))
            missing = [s.name for s in seats
                       if s.kind == "human" and not s.joined and s.seat != seat.seat]
            if missing:
                raise ConflictError(ngettext(
                    "{names} has not joined yet: send them their seat link, then start",
                    "{names} have not joined yet: send them their seat link, then start",
                    len(missing)).format(names=", ".join(missing)))
            seat.joined = True
            row.status = "playing"
            row.updated_at = now()
            # kept as it will be stored (its game dealt), so the bots' first look and the
            # people's welcomes read one row, not the table and its seats
            _known, game = self.store.keep(session, row, seats)
            row.bot_due = game is not None and game.bot_to_move()
            self.store.write_seat(session, row, seat, "lobby")
            self.store.set_deadline(session, row, game)
            if player_key:
                bind(session, table_id, seat.seat, player_key, seat.name)
            return public_table(row, seats)

    def leave(self, table_id: str, token: str | None) -> dict[str, Any]:
        """Leave: in the lobby the seat is free again; during the game a bot takes it over.

        After leaving a game the token holds nothing: the seat's hand is the bot's now.
        """
        with self.store.transaction(table_id) as session:
            row, seats, seat = self.store.holder(session, table_id, token)
            if row.status in OVER:
                raise ConflictError(over_message(row.status), "over")
            if row.status == "playing":
                game = self.store.game(session, row, seats)
                before = game.version
                game.replace_by_bot(seat.seat, TAKEOVER_LEVEL)
                self.store.add_leave(session, row, seat.seat, TAKEOVER_LEVEL, before)
                row.version = game.version
                row.bot_due = game.bot_to_move()
                # the person to move keeps the time they had; a seat a bot took over has none
                running = row.turn_deadline if game.human_to_move() else None
                row.turn_deadline = game.deadline = running or deadline_after(
                    game, row.turn_seconds, now())
                seat.replaced_by = TAKEOVER_LEVEL
                seat.token_hash = None
            seat.joined = False
            row.updated_at = now()
            self.store.flush_seats(session, table_id)  # the table's row first, as always
            if row.status == "lobby":  # the seat is free again, for anyone's key
                unbind(session, table_id, seat.seat)
            return public_table(row, seats)

    def record(self, table_id: str) -> dict[str, Any]:
        """The finished game's record (docs/record-format.md).

        Raises:
            ConflictError: the game is not over (a record in progress would show hidden tiles).
        """
        status, record = self.store.record(table_id)
        if status != "finished" or record is None:
            raise ConflictError(_("the record is available once the game is over"))
        return record

    def replay(self, table_id: str) -> dict[str, Any]:
        """The finished game turn by turn, public views only (``replay.public_replay``)."""
        return self.replays.answer((table_id, language()),
                                   lambda: public_replay(self.record(table_id)))


__all__ = ["BOT_LEVELS", "MAX_BOT_ITERATIONS", "MAX_BOT_SECONDS", "NOT_SEATED",
           "TAKEOVER_LEVEL", "Lobby", "check_level", "clean_name", "seatable_levels"]
