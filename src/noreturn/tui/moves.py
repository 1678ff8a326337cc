"""From a selection of hand tiles to the moves it could mean, each judged by the engine.

The screen lets a player pick tiles first and decide later what to do with them. This
module turns the picked tiles (and, in phase 2, the row tail aimed at) into the candidate
actions, and asks the table why each is refused; it never decides legality itself. It has
no Textual in it, so it is tested directly.
"""

from __future__ import annotations

from dataclasses import dataclass

from noreturn.engine import (
    COLOUR_NAMES,
    Action,
    Exchange,
    Mulligan,
    Pass,
    Place,
    Score,
    Stage,
    View,
    colour_of,
    make_tile,
    tiles_text,
    value_of,
)
from noreturn.table import LocalTable
from noreturn.text.lang import _
from noreturn.text.refusals import colour_word

PAYMENTS_SHOWN = 4


@dataclass(frozen=True)
class Candidate:
    """One thing the selection could be played as.

    Attributes:
        key: the letter that picks it (``p`` place, ``e`` exchange, ``s`` score,
            ``m`` mulligan, ``x`` pass).
        label: what it does, in words.
        action: the action, or None when the selection cannot form one yet.
        problem: why it may not be played now (the engine's words), or None.
    """

    key: str
    label: str
    action: Action | None
    problem: str | None

    @property
    def legal(self) -> bool:
        """Whether Enter would play it."""
        return self.action is not None and self.problem is None


@dataclass(frozen=True)
class Target:
    """The tail of one of your rows that a SCORE would take: ``count`` lowest tiles."""

    row: int
    count: int


def hand_order(hand: tuple[int, ...]) -> list[int]:
    """The hand as shown: by colour (R O Y G B P), then highest value first, like a row."""
    return sorted(hand, key=lambda t: (colour_of(t), -value_of(t)))


def candidates(table: LocalTable, seen: View, picked: tuple[int, ...],
               target: Target | None) -> list[Candidate]:
    """The candidate moves for ``picked`` tiles, as the player of ``seen`` could make them."""
    if seen.stage is Stage.MULLIGAN:
        return [_judge(table, "m", Mulligan(picked), _mulligan_label(picked))]
    if seen.seat is None:
        return []
    exchange = (_judge(table, "e", Exchange(picked),
                       _("exchange {tiles}").format(tiles=tiles_text(picked)))
                if picked else Candidate("e", _("exchange"), None, _("select 1 or more tiles")))
    if seen.phases[seen.seat] == 1:
        options = [_place(table, seen.rows[seen.seat], picked), exchange]
    else:
        options = [_score(table, seen, picked, target), exchange]
    if table.why_not(Pass()) is None:  # an empty hand at the very end: nothing else to do
        options.append(Candidate("x", _("pass (you have no other move)"), Pass(), None))
    return options


def _judge(table: LocalTable, key: str, action: Action, label: str) -> Candidate:
    return Candidate(key, label, action, table.why_not(action))


def _mulligan_label(picked: tuple[int, ...]) -> str:
    if not picked:
        return _("keep your hand (or select tiles to set aside)")
    return _("set aside {tiles} and draw {count}").format(tiles=tiles_text(picked),
                                                          count=len(picked))


def _place(table: LocalTable, rows: tuple[tuple[int, ...], ...],
           picked: tuple[int, ...]) -> Candidate:
    if not picked:
        return Candidate("p", _("place"), None, _("select tiles of one colour"))
    action = Place(picked)
    colours = {colour_of(t) for t in action.tiles}
    colour = colour_of(action.tiles[0])
    tiles, name = tiles_text(action.tiles), colour_word(COLOUR_NAMES[colour])
    if len(colours) > 1:
        label = _("place {tiles}")
    elif rows[colour]:
        label = _("place {tiles} on your {colour} row")
    else:
        label = (_("place {tiles} to start an {colour} row") if COLOUR_NAMES[colour] == "orange"
                 else _("place {tiles} to start a {colour} row"))
    return _judge(table, "p", action, label.format(tiles=tiles, colour=name))


def _score(table: LocalTable, seen: View, picked: tuple[int, ...],
           target: Target | None) -> Candidate:
    if target is None:
        return Candidate("s", _("score"), None, _("you have no row to score"))
    due = tail_sum(seen, target)
    what = _("score {count} of your {colour} row ({due})").format(
        count=target.count, colour=colour_word(COLOUR_NAMES[target.row]), due=due)
    if not picked:
        return Candidate("s", what, None, _("select tiles of one colour worth at least "
                                            "{due}").format(due=due))
    paid = sum(value_of(t) for t in picked)
    return _judge(table, "s", Score(target.row, target.count, picked),
                  _("{what}, paying {tiles} ({paid})").format(
                      what=what, tiles=tiles_text(picked), paid=paid))


def tail(seen: View, target: Target) -> list[int]:
    """The tiles a SCORE of ``target`` would take, as tiles, highest first."""
    if seen.seat is None:
        return []
    row = seen.rows[seen.seat][target.row]
    return [make_tile(target.row, v) for v in row[len(row) - target.count:]]


def tail_sum(seen: View, target: Target) -> int:
    """The sum to pay for ``target``."""
    return sum(value_of(t) for t in tail(seen, target))


def payments(table: LocalTable, target: Target) -> list[tuple[int, ...]]:
    """Payments that suffice for ``target``, least overpay first (from the legal actions)."""
    scores = [a for a in table.legal_actions()
              if isinstance(a, Score) and a.row == target.row and a.count == target.count]
    scores.sort(key=lambda a: (sum(value_of(t) for t in a.pay), len(a.pay)))
    return [a.pay for a in scores]


def first_target(seen: View) -> Target | None:
    """The default target: the lowest tile of your first non-empty row."""
    rows = _my_rows(seen)
    return Target(rows[0], 1) if rows else None


def next_row(seen: View, target: Target | None) -> Target | None:
    """The next non-empty row after ``target``'s, cycling; count back to 1."""
    rows = _my_rows(seen)
    if not rows:
        return None
    if target is None or target.row not in rows:
        return Target(rows[0], 1)
    return Target(rows[(rows.index(target.row) + 1) % len(rows)], 1)


def resize(seen: View, target: Target | None, step: int) -> Target | None:
    """``target`` with ``step`` more (or fewer) tiles, kept within its row."""
    if target is None or seen.seat is None:
        return target
    length = len(seen.rows[seen.seat][target.row])
    return Target(target.row, min(max(target.count + step, 1), length))


def _my_rows(seen: View) -> list[int]:
    if seen.seat is None:
        return []
    return [c for c, row in enumerate(seen.rows[seen.seat]) if row]


def pick_tiles(order: list[int], tiles: tuple[int, ...]) -> set[int]:
    """The positions in the shown hand ``order`` holding ``tiles`` (each copy once)."""
    chosen: set[int] = set()
    for tile in tiles:
        for i, held in enumerate(order):
            if held == tile and i not in chosen:
                chosen.add(i)
                break
    return chosen


def tiles_of(action: Action) -> tuple[int, ...]:
    """The hand tiles an action uses (what a hint selects)."""
    if isinstance(action, (Mulligan, Exchange, Place)):
        return action.tiles
    if isinstance(action, Score):
        return action.pay
    return ()


def key_of(action: Action) -> str:
    """The candidate key of an action's kind."""
    kinds = {Mulligan: "m", Exchange: "e", Place: "p", Score: "s", Pass: "x"}
    return kinds.get(type(action), "")
