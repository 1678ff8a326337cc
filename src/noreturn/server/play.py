"""Play: what a seat sees (its state message) and what it does (actions, checks, hints).

The hidden-information rule: what a seat receives is built from ``view(state, seat)`` and
that seat's own log only (``state_message``); a spectator gets the public view. Off turn
an action is never judged against the state (the answer would tell about the hand of the
seat to move). The table logic knows nothing of WebSockets: ``channel.py`` adapts it.

Calls on one table are serialized by its lock; a move is decided on the table as this
process holds it (``TableStore.to_act_on``) and refused when stored if another process
moved first (a ``stale`` error).
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from typing import Any, NamedTuple

from noreturn.bots.switch import SwitchAdvice
from noreturn.bots.viewjson import view_to_json
from noreturn.engine import NoReturnError, parse_action, tile_code
from noreturn.server import advice
from noreturn.server.auth import WITHDRAWN, check_still_held, seat_of
from noreturn.server.botturns import FAST_RUN, bot_due, run_fast_bots
from noreturn.server.errors import (
    OVER,
    BadRequestError,
    ConflictError,
    ForbiddenError,
    check_table_id,
    over_message,
)
from noreturn.server.games import Known, Move, utc
from noreturn.server.recent import Recent
from noreturn.server.store import Held, TableStore
from noreturn.table import LocalTable, OnlineTable
from noreturn.text.lang import _, language
from noreturn.text.refusals import error_text, refusal_text


class Welcome(NamedTuple):
    """What a new connection is told first (``Play.welcome``)."""

    seat: int | None
    token_hash: str | None
    table: dict[str, Any]
    state: dict[str, Any]
    bot_due: bool
    """A bot is to move (after a restart nobody may have let it yet)."""


class Acted(NamedTuple):
    """What ``act`` did: the table's new version, and whether a bot is to move now (a
    slow one, or any when the bots did not play on)."""

    version: int
    bot_due: bool


def state_of(known: Known, game: OnlineTable | None, seat: int | None,
             token_hash: str | None) -> dict[str, Any]:
    """The state message from a table's seats (``known``) and its game (under its lock)
    for ``seat`` (None: a spectator), whose connection was opened with ``token_hash``.

    Raises:
        ForbiddenError: the seat's token was withdrawn (its person left the game).
    """
    check_still_held(known.token_hashes, seat, token_hash)
    message: dict[str, Any] = {
        "type": "state", "version": known.version, "status": known.status, "view": None,
        "legal": [], "log": [], "names": list(known.names), "unseen": {},
        "result": None, "table": known.table, "timer": None, "can_undo": False,
    }
    if known.status == "lobby" or game is None:
        return message
    mine = seat is not None and game.to_move() == seat and game.human_to_move()
    seen = game.view_for(seat)
    message.update(
        version=game.version,
        view=view_to_json(seen),
        unseen={tile_code(t): n for t, n in sorted(seen.unseen().items()) if n > 0},
        legal=game.legal_texts() if mine else [],
        log=game.log(seat),
        timer=timer_of(game),
        can_undo=seat is not None and game.why_no_take_back(seat) is None,
    )
    if game.is_over():
        state = game.state
        message["result"] = {"scores": state.scores(), "ranks": state.ranks(),
                             "lines": game.result_lines()}
    return message


def timer_of(game: OnlineTable) -> dict[str, Any] | None:
    """The turn timer as a state shows it: the seconds per turn, the timeout bot, and
    the seat whose time runs and when it runs out (an absolute time, the same in every
    state of that version: a page counts down against the clock the welcome gave it)."""
    if not game.turn_seconds:
        return None
    running = game.deadline is not None and game.human_to_move()
    return {"seconds": game.turn_seconds, "level": game.timeout_level,
            "seat": game.to_move() if running else None,
            "deadline": iso_time(game.deadline) if running and game.deadline else None}


def iso_time(moment: datetime) -> str:
    """A UTC time as the protocol writes it (``2026-12-02T10:37:27.123Z``)."""
    return utc(moment).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def playing(held: Held, seat: int | None) -> OnlineTable:
    """The game, for a seat that wants to play now.

    Raises:
        ConflictError: a spectator, or the game has not started or is over.
    """
    known, game = held
    if seat is None:
        raise ConflictError(_("spectators watch: open your seat link to play"), "spectator")
    if known.status in OVER and known.status != "finished":
        raise ConflictError(over_message(known.status), "closed")
    if known.status == "lobby" or game is None:
        raise ConflictError(_("the game has not started yet: wait for the start"),
                            "not_started")
    if known.status == "finished":
        raise ConflictError(_("the game is over"), "over")
    return game


def check_version(game: LocalTable, version: int) -> None:
    """Refuse a request made on a state that is no longer the game's (an action, a
    take-back): the client looks at the new state first.

    Raises:
        ConflictError: ``stale``.
    """
    if version != game.version:
        raise ConflictError(_("the game has moved on (it is at version {now}, you sent "
                              "{sent}): look at the new state and try again").format(
            now=game.version, sent=version), "stale")


def check_turn(game: LocalTable, seat: int) -> None:
    """Refuse a seat's move off its turn, or once a bot plays its seat.

    Raises:
        ConflictError: not its turn; ForbiddenError: its person left (a bot plays it).
    """
    mover = game.to_move()
    if mover != seat:
        raise ConflictError(_("it is not your turn: nobody is to move") if mover is None
                            else _("it is not your turn: {who} is to move").format(
                                who=game.names[mover]), "not_your_turn")
    if not game.human_to_move():  # the person left: a bot plays the seat now
        raise ForbiddenError(_(WITHDRAWN))


class Play:
    """A seat's play and what it sees, on the tables of a ``TableStore``."""

    store: TableStore
    hints: Recent[tuple[str, int, int, str], tuple[str, str]]
    """Hints given, by table, seat, version and language: asked again (a flood of them
    from many sockets), the same hint without weighing the turn again."""

    def welcome(self, table_id: str, token: str | None) -> Welcome:
        """A new connection's seat (``token``'s; None: a spectator), public table and first
        state, from one look at the table (``TableStore.as_stored``: one single-row read
        when this process holds the table as stored).

        Raises:
            NotFoundError; ForbiddenError: the token holds no seat (or no longer: the
                person left the game).
        """
        with self.store.as_stored(table_id) as (known, game):
            seat, digest = (None, None) if token is None else seat_of(
                known.token_hashes, token)
            return Welcome(seat, digest, known.table, state_of(known, game, seat, digest),
                           bot_due(known, game) is not None)

    def state_message(self, table_id: str, seat: int | None,
                      token_hash: str | None = None,
                      moved_to: int | None = None) -> dict[str, Any]:
        """The ``state`` message for ``seat`` (None: a spectator), from its view and log.

        ``token_hash`` is the digest the connection was opened with: a seat whose token
        was withdrawn (its person left the game) gets ``ForbiddenError``.

        ``moved_to``: the version a move notice carried. When this process holds the
        table at that version or later, the message is built from memory with no read
        (``TableStore.held_since`` says why that is safe); a seat withdrawn later is
        refused once that later change's notice (or the next full read) comes. Otherwise
        the table is looked at as stored (``TableStore.as_stored``).
        """
        check_table_id(table_id)
        if moved_to is not None:
            with self.store.locked(table_id):
                held = self.store.held_since(table_id, moved_to)
                if held is not None:
                    return state_of(*held, seat, token_hash)
        with self.store.as_stored(table_id) as (known, game):
            return state_of(known, game, seat, token_hash)

    def held_state(self, table_id: str, seat: int | None, token_hash: str | None,
                   moved_to: int) -> dict[str, Any] | None:
        """``state_message`` after a move notice, if it needs neither the database nor a
        wait for the table's lock; None otherwise (then call ``state_message``).

        For the event loop: a state built from memory costs less than handing it to a
        worker thread and back.
        """
        with self.store.locked_if_free(table_id) as free:
            held = self.store.held_since(table_id, moved_to) if free else None
            return None if held is None else state_of(*held, seat, token_hash)

    def act(self, table_id: str, seat: int | None, text: str, version: int,
            bots_after: bool = False) -> Acted:
        """Play ``text`` for ``seat`` if it is its turn, ``version`` is current and the rules
        allow it; returns the new version, and whether a bot is to move then.

        ``bots_after`` (bots with no delay): the fast bots to move next play on and are
        stored with the person's move in one write, so the person's next state comes at
        once, after them.

        Raises:
            ServiceError: with the protocol's code (stale, not_your_turn, malformed,
                illegal, ...); nothing changed.
        """
        check_table_id(table_id)
        with self.store.locked(table_id):
            known, held = self.store.to_act_on(table_id, version)
            game = playing((known, held), seat)
            assert seat is not None
            check_version(game, version)
            check_turn(game, seat)
            try:
                action = parse_action(text)
            except NoReturnError as exc:
                raise BadRequestError(error_text(exc), "malformed") from exc
            refused = game.refusal(action)
            if refused is not None:
                raise ConflictError(_("{action} is not allowed: {reason}").format(
                    action=action, reason=refusal_text(refused)), "illegal", rule=refused.code)
            with self.store.changing(table_id):
                moves = [Move(game.version, seat, "action", str(action))]
                if game.try_action(action) is not None:  # pragma: no cover - checked above
                    raise ConflictError(_("{action} is not allowed").format(action=action),
                                        "illegal")
                if bots_after:
                    moves += run_fast_bots(game, FAST_RUN, after_person=True)
                self.store.store(known, game, moves)
            return Acted(game.version, game.bot_to_move())

    def _checked_game(self, table_id: str, seat: int | None) -> OnlineTable:
        """The game for ``check`` and ``hint`` (its seat to move): as this process holds it,
        read only if it holds none (``TableStore.to_act_on``; a read each time made a
        flood of checks a flood of database reads). Call under the table's lock."""
        check_table_id(table_id)
        game = playing(self.store.to_act_on(table_id), seat)
        assert seat is not None
        check_turn(game, seat)
        return game

    def check(self, table_id: str, seat: int | None, text: str) -> tuple[bool, str | None]:
        """Whether ``seat`` may play ``text`` now, and why not.

        Off turn the answer is only "not your turn": the action is never judged against
        the state then, since the rules would judge it against the hand of the player to
        move (and the answer would tell about that hand).
        """
        with self.store.locked(table_id):
            try:
                game = self._checked_game(table_id, seat)
                action = parse_action(text)
            except (ConflictError, NoReturnError) as exc:
                if getattr(exc, "code", None) in ("spectator", "not_started", "over", "closed"):
                    raise
                if isinstance(exc, NoReturnError):
                    return False, error_text(exc)
                return False, getattr(exc, "message", str(exc))
            problem = game.why_not(action)
            return problem is None, problem

    def hint(self, table_id: str, seat: int | None) -> tuple[str, str, int]:
        """A suggested action for ``seat`` on its turn, with the reason and the game's
        version it is for (an answer that arrives after a move is known to be stale)."""
        with self.store.locked(table_id):
            game = self._checked_game(table_id, seat)
            version, job = game.version, game.hint_job()
        assert seat is not None  # (a spectator was refused)

        def weigh() -> tuple[str, str]:
            action, reason = job()  # outside the lock: the table's moves never wait for it
            return str(action), reason

        action, reason = self.hints.answer((table_id, seat, version, language()), weigh)
        return action, reason, version

    def switch_job(self, table_id: str, seat: int | None) -> tuple[
            int, Callable[[], SwitchAdvice]]:
        """The switch advice for ``seat`` on its phase-1 turn, to weigh later, with the
        game's version it is for: the turn is checked and the view taken under the table's
        lock, the weighing (``advice.py``) runs after it, so the table's moves never wait
        for it.

        Raises:
            ConflictError: not its turn, or nothing to weigh (code ``nothing_to_weigh``).
        """
        with self.store.locked(table_id):
            game = self._checked_game(table_id, seat)
            try:
                return game.version, game.switch_job(advice.SWITCH_SECONDS)
            except NoReturnError as exc:
                raise ConflictError(str(exc), advice.NOTHING_TO_WEIGH) from exc


__all__ = ["Acted", "Play", "Welcome", "iso_time", "state_of", "timer_of"]
