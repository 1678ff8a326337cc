"""``python -m noreturn``: the same as the ``noreturn`` command."""

from noreturn.cli import main

main()
