"""Attacks on a fresh ``noreturn serve``, and how another table's pings fare meanwhile.

    python benchmarks/abuse.py [--seconds 3] [--db sqlite:///PATH] [--json]

It starts one ``noreturn serve`` (default options, no bot delay, a temporary SQLite file
unless ``--db``), then for each attack of ``tests/server/attacks.py`` (1 MB, 10 MB and
chunked 10 MB request bodies, 2,001-level messages and hellos, 300 sockets from one address,
100 spectators sending ``check`` within their own rate, a failed-hello flood) runs it for
``--seconds`` from a loopback address of its own while a bystander (``PingProbe``) pings a
table of its own every 20 ms from ``127.0.0.1``. First a quiet run of the same length, for
comparison. It prints, per run, the bystander's ping round trip (p50, p99, max, in ms) and
what the attacker got back (HTTP statuses, error codes, close codes).

The probe and the attacks are the abuse tests' (tests/server/test_server_abuse.py, which
asserts p99 < 100 ms for each): they are test helpers first, so this script imports them
from ``tests/server`` rather than the tests importing a benchmark. Bounded: each run lasts
``--seconds`` plus set-up, the server is stopped at the end.
"""

from __future__ import annotations

import argparse
import itertools
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "server"))
# the probe, the attacks and the server helpers live with the abuse tests

from attacks import ATTACKS, run_attack
from pingprobe import PingProbe, quantile
from srvkit import free_port, spawn_serve, stop_process, wait_serving


def measure(base: str, name: str, seconds: float, source: str) -> dict[str, Any]:
    """One run: ``name`` (or ``quiet``: no attack) under the probe; its figures."""
    with PingProbe(base) as probe:
        if name == "quiet":
            time.sleep(seconds)
            counts: dict[str, int] = {}
        else:
            try:
                counts = run_attack(name, base, seconds, source)
            except RuntimeError as exc:  # the server broke the attacker's connection
                counts = {f"attack failed: {str(exc).strip().splitlines()[-1][:100]}": 1}
    trips = probe.round_trips_ms
    return {"attack": name, "pings": len(trips),
            "p50_ms": round(statistics.median(trips), 1) if trips else None,
            "p99_ms": round(quantile(trips, 0.99), 1) if trips else None,
            "max_ms": round(max(trips), 1) if trips else None,
            "problem": probe.problem, "attacker_got": counts}


def show(row: dict[str, Any]) -> str:
    """One line of the table."""
    got = ", ".join(f"{k} {v}" for k, v in sorted(row["attacker_got"].items())) or "-"
    return (f"{row['attack']:<18} {row['pings']:>6} {row['p50_ms']:>8} {row['p99_ms']:>8} "
            f"{row['max_ms']:>8}   {got}" + (f"  PROBE: {row['problem']}" if row["problem"]
                                              else ""))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=3.0, help="length of each attack")
    parser.add_argument("--db", help="database URL (default: a temporary SQLite file)")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        port = free_port()
        db = args.db or f"sqlite:///{Path(folder) / 'abuse.db'}"
        with (Path(folder) / "serve.log").open("w") as log:
            process = spawn_serve(port, db, output=log)
            base = f"http://127.0.0.1:{port}"
            try:
                wait_serving(base, process)
                sources = (f"127.0.0.{n}" for n in itertools.count(2))
                rows = [measure(base, name, args.seconds, next(sources))
                        for name in ["quiet", *ATTACKS]]
            finally:
                stop_process(process)
        tracebacks = (Path(folder) / "serve.log").read_text().count("Traceback")
    if args.json:
        print(json.dumps({"runs": rows, "server_tracebacks": tracebacks}, indent=1))
        return
    print(f"bystander's ping during each {args.seconds:g}-s attack (ms); "
          f"server tracebacks: {tracebacks}")
    print(f"{'attack':<18} {'pings':>6} {'p50':>8} {'p99':>8} {'max':>8}   attacker got")
    for row in rows:
        print(show(row))


if __name__ == "__main__":
    main()
