"""The engine's errors: one base class, so callers can catch every refusal at once.

An illegal action is refused with a ``Refusal``: a stable rule code for programs (a
server sends it to its clients, who may translate it or react to it) and the reason in a
player's words. ``RULE_CODES`` is the one list of those codes; the messages may be
reworded, the codes stay.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import NamedTuple

RULE_CODES: dict[str, str] = {
    "game_over": "the game is over: nothing more is played",
    "not_your_turn": "the seat sending the action is not to move (judged by a table, "
                     "which knows who sends; the engine judges for the seat to move)",
    "not_an_action": "the value is not an action at all",
    "bad_id": "an action id that is not an integer, out of range, names empty hand "
              "positions, or is not the canonical id of its action (learning adapters)",
    "not_a_tile": "a tile outside this game's colours and values",
    "no_draw_due": "a draw when no draw is due (draws are made for people by their table)",
    "draw_first": "another action while tiles are still to be drawn",
    "not_in_bag": "a draw of a tile the bag does not hold",
    "not_in_hand": "tiles the player does not hold, or not that many of them",
    "mulligan_first": "another action while the mulligan is under way",
    "mulligan_too_many": "setting aside more tiles than the bag holds",
    "mulligan_over": "a mulligan after the mulligan",
    "already_declared": "DECLARE in phase 2: there is no return",
    "cannot_pass": "PASS while another action is possible",
    "exchange_count": "an exchange of no tiles, or of more than the exchange limit",
    "place_in_phase_2": "PLACE in phase 2",
    "no_tiles": "a placement or a payment of no tiles",
    "mixed_colours": "tiles of more than one colour in one placement or payment",
    "row_order": "a tile higher than the last of its row: a row only ever goes down",
    "score_in_phase_1": "SCORE before declaring phase 2",
    "no_such_row": "a score of a row this game does not have",
    "empty_row": "a score of an empty row",
    "score_count": "a score of fewer than one tile, or more than the row holds",
    "underpaid": "a payment worth less than the row tiles it scores",
}
"""Every rule code an ``IllegalActionError`` (or a ``Refusal``) carries, with its meaning."""


class Refusal(NamedTuple):
    """Why an action is illegal now: ``code`` (a key of ``RULE_CODES``) for programs, the
    reason for people ("you", "your red row").

    The reason is kept as an English ``template`` with named blanks and the ``params``
    that fill them, so a front end can show it in another language: the templates are
    the translation catalog's keys (found by ``pybabel extract`` as the second argument
    of ``Refusal``), the params plain values (tile codes, numbers, English colour names).
    """

    code: str
    template: str
    params: Mapping[str, object] = MappingProxyType({})

    @property
    def reason(self) -> str:
        """The reason in English words."""
        return self.template.format_map(self.params)


class NoReturnError(ValueError):
    """Base of every error the engine raises for bad input."""


class WordedError(NoReturnError):
    """An error said by an English ``template`` and the ``params`` that fill it (the
    message is the filled template), so that a front end can say it in another language.

    Like a ``Refusal``'s, the templates are the translation catalog's keys: ``pybabel
    extract`` finds them as the first argument of each subclass (docs/translating.md). A
    text value is cut to ``QUOTED_LIMIT`` characters, so that a value quoted from hostile
    input is named by its start rather than echoed whole; give a path as a ``Path``, and a
    list or a sentence the program makes as ``keys`` or ``problem`` (``WHOLE_PARAMS``):
    those are kept whole (a sentence that quotes input cuts its quotes itself).
    """

    def __init__(self, template: str, params: Mapping[str, object] | None = None) -> None:
        self.template = template
        self.params: Mapping[str, object] = MappingProxyType(
            {key: value if key in WHOLE_PARAMS else shortened(value)
             for key, value in (params or {}).items()})
        super().__init__(template.format_map(self.params))

    def __reduce__(self) -> tuple[type[WordedError], tuple[str, dict[str, object]]]:
        """Pickle with the template (a process pool sends errors back to the caller)."""
        return type(self), (self.template, dict(self.params))


class NotationError(WordedError):
    """Text (a tile, an action) that does not parse."""


WHOLE_PARAMS = frozenset({"keys", "problem"})
"""Blanks of a ``WordedError`` whose text is never cut: what the program says, not text
quoted from input: the keys a record or the rules know, another check's whole reason (the
validator's, the JSON parser's, the system's)."""

QUOTED_LIMIT = 60
"""Characters of a refused text that its message quotes: a line of 100,000 characters
(pasted by mistake, or sent to a bot's reader) is named by its start, not echoed whole."""


def shortened(value: object) -> object:
    """``value``, a text cut to ``QUOTED_LIMIT`` characters (ending in ``...``)."""
    if isinstance(value, str) and len(value) > QUOTED_LIMIT:
        return value[: QUOTED_LIMIT - 3] + "..."
    return value


class RulesError(WordedError):
    """Size parameters that do not make a playable game."""


class IllegalActionError(NoReturnError):
    """An action the rules do not allow now; the message names the rule in a player's
    words, ``code`` (a key of ``RULE_CODES``) names it for programs."""

    def __init__(self, message: str, code: str) -> None:
        super().__init__(message)
        self.code = code

    def __reduce__(self) -> tuple[type[IllegalActionError], tuple[str, str]]:
        """Pickle with the code (a process pool sends errors back to the caller)."""
        return type(self), (str(self), self.code)
