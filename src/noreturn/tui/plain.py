"""``noreturn play --plain``: the game as plain line prompts.

For terminals without full-screen support and for scripts: it reads moves as text lines
(the shared action text, or a number from the ``?`` list) and writes plain lines. The game
itself is a ``LocalTable``, shared with the full-screen app; this module only asks and shows.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TextIO

from noreturn.engine import (
    MULLIGAN,
    Action,
    Declare,
    Mulligan,
    NoReturnError,
    Rules,
    is_number,
    make_tile,
    parse_action,
    parse_tile,
    tile_code,
)
from noreturn.files import OutputError
from noreturn.records import dumps
from noreturn.table import LocalTable, default_save_dir, make_seats
from noreturn.text.lang import N_, _, pgettext
from noreturn.text.narrate import render_table
from noreturn.text.refusals import error_text

LIST_LIMIT = 40
NUMBER_DIGITS = 6
"""Digits of the longest move number read (no position has a million legal moves)."""
HELP = N_("""\
Type a move, or a number from the list that ? shows:
  place R11 R9          put tiles of one colour on your row of it (phase 1)
  exchange B3 G7        remove 1-4 tiles from the game, draw as many
  declare               phase 2 for good; then score or exchange this turn
  score R x2 pay B7 B5  score your R row's 2 lowest tiles, paid in blue
  ? [word]              your legal moves (only those with word, if given)
  hint                  a suggested move and why
  undo                  take back your last move (against bots)
  switch                phase 1: declaring now against waiting
  tiles                 how many of each tile you have not seen yet
  rules                 the rules in brief
  quit (q)              stop (the game so far is saved)
