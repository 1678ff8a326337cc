"""Where tournament games run: this machine's cores, or a Ray cluster.

A backend takes picklable tasks and a module-level function, and yields the function's
results as they finish, in any order; the caller sorts them. Keeping the backends ignorant
of what a task is lets the local pool and Ray run exactly the same work, which is what makes
their results identical.

* ``local``: a ``ProcessPoolExecutor`` with the ``spawn`` start method (safe beside the
  progress bar's thread, and the same on every platform), one game per submitted task so
  progress moves game by game, with a bounded window of tasks in flight. One worker runs
  in-process, which is the easy case to debug. A worker whose parent is gone (the run
  killed, not stopped: ``kill``, a CI timeout) exits within a second
  (``_leave_with_parent``), rather than play out the games queued for it.
* ``ray``: one remote task per chunk of games (Ray's per-task overhead is larger than a fast
  game), on a local Ray instance or on the cluster at ``address``. Ray is imported only here
  and only when chosen, as it is an optional extra. Every node must have ``noreturn``
  installed, as the workers import it to play.
"""

from __future__ import annotations

import importlib
import logging
import math
import multiprocessing
import os
import socket
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from itertools import islice
from types import ModuleType
from typing import Any, TypeVar

from noreturn.engine import NoReturnError, shortened
from noreturn.files import reason

T = TypeVar("T")
R = TypeVar("R")

PARENT_CHECK_SECONDS = 1.0
"""How often a local worker looks whether the process that started it still lives."""

WINDOW_PER_WORKER = 4
"""Local tasks in flight per worker: enough to keep workers busy, few enough to stop fast."""

CHUNKS_PER_CPU = 4
MAX_CHUNK = 32
PER_CORE = 4
"""Worker processes a core may be given (``--workers``): more would only share the cores,
each holding its own bots, and ``--workers 100000`` started one process per game."""
REACH_SECONDS = 5.0
"""How long a Ray address may take to accept a connection before it is called unreachable."""
GRPC_ANSWER_SECONDS = 2.0
"""How long the service at a Ray address may take to answer HTTP/2's opening."""
HTTP2_OPENING = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n" + bytes((0, 0, 0, 4, 0, 0, 0, 0, 0))
"""An HTTP/2 client's connection preface and an empty SETTINGS frame (RFC 9113, 3.4)."""
MAYBE_RAY_FIRST_BYTES = frozenset({0x00, *range(0x14, 0x19)})
"""The first bytes of an answer that may come from a Ray head: an HTTP/2 frame (its length's
high byte, 0 for a server's first SETTINGS frame) or a TLS record (content types 20-24,
a head with TLS refusing a client without it)."""


class BackendError(NoReturnError):
    """A backend cannot run: Ray missing, or a cluster that cannot be reached."""


def execute(
    tasks: Sequence[T], fn: Callable[[T], R], backend: str = "local", workers: int = 1,
    address: str | None = None,
) -> Iterator[R]:
    """``fn(task)`` for every task, yielded as each finishes (in no particular order)."""
    if backend == "ray":
        return run_ray(tasks, fn, workers, address)
    return run_local(tasks, fn, workers)


def processes(workers: int, tasks: int, backend: str = "local") -> int:
    """The worker processes ``execute`` runs ``tasks`` tasks in with ``workers`` asked for:
    on this machine never more than the tasks (``--workers 8`` with two games runs two),
    and one, this process, for a single task; on Ray at most what was asked for, and never
    more than the tasks either (how many CPUs a cluster lends is Ray's to say)."""
    if backend == "ray":
        return max(1, min(workers, tasks))
    return 1 if workers <= 1 or tasks <= 1 else min(workers, tasks)


def workers_problem(workers: int | None, backend: str = "local",
                    address: str | None = None) -> str | None:
    """Why ``workers`` processes are too many for this machine (``PER_CORE`` a core), or
    None; None is "every core". A Ray cluster at ``address`` runs on its own CPUs, and
    ``workers`` is not used there; an ``address`` without Ray would be dropped unused."""
    if backend == "ray" and address:
        return None
    if address:
        return (f"--address {address} names a Ray cluster, which only --backend ray joins: "
                "add --backend ray, or leave --address out")
    cores = os.cpu_count() or 1
    if workers is not None and workers > PER_CORE * cores:
        return (f"--workers {workers}: at most {PER_CORE * cores} on this machine ({cores} "
                f"cores, {PER_CORE} processes each); more would only share the cores")
    return None


