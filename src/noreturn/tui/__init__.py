"""The terminal front ends over a ``LocalTable``: the full-screen game (Textual) and plain
line prompts.

``app`` is the Textual game (``NoReturnApp``, ``run_tui``), ``plain`` the line prompts of
``--plain``, ``play`` the ``noreturn play`` command that chooses between them. Textual loads
only with ``app``: importing this package, ``plain`` or ``play`` does not load it, so plain
prompts start fast and work where Textual cannot run.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from noreturn.tui.app import NoReturnApp, run_tui

__all__ = ["NoReturnApp", "run_tui"]


def __getattr__(name: str) -> Any:
    """``NoReturnApp`` and ``run_tui``, loaded (with Textual) on first use."""
    if name in __all__:
        from noreturn.tui import app  # noqa: PLC0415 - Textual loads only when asked for

        return getattr(app, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
