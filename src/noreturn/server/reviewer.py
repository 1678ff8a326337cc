"""The server's reviewer: finished games reviewed in the background, one at a time.

A review is some seconds of CPU per decision played (``noreturn.analysis``); the server
must never make a move wait for one. So:

- the game's end only *offers* the table to a bounded queue (``offer``: never blocks; a
  full queue drops the offer with a line in the log, and the review is made when someone
  asks for it);
- one thread per process takes the tables in turn, claims each in the database
  (``reviews.ReviewStore.claim``: several processes never make the same review), and
  reviews it in a **child process** at a lowered priority (``os.nice(NICE)``), so the
  server's own process (its event loop and its interpreter lock) does none of that work,
  and the system gives the server's moves the CPU first;
- the child reviews on one core (``workers=1``) with a fixed budget of playouts per
  decision (``playouts``): the same game always gets the same review.

The child gets the record (which holds no seed: the deal is in it) and answers with the
review's JSON or one line saying why it failed; nothing of it is logged but the table id.
"""

from __future__ import annotations

import contextlib
import logging
import multiprocessing
import os
import queue
import threading
import time
from collections.abc import Callable
from multiprocessing.connection import Connection
from typing import Any, Protocol

from noreturn.server.reviews import ReviewStore

REVIEW_PLAYOUTS = 200
"""Playouts per decision by default (``noreturn serve --review-playouts``): as the
terminal's end screen reviews (``tui.review.REVIEW_PLAYOUTS``), against 500 for
``noreturn review``. A full two-player game: some 24 CPU seconds (docs/review.md)."""
QUEUE_SIZE = 32
"""Finished tables waiting for their review in one process; more are dropped (logged) and
reviewed when asked for."""
BOTS_ONLY_QUEUED = 4
"""Games of bots alone (reviewed only when asked for) waiting at once in one process; the
rest of the queue stays for the games people played, which go first: one client asking for
the reviews of bot tables it made must not hold up everyone's."""
NICE = 10
"""How much lower the child's priority is than the server's (``os.nice``)."""
TIMEOUT_SECONDS = 600.0
"""A review still running after this long is stopped and stored as failed."""
HEARTBEAT_SECONDS = 30.0
"""How often the reviewer renews its claim on the review under way (``reviews.CLAIM_SECONDS``
without one, and another process takes it over)."""
ORPHAN_CHECK_SECONDS = 0.5
"""How often a review's child looks whether its server is still alive."""

log = logging.getLogger("noreturn.server")


class StoppedError(Exception):
    """The reviewer stops (the server shuts down): the review under way is abandoned."""


class ChildLostError(Exception):
    """The review's process died or could not start (killed, out of memory): nothing is
    wrong with the game, so the claim is released and the next request tries again."""


class ReviewRunner(Protocol):
    """Makes one review: the record, the playouts per decision, an event that asks it to
    stop (``StoppedError``); returns the review's JSON or raises ``RuntimeError`` with why
    (``ChildLostError`` when the game is not to blame)."""

    def __call__(self, record: dict[str, Any], playouts: int,
                 stop: threading.Event) -> dict[str, Any]: ...


def _review_child(record: dict[str, Any], playouts: int, answer: Connection,
                  parent: int) -> None:
    """The child process: lower its priority, review every seat on one core, answer.

    It ends itself if its server dies (killed, so it could not end the child): a daemon
    child outlives a parent that never exits normally, and would spend its CPU on a review
    nobody stores."""
    with contextlib.suppress(AttributeError, OSError):  # no nice on this system
        os.nice(NICE)
    threading.Thread(target=_end_when_orphaned, args=(parent,), daemon=True).start()
    try:
        from noreturn.analysis import Budget, review_record  # noqa: PLC0415 - child only
        from noreturn.analysis.report import review_json  # noqa: PLC0415

        review = review_record(record, None, budget=Budget(playouts=playouts), workers=1)
        answer.send((True, review_json(review)))
    except Exception as exc:  # the parent stores the reason as the review's failure
        answer.send((False, f"{type(exc).__name__}: {exc}"))
    finally:
        answer.close()