def run_local(tasks: Sequence[T], fn: Callable[[T], R], workers: int) -> Iterator[R]:
    """Run on this machine's cores; ``workers == 1`` runs in this process."""
    if (count := processes(workers, len(tasks))) == 1:
        yield from map(fn, tasks)
        return
    context = multiprocessing.get_context("spawn")
    with ProcessPoolExecutor(count, mp_context=context,
                             initializer=_leave_with_parent, initargs=(os.getpid(),)) as pool:
        try:
            yield from _windowed(pool, tasks, fn, workers * WINDOW_PER_WORKER)
        except BaseException:  # an error, Ctrl-C or an abandoned generator: stop the rest
            pool.shutdown(wait=False, cancel_futures=True)
            raise


def _leave_with_parent(parent: int) -> None:
    """In a local worker: a daemon thread that ends the worker once ``parent`` is gone.

    Stopped with Ctrl-C or an error, the pool cancels its work (``run_local``); killed, the
    parent can clean up nothing, and a worker would play on every game already queued for
    it, expert games of minutes each, for half an hour (seen on 2026-12-06). Once the
    parent dies the worker's parent is another process, which this thread notices."""
    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(PARENT_CHECK_SECONDS)
        os._exit(1)  # no cleanup to wait for: the results have no one to go to
    threading.Thread(target=watch, name="leave-with-parent", daemon=True).start()


def _windowed(
    pool: ProcessPoolExecutor, tasks: Sequence[T], fn: Callable[[T], R], window: int
) -> Iterator[R]:
    """Keep at most ``window`` tasks submitted; yield results as they come."""
    queue = iter(tasks)
    pending: set[Future[R]] = {pool.submit(fn, task) for task in islice(queue, window)}
    while pending:
        done, pending = wait(pending, return_when=FIRST_COMPLETED)
        for future in done:
            yield future.result()
            task = next(queue, None)
            if task is not None:
                pending.add(pool.submit(fn, task))


def run_ray(
    tasks: Sequence[T], fn: Callable[[T], R], workers: int, address: str | None
) -> Iterator[R]:
    """Run on Ray: the running instance, the cluster at ``address``, or a new local one."""
    ray = import_ray()
    started = not ray.is_initialized()
    if started:
        _init_ray(ray, workers, address)
    try:
        remote = ray.remote(run_chunk)
        cpus = max(1, int(ray.cluster_resources().get("CPU", 1)))
        size = chunk_size(len(tasks), cpus)
        pending = [remote.remote(fn, tasks[i:i + size]) for i in range(0, len(tasks), size)]
        while pending:
            done, pending = ray.wait(pending, num_returns=1)
            for ref in done:
                yield from ray.get(ref)
    finally:
        if started:
            ray.shutdown()


def import_ray() -> ModuleType:
    """The ``ray`` module, or a clear error saying how to install it.

    Raises:
        BackendError: Ray is not installed.
    """
    try:
        return importlib.import_module("ray")
    except ImportError as exc:
        raise BackendError("the Ray backend needs Ray: pip install 'noreturn[ray]'") from exc


def unreachable(address: str, timeout: float = REACH_SECONDS) -> str | None:
    """Why nothing can be joined at ``address`` (a Ray head's ``HOST:PORT``, or a Ray
    Client's ``ray://HOST:PORT``), or None: it accepts a connection and may be a Ray head
    (``_not_grpc``), or it is one of the words Ray resolves itself (``auto``, ``local``).

    ``ray.init`` retries an address that does not answer for minutes, printing warnings; a
    connection tried first says in seconds what is wrong."""
    if address in ("auto", "local"):
        return None
    host, colon, port = address.removeprefix("ray://").rpartition(":")
    if not (colon and host and port.isdecimal() and len(port) <= 5 and 0 < int(port) < 65536):
        return ("not HOST:PORT (a head's 10.0.0.5:6379, a Ray Client's "
                "ray://10.0.0.5:10001, or auto)")
    try:
        with socket.create_connection((host.strip("[]"), int(port)), timeout=timeout) as link:
            return _not_grpc(link)
    except (OSError, UnicodeError) as exc:  # a host name of a thousand letters: UnicodeError
        return f"nothing answers there ({reason(exc) or type(exc).__name__})"


