"""A child program behind two threads, so that it can never block the host.

The external bots' plumbing (``external.py`` speaks the protocol over it): the program's
output is read by one thread into a queue and its input written by another, so a program
that hangs or stops reading cannot stall the caller; every wait has a deadline. On POSIX the
program runs in its own process group and ``close`` kills the whole group, so helpers it
started die with it.
"""

from __future__ import annotations

import contextlib
import json
import os
import queue
import signal
import subprocess
import threading
import time
from collections.abc import Sequence
from pathlib import Path
from typing import IO, Any

from noreturn.bots.base import BotError

MAX_LINE = 1 << 20
"""Longest line (bytes) the host reads from a program; a longer one is garbage."""


class Channel:
    """One running program: its process, a reader thread and a writer thread."""

    def __init__(self, command: Sequence[str], log_path: str | None) -> None:
        """Start ``command``; its stderr is appended to ``log_path`` or discarded.

        Raises:
            BotError: the program cannot be started.
        """
        try:  # the file is closed below, once the child holds its own copy
            err: IO[bytes] | int = open(log_path, "ab") if log_path else subprocess.DEVNULL  # noqa: SIM115
        except OSError as exc:
            raise BotError(f"cannot open the bot's log file: {exc}") from exc
        try:
            self.proc = subprocess.Popen(
                list(command), stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=err,
                start_new_session=os.name == "posix",
            )
        except OSError as exc:
            # the program's file name and the system's reason, never the command line or
            # its paths: the reason is shown to every player (docs/bot-protocol.md)
            program = Path(command[0]).name if command else ""
            raise BotError(f"could not start {program!r}: {exc.strerror or type(exc).__name__}"
                           ) from exc
        finally:
            if not isinstance(err, int):
                err.close()
        assert self.proc.stdin is not None and self.proc.stdout is not None  # PIPE above
        self.lines: queue.Queue[bytes | None] = queue.Queue()
        self.outbox: queue.Queue[bytes | None] = queue.Queue()
        self.closed = False
        self.reader = threading.Thread(target=_read, args=(self.proc.stdout, self.lines),
                                       daemon=True, name=f"bot-{self.proc.pid}-out")
        self.writer = threading.Thread(target=_write, args=(self.proc.stdin, self.outbox),
                                       daemon=True, name=f"bot-{self.proc.pid}-in")
        self.reader.start()
        self.writer.start()

    def send(self, message: dict[str, Any]) -> None:
        """Queue one message as a JSON line (ASCII, so any reader's encoding copes)."""
        self.outbox.put(json.dumps(message, separators=(",", ":")).encode() + b"\n")

    def exit_status(self, wait: float) -> int | None:
        """The exit code once the process ends within ``wait`` s (negative: killed by a signal).

        The process is not reaped, so its id cannot be reused before ``close`` kills its group.
        """
        deadline = time.monotonic() + wait
        while True:
            status = _peek_exit(self.proc)
            if status is not None or time.monotonic() >= deadline:
                return status
            time.sleep(0.01)

    def close(self, grace: float) -> None:
        """Close the input, give the program ``grace`` s to exit, then kill it; idempotent."""
        if self.closed:
            return
        self.closed = True
        self.outbox.put(None)
        self.exit_status(grace)
        _kill(self.proc)
        self.proc.wait()
        # The threads close their own streams: closing one here would wait for the lock a
        # blocked thread holds, for as long as an escaped helper keeps the pipe open.
        self.reader.join(timeout=0.5)
        self.writer.join(timeout=0.5)


def _read(stream: IO[bytes], lines: queue.Queue[bytes | None]) -> None:
    """Thread: put each line of the program's output in ``lines``; ``None`` at the end."""
    try:
        while line := stream.readline(MAX_LINE + 1):
            lines.put(line)
            if len(line) > MAX_LINE:
                break
    except (OSError, ValueError):
        pass  # the stream broke: the end, like EOF
    finally:
        lines.put(None)
        with contextlib.suppress(OSError):
            stream.close()


def _write(stream: IO[bytes], outbox: queue.Queue[bytes | None]) -> None:
    """Thread: write queued lines to the program's input; ``None`` closes it."""
    try:
        while (data := outbox.get()) is not None:
            stream.write(data)
            stream.flush()
    except (OSError, ValueError):
        pass  # the program is gone; the reader sees the end and reports it
    finally:
        with contextlib.suppress(OSError):
            stream.close()


def _peek_exit(proc: subprocess.Popen[bytes]) -> int | None:
    """The exit code if ``proc`` has ended, without reaping it on POSIX; else None."""
    if proc.returncode is not None:
        return proc.returncode
    if not hasattr(os, "waitid"):
        return proc.poll()
    try:
        info = os.waitid(os.P_PID, proc.pid, os.WEXITED | os.WNOHANG | os.WNOWAIT)
    except ChildProcessError:
        return proc.poll()
    if info is None:
        return None
    return info.si_status if info.si_code == os.CLD_EXITED else -info.si_status


def _kill(proc: subprocess.Popen[bytes]) -> None:
    """Kill the program and, on POSIX, every process left in its group."""
    if os.name == "posix":
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(proc.pid, signal.SIGKILL)
    if proc.returncode is None:
        with contextlib.suppress(ProcessLookupError):
            proc.kill()
