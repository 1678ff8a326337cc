"""Numbers as the reader's language writes them ("7,5" in German), through Babel.

Apart from ``noreturn.text.lang`` on purpose: the modules mypyc compiles import that one,
and the build that compiles them has none of the package's dependencies, Babel among
them (tests/test_packaging.py keeps it so).
"""

from __future__ import annotations

from noreturn.text.lang import DEFAULT, language


def decimal(value: float, digits: int = 1, signed: bool = False) -> str:
    """``value`` with ``digits`` decimals as the current language writes a number ("7,5"
    in German; English as Python formats it), with a ``+`` before a positive one if
    ``signed``: Babel knows each language's separators."""
    if language() == DEFAULT:
        return f"{value:{'+' if signed else ''}.{digits}f}"
    from babel.numbers import format_decimal  # noqa: PLC0415 - only other languages need it

    pattern = "0." + "0" * digits if digits else "0"
    return format_decimal(value, format=f"+{pattern};-{pattern}" if signed else pattern,
                          locale=language())
