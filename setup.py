"""Compiled modules for a wheel: the plan, the search's candidates, and the engine's
state, rollout, rules and tiles.

Everything else about the package is in ``pyproject.toml``. The search (``hard``,
``expert``) spends its time playing games to the end with the plan; compiled with mypyc,
those modules make the very same decisions about twice as fast (docs/bots.md), so a bot
with a time budget plays about twice the games. The pure Python is always there: in an
editable install (no mypy is asked for: ``tools/build_backend.py``), with
``NORETURN_COMPILE=0``, and, with a warning, when the compiler fails or is missing.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from setuptools import setup
from setuptools.command.build_ext import build_ext

HOT_MODULES = [
    "src/noreturn/bots/candidates.py",
    "src/noreturn/bots/plan.py",
    "src/noreturn/engine/legal.py",
    "src/noreturn/engine/rollout.py",
    "src/noreturn/engine/state.py",
    "src/noreturn/engine/tiles.py",
]


class OptionalBuildExt(build_ext):
    """``build_ext`` that never fails the install: without the compiled modules the
    package is the same pure Python, only slower."""

    def run(self) -> None:
        if self.editable_mode:  # compiled modules would shadow the sources being edited
            self.extensions = []
            return
        try:
            super().run()
        except Exception as error:  # any failure to compile: fall back to pure Python
            for extension in self.extensions:  # no half-built set of modules
                Path(self.get_ext_fullpath(extension.name)).unlink(missing_ok=True)
            self.warn(f"noreturn: compiling the search's modules failed ({error}); "
                      "installing pure Python, whose bots make the same moves more slowly")


def compiled_modules() -> list[Any]:
    """mypyc's extensions for ``HOT_MODULES``, or none where it is not wanted or there."""
    if os.environ.get("NORETURN_COMPILE", "1") == "0":
        return []
    try:
        from mypyc.build import mypycify  # noqa: PLC0415 - only where mypy is there
    except ImportError:  # an editable install, or a build without mypy
        return []
    return list(mypycify(HOT_MODULES, opt_level="3", group_name="noreturn"))


setup(ext_modules=compiled_modules(), cmdclass={"build_ext": OptionalBuildExt})
