"""The JSON form of a ``View``: what one seat may see, as plain data for other programs.

External bots receive it with every decision (docs/bot-protocol.md), and other front ends
(the web server) can send the same object to their clients, so a client written in any
language reads one documented shape. It is built from a ``View`` only, never from a
``GameState``: whatever the engine's view gate hides stays hidden here too.

Tiles are written as codes (``"R11"``), as in records and the text form of actions, so a
client needs no knowledge of the engine's integer layout. The shape::

    {
      "rules": {"players": 2, "colors": 6, "max_value": 11, "copies": 2,
                "hand_size": 8, "exchange_limit": 4},
      "seat": 0,                  # null for a spectator
      "stage": "play",            # "deal", "mulligan", "play" or "over"
      "start_player": 1, "to_move": 0, "draws_due": 0, "turns": 12, "ending": false,
      "turns_left": null,         # once the bag is empty: turns to come, this one included
      "declared_this_turn": false,  # the seat to move declared in the turn under way
      "bag_count": 81,
      "players": [                # one object per seat, index = seat
        {"phase": 1, "declared_turn": null,            # the turn it declared in, if any
         "turns_taken": 6,                              # its completed turns
         "rows": {"R": ["R11", "R9"], "O": [], ...},   # every colour of the variant,
                                                        # first (highest) to last tile
         "pile": ["B3"], "paid": ["G7", "G5"],         # score pile, tiles paid (public)
         "hand_count": 8, "exchanged_count": 3,
         "mulligan_count": 2,                           # null before its mulligan
         "score": -20},
        ...
      ],
      "hand": ["B3", "O7", ...],  # this seat's hand, ascending; null for a spectator
      "own_exchanged": ["Y2"],    # tiles this seat itself removed by EXCHANGE
      "own_mulligan": ["P1"]      # tiles this seat set aside; null before its mulligan
    }
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from noreturn.engine import COLOUR_LETTERS, View, make_tile, tile_code


def view_to_json(view: View) -> dict[str, Any]:
    """The JSON-ready dict of ``view`` (shape in the module docstring); no inverse needed.

    Every value is a ``dict``, ``list``, ``str``, ``int``, ``bool`` or ``None``, so
    ``json.dumps`` takes it as it is.
    """
    return {
        "rules": view.rules.to_dict(),
        "seat": view.seat,
        "stage": view.stage.text,
        "start_player": view.start_player,
        "to_move": view.to_move,
        "draws_due": view.draws_due,
        "turns": view.turns,
        "ending": view.ending,
        "turns_left": view.turns_left,
        "declared_this_turn": view.declared_this_turn,
        "bag_count": view.bag_count,
        "players": [_player(view, seat) for seat in range(view.rules.players)],
        "hand": None if view.hand is None else _codes(view.hand),
        "own_exchanged": _codes(view.own_exchanged),
        "own_mulligan": None if view.own_mulligan is None else _codes(view.own_mulligan),
    }


def _player(view: View, seat: int) -> dict[str, Any]:
    """The public part of one seat: phase, rows, pile, paid tiles, counts and score."""
    rows = view.rows[seat]
    return {
        "phase": view.phases[seat],
        "declared_turn": view.declared_turns[seat],
        "turns_taken": view.turns_taken[seat],
        "rows": {
            COLOUR_LETTERS[colour]: [tile_code(make_tile(colour, v)) for v in rows[colour]]
            for colour in range(view.rules.colors)
        },
        "pile": _codes(view.piles[seat]),
        "paid": _codes(view.paid[seat]),
        "hand_count": view.hand_counts[seat],
        "exchanged_count": view.exchanged_counts[seat],
        "mulligan_count": view.mulligan_counts[seat],
        "score": view.scores[seat],
    }


def _codes(tiles: Iterable[int]) -> list[str]:
    """Tile codes in the given order (views keep tiles ascending)."""
    return [tile_code(t) for t in tiles]
