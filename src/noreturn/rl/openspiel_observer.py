"""What a seat observes in ``python_no_return``: its story, its table, OpenSpiel's observer.

Split from ``noreturn.rl.openspiel`` (the game and its states), which uses all of it. Every
string and tensor here starts from one of the engine's two gates: ``view(state, seat)`` for
the table, ``observe(event, seat)`` for each line of the story, so what a seat reads is
what the engine says it may see; ``noreturn.text.narrate`` words the events.

The story (``Table.log`` of the game module) is a list of engine ``Event``s, each kept in a
``Told`` with its words, plus, in a state imagined by ``resample_from_infostate``, one
``Imagined`` line per other seat.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np
import pyspiel

from noreturn.engine import (
    Event,
    EventKind,
    GameState,
    Rules,
    View,
    draw_event,
    observe,
    tiles_text,
    view,
)
from noreturn.rl import features
from noreturn.text.narrate import narrate_event, plural, render_table

if TYPE_CHECKING:
    from noreturn.rl.openspiel import NoReturnState

SHORT_NAME = "python_no_return"


def seat_name(seat: int) -> str:
    """How texts name a seat: ``p0``, ``p1``, ... (OpenSpiel's player ids)."""
    return f"p{seat}"


# ---------------------------------------------------------------------- the story
class Told:
    """An engine ``Event`` of the story, with its line for each reader worded once.

    A state and its clones share their past (the log is copied shallowly), and search asks
    for information states again and again: wording each event anew made an information
    state string twenty times dearer than joining lines already worded. The words are
    those of ``observe(event, reader)``, so the memo cannot change what a reader sees.
    """

    __slots__ = ("_lines", "event")

    def __init__(self, event: Event) -> None:
        """Keep ``event``; nothing is worded yet."""
        self.event = event
        self._lines: dict[int | None, tuple[str, bool]] = {}

    def line(self, reader: int | None) -> tuple[str, bool]:
        """The line ``reader`` (None: a spectator) reads, and whether the gate let it see
        the event's hidden tiles (its private part)."""
        told = self._lines.get(reader)
        if told is None:
            seen = observe(self.event, reader)
            told = (narrate_event(seat_name(self.event.actor), seen), seen.private is not None)
            self._lines[reader] = told
        return told

    def __getstate__(self) -> Event:
        return self.event

    def __setstate__(self, event: Event) -> None:
        self.event = event
        self._lines = {}


@dataclass(frozen=True, slots=True)
class Imagined:
    """A line of an imagined state's story for one seat alone: what it imagines it holds.

    In a state made by ``resample_from_infostate`` the other seats' past private events are
    unknown, but each of them still knows its imagined hand and removed tiles; this line
    (from its ``view`` of the imagined state) tells it so, so that its information state
    fixes its hand (and its legal actions).
    """

    seat: int
    text: str


Entry = Told | Imagined
"""One line of the story."""


def imagined_entry(seen: View) -> Imagined:
    """The ``Imagined`` line of the seat of ``seen`` (a seat's view, not a spectator's)."""
    if seen.seat is None:
        raise ValueError("an imagined line is for a seat, not for spectators")
    return Imagined(seen.seat, f"{seat_name(seen.seat)} imagined: {private_text(seen)}")


def log_draw(log: list[Entry], actor: int, tile: int, dealt: bool) -> None:
    """Add ``actor`` drawing ``tile`` to ``log``: it extends the run of draws ``actor``
    is making (one line for a deal or a refill), or starts one (``dealt``: the deal)."""
    last = log[-1].event if log and isinstance(log[-1], Told) else None
    if (last is not None and last.actor == actor and last.hidden is not None
            and last.kind in (EventKind.DEAL, EventKind.DRAW)):
        log[-1] = Told(draw_event(actor, (*last.hidden, tile), last.kind is EventKind.DEAL))
    else:
        log.append(Told(draw_event(actor, (tile,), dealt)))


def history_text(log: Sequence[Entry], seat: int | None, private_only: bool = False) -> str:
    """The story as ``seat`` (None: a spectator) observes it, one line per event; with
    ``private_only`` just the lines of what it alone saw (its own hidden tiles)."""
    lines = [f"you are {seat_name(seat)}" if seat is not None else "spectator"]
    for entry in log:
        if isinstance(entry, Imagined):
            if entry.seat == seat:
                lines.append(entry.text)
            continue
        line, private = entry.line(seat)
        if private or not private_only:
            lines.append(line)
    return "\n".join(lines)


# ---------------------------------------------------------------------- the table
def public_view(game: GameState, seat: int) -> View:
    """The spectators' view, seated at ``seat``: public facts only, counted from ``seat``.

    Built from ``view(game, None)``, so it cannot hold a hidden tile; its hand and removed
    tiles are empty, and ``unseen`` is then everything not public.
    """
    return dataclasses.replace(view(game, None), seat=seat, hand=(), own_exchanged=(),
                               own_mulligan=None)


def observation_text(seen: View, names: Sequence[str], opening: bool = False) -> str:
    """What ``seen`` shows, as text: whose move it is, the table, paid and own removed tiles.
    ``opening``: the first chance node, before anyone is to move."""
    if opening:
        status = "choosing who starts"
    elif seen.is_over:
        status = "game over"
    elif seen.draws_due:
        status = f"{names[seen.to_move]} to draw {plural(seen.draws_due, 'tile')}"
    else:
        status = f"{names[seen.to_move]} to move"
    lines = [f"{seen.stage}: {status}", render_table(seen, list(names))]
    paid = [f"{names[s]} {tiles_text(p)}" for s, p in enumerate(seen.paid) if p]
    if paid:
        lines.append("paid: " + ", ".join(paid))
    removed = [f"{names[s]} exchanged {e}" + ("" if m is None else f", set aside {m}")
               for s, (e, m) in enumerate(zip(seen.exchanged_counts, seen.mulligan_counts,
                                              strict=True))]
    lines.append("tiles removed: " + "; ".join(removed))
    if seen.seat is not None:
        if seen.own_exchanged:
            lines.append(f"you exchanged: {tiles_text(seen.own_exchanged)}")
        if seen.own_mulligan:
            lines.append(f"you set aside: {tiles_text(seen.own_mulligan)}")
    return "\n".join(lines)


def private_text(seen: View) -> str:
    """Only what ``seen``'s seat knows and nobody else does: its hand and removed tiles."""
    return (f"hand: {tiles_text(seen.hand or ())}; exchanged: {tiles_text(seen.own_exchanged)}"
            f"; set aside: {tiles_text(seen.own_mulligan or ())}")


# ---------------------------------------------------------------------- observer
class NoReturnObserver:
    """Observations and information states, OpenSpiel's ``PyObserver`` protocol.

    Supported kinds (``pyspiel.IIGObservationType``):

    * public and the seat's private information: tensor ``features.observation_tensor`` of
      the seat's view; string: the table (``perfect_recall=False``) or the seat's history
      (``perfect_recall=True``; the tensor stays the same, see the module docstring);
    * public information only: the same tensor layout from ``public_view`` (the seat's own
      tile planes empty); string: the spectators' table or the public history;
    * private information only: the seat's hand, exchanged and set-aside planes; string: the
      same in words, or with perfect recall the seat's private history lines;
    * neither: no tensor and the empty string.

    Every player's private information at once (``PrivateInfoType.ALL_PLAYERS``) is refused:
    that is the full state, ``str(state)``.
    """

    def __init__(self, rules: Rules, iig_obs_type: Any, params: dict[str, Any] | None) -> None:
        """Lay out the tensor pieces of this kind of observation.

        Raises:
            ValueError: observation parameters (there are none) or ``ALL_PLAYERS``.
        """
        if params:
            raise ValueError(f"{SHORT_NAME} observers take no parameters, not {dict(params)}")
        if iig_obs_type.private_info == pyspiel.PrivateInfoType.ALL_PLAYERS:
            raise ValueError(f"{SHORT_NAME}: an observer of every player's private information "
                             "is not supported; str(state) shows the full state")
        self.rules = rules
        self.public = bool(iig_obs_type.public_info)
        self.private = iig_obs_type.private_info == pyspiel.PrivateInfoType.SINGLE_PLAYER
        self.recall = bool(iig_obs_type.perfect_recall)
        self.names = [seat_name(s) for s in range(rules.players)]
        lay = features.observation_layout(rules)
        kinds, n = lay.kinds, rules.players
        pieces: list[tuple[str, tuple[int, ...]]] = []
        if self.public:
            pieces = [
                ("own_tiles", (lay.own_planes, kinds)),
                ("seat_tiles", (n, lay.seat_planes, kinds)),
                ("seat_numbers", (n, features.SEAT_SCALARS)),
                ("globals", (features.GLOBAL_SCALARS,)),
            ]
        elif self.private:
            pieces = [("own_tiles", (3, kinds))]
        size = sum(int(np.prod(shape)) for _, shape in pieces)
        self.tensor: np.ndarray[Any, np.dtype[np.float32]] | None = (
            np.zeros(size, np.float32) if pieces else None)
        self.dict: dict[str, np.ndarray[Any, np.dtype[np.float32]]] = {}
        start = 0
        for name, shape in pieces:
            count = int(np.prod(shape))
            assert self.tensor is not None
            self.dict[name] = self.tensor[start:start + count].reshape(shape)
            start += count

    def set_from(self, state: NoReturnState, player: int) -> None:
        """Write ``player``'s observation of ``state`` into ``tensor`` (in place)."""
        if self.tensor is None:
            return
        game = state.table.game
        if self.public:
            seen = view(game, player) if self.private else public_view(game, player)
            self.tensor[:] = features.observation_tensor(seen)
        else:
            self.tensor[:] = features.observation_tensor(view(game, player))[:self.tensor.size]
        if state.table.opening:
            features.clear_to_move(self.tensor, game.rules)

    def string_from(self, state: NoReturnState, player: int) -> str:
        """``player``'s observation of ``state`` as text (see the class docstring)."""
        table = state.table
        if self.public and self.recall:
            return history_text(table.log, player if self.private else None)
        if self.public:
            seen = view(table.game, player if self.private else None)
            return observation_text(seen, self.names, table.opening)
        if self.private and self.recall:
            return history_text(table.log, player, private_only=True)
        if self.private:
            return private_text(view(table.game, player))
        return ""