def _end_when_orphaned(parent: int) -> None:
    """Exit the process at once when ``parent`` is no longer its parent."""
    while os.getppid() == parent:
        time.sleep(ORPHAN_CHECK_SECONDS)
    os._exit(3)


def review_in_child(record: dict[str, Any], playouts: int,
                    stop: threading.Event) -> dict[str, Any]:
    """Review ``record`` in a new child process (spawned: nothing of the server's state
    is inherited), waiting for it without holding the interpreter lock.

    Raises:
        StoppedError: ``stop`` was set; the child is ended.
        ChildLostError: the child died without an answer.
        RuntimeError: the review failed (the child said why), or it ran past
            ``TIMEOUT_SECONDS`` (with a fixed budget it would again).
    """
    context = multiprocessing.get_context("spawn")
    mine, theirs = context.Pipe(duplex=False)
    child = context.Process(target=_review_child,
                            args=(record, playouts, theirs, os.getpid()),
                            name="noreturn-review", daemon=True)
    child.start()
    theirs.close()
    deadline = time.monotonic() + TIMEOUT_SECONDS
    try:
        while not mine.poll(0.1):
            if stop.is_set():
                raise StoppedError
            if not child.is_alive() and not mine.poll(0):
                raise ChildLostError(f"the review process ended with code "
                                     f"{child.exitcode} without an answer")
            if time.monotonic() > deadline:
                raise RuntimeError(f"the review took more than {TIMEOUT_SECONDS:g} s")
        try:
            ok, payload = mine.recv()
        except EOFError:
            raise ChildLostError("the review process ended without an answer") from None
        if not ok:
            raise RuntimeError(str(payload))
        return dict(payload)
    finally:
        mine.close()
        if child.is_alive():
            child.terminate()
        child.join(5)
        if child.is_alive():  # pragma: no cover - ignored SIGTERM
            child.kill()
            child.join(5)


