"""noreturn: the digital No Return (Marco Teubner, 2019)."""

__version__ = "0.1.0"


def compiled() -> bool:
    """Whether the search's hot modules (the plan, the engine's state and rules) run
    compiled by mypyc, as a wheel installs them (``pip install .``, setup.py), rather than
    as the Python sources (``pip install -e .``): the same moves, about twice the games a
    second, so a bot with a time budget sees about twice as far."""
    from noreturn.engine import state  # noqa: PLC0415 - the package's import stays light

    return not (state.__file__ or "").endswith(".py")
