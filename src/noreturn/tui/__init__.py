"""The full-screen terminal game (Textual) over a ``LocalTable``."""

from noreturn.tui.app import NoReturnApp, run_tui

__all__ = ["NoReturnApp", "run_tui"]
