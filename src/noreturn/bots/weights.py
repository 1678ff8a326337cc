"""A learned policy's network (``learned.py``), read with numpy from its ``.npz`` file.

Kept apart from ``learned.py``, which is compiled with mypyc: the compiled modules need
nothing beyond the package and the standard library to build.
"""

from __future__ import annotations

from functools import cache
from importlib import resources
from typing import Any

import numpy as np

from noreturn.bots.learned import Scorer


def scorer(weights: Any) -> Scorer:
    """The network of ``weights`` (a mapping of arrays, as ``numpy.load`` reads the
    ``.npz`` file that ``distill_study.py train`` saves) as a ``Scorer``."""
    mean, scale = weights["mean"], weights["scale"]
    w0, b0, w1, b1 = weights["w0"].T, weights["b0"], weights["w1"][0], weights["b1"][0]

    def best(rows: list[list[float]]) -> int:
        x = np.array(rows, dtype=np.float32)
        first = np.zeros((len(rows), 1), dtype=np.float32)
        first[0] = 1.0
        x = (np.hstack([x, x - x[0], first]) - mean) / scale
        return int(np.argmax(np.tanh(x @ w0 + b0) @ w1 + b1))

    return best


def load(path: str) -> Scorer:
    """The network saved at ``path`` (an ``.npz`` file)."""
    with np.load(path) as saved:
        return scorer({name: saved[name] for name in saved.files})


@cache
def packaged(players: int) -> Scorer | None:
    """The network shipped for ``players`` (``models/hard-{players}p.npz``, trained by
    ``benchmarks/distill_study.py``), or None where there is none for that table size."""
    model = resources.files("noreturn.bots") / "models" / f"hard-{players}p.npz"
    if not model.is_file():
        return None
    with resources.as_file(model) as path:
        return load(str(path))
