"""The bystander probe of the abuse tests (``pingprobe.py``) measures what it says."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from pingprobe import PingProbe, quantile
from srvkit import free_port, serving, spawn_serve, stop_process, wait_serving


@pytest.fixture
def server(tmp_path: Path) -> Iterator[str]:
    """``noreturn serve`` on SQLite; its URL."""
    with serving(f"sqlite:///{tmp_path / 'probe.db'}") as base:
        yield base


def test_quantile_takes_the_nearest_rank() -> None:
    values = [float(v) for v in range(1, 101)]
    assert quantile(values, 0.99) == 100.0
    assert quantile(values, 0.5) == 51.0
    assert quantile([3.0], 0.99) == 3.0


@pytest.mark.timing
def test_an_idle_server_answers_the_probe_well_under_the_limit(server: str) -> None:
    with PingProbe(server) as probe:
        time.sleep(1.5)
    print(probe.report())
    probe.check()
    assert len(probe.round_trips_ms) >= 20, probe.report()  # one ping every ~20 ms


def test_the_probe_reports_a_server_that_is_gone(tmp_path: Path) -> None:
    port = free_port()
    process = spawn_serve(port, f"sqlite:///{tmp_path / 'gone.db'}")
    base = f"http://127.0.0.1:{port}"
    try:
        wait_serving(base, process)
        with PingProbe(base, timeout=3) as probe:
            time.sleep(0.3)
            stop_process(process)
            time.sleep(0.5)
    finally:
        stop_process(process)
    assert probe.problem is not None
    with pytest.raises(AssertionError):
        probe.check()
