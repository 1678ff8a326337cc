"""The table's widgets: the hand, a player's panel, the candidate moves.

They only draw what the app gives them and turn clicks into messages; the app owns the
selection and the game. Each draws one Rich ``Text``, so a click is mapped to a tile by
its column, with fixed cell widths.
"""

from __future__ import annotations

from rich.cells import cell_len, set_cell_size
from rich.style import Style
from rich.text import Text
from textual import events
from textual.message import Message
from textual.widgets import Static

from noreturn.engine import Stage, View, value_of
from noreturn.table import LocalTable
from noreturn.text.lang import _
from noreturn.tui import moves
from noreturn.tui.moves import Candidate, Target
from noreturn.tui.tiles import ROW_PREFIX, row_text, tile_face, tiles_inline

CELL = 7
"""Columns per hand tile: a face of 6 and a gap."""
ROW_CELL = 3
"""Columns per value in a row."""
STATUS_NAME = 12
"""The most terminal cells of a name on the top line: "No Return · Beutel 0 · Zug 100 ·
LETZTE RUNDE · " and ", dein Zug (Phase 2)" leave twelve of 80 (a name may have 40)."""


class HandView(Static):
    """Your hand: key numbers, tile faces, and a mark under the selected tiles."""

    class Toggled(Message):
        """A hand tile was clicked."""

        def __init__(self, index: int) -> None:
            """The clicked tile's position in the shown hand."""
            super().__init__()
            self.index = index

    def show(self, order: list[int] | None, selected: set[int], cursor: int,
             color: bool) -> None:
        """Draw ``order`` (None: hidden, in a hot-seat hand-over)."""
        if order is None:
            self.update(Text(_("(hidden until its player is at the keyboard)"), style="dim"))
            return
        numbers, faces, marks = Text(), Text(), Text()
        for i, tile in enumerate(order):
            label = f"{i + 1}" if i < 9 else " "
            at_cursor = i == cursor
            numbers.append(label.center(CELL - 1),
                           Style(reverse=True, bold=True) if at_cursor else Style(dim=True))
            numbers.append(" ")
            faces.append_text(tile_face(tile, color, i in selected))
            faces.append(" ")
            marks.append(("━━━━━━" if i in selected else "      ") + " ", Style(bold=True))
        self.update(Text("\n").join([numbers, faces, marks]))

    def on_click(self, event: events.Click) -> None:
        """Toggle the clicked tile."""
        offset = event.get_content_offset(self)
        if offset is not None and offset.x % CELL < CELL - 1:
            self.post_message(self.Toggled(offset.x // CELL))


class PlayerPanel(Static):
    """One player: name, phase, hand size, score pile, score now, and the rows.

    The facts are packed into lines by the panel's width at their boundaries, so a narrow
    panel (four players at 80 columns) never breaks "score pile 13" in two. On a short
    screen (``packed``) the rows share lines too, as many as fit side by side.
    """

    class Aimed(Message):
        """A tile of your own row was clicked: score from it to the row's end."""

        def __init__(self, target: Target, seat: int) -> None:
            """The clicked row and how many tiles from its end, in ``seat``'s panel."""
            super().__init__()
            self.target, self.seat = target, seat

    seat: int = 0
    _spans: tuple[tuple[int, int, int, int], ...] = ()
    """Each row's line, first column, colour and length: a click finds its tile."""

    def show(self, seen: View, seat: int, title: str, color: bool,
             target: Target | None = None, packed: bool = False) -> None:
        """Draw ``seat`` as ``seen`` shows it; ``target`` marks a tail of your own row."""
        self.seat = seat
        width = max(self.content_size.width, 20)
        pile = sum(value_of(t) for t in seen.piles[seat])
        moving = seat == seen.to_move and not seen.is_over
        facts = [("▶ " if moving else "  ") + title,
                 _("score now {score}").format(score=seen.scores[seat]),
                 _("phase {phase}").format(phase=seen.phases[seat]),
                 _("hand {count}").format(count=seen.hand_counts[seat]),
                 _("score pile {points}").format(points=pile)]
        lines = [Text(line, style="bold" if not n else "")
                 for n, line in enumerate(pack(facts, width, "  ", " · "))]
        rows = [c for c, r in enumerate(seen.rows[seat]) if r]
        if not rows:  # (in phase 2 no row can be started again: as the browser says it)
            none = (_("no rows yet") if seen.phases[seat] == 1 else
                    _("all rows scored") if seen.piles[seat] else _("no rows"))
            lines.append(Text("  " + none, style="dim"))
        spans: list[tuple[int, int, int, int]] = []
        line, column = Text(), 0
        for colour in rows:
            values = seen.rows[seat][colour]
            tail = target.count if target is not None and target.row == colour else 0
            shown = row_text(colour, values, color, tail, ROW_CELL)
            if line and not (packed and column + 2 + len(shown) <= width):
                lines.append(line)
                line, column = Text(), 0
            line.append("  ")
            spans.append((len(lines), column + 2, colour, len(values)))
            line.append_text(shown)
            column += 2 + len(shown)
        if line:
            lines.append(line)
        self._spans = tuple(spans)
        self.update(Text("\n").join(lines))

    def on_click(self, event: events.Click) -> None:
        """Aim a score at the clicked row tile (the panel of your own seat only acts on it)."""
        offset = event.get_content_offset(self)
        if offset is None:
            return
        for line, first, colour, length in self._spans:
            index = (offset.x - first - ROW_PREFIX) // ROW_CELL
            if line == offset.y and offset.x >= first + ROW_PREFIX and index < length:
                self.post_message(self.Aimed(Target(colour, length - index), self.seat))
                return


def pack(phrases: list[str], width: int, indent: str, glue: str) -> list[str]:
    """``phrases`` joined by ``glue`` into lines of at most ``width`` columns, broken only
    between phrases (a phrase longer than a line stands alone); later lines ``indent``ed."""
    lines: list[str] = []
    for phrase in phrases:
        if lines and len(lines[-1]) + len(glue) + len(phrase) <= width:
            lines[-1] += glue + phrase
        else:
            lines.append((indent if lines else "") + phrase)
    return lines


class MovePanel(Static):
    """The candidate moves of the selection, each with the engine's verdict."""

    class Chosen(Message):
        """A candidate line was clicked."""

        def __init__(self, key: str) -> None:
            """The candidate's key letter."""
            super().__init__()
            self.key = key

    _keys: tuple[str, ...] = ()
    _header_lines: int = 0

    def show(self, options: list[Candidate], choice: str, header: list[Text],
             color: bool) -> None:
        """Draw ``header`` lines, then one line per candidate, ``choice`` marked."""
        lines = list(header)
        for option in options:
            line = Text("▶ " if option.key == choice else "  ", style="bold")
            line.append(f"[{option.key}] {option.label}  ",
                        style="bold" if option.key == choice else "")
            line.append_text(_verdict(option, color))
            lines.append(line)
        self._keys = tuple(o.key for o in options)
        self._header_lines = len(header)
        self.update(Text("\n").join(lines))

    def on_click(self, event: events.Click) -> None:
        """Choose the clicked candidate."""
        offset = event.get_content_offset(self)
        if offset is None:
            return
        index = offset.y - self._header_lines
        if 0 <= index < len(self._keys):
            self.post_message(self.Chosen(self._keys[index]))


def _verdict(option: Candidate, color: bool) -> Text:
    """``✓ legal`` or ``✗ <why not>``, in green or red unless colours are off."""
    if option.legal:
        return Text(_("✓ legal: Enter plays it"), style="bold green" if color else "bold")
    mark = _("✗ not allowed: ") if option.action is not None else "… "
    style = ("bold red" if option.action is not None else "yellow") if color else ""
    return Text(mark + (option.problem or ""), style=style)


def status_name(name: str) -> str:
    """``name`` cut to ``STATUS_NAME`` terminal cells (a wide character takes two), so
    that the rest of the top line ("your turn (phase 1)") stays on an 80-column screen."""
    if cell_len(name) <= STATUS_NAME:
        return name
    return set_cell_size(name, STATUS_NAME - 1).rstrip() + "…"


def status_text(seen: View, names: list[str], thinking: bool) -> Text:
    """The top line: bag, turn, the last round, and who is doing what."""
    if seen.is_over:
        doing = _("game over")
    elif thinking:
        doing = _("{name} is thinking…").format(name=status_name(names[seen.to_move]))
    elif seen.my_turn and seen.seat is not None:
        doing = (_("{name}, your mulligan") if seen.stage is Stage.MULLIGAN
                 else _("{name}, your turn (phase {phase})")).format(
            name=status_name(names[seen.seat]), phase=seen.phases[seen.seat])
    else:
        doing = _("{name} to move").format(name=status_name(names[seen.to_move]))
    last = " · " + _("LAST ROUND") if seen.ending else ""
    return Text(_("No Return · bag {bag} · turn {turn}").format(
        bag=seen.bag_count, turn=seen.turns + 1) + f"{last} · {doing}", style="bold")


def score_help(table: LocalTable, seen: View, target: Target | None, color: bool) -> list[Text]:
    """Phase 2: the row tail aimed at, the sum to pay, and the payments that suffice."""
    if (seen.stage is not Stage.PLAY or seen.seat is None or seen.phases[seen.seat] != 2
            or not target):
        return []
    due = moves.tail_sum(seen, target)
    aim = Text(_("Score target: ")).append_text(tiles_inline(moves.tail(seen, target), color))
    aim.append(_(" = {due} to pay   (r: next row, +/-: more or fewer tiles)").format(due=due))
    pays = moves.payments(table, target)
    enough = Text(_("Payments that suffice: "))
    if not pays:
        enough.append(_("none in your hand"), style="bold")
    for i, pay in enumerate(pays[: moves.PAYMENTS_SHOWN]):
        enough.append(" · " if i else "")
        enough.append_text(tiles_inline(pay, color))
        enough.append(f" ({sum(value_of(t) for t in pay)})")
    if len(pays) > moves.PAYMENTS_SHOWN:
        enough.append(" · " + _("{n} more").format(n=len(pays) - moves.PAYMENTS_SHOWN))
    return [aim, enough]