class Reviewer:
    """One process's queue of finished tables to review, and the thread that works it."""

    def __init__(self, store: ReviewStore, playouts: int, queue_size: int = QUEUE_SIZE,
                 runner: ReviewRunner = review_in_child) -> None:
        self.store = store
        self.playouts = playouts
        self.runner = runner
        self.heartbeat_seconds = HEARTBEAT_SECONDS
        self.events: list[str] = []
        """What the worker did, in order (``claimed ID``, ``reviewed ID``, ...): for tests
        and tools; the last 100 are kept."""
        self.listeners: list[Callable[[str], None]] = []
        self._queue: queue.PriorityQueue[tuple[int, int, str | None]] = \
            queue.PriorityQueue(queue_size)
        """(0 for a game a person played, 1 for bots alone; the order offered; the table)."""
        self._offered = 0
        self._here: set[str] = set()
        self._bots_only: set[str] = set()
        self._guard = threading.Lock()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def start(self) -> None:
        """Start the worker thread (the server's start-up)."""
        if self._thread is None:
            self._stop.clear()
            self._thread = threading.Thread(target=self._work, name="noreturn-reviewer",
                                            daemon=True)
            self._thread.start()

    def stop(self, timeout: float = 10.0) -> None:
        """Stop the worker: the review under way is abandoned (its child ended, its claim
        released), the queue dropped. Blocks up to ``timeout`` seconds: call it from a
        thread, or at shutdown."""
        self._stop.set()
        with contextlib.suppress(queue.Full):  # the worker sees the flag after its table
            self._queue.put_nowait((-1, 0, None))
        if self._thread is not None:
            self._thread.join(timeout)
            self._thread = None
        with self._guard:
            self._here.clear()
            self._bots_only.clear()

    def offer(self, table_id: str, people: bool = True) -> bool:
        """Queue ``table_id`` for its review; never blocks. False if the queue is full (the
        review is then made when someone asks for it) or the reviewer stopped; for a game
        of bots alone (``people`` False), also when ``BOTS_ONLY_QUEUED`` such games wait."""
        with self._guard:
            if table_id in self._here:
                return True
            if self._stop.is_set():
                return False
            if not people and len(self._bots_only) >= BOTS_ONLY_QUEUED:
                return False
            try:
                self._offered += 1
                self._queue.put_nowait((0 if people else 1, self._offered, table_id))
            except queue.Full:
                log.warning("review queue full (%d tables wait): table %s is reviewed when "
                            "its review is asked for", self._queue.maxsize, table_id)
                return False
            self._here.add(table_id)
            if not people:
                self._bots_only.add(table_id)
        return True

    def busy_with(self, table_id: str) -> bool:
        """Whether this process has ``table_id`` queued or under review."""
        with self._guard:
            return table_id in self._here

    def _note(self, event: str) -> None:
        with self._guard:
            self.events = [*self.events[-99:], event]
        for listener in self.listeners:
            listener(event)

    def _work(self) -> None:
        """The worker thread: one table at a time until stopped."""
        while not self._stop.is_set():
            _first, _order, table_id = self._queue.get()
            if table_id is None:
                break
            try:
                record = self.store.claim(table_id)
                if record is None:  # reviewed, claimed by another process, not finished
                    self._note(f"skipped {table_id}")
                    continue
                self._note(f"claimed {table_id}")
                try:
                    self._review(table_id, record)
                except StoppedError:
                    self._quietly(self.store.release, table_id)
                    break
                except Exception:  # the database away, say: the claim is given back
                    log.exception("the review of table %s failed to run", table_id)
                    self._quietly(self.store.release, table_id)
            except Exception:  # the claim itself failed: another request queues it again
                log.exception("could not claim the review of table %s", table_id)
            finally:
                with self._guard:
                    self._here.discard(table_id)
                    self._bots_only.discard(table_id)

    def _review(self, table_id: str, record: dict[str, Any]) -> None:
        """Review the claimed ``table_id`` and store the review (or why it failed)."""
        started = time.monotonic()
        done = threading.Event()
        heartbeat = threading.Thread(target=self._renew, args=(table_id, done),
                                     name="noreturn-review-claim", daemon=True)
        heartbeat.start()
        try:
            review = self.runner(record, self.playouts, self._stop)
        except ChildLostError as exc:
            log.warning("the review of table %s is given up for now: %s", table_id, exc)
            self.store.release(table_id)
            self._note(f"lost {table_id}")
            return
        except RuntimeError as exc:
            log.warning("the review of table %s failed: %s", table_id, exc)
            self.store.fail(table_id, str(exc))
            self._note(f"failed {table_id}")
            return
        finally:
            done.set()
            heartbeat.join()
        self.store.finish(table_id, review)
        log.info("table %s reviewed in %.1f s (%d playouts a decision)", table_id,
                 time.monotonic() - started, self.playouts)
        self._note(f"reviewed {table_id}")

    def _renew(self, table_id: str, done: threading.Event) -> None:
        """Renew the claim on ``table_id`` every ``HEARTBEAT_SECONDS`` until ``done``."""
        while not done.wait(self.heartbeat_seconds):
            try:
                self.store.renew(table_id)
            except Exception:  # the database away: the claim may go stale; tried again
                log.warning("could not renew the review claim of table %s", table_id)

    @staticmethod
    def _quietly(call: Callable[[str], None], table_id: str) -> None:
        try:
            call(table_id)
        except Exception:  # the database is away: the claim goes stale and is taken over
            log.warning("could not release the review claim of table %s", table_id)


__all__ = ["HEARTBEAT_SECONDS", "NICE", "QUEUE_SIZE", "REVIEW_PLAYOUTS", "TIMEOUT_SECONDS",
           "ChildLostError", "ReviewRunner", "Reviewer", "StoppedError", "review_in_child"]
