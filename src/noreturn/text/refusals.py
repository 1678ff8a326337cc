"""Why a move is refused, in the reader's language.

The engine keeps each reason as an English template with its blanks' values
(``Refusal.template`` and ``params``); here the template is looked up in the catalog and
filled, with the colour's name translated too. In English the result is the engine's own
``Refusal.reason``, word for word.
"""

from __future__ import annotations

from noreturn.engine import COLOUR_NAMES, NotationError, Refusal
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


def notation_text(error: NotationError) -> str:
    """A notation error (a move or tile that does not parse) in the current language."""
    if language() == "en":
        return str(error)
    return _(error.template).format_map(error.params)
