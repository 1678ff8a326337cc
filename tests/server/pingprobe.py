"""A bystander at another table: how long its pings take while the server is under attack.

Every abuse test asks the same question: does one client's hostile traffic slow a table it
has nothing to do with? ``PingProbe`` answers it from outside, as a player would notice: it
starts a game of a person against a bot on a real ``noreturn serve`` process, keeps one
WebSocket open at that seat, and pings every ``every`` seconds from a thread of its own while
the test runs its attack. The figures are round trips from ``ping`` to ``pong``, in ms.
"""

from __future__ import annotations

import json
import statistics
import threading
import time
from types import TracebackType
from typing import Any

import httpx

PROBE_SEATS = [{"kind": "human", "name": "Bystander"}, {"kind": "bot", "level": "random"}]
PROBE_RULES = {"colors": 3, "max_value": 6, "copies": 2, "hand_size": 5, "exchange_limit": 3}
LIMIT_MS = 100.0
"""The bar of the abuse tests: a bystander's ping stays under this at the 99th percentile."""


def quantile(values: list[float], share: float) -> float:
    """The ``share`` quantile of ``values`` (nearest rank, the larger one on a tie)."""
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))]


class PingProbe:
    """Pings a table of its own on ``base`` (``http://host:port``) until closed.

    Use as a context manager around the attack; then read ``p99_ms`` and ``report()``.
    The probe's own table is created and started before the first ping, so table setup is
    never counted as latency.
    """

    def __init__(self, base: str, every: float = 0.02, timeout: float = 30.0) -> None:
        """``every``: the pause between a pong and the next ping. The default sends some 35
        messages a second, over the 20 a second the server allows a connection once its
        burst of 100 is spent (about 7 s): a probe that runs longer paces itself at 0.05 s
        (at most 20 a second), like a well-behaved player."""
        self.base = base
        self.every = every
        self.timeout = timeout
        self.round_trips_ms: list[float] = []
        self.problem: str | None = None
        self._stop = threading.Event()
        self._ready = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True, name="ping-probe")

    def __enter__(self) -> PingProbe:
        self._thread.start()
        if not self._ready.wait(self.timeout):
            raise TimeoutError(f"the ping probe found no table to ping within {self.timeout} s")
        if self.problem:
            raise RuntimeError(f"the ping probe could not start: {self.problem}")
        return self

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None,
                 trace: TracebackType | None) -> None:
        self._stop.set()
        self._thread.join(self.timeout + 5)

    def _table(self) -> tuple[str, str]:
        """A started table of its own: the WebSocket URL and the person's token."""
        created = httpx.post(f"{self.base}/api/tables", timeout=self.timeout,
                             json={"seats": PROBE_SEATS, "rules": PROBE_RULES})
        created.raise_for_status()
        data = created.json()
        table_id, token = data["table"]["id"], data["seat_links"][0]["token"]
        httpx.post(f"{self.base}/api/tables/{table_id}/start", json={"token": token},
                   timeout=self.timeout).raise_for_status()
        return self.base.replace("http", "ws", 1) + f"/ws/tables/{table_id}", token

    def _run(self) -> None:
        from websockets.sync.client import connect  # noqa: PLC0415 - a test dependency

        try:
            url, token = self._table()
            with connect(url) as ws:
                ws.send(json.dumps({"type": "hello", "token": token}))
                self._ready.set()
                while not self._stop.is_set():
                    began = time.monotonic()
                    ws.send(json.dumps({"type": "ping"}))
                    while self._answer(ws)["type"] != "pong":
                        pass
                    self.round_trips_ms.append((time.monotonic() - began) * 1000)
                    self._stop.wait(self.every)
        except Exception as exc:  # reported by the test that reads the probe
            self.problem = f"{type(exc).__name__}: {exc}"
        finally:
            self._ready.set()

    def _answer(self, ws: Any) -> dict[str, Any]:
        message: dict[str, Any] = json.loads(ws.recv(timeout=self.timeout))
        if message.get("type") == "error":
            raise RuntimeError(f"the probe's table answered an error: {message}")
        return message

    @property
    def p99_ms(self) -> float:
        """The 99th percentile of the round trips (infinite if there were none)."""
        return quantile(self.round_trips_ms, 0.99) if self.round_trips_ms else float("inf")

    def report(self) -> str:
        """One line for an assertion message: count, p50, p99, max, and any problem."""
        trips = self.round_trips_ms
        if not trips:
            return f"no pings answered ({self.problem or 'none sent'})"
        return (f"{len(trips)} pings: p50 {statistics.median(trips):.1f} ms, p99 "
                f"{self.p99_ms:.1f} ms, max {max(trips):.1f} ms"
                + (f"; stopped early: {self.problem}" if self.problem else ""))

    def check(self) -> None:
        """Fail unless the probe ran to the end and its p99 stayed under ``LIMIT_MS``."""
        assert self.problem is None, self.report()
        assert len(self.round_trips_ms) >= 10, self.report()
        assert self.p99_ms < LIMIT_MS, self.report()
