"""Attacks on a real ``noreturn serve`` (default options) while a bystander plays elsewhere.

Each attack (``attacks.py``) runs for a few seconds from a loopback address of its own, in a
child process, while ``PingProbe`` pings a table of its own from ``127.0.0.1``: its p99 must
stay under 100 ms, the attacker must get the documented answers (docs/server-protocol.md,
"Limits"), and the server's log must hold no traceback.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from pathlib import Path

import pytest
from attacks import run_attack
from pingprobe import PingProbe
from srvkit import free_port, spawn_serve, stop_process, wait_serving

SECONDS = 3.0
SOCKET_LIMIT = 64
"""``noreturn serve``'s default ``--socket-limit``."""
FAILED_HELLO_LIMIT = 30
"""``noreturn serve``'s default ``--failed-hello-limit`` (per minute, all at once)."""
pytestmark = pytest.mark.timing  # the bystander's p99: run alone (pyproject.toml)
_addresses = (f"127.0.0.{n}" for n in itertools.count(2))


class Served:
    """The server under attack: its URL and how much of its log the last check read."""

    def __init__(self, base: str, log: Path) -> None:
        self.base = base
        self.log = log
        self._read = 0

    def new_log(self) -> str:
        """What the server logged since the last call."""
        text = self.log.read_text()
        new, self._read = text[self._read:], len(text)
        return new


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    folder = tmp_path_factory.mktemp("abuse")
    port = free_port()
    with (folder / "serve.log").open("w") as log:
        process = spawn_serve(port, f"sqlite:///{folder / 'abuse.db'}", output=log)
        base = f"http://127.0.0.1:{port}"
        try:
            wait_serving(base, process)
            yield Served(base, folder / "serve.log")
        finally:
            stop_process(process)


def attacked(served: Served, attack: str) -> dict[str, int]:
    """Run ``attack`` under the probe; check the probe and the log; the attack's counts."""
    served.new_log()
    with PingProbe(served.base) as probe:
        counts = run_attack(attack, served.base, SECONDS, next(_addresses))
    report = f"{attack}: {probe.report()}; attacker got {counts}"
    print(report)
    probe.check()
    assert "Traceback" not in served.new_log(), report
    return counts


@pytest.mark.parametrize("attack", ["body-1mb", "body-10mb", "body-10mb-chunked"])
def test_big_bodies_get_413_and_leave_other_tables_alone(served: Served, attack: str) -> None:
    counts = attacked(served, attack)
    assert counts.get("413", 0) >= 1, counts
    assert set(counts) <= {"413", "WriteError", "RemoteProtocolError", "ReadError"}, counts


def test_deep_nesting_is_malformed_without_a_traceback(served: Served) -> None:
    counts = attacked(served, "deep-nesting")
    assert counts.get("malformed", 0) >= 10 and counts.get("close 4400", 0) >= 5, counts
    assert counts.get("pong", 0) >= 1, counts  # a spectator's socket stayed usable
    assert "dropped" not in counts and "close 1011" not in counts, counts


def test_hundreds_of_sockets_from_one_address_are_capped(served: Served) -> None:
    counts = attacked(served, "many-sockets")
    assert counts.get("held", 0) == SOCKET_LIMIT, counts
    assert counts.get("too_many_connections", 0) == 300 - SOCKET_LIMIT, counts
    assert counts.get("close 1013", 0) == 300 - SOCKET_LIMIT, counts


def test_a_spectator_check_flood_is_refused_cheaply(served: Served) -> None:
    counts = attacked(served, "spectator-checks")
    assert counts.get("spectator", 0) >= SOCKET_LIMIT, counts  # each watcher was told
    assert counts.get("too_many_connections", 0) == 100 - SOCKET_LIMIT, counts
    assert "check" not in counts, counts


def test_a_failed_hello_flood_is_cut_off(served: Served) -> None:
    counts = attacked(served, "failed-hellos")
    # At most the limit, the hellos under way when it was reached (10 at a time) and the
    # refill (one every 2 s).
    assert counts.get("bad_token", 0) <= FAILED_HELLO_LIMIT + 10 + 2, counts
    assert counts.get("too_many_failed_hellos", 0) >= 10 * FAILED_HELLO_LIMIT, counts
    assert counts.get("too_many_failed_hellos") == counts.get("close 1013"), counts
