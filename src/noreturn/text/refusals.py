"""Why a move is refused, or a record cannot be read, in the reader's language.

The engine keeps each reason as an English template with its blanks' values
(``Refusal.template`` and ``params``, and the same in a ``WordedError``: a move that does
not parse, a file that is no record); here the template is looked up in the catalog and
filled, with the colour's name, or a JSON type's, translated too. In English the result
is the engine's own message, word for word.
"""

from __future__ import annotations

from noreturn.engine import COLOUR_NAMES, NoReturnError, Refusal, WordedError
from noreturn.text.lang import _, language, pgettext

COLOUR_WORDS = {
    "red": lambda: pgettext("colour", "red"),
    "orange": lambda: pgettext("colour", "orange"),
    "yellow": lambda: pgettext("colour", "yellow"),
    "green": lambda: pgettext("colour", "green"),
    "blue": lambda: pgettext("colour", "blue"),
    "purple": lambda: pgettext("colour", "purple"),
}
"""Each colour's name as a noun ("the row Rot" in German, "the red row" in English)."""

assert set(COLOUR_WORDS) == set(COLOUR_NAMES)

JSON_TYPE_WORDS = {
    "an object": lambda: pgettext("json", "an object"),
    "a list": lambda: pgettext("json", "a list"),
    "text": lambda: pgettext("json", "text"),
    "true/false": lambda: pgettext("json", "true/false"),
    "a number": lambda: pgettext("json", "a number"),
    "null": lambda: pgettext("json", "null"),
}
"""What a record error calls each JSON type (``records.reader.JSON_TYPE_NAMES``, a test
holds the two lists equal) in the blank ``found``, in the reader's words."""


def colour_word(name: str) -> str:
    """A colour's English name (``COLOUR_NAMES``) in the current language."""
    word = COLOUR_WORDS.get(name)
    return name if word is None else word()


def refusal_text(refused: Refusal) -> str:
    """The reason of ``refused`` in the current language."""
    if language() == "en":
        return refused.reason
    params = {key: colour_word(value) if key == "colour" and isinstance(value, str) else value
              for key, value in refused.params.items()}
    return _(refused.template).format_map(params)


def error_text(error: NoReturnError) -> str:
    """The message of ``error`` in the current language: a ``WordedError`` (a move or tile
    that does not parse, a file that is no record) translated, any other as it is."""
    if language() == "en" or not isinstance(error, WordedError):
        return str(error)
    params = {key: _param_word(key, value) for key, value in error.params.items()}
    return _(error.template).format_map(params)


def _param_word(key: str, value: object) -> object:
    """A blank's value in the current language where the program chose its words: a JSON
    type (``found``), what a bot option means (``meaning``, marked with ``N_``), or another
    check's words that the catalog holds (``problem``: Python's JSON parser's)."""
    if not isinstance(value, str):
        return value
    if key == "found":
        return _json_word(value)
    return _(value) if key in ("meaning", "problem") else value


def _json_word(value: str) -> str:
    word = JSON_TYPE_WORDS.get(value)
    return value if word is None else word()
