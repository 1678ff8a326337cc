"""Actions: small immutable values with one text form shared by every front end.

The text form (``place R11 R9``, ``score R x2 pay B7 B5``) is what the command line, the
terminal game, logs and error messages show, and ``parse_action`` reads it back. ``repr``
is ``parse_action('...')`` so that a logged action can be pasted into Python.
Tile tuples are kept in descending order, so two spellings of one move are one value.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, TypeVar

from noreturn.engine.errors import NotationError
from noreturn.engine.tiles import (
    CODE_OF,
    COLOUR_LETTERS,
    is_number,
    parse_colour,
    parse_tile,
    tile_code,
    tiles_text,
)


def _canonical(tiles: tuple[int, ...]) -> tuple[int, ...]:
    if type(tiles) is tuple and len(tiles) < 2:  # most actions found have one tile
        return tiles
    return tuple(sorted(tiles, reverse=True))


class _Text:
    """Mixin: ``repr`` pastes back through ``parse_action``."""

    __slots__ = ()

    def __repr__(self) -> str:
        return f"parse_action({str(self)!r})"


@dataclass(frozen=True, slots=True, repr=False)
class Mulligan(_Text):
    """Set ``tiles`` aside before the first turn (possibly none) and draw as many."""

    tiles: tuple[int, ...] = ()

    def __post_init__(self) -> None:
        object.__setattr__(self, "tiles", _canonical(self.tiles))

    def __str__(self) -> str:
        return f"mulligan {tiles_text(self.tiles)}".rstrip()


@dataclass(frozen=True, slots=True, repr=False)
class Declare(_Text):
    """Switch to phase 2 for good; the same turn goes on with a phase-2 action."""

    def __str__(self) -> str:
        return "declare"


@dataclass(frozen=True, slots=True, repr=False)
class Exchange(_Text):
    """Remove 1..exchange_limit hand tiles from the game; the refill replaces them."""

    tiles: tuple[int, ...] = ()

    def __post_init__(self) -> None:
        object.__setattr__(self, "tiles", _canonical(self.tiles))

    def __str__(self) -> str:
        return f"exchange {tiles_text(self.tiles)}".rstrip()


@dataclass(frozen=True, slots=True, repr=False)
class Place(_Text):
    """Add hand tiles of one colour to that colour's row (phase 1)."""

    tiles: tuple[int, ...] = ()

    def __post_init__(self) -> None:
        object.__setattr__(self, "tiles", _canonical(self.tiles))

    def __str__(self) -> str:
        return f"place {tiles_text(self.tiles)}".rstrip()


@dataclass(frozen=True, slots=True, repr=False)
class Score(_Text):
    """Move the ``count`` lowest tiles of row ``row`` to the score pile, paying with ``pay``."""

    row: int
    count: int
    pay: tuple[int, ...] = field(default=())

    def __post_init__(self) -> None:
        object.__setattr__(self, "pay", _canonical(self.pay))

    def __str__(self) -> str:
        return f"score {_row_code(self.row)} x{self.count} pay {tiles_text(self.pay)}".rstrip()


def _row_code(row: object) -> str:
    """The row's colour letter; ``#n`` for no colour, so a refusal can still be written."""
    if type(row) is int and 0 <= row < len(COLOUR_LETTERS):
        return COLOUR_LETTERS[row]
    return f"#{row}"


@dataclass(frozen=True, slots=True, repr=False)
class Pass(_Text):
    """No legal action: the turn changes nothing."""

    def __str__(self) -> str:
        return "pass"


@dataclass(frozen=True, slots=True, repr=False)
class Draw(_Text):
    """Chance: one tile taken from the bag by the player who is drawing."""

    tile: int

    def __str__(self) -> str:
        return f"draw {tile_code(self.tile)}"


PlayerAction = Mulligan | Declare | Exchange | Place | Score | Pass
Action = PlayerAction | Draw
TileAction = TypeVar("TileAction", Mulligan, Exchange, Place)

_new = object.__new__
_set = object.__setattr__


