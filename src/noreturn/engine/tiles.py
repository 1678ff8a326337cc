"""Tiles, colours and the size parameters of a game.

A tile is a plain ``int``: ``colour << 5 | value``. A fixed layout (rather than one that
depends on ``max_value``) keeps a tile's meaning independent of the rules, so actions and
logs can be read without knowing the variant, and the colour and value come out with one
shift or mask on the hot paths.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, fields
from typing import Any

from noreturn.engine.errors import NotationError, RulesError

COLOUR_LETTERS = "ROYGBP"
COLOUR_NAMES = ("red", "orange", "yellow", "green", "blue", "purple")
VALUE_BITS = 5
VALUE_MASK = (1 << VALUE_BITS) - 1
MAX_SUPPORTED_VALUE = VALUE_MASK
MAX_SUPPORTED_HAND = 12  # the action encoding numbers subsets of the hand: 2**hand_size ids
RULE_DIGITS = 9
"""The most digits a ``--rules`` number is converted from: every size is far smaller, and
``int`` of thousands of digits raises an error of its own rather than the rules'."""


def make_tile(colour: int, value: int) -> int:
    """The tile of ``colour`` (0-based index into ``COLOUR_LETTERS``) and ``value``."""
    return colour << VALUE_BITS | value


def make_tiles(colour: int, values: Iterable[int]) -> list[int]:
    """The tiles of ``colour`` with ``values``, in their order (a row's tiles, say)."""
    base = colour << VALUE_BITS
    return [base | value for value in values]


def colour_of(tile: int) -> int:
    """The colour index of ``tile``."""
    return tile >> VALUE_BITS


def value_of(tile: int) -> int:
    """The face value of ``tile``."""
    return tile & VALUE_MASK


TILE_LIMIT = len(COLOUR_LETTERS) << VALUE_BITS
"""Every tile of every variant is an int below this."""
TILE_COLOUR = tuple(colour_of(t) for t in range(TILE_LIMIT))
"""``TILE_COLOUR[tile] == colour_of(tile)``: a lookup without a call, for hot loops
(playouts read a tile's fields several times per turn)."""
TILE_VALUE = tuple(value_of(t) for t in range(TILE_LIMIT))
"""``TILE_VALUE[tile] == value_of(tile)``, for hot loops as ``TILE_COLOUR``."""


def tiles_value(tiles: Iterable[int]) -> int:
    """The sum of the tiles' face values (a payment's worth, a pile's points)."""
    return sum([TILE_VALUE[t] for t in tiles])


def placed_values(tiles: Iterable[int]) -> list[int]:
    """The values a PLACE of ``tiles`` adds to the end of its row, in the row's order:
    descending (docs/rules.md), so every row reads non-increasing."""
    return sorted([TILE_VALUE[t] for t in tiles], reverse=True)


def colour_sums(tiles: Iterable[int]) -> dict[int, int]:
    """Each colour's sum of face values among ``tiles``, colours in order of first
    appearance: what a hand can pay with each colour (a payment is of one colour)."""
    sums: dict[int, int] = {}
    get, colours, values = sums.get, TILE_COLOUR, TILE_VALUE  # locals: a playout's hot loop
    for tile in tiles:
        colour = colours[tile]
        sums[colour] = get(colour, 0) + values[tile]
    return sums


_CODES = tuple(letter + str(value) for letter in COLOUR_LETTERS for value in range(1 << VALUE_BITS))
"""Every tile's code, by tile: writing legal actions (a server sends some 170 with every
state of the seat to move) is as costly as finding them when each code is built anew."""


def tile_code(tile: int) -> str:
    """The written form of ``tile``, such as ``R11``; ``#n`` for an int of no colour.

    Total, so that the message refusing a bad tile can always name it.
    """
    return _CODES[tile] if 0 <= tile < len(_CODES) else f"#{tile}"


CODE_OF = dict(enumerate(_CODES))
"""The same codes as a mapping: looked up without a Python call per tile, the server
writing some 170 actions for every state of the seat to move."""


def tiles_text(tiles: Any) -> str:
    """Tiles written as codes separated by spaces, in the given order."""
    try:
        return " ".join(map(CODE_OF.__getitem__, tiles))
    except KeyError:  # a tile of no colour (in a refused action): tile_code writes it
        return " ".join(map(tile_code, tiles))


def parse_colour(text: str) -> int:
    """The colour index of a colour letter (``R``) or name (``red``), any case."""
    key = text.strip()
    if len(key) == 1 and key.upper() in COLOUR_LETTERS:
        return COLOUR_LETTERS.index(key.upper())
    if key.lower() in COLOUR_NAMES:
        return COLOUR_NAMES.index(key.lower())
    raise NotationError("{text} is not a colour: use one of {letters}",
                        {"text": repr(text), "letters": ", ".join(COLOUR_LETTERS)})


def is_number(text: str) -> bool:
    """Whether ``text`` is a plain decimal number in ASCII digits (``isdigit`` takes ``²``)."""
    return text.isascii() and text.isdecimal()


def parse_tile(text: str) -> int:
    """The tile written ``text`` (``R11``, ``b3``); no check against a variant's size."""
    code = text.strip()
    if len(code) < 2 or code[0].upper() not in COLOUR_LETTERS or not is_number(code[1:]):
        raise NotationError("{text} is not a tile: write a colour letter ({letters}) and a "
                            "value, such as R11 or B3",
                            {"text": repr(text), "letters": COLOUR_LETTERS})
    digits = code[1:].lstrip("0")  # length first: int() of thousands of digits refuses
    if len(digits) > 2 or not 1 <= int(digits or "0") <= MAX_SUPPORTED_VALUE:
        raise NotationError("{text} is not a tile: its value must be 1..{most}",
                            {"text": repr(text), "most": MAX_SUPPORTED_VALUE})
    return make_tile(COLOUR_LETTERS.index(code[0].upper()), int(digits))


