"""What one seat may see: the single gate for hidden information.

Bots, the terminal game, the server and learning environments all start from a ``View``;
none of them touches a ``GameState`` on behalf of a player. A view holds the public table,
and for a seat also its own hand and the tiles it removed itself (docs/rules.md, "What each
player may see"). It never holds the bag's contents, another hand, or which tiles another
player exchanged or set aside.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from functools import lru_cache

from noreturn.engine.errors import NoReturnError
from noreturn.engine.state import OVER, GameState, Stage, turns_taken
from noreturn.engine.tiles import Rules, make_tiles


@dataclass(frozen=True, slots=True)
class View:
    """One seat's knowledge of a game at one moment (``seat`` None: a spectator).

    Attributes:
        stage: the same ``Stage`` as the state's (its text form ``"play"`` for JSON).
        to_move: the seat to act or to draw; ``draws_due`` tiles are still to be drawn.
        turns: turns completed by all seats together since the first.
        turns_taken: turns each seat has completed (the turn under way not counted).
        turns_left: once the bag is empty (``ending``), the turns still to come before the
            game ends, the one under way included: the round is completed, up to the seat
            before the start player (0 when over). None while the bag holds tiles. The
            game can end sooner only when every seat is in phase 2 with empty rows.
        declared_turns: per seat, the value of ``turns`` during the turn in which it
            declared (None in phase 1); see ``declared_this_turn``.
        rows: ``rows[seat][colour]``, values from the first (highest) to the last tile.
        piles: each seat's score pile; ``paid`` the tiles each seat paid (both public).
        hand_counts, bag_count: how many tiles each hand and the bag hold.
        exchanged_counts: how many tiles each seat removed by EXCHANGE.
        mulligan_counts: how many tiles each seat set aside (None before its mulligan).
        scores: each seat's score if the game ended now.
        hand: this seat's hand, ascending (None for a spectator).
        own_exchanged, own_mulligan: the tiles this seat itself removed or set aside.
    """

    rules: Rules
    seat: int | None
    stage: Stage
    start_player: int
    to_move: int
    draws_due: int
    turns: int
    turns_taken: tuple[int, ...]
    turns_left: int | None
    ending: bool
    phases: tuple[int, ...]
    declared_turns: tuple[int | None, ...]
    rows: tuple[tuple[tuple[int, ...], ...], ...]
    piles: tuple[tuple[int, ...], ...]
    paid: tuple[tuple[int, ...], ...]
    hand_counts: tuple[int, ...]
    bag_count: int
    exchanged_counts: tuple[int, ...]
    mulligan_counts: tuple[int | None, ...]
    scores: tuple[int, ...]
    hand: tuple[int, ...] | None
    own_exchanged: tuple[int, ...]
    own_mulligan: tuple[int, ...] | None

    @property
    def is_over(self) -> bool:
        """Whether the game has ended."""
        return self.stage is Stage.OVER

    @property
    def declared_this_turn(self) -> bool:
        """Whether the seat to move declared during the turn under way, so that its next
        action is the phase-2 action of that same turn (a DECLARE does not end a turn)."""
        return not self.is_over and self.declared_turns[self.to_move] == self.turns

    @property
    def my_turn(self) -> bool:
        """Whether this seat is to decide now."""
        return self.seat == self.to_move and not self.draws_due and not self.is_over

    def unseen(self) -> Counter[int]:
        """Tiles this seat has not seen, by tile: in the bag, another hand or out unseen.

        Everything not in its own hand, not in a row or score pile, not paid and not
        removed by this seat itself. While the mulligan runs, its own set-aside tiles are
        known too.
        """
        pool = Counter(_every_tile(self.rules))
        seen: list[int] = list(self.hand or ()) + list(self.own_exchanged)
        if self.stage is Stage.MULLIGAN and self.own_mulligan:
            seen += self.own_mulligan
        for seat_rows, pile, paid in zip(self.rows, self.piles, self.paid, strict=True):
            for colour, row in enumerate(seat_rows):
                seen += make_tiles(colour, row)
            seen += pile
            seen += paid
        for tile in seen:
            pool[tile] -= 1
        return +pool


@lru_cache(maxsize=32)
def _every_tile(rules: Rules) -> dict[int, int]:
    """How many copies of each tile the set holds: the start of every ``unseen``, which
    the server works out for each state it sends. Bounded: a server's tables may each
    have rules of their own."""
    return dict(Counter(rules.all_tiles()))


def view(state: GameState, seat: int | None) -> View:
    """What ``seat`` may see of ``state``; ``None`` gives the spectators' (public) view."""
    if seat is not None and (type(seat) is not int or not 0 <= seat < state.n):
        raise NoReturnError(f"seat must be 0..{state.n - 1} or None, not {seat!r}")
    own = seat is not None
    mine = state.mulligan_tiles[seat] if own else None  # type: ignore[index]
    return View(
        rules=state.rules,
        seat=seat,
        stage=state.stage,
        start_player=state.start,
        to_move=state.to_move,
        draws_due=state.draws_due if state.stage != OVER else 0,
        turns=state.turns,
        turns_taken=turns_taken(state),
        turns_left=turns_left(state),
        ending=state.ending,
        phases=tuple(state.phases),
        declared_turns=tuple(state.declared_turns),
        rows=tuple(tuple(tuple(r) for r in rows) for rows in state.rows),
        piles=tuple(tuple(sorted(p)) for p in state.piles),
        paid=tuple(tuple(sorted(p)) for p in state.paid),
        hand_counts=tuple(len(h) for h in state.hands),
        bag_count=len(state.bag),
        exchanged_counts=tuple(len(e) for e in state.exchanged),
        mulligan_counts=tuple(None if m is None else len(m) for m in state.mulligan_tiles),
        scores=tuple(state.scores()),
        hand=tuple(sorted(state.hands[seat])) if own else None,  # type: ignore[index]
        own_exchanged=tuple(sorted(state.exchanged[seat])) if own else (),  # type: ignore[index]
        own_mulligan=None if mine is None else tuple(sorted(mine)),
    )


def turns_left(state: GameState) -> int | None:
    """Turns still to come once the bag is empty, the one under way included; else None."""
    if state.stage == OVER:
        return 0
    if not state.ending:
        return None
    return (state.last - state.to_move) % state.n + 1
