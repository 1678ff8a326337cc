"""The local backend's worker processes: killed, a run leaves none behind."""

from __future__ import annotations

import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest

SCRIPT = '''
import os
import sys
import time
from pathlib import Path

from noreturn.sim.backends import run_local


def stay(task: int) -> int:
    Path(sys.argv[1], f"{os.getpid()}.pid").write_text("")
    time.sleep(120)  # a long game
    return task


if __name__ == "__main__":
    for _ in run_local(list(range(8)), stay, 2):
        pass
'''

PROC = Path("/proc")


def alive(pid: int) -> bool:
    """Whether process ``pid`` still runs (a zombie waiting to be reaped does not)."""
    try:
        state = (PROC / str(pid) / "stat").read_text().rsplit(")", 1)[1].split()[0]
    except (FileNotFoundError, ProcessLookupError):
        return False
    return state not in ("Z", "X")


def wait_for(condition: Callable[[], bool], seconds: float) -> bool:
    """Poll ``condition()`` until it holds or ``seconds`` pass; whether it held."""
    deadline = time.monotonic() + seconds
    while not condition() and time.monotonic() < deadline:
        time.sleep(0.1)
    return condition()


@pytest.mark.skipif(not PROC.is_dir(), reason="reads process states from /proc (Linux)")
def test_workers_leave_once_the_run_is_killed(tmp_path: Path) -> None:
    script = tmp_path / "run.py"
    script.write_text(SCRIPT)
    run = subprocess.Popen([sys.executable, str(script), str(tmp_path)])
    try:
        assert wait_for(lambda: len(list(tmp_path.glob("*.pid"))) == 2, 60)
        workers = [int(path.stem) for path in tmp_path.glob("*.pid")]
        assert all(alive(pid) for pid in workers)  # each in its first long task
    finally:
        run.kill()  # no chance to clean up, as with kill -9 or a CI timeout
        run.wait()
    assert wait_for(lambda: not any(alive(pid) for pid in workers), 15), workers
