"""The ``noreturn`` command: parses arguments and calls one function of a layer.

Each module holds a group of commands, a panel of ``noreturn --help``; typer lists them in
the order they are registered, so they are imported in the order the help shows them: a
player's first (play, tutorial, history, serve), then records, then research.
"""

from __future__ import annotations

from noreturn.cli.common import Lang, app

# isort: off
from noreturn.cli import playing, online, records, research  # noqa: F401 - register commands
# isort: on
from noreturn.cli.online import serve


def main() -> None:
    """Entry point of the console script."""
    app()


__all__ = ["Lang", "app", "main", "serve"]
