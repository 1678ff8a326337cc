"""A stored game rebuilt: its seed dealt, its stored moves replayed, whatever their kind.

``games.Games`` keeps each table's game in memory and catches it up with the moves other
processes stored (docs: ``db.MoveRow``). A move is an ``action`` (a person's or a bot's),
a ``leave`` (a bot took a seat over), a ``timeout`` (a person's time ran out and the
table's timeout bot played their turn: ``OnlineTable.play_for``) or an ``undo`` (a person
took back their last turn against bots). An undo is replayed as it was made: the game is
dealt afresh and replayed up to the version it went back to, then finished with the
stored secret (``OnlineTable.after_take_back``), so every process and every restart
rebuilds the same game, the same bag included.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from noreturn.engine import NoReturnError, Rules, parse_action
from noreturn.table import OnlineTable, Seat

Dealer = Callable[[], OnlineTable]
"""A new game of the table, dealt from its seed (no move played)."""
Before = Callable[[int], Iterable[Any]]
"""The table's stored moves with an index below the one given, in order."""


def dealt(row: Any, seats: Iterable[Any]) -> OnlineTable:
    """The table's game dealt from its seed, with the seats as created (a seat taken over
    later becomes a bot's by its ``leave`` move) and the table's timer."""
    return OnlineTable([Seat(s.name, None if s.kind == "human" else s.level) for s in seats],
                       Rules.from_dict(row.rules), seed=row.seed,
                       turn_seconds=row.turn_seconds, timeout_level=row.timeout_level)


def undo_text(version: int, secret: int) -> str:
    """An undo move's stored text: the version gone back to and the bag's new secret."""
    return f"{version} {secret}"


def replay_moves(table_id: str, game: OnlineTable, moves: Iterable[Any], deal: Dealer,
                 before: Before) -> OnlineTable:
    """``game`` with ``moves`` (rows with index, seat, kind, text and note) replayed in
    order; a new game when one of them is an undo (see the module docstring).

    Raises:
        NoReturnError: a move is missing or does not replay (the stored game is not this
            one: the database was changed by hand, or the deck changed under the game).
    """
    for move in moves:
        if move.index != game.version:
            raise NoReturnError(f"table {table_id}: move {move.index} is missing")
        if move.kind == "leave":
            game.replace_by_bot(move.seat, move.text)
        elif move.kind == "timeout":
            game.play_for(parse_action(move.text), move.note)
        elif move.kind == "undo":
            target, _sep, secret = str(move.text).partition(" ")
            back = replay_moves(table_id, deal(), before(int(target)), deal, before)
            if back.version != int(target):
                raise NoReturnError(f"table {table_id}: moves before {target} are missing")
            back.after_take_back(move.seat, move.index + 1, int(secret))
            game = back
        else:
            game.replay(parse_action(move.text), move.note)
    return game


__all__ = ["Before", "Dealer", "dealt", "replay_moves", "undo_text"]
