"""Games told in words and tables, for people: the turn log and the table as plain text.

Everything here starts from an action and a ``View``, never from the full state, so a text
shown to one seat cannot carry a tile that seat may not see: hidden tiles become counts.
"""

from __future__ import annotations

from noreturn.engine import (
    COLOUR_LETTERS,
    Action,
    Declare,
    Exchange,
    Mulligan,
    Pass,
    Place,
    Score,
    View,
    make_tile,
    row_due,
    tiles_text,
    tiles_value,
)


def plural(count: int, word: str) -> str:
    """``1 tile``, ``3 tiles``."""
    return f"{count} {word}{'' if count == 1 else 's'}"


def narrate_action(name: str, action: Action, visible: bool, row: tuple[int, ...] = ()) -> str:
    """One player's action in words; ``visible`` says whether the reader may see its tiles.

    ``row`` is the scored row before the SCORE (to name the tiles scored).
    """
    if isinstance(action, Place):
        return f"{name} placed {tiles_text(action.tiles)}"
    if isinstance(action, Exchange):
        what = tiles_text(action.tiles) if visible else plural(len(action.tiles), "tile")
        return f"{name} exchanged {what}"
    if isinstance(action, Score):
        scored = [make_tile(action.row, v) for v in row[-action.count:]] if row else []
        worth = f" ({tiles_text(scored)} = {row_due(row, action.count)})" if scored else ""
        return (f"{name} scored {plural(action.count, 'tile')} of the "
                f"{COLOUR_LETTERS[action.row]} row{worth}, paying {tiles_text(action.pay)}")
    if isinstance(action, Mulligan):
        if not action.tiles:
            return f"{name} kept the hand"
        what = tiles_text(action.tiles) if visible else plural(len(action.tiles), "tile")
        return f"{name} set aside {what}"
    if isinstance(action, Declare):
        return f"{name} declared phase 2 (no return)"
    if isinstance(action, Pass):
        return f"{name} passed"
    return f"{name}: {action}"


def narrate_draw(name: str, tiles: list[int], visible: bool, dealt: bool = False) -> str:
    """A run of draws (a refill, a deal) in words, tiles hidden unless ``visible``."""
    what = tiles_text(sorted(tiles, reverse=True)) if visible else plural(len(tiles), "tile")
    return f"{name} {'was dealt' if dealt else 'drew'} {what}"


def render_row(colour: int, values: tuple[int, ...]) -> str:
    """A row as ``R: 11 9 9 4``."""
    return f"{COLOUR_LETTERS[colour]}: " + " ".join(str(v) for v in values)


def render_table(view: View, names: list[str]) -> str:
    """The table as one seat (or a spectator) sees it, as plain text lines."""
    lines = [f"bag: {plural(view.bag_count, 'tile')}" + ("  (last round)" if view.ending else "")]
    for seat, name in enumerate(names):
        marker = ">" if seat == view.to_move and not view.is_over else " "
        pile = view.piles[seat]
        pile_sum = tiles_value(pile)
        lines.append(
            f"{marker} {name}: phase {view.phases[seat]}, hand {view.hand_counts[seat]}, "
            f"pile {pile_sum} ({plural(len(pile), 'tile')}), score now {view.scores[seat]}"
        )
        rows = [render_row(c, r) for c, r in enumerate(view.rows[seat]) if r]
        lines.append("    rows: " + ("  |  ".join(rows) if rows else "none"))
    if view.hand is not None:
        lines.append(f"your hand: {tiles_text(view.hand)}")
    return "\n".join(lines)