def of_sorted(kind: type[TileAction], tiles: tuple[int, ...]) -> TileAction:
    """``kind(tiles)`` for ``tiles`` that are in canonical (descending) order already.

    For the legal-action generator, which builds some 170 actions per position with their
    tiles descending by construction: the checking constructor (a sort and two attribute
    writes through ``__post_init__``) cost 2.5 times as much, and construction was most
    of the generator's time. Anything else builds actions the ordinary way.
    """
    action = _new(kind)
    _set(action, "tiles", tiles)
    return action


def score_of_sorted(row: int, count: int, pay: tuple[int, ...]) -> Score:
    """``Score(row, count, pay)`` for ``pay`` in descending order already (see ``of_sorted``)."""
    action = _new(Score)
    _set(action, "row", row)
    _set(action, "count", count)
    _set(action, "pay", pay)
    return action

_VERBS: dict[type, str] = {Place: "place ", Exchange: "exchange ", Mulligan: "mulligan "}
_ROW_LETTERS = dict(enumerate(COLOUR_LETTERS))


def texts_of(actions: list[Action]) -> list[str]:
    """``[str(a) for a in actions]``, in two thirds of the time.

    A server writes the legal actions of the seat to move (some 170) into each of its
    state messages: as ``str`` calls (two Python calls an action) that cost as much as
    finding the actions. Here the common forms are written inline, the kind told by a
    dict lookup of its type; anything else (a tile or row of no colour, no tiles) goes
    through ``str``, so the text is the same.
    """
    texts: list[str] = []
    add = texts.append
    code = CODE_OF.__getitem__
    join = " ".join
    verb_of = _VERBS.get
    each: list[Any] = actions  # kinds told apart by type, not by the checker
    for action in each:
        verb = verb_of(type(action))
        try:
            if verb is not None and action.tiles:
                add(verb + join(map(code, action.tiles)))
                continue
            if type(action) is Score and action.pay:
                add(f"score {_ROW_LETTERS[action.row]} x{action.count} pay "
                    f"{join(map(code, action.pay))}")
                continue
        except KeyError:  # a tile or a row of no colour: str writes it
            pass
        add(str(action))
    return texts


_TILE_ACTIONS: dict[str, type[Mulligan] | type[Exchange] | type[Place]] = {
    "mulligan": Mulligan,
    "exchange": Exchange,
    "place": Place,
}


def parse_action(text: str) -> Action:
    """The action written ``text`` in the shared text form.

    Raises:
        NotationError: the text is not an action; the message shows the accepted forms.
    """
    words = text.split()
    if not words:
        raise NotationError("empty action: actions are written: place R11 R9 | exchange B3 G7 | "
                            "score R x2 pay B7 B5 | declare | pass | mulligan [tiles]")
    verb, args = words[0].lower(), words[1:]
    if verb in _TILE_ACTIONS:
        if not args and verb != "mulligan":  # only a mulligan may take no tile
            raise NotationError("{text}: {verb} at least one tile, such as {verb} R11 R9",
                                {"text": repr(text), "verb": verb})
        return _TILE_ACTIONS[verb](tuple(parse_tile(w) for w in args))
    if verb in ("declare", "pass") and not args:
        return Declare() if verb == "declare" else Pass()
    if verb == "draw" and len(args) == 1:
        return Draw(parse_tile(args[0]))
    if verb == "score":
        return _parse_score(text, args)
    raise NotationError("{text} is not an action: actions are written: place R11 R9 | exchange "
                        "B3 G7 | score R x2 pay B7 B5 | declare | pass | mulligan [tiles]",
                        {"text": repr(text)})


def _parse_score(text: str, args: list[str]) -> Score:
    if len(args) < 3 or args[2].lower() != "pay" or not args[1].lower().startswith("x"):
        raise NotationError("{text} is not a score action: write score R x2 pay B7 B5",
                            {"text": repr(text)})
    count_text = args[1][1:]
    if not is_number(count_text):
        raise NotationError("{text}: the count must be x followed by a number, such as x2",
                            {"text": repr(text)})
    if len(args) == 3:
        raise NotationError("{text}: pay with at least one tile, such as score R x2 pay B7 B5",
                            {"text": repr(text)})
    return Score(parse_colour(args[0]), int(count_text), tuple(parse_tile(w) for w in args[3:]))
