"""How tiles look on screen: colour, letter and a symbol of its own for each colour.

Colour alone would fail players who do not tell red from purple or orange; every tile
therefore also carries its colour letter and a distinct symbol, and ``--no-color`` drops
the colours without losing anything. The symbols are in the fonts of common terminals
(Windows Terminal, GNOME, macOS Terminal).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import replace

from rich.style import Style
from rich.text import Text
from textual.dom import DOMNode

from noreturn.engine import COLOUR_LETTERS, COLOUR_NAMES, colour_of, parse_tile, value_of
from noreturn.text.lang import _
from noreturn.text.refusals import colour_word

TILE_CODE = re.compile(r"\b[ROYGBP]\d{1,2}\b")

SYMBOLS = ("♥", "●", "★", "♣", "♦", "▲")
"""One symbol per colour, in the order R O Y G B P."""
BACKGROUNDS = ("#d32f2f", "#ef6c00", "#fbc02d", "#2e7d32", "#1565c0", "#7b1fa2")
"""Tile faces in the hand: the colour as background."""
INKS = ("black", "black", "black", "white", "white", "white")
"""Text on those backgrounds, chosen for contrast."""
FOREGROUNDS = ("#ff5252", "#ffa040", "#ffe14d", "#5fd35f", "#64b5f6", "#d08cff")
"""Tiles in rows and texts: the colour as letters on a dark background."""


def colour_tag(colour: int) -> str:
    """``♥R``: a colour's symbol and letter."""
    return SYMBOLS[colour] + COLOUR_LETTERS[colour]


def colour_label(colour: int, color: bool = True) -> Text:
    """``♥R red`` in its colour (or plain)."""
    style = Style(color=FOREGROUNDS[colour], bold=True) if color else Style(bold=True)
    return Text(f"{colour_tag(colour)} {colour_word(COLOUR_NAMES[colour])}", style=style)


def tile_label(tile: int) -> str:
    """``♥R11``: symbol, colour letter and value (the code players type, with its symbol)."""
    return colour_tag(colour_of(tile)) + str(value_of(tile))


def tile_face(tile: int, color: bool = True, selected: bool = False, width: int = 6) -> Text:
    """A hand tile: `` ♥R11 `` on its colour, reversed and underlined when selected."""
    colour = colour_of(tile)
    label = tile_label(tile).center(width)
    if color:
        style = Style(color=INKS[colour], bgcolor=BACKGROUNDS[colour], bold=True)
        if selected:
            style += Style(reverse=True, underline=True)
    else:
        style = Style(reverse=True, bold=True) if selected else Style(bold=True)
    return Text(label, style=style)


def tiles_inline(tiles: Iterable[int], color: bool = True) -> Text:
    """Tiles as coloured labels separated by spaces (``♥R11 ♦B3``), for texts and lists."""
    out = Text()
    for i, tile in enumerate(tiles):
        if i:
            out.append(" ")
        colour = colour_of(tile)
        out.append(tile_label(tile),
                   Style(color=FOREGROUNDS[colour], bold=True) if color else Style(bold=True))
    return out


def row_text(colour: int, values: Iterable[int], color: bool = True, tail: int = 0,
             cell: int = 3) -> Text:
    """A row as ``♥R  11  9  9  4``; its last ``tail`` tiles reversed (a scoring target)."""
    values = list(values)
    ink = Style(color=FOREGROUNDS[colour], bold=True) if color else Style(bold=True)
    out = Text(colour_tag(colour) + " ", style=ink)
    for i, value in enumerate(values):
        marked = i >= len(values) - tail
        out.append(f"{value:>{cell}}", ink + Style(reverse=True) if marked else ink)
    return out


ROW_PREFIX = 3
"""Cells before a row's first value in ``row_text``: symbol, letter, space."""


def log_text(lines: Iterable[str], color: bool = True) -> Text:
    """Log lines with every tile code shown as a tile label (``O9`` -> ``●O9``)."""
    out = Text()
    for n, line in enumerate(lines):
        if n:
            out.append("\n")
        at = 0
        for match in TILE_CODE.finditer(line):
            out.append(line[at:match.start()])
            out.append_text(tiles_inline([parse_tile(match.group())], color))
            at = match.end()
        out.append(line[at:])
    return out


def speak_bindings(node: DOMNode) -> None:
    """Give ``node``'s keys their descriptions in the current language.

    Textual reads ``BINDINGS`` when the class is made, before a language is chosen, so the
    descriptions there are English and only marked (``N_``); this replaces each of the
    node's bindings by a copy described through ``_()``, which the footer then shows
    (Textual's own keys keep their words: they are not in our catalog).
    """
    bindings = node._bindings.key_to_bindings  # Textual keeps them per node, by key
    for key, bound in bindings.items():
        bindings[key] = [replace(b, description=_(b.description)) if b.description else b
                         for b in bound]
