"""A stored game rebuilt: its seed dealt, its stored moves replayed, whatever their kind.

``games.Games`` keeps each table's game in memory and catches it up with the moves other
processes stored (docs: ``db.MoveRow``). A move is an ``action`` (a person's or a bot's),
a ``leave`` (a bot took a seat over), a ``timeout`` (a person's time ran out and the
table's timeout bot played their turn: ``OnlineTable.play_for``) or an ``undo`` (a person
took back their last turn against bots). A game with undos is rebuilt from the deal along
the moves still in effect (``in_effect``: the ones an undo took back drop out), each undo
finished with its stored secret (``OnlineTable.after_take_back``), so every process and
every restart rebuilds the same game, the same bag included, in one replay however many
undos it holds (replaying each undo's past again would cost twice as much per undo).
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
    """``game`` with ``moves`` (rows with index, seat, kind, text and note, from the
    game's version on) replayed in order; when one of them is an undo, the game rebuilt
    from the deal instead (``rebuilt``, over every stored move up to the last of them).

    Raises:
        NoReturnError: a move is missing or does not replay (the stored game is not this
            one: the database was changed by hand, or the deck changed under the game).
    """
    moves = list(moves)
    if any(move.kind == "undo" for move in moves):
        return rebuilt(table_id, deal(), before(moves[-1].index + 1))
    for move in moves:
        _replay(table_id, game, move)
    return game


def rebuilt(table_id: str, game: OnlineTable, moves: Iterable[Any]) -> OnlineTable:
    """The game after ``moves`` (every stored move from index 0, in order), from ``game``
    as dealt: only the moves still in effect are replayed (``in_effect``), once each."""
    for move in in_effect(table_id, list(moves)):
        if move.kind == "undo":
            game.after_take_back(move.seat, move.index + 1, int(move.text.split()[1]))
        else:
            _replay(table_id, game, move)
    return game


def in_effect(table_id: str, moves: list[Any]) -> list[Any]:
    """The moves that make the game at the version after the last of ``moves`` (indices
    0, 1, 2, ...), in order: each version comes from the one before it, but an undo's
    from the version it went back to. So the line is followed back from the last version
    to the deal, and the moves an undo took back drop out; its game is then replayed
    once, however many undos it holds.

    Raises:
        NoReturnError: a move is missing, or an undo goes back to a later version.
    """
    came_from: list[tuple[int, Any]] = []
    for index, move in enumerate(moves):
        if move.index != index:
            raise NoReturnError(f"table {table_id}: move {index} is missing")
        back = int(move.text.split()[0]) if move.kind == "undo" else index
        if back > index:
            raise NoReturnError(f"table {table_id}: move {index} goes back to {back}")
        came_from.append((back, move))
    line: list[Any] = []
    version = len(moves)
    while version > 0:
        version, move = came_from[version - 1]
        line.append(move)
    return line[::-1]


def _replay(table_id: str, game: OnlineTable, move: Any) -> None:
    """One stored move that is not an undo, at the game's version."""
    if move.index != game.version:
        raise NoReturnError(f"table {table_id}: move {move.index} is missing")
    if move.kind == "leave":
        game.replace_by_bot(move.seat, move.text)
    elif move.kind == "timeout":
        game.play_for(parse_action(move.text), move.note)
    else:
        game.replay(parse_action(move.text), move.note)


__all__ = ["Before", "Dealer", "dealt", "in_effect", "rebuilt", "replay_moves", "undo_text"]
