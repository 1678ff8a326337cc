"""The interpreter set for a long-running server: its garbage collector and its thread switches.

A server process runs its event loop beside worker threads (``workers.py``): bots that
think for seconds, service calls. Two of the interpreter's defaults suit a short script and
cost a server's players time: a full collection scans every live object, and a thread that
wants the interpreter lock waits up to 5 ms for each hand-over. Both are set while the app
runs (``interpreter_for_serving``, in the app's lifespan) and put back after, so apps
started one after another in one process (the tests) leave the interpreter as it was.
"""

from __future__ import annotations

import gc
import sys
from collections.abc import Iterator
from contextlib import contextmanager

FULL_COLLECTION_EVERY = 100
"""Collections of the garbage collector's middle generation between two full ones (the
interpreter's default: 10); see ``collector_for_serving``."""
YOUNG_COLLECTION_AFTER = 10_000
"""New container objects between two collections of the youngest generation (the
interpreter's default: 700); see ``collector_for_serving``."""


@contextmanager
def collector_for_serving() -> Iterator[None]:
    """The garbage collector set for a long-running server, put back as it was after.

    What exists at startup (the imported libraries: some hundred thousand objects) lives as
    long as the process: frozen, out of the collector's sight, a full collection no longer
    scans it. Under load (benchmarks/load.py) full collections paused every request for
    100-200 ms before, 25-110 ms after (the connections and games remain).

    Those remain because a full collection scans every live object: some 280 per WebSocket
    connection (the server stack's tasks, coroutines, queues), 70,000 with 250 people,
    50-100 ms on a slow machine. By default one comes every 10 collections of the middle
    generation (every 20-30 s under load); after ``FULL_COLLECTION_EVERY`` (every few
    minutes) the same pause reaches a tenth as many requests, while the young collections,
    which free most cyclic garbage, still run.

    Those come after ``YOUNG_COLLECTION_AFTER`` new objects instead of 700: a move makes
    some 170 actions for each legal list, so the young generation was collected several
    times a move, and the middle one (3-4 ms a pause here) every few moves. Measured in a
    30-s load run: 700 young and 64 middle collections, 0.46 s in all, against 288 and 26,
    0.22 s (most of what a young collection finds is gone by the time it looks).
    """
    young, middle, full = gc.get_threshold()
    gc.collect()
    gc.freeze()
    gc.set_threshold(YOUNG_COLLECTION_AFTER, middle, FULL_COLLECTION_EVERY)
    try:
        yield
    finally:
        gc.set_threshold(young, middle, full)
        gc.unfreeze()


SWITCH_SECONDS = 0.001
"""How long a thread may hold the interpreter lock while another waits for it (the
interpreter's default: 0.005); see ``switching_for_serving``."""


@contextmanager
def switching_for_serving() -> Iterator[None]:
    """Thread switches every ``SWITCH_SECONDS`` while the server runs, put back after.

    The event loop answers every player; a thinking bot (a search of seconds) and the
    service calls run in worker threads, and all share one interpreter lock. Each time the
    loop comes back from waiting on the network it must take the lock again, and waits up to
    the switch interval while a search holds it; a ping takes several such hand-overs. With
    12 tables of expert bots beside 30 of fast ones (tests/server/test_server_fairness.py,
    two cores, the search not compiled), a bystander's ping at another table took p50 12-14
    ms, p99 70-75 ms with the default 5 ms; with 1 ms p50 4 ms, p99 16-17 ms (0.5 ms: 11 ms;
    2 ms: 55 ms). A forced switch happens only when another thread waits for the lock, so a
    search alone loses nothing; beside the event loop it pays a few microseconds a switch.
    """
    before = sys.getswitchinterval()
    sys.setswitchinterval(SWITCH_SECONDS)
    try:
        yield
    finally:
        sys.setswitchinterval(before)


@contextmanager
def interpreter_for_serving() -> Iterator[None]:
    """The garbage collector and the thread switches set for serving (module docstring)."""
    with collector_for_serving(), switching_for_serving():
        yield


__all__ = ["FULL_COLLECTION_EVERY", "SWITCH_SECONDS", "YOUNG_COLLECTION_AFTER",
           "collector_for_serving", "interpreter_for_serving", "switching_for_serving"]
