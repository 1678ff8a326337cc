"""``noreturn play``: seat the players, then the full-screen game or plain prompts.

The full-screen app needs a terminal on both ends; when input or output is a pipe or a
file (a script, a CI log) the same game is played with plain prompts instead, so a
command that works interactively also works in a script.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TextIO

from noreturn.engine import NoReturnError, Rules
from noreturn.table import LocalTable, make_seats
from noreturn.table.resume import resume_table
from noreturn.text.lang import _
from noreturn.text.refusals import error_text
from noreturn.tui.plain import play_plain, save_report, wants_again


def play_command(rules: Rules, names: Sequence[str], bots: Sequence[str], seed: int | None,
                 hotseat: bool = False, color: bool = True, plain: bool = False,
                 save_dir: Path | None = None, bot_delay: float = 0.6,
                 stdin: TextIO | None = None, stdout: TextIO | None = None,
                 write: Callable[[str], None] = print, resume: Path | None = None) -> int:
    """Play a game, and another with the same players and a new deal for as long as they
    ask for one at the end (full screen); returns the exit code (2 for a bad bot spec or
    seat list, or a record that cannot be resumed). ``resume``: the saved record of an
    unfinished game to go on with instead of a new one (its seats and rules)."""
    stdin, stdout = stdin or sys.stdin, stdout or sys.stdout
    try:
        if resume is not None:
            table = resume_table(resume, save_dir)
            rules = table.rules
            write(_("resuming {path} at turn {turn}").format(path=resume,
                                                             turn=table.state.turns + 1))
        else:
            table = LocalTable(make_seats(rules.players, names, bots, hotseat), rules, seed,
                               save_dir)
    except NoReturnError as exc:
        write(_("error: {problem}").format(problem=error_text(exc)))
        return 2
    if not plain and not (stdin.isatty() and stdout.isatty()):
        write(_("(not a terminal: playing with plain prompts; --plain says so explicitly)"))
        plain = True
    if plain:
        lines = None if stdin is sys.stdin else stdin
        while True:
            play_plain(table, lines, write)
            if not wants_again(table, lines, write):
                return 0
            table = LocalTable(table.seats, rules, None, save_dir)
    from noreturn.tui.app import run_tui  # noqa: PLC0415 - Textual loads only for this mode

    while True:
        _path, again = run_tui(table, bot_delay, color)
        write(save_report(table))  # again, to say where (or show the record if nowhere)
        if not again:
            return 0
        table = LocalTable(table.seats, rules, None, save_dir)
