"""Inference about the other hands from their last public move, for the search.

``sample_world`` deals the tiles a seat has not seen uniformly over the other hands and the
bag. But the search imagines every other seat as the plan (its playouts are the plan's), and
a plan's move tells something about the hand it was made from: after paying a score the
plan holds no tile of the paying colour (it pays with the whole colour: ``dump_max``), after
placing a chain it holds no tile that would have made the chain different, and after an
exchange in phase 1 it held no tile worth placing. Only the tiles drawn since (the refill:
as many as the move removed) can break such a rule. So a sampled world whose other hands
break their seat's last move is unlikely, and the search should meet it less often.

``Tracker`` finds each other seat's last move from the difference between two views of
this seat a round apart (all public: rows, piles, payments, exchange counts). ``likelihood``
is the chance that a world's hand fits that move: with ``m`` tiles in a hand of ``h`` that
the move rules out, all of them must be among the ``k`` drawn since, which happens with
chance C(k, m) / C(h, m) when every choice of the ``k`` new tiles is as likely. ``sample``
keeps a world from ``sample_world`` with that chance (rejection sampling: the worlds met
then follow the posterior, given the plan as the model of the others). Worlds still come
from the engine: this only chooses among them.

Measured with ``benchmarks/search_regret.py`` (450 positions of three-player plan
self-play, each move judged by an oracle that sees the true hands, ``search:time=0.3``):
the true hands fit their moves with chance 0.58 on average and a uniform sample 0.20, but
the search gains only +0.0005 win share a decision with inference (SE 0.0014), and even a
search given the true hands gains only +0.0007 (SE 0.0008): against the plan, what the
others hold hardly changes which move is best. So the search does not use it (kept in
history only: this commit, then its revert).
"""

from __future__ import annotations

from dataclasses import dataclass
from math import comb
from random import Random

from noreturn.bots import plan
from noreturn.engine import TILE_COLOUR, TILE_VALUE, GameState, View, make_tiles, sample_world

TRIES = 40
"""Worlds drawn at most for one accepted world; past them the most likely one drawn is
kept (a move that few hands fit does not stall the search)."""

PLACE, SCORE, EXCHANGE = "place", "score", "exchange"


@dataclass(frozen=True, slots=True)
class Move:
    """Another seat's last move, as everyone saw it.

    Attributes:
        seat: who moved.
        kind: ``PLACE``, ``SCORE`` or ``EXCHANGE`` (phase 1 or 2: ``phase``).
        phase: the seat's phase when it acted (after a declaration: 2).
        colour: the row placed on, or the colour a score was paid with.
        placed: the tiles placed, descending; ``last`` the row's last value before them.
        drawn: tiles the seat drew since (its refill): the only ones that may break the move.
    """

    seat: int
    kind: str
    phase: int
    colour: int
    placed: tuple[int, ...]
    last: int | None
    drawn: int


class Tracker:
    """Remembers this seat's previous view and reads the others' moves since."""

    def __init__(self) -> None:
        self.previous: View | None = None
        self.moves: list[Move] = []

    def update(self, view: View) -> list[Move]:
        """The others' last moves as of ``view`` (none when they cannot be read safely:
        the first decision, or more than one round since the previous view)."""
        before, self.previous = self.previous, view
        if before is None or before.seat != view.seat:
            self.moves = []
        elif view.turns == before.turns:  # the same turn (after a declaration)
            pass
        elif view.turns - before.turns == view.rules.players:
            self.moves = [m for s in range(view.rules.players) if s != view.seat
                          for m in [_move(before, view, s)] if m is not None]
        else:
            self.moves = []
        return self.moves


def _move(before: View, now: View, seat: int) -> Move | None:
    """The one move ``seat`` made between ``before`` and ``now``, if it can be read."""
    grown = [c for c, (old, new) in enumerate(zip(before.rows[seat], now.rows[seat],
                                                  strict=True)) if len(new) > len(old)]
    paid = list(now.paid[seat])
    for tile in before.paid[seat]:
        if tile not in paid:
            return None
        paid.remove(tile)
    exchanged = now.exchanged_counts[seat] - before.exchanged_counts[seat]
    phase = now.phases[seat]
    if len(grown) == 1 and not paid and not exchanged:
        colour = grown[0]
        old, new = before.rows[seat][colour], now.rows[seat][colour]
        if new[: len(old)] != old:
            return None
        placed = tuple(make_tiles(colour, new[len(old):]))
        kind, removed, last = PLACE, len(placed), (old[-1] if old else None)
    elif paid and not grown and not exchanged and len({TILE_COLOUR[t] for t in paid}) == 1:
        kind, removed, colour, placed, last = SCORE, len(paid), TILE_COLOUR[paid[0]], (), None
    elif exchanged > 0 and not grown and not paid:
        kind, removed, colour, placed, last = EXCHANGE, exchanged, -1, (), None
    else:
        return None
    kept = before.hand_counts[seat] - removed
    drawn = now.hand_counts[seat] - kept
    if kept < 0 or drawn < 0:
        return None
    return Move(seat, kind, phase, colour, placed, last, drawn)


def _rules_out(move: Move, tile: int, world: GameState, p: plan.Params,
               lateness: float) -> bool:
    """Whether the plan, holding ``tile`` when it moved, would not have made ``move``."""
    colour = TILE_COLOUR[tile]
    if move.kind == SCORE:  # the payment took the whole colour with it
        return colour == move.colour and TILE_VALUE[tile] <= p.dump_max
    if move.kind == PLACE:
        if colour != move.colour:
            return False
        tiles = sorted((*move.placed, tile), reverse=True)
        return tuple(plan.chain(tiles, move.last, p)[1]) != move.placed
    if move.phase == 1:  # an exchange in phase 1: nothing was worth placing
        row = world.rows[move.seat][colour]
        worth, chain = plan.chain([tile], row[-1] if row else None, p)
        return bool(chain) and worth - lateness * TILE_VALUE[tile] / 2 > 0
    return False


def likelihood(world: GameState, moves: list[Move]) -> float:
    """The chance that the plan, with the world's hands, made the moves seen (each hand's
    tiles that a move rules out must all have been drawn since)."""
    if not moves:
        return 1.0
    p = plan.params_for(world.rules.players)
    lateness = 1.0 - min(plan.turns_left(world, p) / p.late, 1.0)
    chance = 1.0
    for move in moves:
        hand = world.hands[move.seat]
        out = sum(_rules_out(move, tile, world, p, lateness) for tile in hand)
        if out > move.drawn:
            return 0.0
        chance *= comb(move.drawn, out) / comb(len(hand), out)
    return chance


def sample(view: View, moves: list[Move], rng: Random) -> GameState:
    """A world from ``sample_world``, kept with the chance that the others' hands fit
    their last moves (``likelihood``); after ``TRIES``, the most likely one drawn."""
    if not moves:
        return sample_world(view, rng)
    best: tuple[float, GameState] | None = None
    for _ in range(TRIES):
        world = sample_world(view, rng)
        chance = likelihood(world, moves)
        if rng.random() < chance:
            return world
        if best is None or chance > best[0]:
            best = (chance, world)
    assert best is not None
    return best[1]
