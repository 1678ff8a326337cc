"""Making a file or a folder read-only for a test, also as root.

``chmod`` does not stop root (and does not stop a connection that opened the file
before); the immutable attribute (``chattr +i``) stops every writer, root and open
descriptors included. So root uses ``chattr``, anyone else ``chmod``; where neither
takes effect the test is skipped.
"""

from __future__ import annotations

import os
import shutil
import stat
import subprocess
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from sqlalchemy import Engine


def _writable(path: Path) -> bool:
    """Whether this process can still write ``path`` (a file) or in it (a folder)."""
    try:
        if path.is_dir():
            with tempfile.TemporaryFile(dir=path):
                return True
        with path.open("r+b"):
            return True
    except OSError:
        return False


def _immutable(path: Path, on: bool) -> None:
    subprocess.run(["chattr", "+i" if on else "-i", str(path)], check=True,
                   capture_output=True)


@contextmanager
def read_only(path: Path, engine: Engine | None = None) -> Iterator[None]:
    """``path`` read-only for the block, writable again after it.

    ``engine``: its pooled connections are closed when ``chmod`` was used (they opened
    the file for writing before, and ``chmod`` does not stop them); ``chattr`` stops them
    as they are, which is the fault of a file turned read-only under a running server.
    """
    use_chattr = os.geteuid() == 0 and shutil.which("chattr") is not None
    mode = path.stat().st_mode
    try:
        if use_chattr:
            _immutable(path, True)
        else:
            path.chmod(mode & ~(stat.S_IWUSR | stat.S_IWGRP | stat.S_IWOTH))
    except (OSError, subprocess.CalledProcessError) as exc:
        pytest.skip(f"cannot make {path} read-only here: {exc}")
    try:
        if _writable(path):
            pytest.skip(f"{path} stays writable here: no way to make it read-only")
        if engine is not None and not use_chattr:
            engine.dispose()
        yield
    finally:
        if use_chattr:
            _immutable(path, False)
        else:
            path.chmod(mode)
