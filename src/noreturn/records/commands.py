"""The ``noreturn validate`` and ``noreturn replay`` commands, behind the thin CLI.

Output of ``validate``, one line per file, in the order given:

- ``OK <file> scores=[8, -3]``: a finished game, every event legal, the result right;
- ``OK <file> in progress: player 1 to move`` (or ``to draw 2 tiles``): a record without a
  result whose events are all legal so far;
- ``INVALID <file> event <i>: <reason> [<code>]``: the first offending event (``i`` is
  ``len(events)`` for a problem with the result);
- ``ERROR <file>: <reason>``: a file that cannot be read, is not JSON, or is not a record.

The exit code is 0 only when every file is OK, else 1. Both commands print plain lines
(no colours or wrapping) so that their output can be read by scripts and compared in tests.
``validate``'s lines are a format for programs and stay English; ``replay`` tells a game to
a person, in the reader's language (``--lang``, or the terminal's).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from noreturn.records.account import write_account
from noreturn.records.reader import RecordError, read_record
from noreturn.records.validate import Verdict, check_record
from noreturn.text.lang import _
from noreturn.text.refusals import error_text

Emit = Callable[[str], None]


def validate_command(files: list[Path], emit: Emit = print) -> int:
    """Check each record file and print one line per file; returns the exit code."""
    failures = 0
    for file in files:
        line, ok = validate_line(file)
        emit(line)
        failures += not ok
    return 0 if failures == 0 else 1


def validate_line(file: Path) -> tuple[str, bool]:
    """The ``validate`` line for one file, and whether the file is OK."""
    try:
        verdict = check_record(read_record(file))
    except RecordError as error:
        return f"ERROR {file}: {error}", False
    return _verdict_line(file, verdict), verdict.valid


def _verdict_line(file: Path, verdict: Verdict) -> str:
    if not verdict.valid:
        return f"INVALID {file} event {verdict.event}: {verdict.reason} [{verdict.code}]"
    if verdict.scores is None:
        return f"OK {file} {verdict.reason}"
    return f"OK {file} scores={list(verdict.scores)}"


def replay_command(file: Path, seat: int | None, emit: Emit = print) -> int:
    """Print the account of a recorded game; returns 0, or 1 for an invalid or unreadable one.

    With ``seat``, only what that seat could see. A bad ``seat`` gives exit code 2, like
    other wrong command-line arguments.
    """
    try:
        record = read_record(file)
    except RecordError as error:
        emit(_("ERROR {file}: {error}").format(file=file, error=error_text(error)))
        return 1
    players = len(record["players"])
    if seat is not None and not 0 <= seat < players:
        emit(_("ERROR --seat {seat}: this game has seats 0 to {last}").format(
            seat=seat, last=players - 1))
        return 2
    verdict = write_account(record, seat, emit)
    return 0 if verdict.valid else 1
