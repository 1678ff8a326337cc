"""Games told in words and tables, for people: the one place for the words of the game.

Every sentence about an event (the turn log of a table, the OpenSpiel history strings, the
server's replays, a record's account) is written here, from what the engine's gate
``observe(event, seat)`` let that reader see: an ``EventView`` whose private part is there
only for the actor. Nothing here decides who may see a tile; a hidden tile that did not
pass the gate is not at hand to print, and the words say how many instead. The tables are
written from a ``View``, never from the full state. Keep every shared sentence here, so a
translation has one module to read.
"""

from __future__ import annotations

from collections.abc import Sequence

from noreturn.engine import (
    COLOUR_LETTERS,
    COLOUR_NAMES,
    EventKind,
    EventView,
    View,
    tiles_text,
    tiles_value,
)
from noreturn.text.lang import N_, _, ngettext
from noreturn.text.refusals import colour_word

LAST_ROUND = N_("the bag is empty: this is the last round")
"""Said once, when a draw empties the bag during play (docs/rules.md, "End of the game");
shown through ``_()``."""

_SAID: dict[EventKind, str] = {
    EventKind.START: N_("{name} starts"),
    EventKind.DECLARE: N_("{name} declared phase 2 (no return)"),
    EventKind.PASS: N_("{name} passed"),
}
"""The kinds that need no tile to be told."""


LEVEL_WORDS = {"easy": N_("easy"), "medium": N_("medium"), "hard": N_("hard"),
               "expert": N_("expert")}
"""The bot levels' own words (the specs name them in English; the browser's are the same
catalog entries)."""


def bot_word(spec: str) -> str:
    """A bot's spec as a player reads it: a level in the reader's language ("mittel"),
    any other spec as it is."""
    word = LEVEL_WORDS.get(spec)
    return spec if word is None else _(word)


def plural(count: int, word: str) -> str:
    """``1 tile``, ``3 tiles`` (English only: counted words for readers go through
    ``tiles_count``)."""
    return f"{count} {word}{'' if count == 1 else 's'}"


def tiles_count(count: int) -> str:
    """``1 tile``, ``3 tiles`` in the current language."""
    return ngettext("{n} tile", "{n} tiles", count).format(n=count)


def _hidden(seen: EventView) -> str:
    """The tiles the event hid, as this reader saw them: named (descending) when the gate
    gave it the private part (the actor), else how many."""
    if seen.private is None:
        return tiles_count(seen.public.count)
    return tiles_text(sorted(seen.private.tiles, reverse=True))


def narrate_event(name: str, seen: EventView) -> str:
    """One event in words as one reader saw it (``Bea exchanged 2 tiles``); ``name`` is
    the actor's."""
    public = seen.public
    kind = public.kind
    if kind in _SAID:
        return _(_SAID[kind]).format(name=name)
    if kind is EventKind.DEAL:
        return _("{name} was dealt {tiles}").format(name=name, tiles=_hidden(seen))
    if kind is EventKind.DRAW:
        return _("{name} drew {tiles}").format(name=name, tiles=_hidden(seen))
    if kind is EventKind.MULLIGAN:
        if not public.count:
            return _("{name} kept the hand").format(name=name)
        return _("{name} set aside {tiles}").format(name=name, tiles=_hidden(seen))
    if kind is EventKind.EXCHANGE:
        return _("{name} exchanged {tiles}").format(name=name, tiles=_hidden(seen))
    if kind is EventKind.PLACE:
        return _("{name} placed {tiles}").format(name=name, tiles=tiles_text(public.placed))
    colour = "?" if public.colour is None else colour_word(COLOUR_NAMES[public.colour])
    return ngettext(
        "{name} scored {n} tile of the {colour} row ({scored} = {value}), paying {paid}",
        "{name} scored {n} tiles of the {colour} row ({scored} = {value}), paying {paid}",
        public.count).format(name=name, n=public.count, colour=colour,
                             scored=tiles_text(public.scored),
                             value=tiles_value(public.scored), paid=tiles_text(public.paid))


def narrate_turn(name: str, action: EventView | None, drawn: EventView | None) -> str:
    """An action and the draws that followed it as one line, as one reader saw them
    (``Bea placed O9 O8 and drew 2``); without an action, the draws alone (a deal)."""
    if action is None:
        if drawn is None:
            raise ValueError("a turn tells an action, draws, or both")
        return narrate_event(name, drawn)
    text = narrate_event(name, action)
    if drawn is None:
        return text
    got = str(drawn.public.count) if drawn.private is None else _hidden(drawn)
    return _("{action} and drew {tiles}").format(action=text, tiles=got)


def in_progress(seat: int, draws_due: int) -> str:
    """An unfinished game's state, as ``replay`` and ``review`` end or head their account
    of it: who is to move, or to draw how many tiles (the validator's words in English)."""
    if draws_due:
        return ngettext("in progress: player {seat} to draw {count} tile",
                        "in progress: player {seat} to draw {count} tiles",
                        draws_due).format(seat=seat, count=draws_due)
    return _("in progress: player {seat} to move").format(seat=seat)


def narrate_game_over(names: Sequence[str], scores: Sequence[int], early: bool = False) -> str:
    """``game over: Ada 31, Bea 12``; ``early`` (tiles still in the bag), with the reason,
    which a newcomer would otherwise take for a fault (docs/rules.md, "End of the game")."""
    said = ", ".join(f"{name} {score}" for name, score in zip(names, scores, strict=True))
    if early:
        return _("game over before the bag is empty: every player is in phase 2 and every "
                 "row is empty, so no move can change a score: {scores}").format(scores=said)
    return _("game over: {scores}").format(scores=said)


def render_row(colour: int, values: tuple[int, ...]) -> str:
    """A row as ``R: 11 9 9 4``."""
    return f"{COLOUR_LETTERS[colour]}: " + " ".join(str(v) for v in values)


def render_table(view: View, names: list[str]) -> str:
    """The table as one seat (or a spectator) sees it, as plain text lines."""
    lines = [_("bag: {tiles}").format(tiles=tiles_count(view.bag_count))
             + (_("  (last round)") if view.ending else "")]
    for seat, name in enumerate(names):
        marker = ">" if seat == view.to_move and not view.is_over else " "
        pile = view.piles[seat]
        lines.append(f"{marker} " + _(
            "{name}: phase {phase}, hand {hand}, pile {points} ({tiles}), score now {score}"
        ).format(name=name, phase=view.phases[seat], hand=view.hand_counts[seat],
                 points=tiles_value(pile), tiles=tiles_count(len(pile)),
                 score=view.scores[seat]))
        rows = [render_row(c, r) for c, r in enumerate(view.rows[seat]) if r]
        lines.append("    " + _("rows: {rows}").format(rows="  |  ".join(rows) if rows
                                                      else _("none")))
    if view.hand is not None:
        lines.append(_("your hand: {tiles}").format(tiles=tiles_text(view.hand)))
    return "\n".join(lines)