def _not_grpc(link: socket.socket) -> str | None:
    """Why the service on ``link`` is no Ray head, or None: it may be one.

    A head (and a Ray Client server) speaks gRPC, over HTTP/2, whose server answers the
    client's opening with a binary frame; ``ray.init`` at another service's port, Redis'
    6379 say, was still retrying after five minutes. A service that answers that opening
    otherwise (Redis' "-ERR", HTTP/1's "HTTP/1.1", SSH's or SMTP's banner) is surely
    another; silence, a
    closed connection, an HTTP/2 frame or a TLS record leave the judgement to Ray."""
    link.settimeout(GRPC_ANSWER_SECONDS)
    try:
        link.sendall(HTTP2_OPENING)
        answer = link.recv(24)
    except OSError:
        return None
    if not answer or answer[0] in MAYBE_RAY_FIRST_BYTES:
        return None
    shown = answer.decode("ascii", "replace").split("\r")[0]
    return (f"something answers there, but not as a Ray head does (its answer begins "
            f"{shown!r}): another service's port, such as Redis' 6379?")


def _init_ray(ray: Any, workers: int, address: str | None) -> None:
    """Join the cluster at ``address``, or start a local instance with ``workers`` CPUs."""
    problem = unreachable(address) if address else None
    if address and problem:
        raise BackendError(f"cannot reach a Ray cluster at {shortened(address)!r}: {problem}; "
                           "start one (ray start --head) and give its address, or leave out "
                           "--address for a Ray on this machine")
    refused: tuple[type[Exception], ...] = (ConnectionError, *_ray_errors(ray))
    try:
        if address:
            ray.init(address=address, logging_level=logging.WARNING)
        else:
            ray.init(num_cpus=workers, include_dashboard=False, logging_level=logging.WARNING)
    except refused as exc:
        where = f"the Ray cluster at {shortened(address)!r}" if address else "a local Ray"
        raise BackendError(f"cannot reach {where}: {exc}{_token_hint(address)}") from exc


def _ray_errors(ray: Any) -> tuple[type[Exception], ...]:
    """Ray's own errors (``ray.exceptions.RayError``: a refused token among them), so that
    they are said as a ``BackendError`` rather than a traceback."""
    error = getattr(getattr(ray, "exceptions", None), "RayError", None)
    return (error,) if isinstance(error, type) and issubclass(error, Exception) else ()


def _token_hint(address: str | None) -> str:
    """What to try when a cluster joined by address refuses the join and no token was
    sent: a head of Ray 2.59 or later may ask for one (it does once a token is set up on
    its machine), and a client joining by address, rather than ``auto``, sends it only
    when told to (the README's Ray note)."""
    if not address or address in ("auto", "local") or os.environ.get("RAY_AUTH_MODE") == "token":
        return ""
    return ("; a cluster that asks for a token (a head of Ray 2.59 or later may) is "
            "joined with RAY_AUTH_MODE=token set and its token in RAY_AUTH_TOKEN or "
            "~/.ray/auth_token (ray get-auth-token prints it), or on its own machine with "
            "--address auto")


def chunk_size(tasks: int, cpus: int) -> int:
    """Games per Ray task: a few chunks per CPU for balance, none too large for progress."""
    return max(1, min(MAX_CHUNK, math.ceil(tasks / (cpus * CHUNKS_PER_CPU))))


def run_chunk(fn: Callable[[T], R], tasks: Sequence[T]) -> list[R]:
    """Run a chunk of tasks in one worker (the body of a Ray task)."""
    return [fn(task) for task in tasks]
