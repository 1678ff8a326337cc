"""Where finished work goes: folders checked before the work starts, writes that fall back.

A game of an hour or a tournament of a night must never end in a traceback that loses it
over a path. So the commands check the folders they are given before any work
(``check_output_dir``: one clear line naming the problem and the fix), and write through an
``OutputDir``: when its folder fails anyway (it vanished or became unwritable meanwhile),
the file goes to a fallback folder in the user's data folder, else in the temporary folder,
and ``problem`` says why, so the command can tell where the work went.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Callable
from datetime import datetime
from pathlib import Path

from noreturn.engine import NoReturnError


class OutputError(NoReturnError):
    """A folder that cannot take the work: the message names the problem and the fix."""


def reason(exc: OSError | UnicodeError) -> str:
    """An operating-system error in a few words, without Python's class name (a host
    name the idna codec refuses is a ``UnicodeError``: its own words)."""
    return (exc.strerror if isinstance(exc, OSError) else None) or str(exc)


def check_output_dir(folder: Path) -> Path:
    """Make sure files can be written in ``folder``, creating it if missing; returns it.

    Raises:
        OutputError: ``folder`` is a file, lies under a file, or cannot be created or
            written in (the message says which, and what to do).
    """
    if folder.exists() and not folder.is_dir():
        raise OutputError(f"{folder} is a file, not a folder: give a folder "
                          "(it is created if missing)")
    try:
        folder.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryFile(dir=folder):
            pass
    except NotADirectoryError as exc:
        raise OutputError(f"cannot create the folder {folder}: part of that path is a "
                          "file; give a folder under a folder") from exc
    except OSError as exc:
        raise OutputError(f"cannot write in {folder} ({reason(exc)}): give a folder "
                          "you can write in") from exc
    return folder


def data_dir() -> Path:
    """The program's folder in the user's data folder: ``$XDG_DATA_HOME/noreturn``."""
    base = os.environ.get("XDG_DATA_HOME") or Path.home() / ".local" / "share"
    return Path(base) / "noreturn"


def fallback_dirs(kind: str) -> list[Path]:
    """Where work goes when its folder fails: a new folder in the user's data folder
    (``$XDG_DATA_HOME/noreturn/rescued``), else in the temporary folder."""
    name = f"{kind}-{datetime.now():%Y%m%d-%H%M%S}-{os.getpid()}"
    return [data_dir() / "rescued" / name,
            Path(tempfile.gettempdir()) / "noreturn" / name]


class OutputDir:
    """A folder for a command's files that falls back to another folder when it fails."""

    def __init__(self, folder: Path, kind: str) -> None:
        """Write into ``folder``; ``kind`` names a fallback folder (``games``, ...)."""
        self.folder = folder
        self.problem: str | None = None
        """Why the first folder failed, once files go to a fallback (``folder``)."""
        self._fallbacks = fallback_dirs(kind)

    def write(self, name: str, write: Callable[[Path], object]) -> Path:
        """Write the file ``name`` with ``write(path)``, in a fallback folder if need be.

        Raises:
            OutputError: no folder at all could take the file.
        """
        while True:
            target = self.folder / name
            try:
                self.folder.mkdir(parents=True, exist_ok=True)
                write(target)
                return target
            except OSError as exc:
                self._fall_back(exc)

    def free_name(self, stem: str, suffix: str) -> str:
        """``stem`` + ``suffix``, or ``stem-2`` + ``suffix`` and so on: a name no file in the
        folder has yet, so a second file of the same second never replaces the first."""
        taken = {p.name for p in self.folder.glob(f"{stem}*{suffix}")}
        return next(name for n in range(1, len(taken) + 2)
                    if (name := f"{stem}{f'-{n}' if n > 1 else ''}{suffix}") not in taken)

    def note(self, what: str) -> str:
        """Where ``what`` (the files written) went, and why when some went to a fallback."""
        if self.problem is None:
            return f"{what} in {self.folder}/"
        return f"{self.problem}: {what} from then on in {self.folder}/"

    def _fall_back(self, exc: OSError) -> None:
        """Move on to the next fallback folder, or give up when none is left."""
        failed = f"could not write in {self.folder} ({reason(exc)})"
        self.problem = self.problem or failed
        if not self._fallbacks:
            raise OutputError(f"{self.problem}, nor in a fallback folder: {failed}")
        self.folder = self._fallbacks.pop(0)