At the mulligan, type the tiles to set aside (R3 B5), or Enter to keep all.""")
"""The moves and questions a line may hold; shown through ``_()``."""
RULES_BRIEF = N_("""\
No Return in brief: 132 tiles, 6 colours, values 1-11, two of each. Phase 1:
each turn EXCHANGE up to 4 tiles, or PLACE tiles of one colour on your row of
that colour, each no higher than the row's lowest tile. When you like, DECLARE
phase 2 (there is no return): then each turn EXCHANGE, or SCORE the lowest
tiles of a row, paying with hand tiles of one colour worth at least their sum.
Refill to 8 after each turn. When the bag runs empty the round is finished.
Score = your score pile minus the tiles still in your rows.""")
"""The rules in one paragraph; shown through ``_()``."""


def command_word(word: str) -> str:
    """The English question word a typed word names: the word itself, or its name in the
    player's language (a German player may type ``hilfe`` for ``help``). The moves keep
    their English names, the notation every front end and record shares."""
    names = {
        pgettext("typed word", "help"): "help", pgettext("typed word", "rules"): "rules",
        pgettext("typed word", "hint"): "hint", pgettext("typed word", "switch"): "switch",
        pgettext("typed word", "undo"): "undo", pgettext("typed word", "tiles"): "tiles",
        pgettext("typed word", "quit"): "quit", pgettext("typed word", "keep"): "keep",
    }
    return names.get(word, word)


__all__ = ["HELP", "RULES_BRIEF", "PlainGame", "QuitError", "clear_terminal", "default_save_dir",
           "line_reader", "play_plain", "run_plain", "save_report", "tracker_lines",
           "wants_again"]


class QuitError(Exception):
    """The person stopped the game (``quit`` or end of input)."""


class PlainGame:
    """Asks the people at a ``LocalTable`` for their moves on text lines."""

    def __init__(self, table: LocalTable, read: Callable[[str], str],
                 write: Callable[[str], None], advice_worlds: int | None = None,
                 clear: Callable[[], None] | None = None) -> None:
        """Play ``table`` reading lines with ``read(prompt)`` and writing with ``write``;
        ``advice_worlds`` fixes the switch advisor's budget (None: its default time);
        ``clear`` wipes the screen and its scrollback at a hot seat's hand-over."""
        self.table = table
        self.advice_worlds = advice_worlds
        self.read, self.write, self.clear = read, write, clear
        self.hotseat = len(table.humans) > 1
        self._shown = dict.fromkeys(table.humans, 0)  # log lines each person has seen
        self._last_person: int | None = None

    def run(self) -> None:
        """Play to the end, or until ``QuitError``."""
        table = self.table
        me = table.humans[0]
        self.write(_("No Return: you are {name}, seat {seat}. Type help for the moves.").format(
            name=table.names[me], seat=me) if not self.hotseat else
            _("No Return, hot seat: {names}. Type help for the moves.").format(
                names=", ".join(table.names)))
        while not table.is_over():
            table.run_bots()
            seat = table.to_move()
            if seat is None:
                break
            table.save_progress()  # (a closed terminal loses at most this turn)
            self._hand_over(seat)
            self._show_log(seat)
            self._turn(seat)
        for seat in table.humans if not self.hotseat else []:
            self._show_log(seat)

    def _hand_over(self, seat: int) -> None:
        """In a hot-seat game, let the next person take the keyboard before their hand shows,
        the last person's hand wiped from the terminal first (it stood just above)."""
        if self.hotseat and seat != self._last_person:
            if self.clear is not None and self._last_person is not None:
                self.clear()
            self.read(_("-- pass the keyboard to {name}, then press Enter --").format(
                name=self.table.names[seat]))
        self._last_person = seat

    def _show_log(self, seat: int) -> None:
        lines = self.table.log(seat)
        for line in lines[self._shown[seat]:]:
            self.write(line)
        self._shown[seat] = len(lines)

    def _turn(self, seat: int) -> None:
        """Ask until one legal move (or an undo) has been made."""
        table = self.table
        self.write("")
        self.write(render_table(table.view_for(seat), table.names))
        prompt = _("mulligan> ") if table.state.stage == MULLIGAN else _("your move> ")
        if self.hotseat:
            prompt = f"{table.names[seat]}, {prompt}"
        start = table.version
        while True:
            line = self.read(prompt).strip()
            try:
                action = self._interpret(line)
            except NoReturnError as exc:  # a move that does not parse: said translated
                self.write(f"  {error_text(exc)}")
                continue
            if action is None:
                if table.version != start:
                    return  # an undo changed the game: show the table again
                continue
            problem = table.try_action(action)
            if problem is None:
                return
            self.write("  " + _("not allowed: {problem}").format(problem=problem))

    def _interpret(self, line: str) -> Action | None:
        """The action a line asks for, or ``None`` after answering a question."""
        word = command_word(line.split(maxsplit=1)[0].lower()) if line.split() else ""
        answer = self._question(word, line)
        if answer is not None:
            self.write(answer)
            return None
        if self.table.state.stage == MULLIGAN and (not line or word in ("keep", "none")):
            return Mulligan(())
        if is_number(line):  # a number from the list: a declaration asks first all the same
            action = self._numbered(line)
        elif self.table.state.stage == MULLIGAN and word != "mulligan":
            return Mulligan(tuple(map(mulligan_tile, line.split())))
        else:
            action = parse_action(line)
        if isinstance(action, Declare) and not self._confirm():
            return None
        return action

    def _question(self, word: str, line: str) -> str | None:
        """The answer to a line that asks rather than moves, or None for a move."""
        if word in ("quit", "exit", "q"):  # q: the full-screen game's key
            raise QuitError
        if word in ("help", "h"):
            return _(HELP)
        if word == "rules":
            return _(RULES_BRIEF)
        if word == "hint":
            action, reason = self.table.hint()
            return "  " + _("hint: {action}  ({reason})").format(action=action, reason=reason)
        if word == "switch":
            advice = self.table.switch_advice(worlds=self.advice_worlds).text()
            return "  " + _("switch: {advice}").format(advice=advice)
        if word == "undo":
            problem = self.table.undo()
            return "  " + (problem or _("undone: your move again (the bag is shuffled afresh)"))
        if word in ("tiles", "tracker"):
            return "\n".join(tracker_lines(self.table, self.table.state.to_move))
        if word == "?" or line.startswith("?"):
            return self._list(line[1:].strip())
        return None

    def _confirm(self) -> bool:
        """Whether the player confirms the declaration: y declares, n or Enter does not
        (and says so); anything else is asked again, not taken for a no (``undo`` typed
        there was swallowed without a word)."""
        while True:
            answer = self.read(_("declare phase 2? You can never place again. [y/N] "))
            if said_yes(answer):
                return True
            if said_no(answer):
                self.write(_("not declared: you are still in phase 1"))
                return False
            self.write(_("{answer}: answer y to declare, or n (or Enter) to stay in phase "
                         "1").format(answer=repr(answer.strip()[:40])))

    def _list(self, word: str) -> str:
        actions = self.table.legal_actions()
        shown = [(i, a) for i, a in enumerate(actions) if word.lower() in str(a)]
        lines = [f"  {i:4d}  {action}" for i, action in shown[:LIST_LIMIT]]
        if len(shown) > LIST_LIMIT:
            lines.append("  " + _("... {n} more: narrow the list, e.g. ? {example}").format(
                n=len(shown) - LIST_LIMIT, example=self._narrower()))
        return "\n".join(lines) or "  " + _("no move matches")

    def _narrower(self) -> str:
        """A filter of the move list that fits the moment: the kind of move most made now
        and a colour (``mulligan R``, ``place R``, ``score R``)."""
        state = self.table.state
        if state.stage == MULLIGAN:
            return "mulligan R"
        return "place R" if state.phases[state.to_move] == 1 else "score R"

    def _numbered(self, digits: str) -> Action:
        """The move numbered ``digits`` in the list ``?`` shows. A number too long for any
        list is refused by its length (``int`` of 5,000 digits raises, and costs)."""
        actions = self.table.legal_actions()
        number = int(digits) if len(digits) <= NUMBER_DIGITS else len(actions)
        if number >= len(actions):
            shown = digits if len(digits) <= NUMBER_DIGITS else digits[:NUMBER_DIGITS] + "..."
            raise NoReturnError(_("there is no move {number}: type ? to list them").format(
                number=shown))
        return actions[number]


