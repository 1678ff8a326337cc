"""Answers kept for a while: the same question, asked again, is not worked out again.

A hint at a version of a game, a finished game's replay: each is the same answer however
often it is asked (its key holds all it depends on: the version, the language), and
each costs tens of milliseconds of a worker that every table shares. ``Recent`` keeps the
latest ones, the least recently asked going first, safe across the worker threads.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable
from typing import Generic, TypeVar

K = TypeVar("K", bound=Hashable)
V = TypeVar("V")


class Recent(Generic[K, V]):
    """At most ``most`` answers, by key."""

    def __init__(self, most: int) -> None:
        self._most = most
        self._held: OrderedDict[K, V] = OrderedDict()
        self._guard = threading.Lock()

    def answer(self, key: K, work: Callable[[], V]) -> V:
        """The answer kept for ``key``, else ``work()``'s, kept (an error is not)."""
        with self._guard:
            if key in self._held:
                self._held.move_to_end(key)
                return self._held[key]
        value = work()  # outside the guard: two askers at once may both work it out
        with self._guard:
            self._held[key] = value
            self._held.move_to_end(key)
            while len(self._held) > self._most:
                self._held.popitem(last=False)
        return value

    def __len__(self) -> int:
        with self._guard:
            return len(self._held)


__all__ = ["Recent"]