def sort_tiles_desc(tiles: Any) -> tuple[int, ...]:
    """Tiles in the canonical order of an action: descending."""
    return tuple(sorted(tiles, reverse=True))


@dataclass(frozen=True, slots=True)
class Rules:
    """The size parameters of docs/rules.md, with the published game as the default.

    Every rule reads the same with other values; small variants make games short enough to
    check by brute force and to solve.
    """

    players: int = 2
    colors: int = 6
    max_value: int = 11
    copies: int = 2
    hand_size: int = 8
    exchange_limit: int = 4

    def __post_init__(self) -> None:
        limits = {
            "players": (2, 4),
            "colors": (1, len(COLOUR_LETTERS)),
            "max_value": (1, MAX_SUPPORTED_VALUE),
            "copies": (1, 99),
            "hand_size": (1, MAX_SUPPORTED_HAND),
            "exchange_limit": (1, 99),
        }
        for name, (low, high) in limits.items():
            value = getattr(self, name)
            if type(value) is not int or not low <= value <= high:
                raise RulesError("rules: {name} must be a whole number from {low} to {high}, "
                                 "not {found}", {"name": name, "low": low, "high": high,
                                                 "found": repr(value)})
        if self.tile_count <= self.players * self.hand_size:
            raise RulesError(
                "rules: the tile set ({tiles} tiles) must hold more tiles than players x "
                "hand_size ({dealt})",
                {"tiles": self.tile_count, "dealt": self.players * self.hand_size})

    @property
    def tile_count(self) -> int:
        """How many tiles the set holds."""
        return self.colors * self.max_value * self.copies

    @property
    def max_row_length(self) -> int:
        """The longest a row can grow: every tile of one colour."""
        return self.max_value * self.copies

    def all_tiles(self) -> list[int]:
        """Every tile of the set, each copy once, in ascending order."""
        return [
            make_tile(c, v)
            for c in range(self.colors)
            for v in range(1, self.max_value + 1)
            for _ in range(self.copies)
        ]

    def kinds(self) -> list[int]:
        """Every distinct tile of the set, ascending."""
        return [make_tile(c, v) for c in range(self.colors) for v in range(1, self.max_value + 1)]

    def is_tile(self, tile: int) -> bool:
        """Whether ``tile`` belongs to this variant's set."""
        return (tile >> VALUE_BITS) < self.colors and 1 <= (tile & VALUE_MASK) <= self.max_value

    def __reduce__(self) -> tuple[type[Rules], tuple[int, ...]]:
        """Pickle as the constructor's arguments: a compiled build of this frozen class
        would otherwise unpickle by setting its fields, which it refuses."""
        return (Rules, tuple(getattr(self, name) for name in _RULE_NAMES))

    def to_dict(self) -> dict[str, int]:
        """The rules as a record writes them (docs/record-format.md); a new dict each time."""
        return {name: getattr(self, name) for name in _RULE_NAMES}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Rules:
        """Rules from a record's ``rules`` object: ``players`` required, the rest default.

        The object is described in docs/record-format.md, "Rules".
        """
        known = {f.name for f in fields(cls)}
        unknown = sorted(set(data) - known)
        if unknown:
            raise RulesError("rules: unknown key {key}; known keys: {keys}",
                             {"key": repr(unknown[0]), "keys": ", ".join(sorted(known))})
        if "players" not in data:
            raise RulesError("rules: 'players' is required")
        return cls(**data)

    @classmethod
    def parse(cls, text: str, **base: int) -> Rules:
        """Rules from ``KEY=VALUE,...`` text (the command line's ``--rules``), over ``base``
        (``players`` from ``--players``, say). A key twice, or one of ``base`` given again
        with another value, is refused: one of the two would be dropped without a word."""
        values: dict[str, Any] = dict(base)
        given: set[str] = set()
        for part in filter(None, (p.strip() for p in text.split(","))):
            key, sep, raw = part.partition("=")
            digits = raw.strip().removeprefix("-")
            if not sep or not is_number(digits):
                raise RulesError("rules: '{part}' is not KEY=NUMBER, e.g. colors=3",
                                 {"part": part})
            length = len(digits.lstrip("0"))
            if length > RULE_DIGITS:  # int() refuses thousands of digits
                raise RulesError("rules: {key} has a number of {length} digits: no size is "
                                 "that large", {"key": key.strip(), "length": f"{length:,}"})
            key, value = key.strip(), int(raw)
            if key in given:
                raise RulesError("rules: {key} is given twice; give it once", {"key": key})
            if key in base and base[key] != value:
                raise RulesError("rules: {key}={value} disagrees with --{key} {other}: give "
                                 "the {key} with --{key} alone",
                                 {"key": key, "value": value, "other": base[key]})
            given.add(key)
            values[key] = value
        values.setdefault("players", 2)
        return cls.from_dict(values)


_RULE_NAMES = tuple(f.name for f in fields(Rules))
"""``Rules.to_dict``'s keys, in order: ``asdict`` copied them deeply on every call, and the
server writes the rules into every state message."""