def mulligan_tile(word: str) -> int:
    """A tile typed at the mulligan; a word that is none says what the prompt takes."""
    try:
        return parse_tile(word)
    except NoReturnError:
        raise NoReturnError(_(
            "'{word}' is not a tile: type tiles to set aside (R3 B5), Enter to keep, or "
            "help").format(word=word[:20])) from None


def tracker_lines(table: LocalTable, seat: int) -> list[str]:
    """The tile tracker as text: for each colour, the unseen count of every value."""
    unseen = table.unseen(seat)
    rules = table.rules
    lines = ["  " + _("unseen tiles ({n}), value:count").format(n=sum(unseen.values()))]
    for colour in range(rules.colors):
        tiles = [make_tile(colour, v) for v in range(rules.max_value, 0, -1)]
        lines.append("  " + " ".join(f"{tile_code(t)}:{unseen[t]}" for t in tiles))
    return lines


def run_plain(players: int = 2, name: str = "Ada", seed: int | None = None,
              stdin: TextIO | None = None, save_dir: Path | None = None,
              write: Callable[[str], None] = print, bots: Sequence[str] = (),
              hotseat: bool = False, rules: Rules | None = None,
              names: Sequence[str] = ()) -> int:
    """Play one plain game on standard input and output; returns the exit code."""
    seats = make_seats(players, list(names) or [name], bots, hotseat)
    table = LocalTable(seats, rules or Rules(players=players), seed, save_dir)
    return play_plain(table, stdin, write)


def said_yes(answer: str) -> bool:
    """Whether a y/N question was answered yes (in English or the reader's language)."""
    return answer.strip().lower() in ("y", "yes", _("y"), _("yes"))


def said_no(answer: str) -> bool:
    """Whether a y/N question was answered no, Enter alone included (in English or the
    reader's language)."""
    return answer.strip().lower() in ("", "n", "no", _("n"), _("no"))


def line_reader(stdin: TextIO | None, write: Callable[[str], None]) -> Callable[[str], str]:
    """``read(prompt)``: a line from ``stdin`` (the prompt written first; ``QuitError`` at
    its end), or from the terminal."""
    def read(prompt: str) -> str:
        if stdin is None:
            return input(prompt)
        write(prompt)
        line = stdin.readline()
        if not line:
            raise QuitError
        return line

    return read


def play_plain(table: LocalTable, stdin: TextIO | None = None,
               write: Callable[[str], None] = print) -> int:
    """Play ``table`` on text lines (``stdin``, or the terminal); saves the record at the end."""
    on_terminal = stdin is None and write is print and sys.stdout.isatty()
    try:
        PlainGame(table, line_reader(stdin, write), write,
                  clear=clear_terminal if on_terminal else None).run()
    except (QuitError, EOFError, KeyboardInterrupt):
        write(_("game stopped."))
    except Exception:
        write(save_report(table))  # a fault of ours must not take the game so far with it
        raise
    if table.is_over():
        write("\n".join([_("final scores:"), *(f"  {line}" for line in table.result_lines())]))
    write(save_report(table))
    return 0


def clear_terminal() -> None:
    """Wipe the terminal: the screen and its scrollback (``ESC [3J``, where the terminal
    knows it), so that a hot seat's next person cannot scroll back to a hand."""
    sys.stdout.write("\x1b[H\x1b[2J\x1b[3J")
    sys.stdout.flush()


def wants_again(table: LocalTable, stdin: TextIO | None = None,
                write: Callable[[str], None] = print) -> bool:
    """After a finished game: whether the players want another (same seats, new deal)."""
    if not table.is_over():
        return False
    try:
        answer = line_reader(stdin, write)(_("play again with the same players? [y/N] "))
    except (QuitError, EOFError, KeyboardInterrupt):
        return False
    return said_yes(answer)


def save_report(table: LocalTable) -> str:
    """Save the record and say where, and why elsewhere when its folder failed.

    When no folder at all takes it, the record itself is the answer, to keep by hand: a
    finished game is never lost to a path.
    """
    try:
        path = table.save()
    except OutputError as exc:
        return (f"{exc}\n" + _("the record, to keep as a .json file:")
                + f"\n{dumps(table.record())}")
    where = _("record saved: {path}  (see it again: noreturn replay {path})").format(path=path)
    return where if table.save_note is None else f"{table.save_note}; {where}"
