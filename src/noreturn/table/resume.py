"""``noreturn play --resume``: an unfinished local game goes on from its saved record.

The record holds every event, draws included, so the game is rebuilt by replaying it on a
new ``LocalTable`` whose deck hands out the recorded draws in their order; once they run
out, the tiles left in the bag are shuffled afresh from a new secret (nobody has seen that
order, so no one gains or loses by the pause). The resumed game goes on saving to the same
file, which becomes the whole game's record, and its ``meta`` notes the event from which
the bag was shuffled afresh (as an undo does). A game in progress is saved without its
seed, so a resumed game's record has none (files saved before that still name one).
"""

from __future__ import annotations

import secrets
from pathlib import Path
from random import Random

from noreturn.bots.match import Deck
from noreturn.engine import (
    Action,
    Draw,
    GameState,
    NoReturnError,
    ShuffledBag,
    reshuffled,
    shortened,
)
from noreturn.records import (
    Record,
    RecordError,
    check_header,
    check_record,
    read_record,
    replay_states,
    saved_files,
)
from noreturn.records.names import has_control, shown_name
from noreturn.table.local import LocalTable
from noreturn.table.seats import Seat

EXTERNAL = "external:"
"""How a bot spec names an external program, alone or inside another spec
(``declare-at:bag=40,bot=external:...``)."""


class RecordedDeck(Deck):
    """The draws of a record in their order, then a fresh secret order of the rest."""

    def __init__(self, start_player: int, draws: list[int]) -> None:
        """Deal ``draws`` first (the record's), starting with seat ``start_player``."""
        self.start_player = start_player
        self.rng = Random()  # never used: the rest is shuffled from a secret in next_draw
        self.order: list[int] = []
        self._recorded = draws[::-1]
        self._rest: ShuffledBag | None = None

    def next_draw(self, state: GameState) -> Draw:
        """The next recorded draw; after the last one, the bag in a fresh secret order."""
        if self._recorded:
            return Draw(self._recorded.pop())
        if self._rest is None:
            self._rest = reshuffled(state, secrets.randbits(64))
        return self._rest.next_draw(state)


def newest_record(folder: Path) -> Path:
    """The newest unfinished record in ``folder`` (``noreturn play --resume`` alone).

    Raises:
        RecordError: none there; the message says where it looked.
    """
    for path in sorted(saved_files(folder), key=lambda p: p.stat().st_mtime, reverse=True):
        try:
            if "result" not in read_record(path):
                return path
        except NoReturnError:
            continue
    raise RecordError("no unfinished game in {folder}: give the record's path "
                      "(noreturn play --resume FILE)", {"folder": folder})


def record_seats(record: Record, path: Path) -> list[Seat]:
    """The record's seats, each bot by its policy.

    A record is data, and may come from anyone: a policy ``external:COMMAND`` would run
    COMMAND on this machine when the bot first moves (``external:sh -c '...'``), so a
    record never starts a program, whatever its bots; nor does it bring names of control
    characters (escape sequences drive the terminal they are shown in).

    Raises:
        RecordError: such a seat, a bot seat that does not say which bot played it (a
            record of other programs may leave out ``policy``), or no person at the table
            at all; the message names it.
    """
    if all(player.get("kind") != "human" for player in record["players"]):
        raise RecordError("{path} cannot be resumed: every seat is a bot, so nobody plays "
                          "at this table; see the game with noreturn replay {path}",
                          {"path": path})
    seats = []
    for seat, player in enumerate(record["players"]):
        name = str(player["name"])
        human = player.get("kind") == "human"
        bot = None if human else player.get("policy")
        if has_control(name):  # a long name (older versions took any) still resumes
            raise RecordError("{path} cannot be resumed: seat {seat}'s name {name} holds "
                              "control characters", {"path": path, "seat": seat,
                                                     "name": repr(name)})
        if not human and not (isinstance(bot, str) and bot):
            raise RecordError("{path} cannot be resumed: seat {seat} ({name}) is a bot, and "
                              "the record does not say which (its 'policy')",
                              {"path": path, "seat": seat, "name": shown_name(name, seat)})
        if bot is not None and EXTERNAL in bot:
            raise RecordError(
                "{path} cannot be resumed: seat {seat} ({name}) is played by an external "
                "program, and a record never starts one (it could name any program); "
                "see the game with noreturn replay", {"path": path, "seat": seat,
                                                      "name": shown_name(name, seat)})
        seats.append(Seat(name, bot))
    return seats


def resume_table(path: Path, save_dir: Path | None = None) -> LocalTable:
    """The game of the unfinished record at ``path``, ready for its next decision; it
    goes on saving to ``path`` (``save_dir`` only if that file cannot be written).

    Raises:
        RecordError: the file is not a valid record, or its game is over; the message
            says what to do instead.
    """
    record = read_record(path)
    rules = check_header(record)
    verdict = check_record(record)
    if not verdict.valid:
        raise RecordError("{path} cannot be resumed: event {event}: {problem}",
                          {"path": path, "event": verdict.event, "problem": verdict.reason})
    if verdict.state is not None and verdict.state.is_over():
        raise RecordError("the game in {path} is over: see it with noreturn replay {path}",
                          {"path": path})
    draws: list[int] = []
    decisions: list[Action] = []
    for step in replay_states(record):
        if all(isinstance(a, Draw) for a in step.move.actions):
            draws += [a.tile for a in step.move.actions if isinstance(a, Draw)]
        else:
            decisions.extend(step.move.actions)
    seats = record_seats(record, path)
    table = LocalTable(seats, rules, None, save_dir, deck=RecordedDeck(record["start_player"],
                                                                         draws))
    for action in decisions:
        table.replay(action)
    meta = dict(record.get("meta") or {})
    shuffled = meta.get("reshuffled_at_events", [])
    if not isinstance(shuffled, list) or not all(type(n) is int for n in shuffled):
        raise RecordError("{path} cannot be resumed: 'reshuffled_at_events' in its meta must "
                          "be a list of event numbers, not {found}; remove it if unsure",
                          {"path": path, "found": shortened(repr(shuffled))})
    table.continue_file(path, meta)
    return table


__all__ = ["RecordedDeck", "newest_record", "resume_table"]
