"""The plan: a fast strategy for one seat, from what that seat may know.

No Return is an investment followed by a race. In phase 1 a tile put in a row costs its
value at the end unless it is scored, and is worth its value once scored: a swing of twice
its value. In phase 2 each turn scores one row's lowest tiles, paid for with hand tiles of
one colour summing to at least theirs. The bag is the clock: every tile placed, paid or
exchanged is refilled from it, and when it runs dry the round is finished and the game ends.
So the plan is a budget of turns:

- **Turns left** (``turns_left``): the bag over the tiles all seats take from it in a
  round, plus the turn that finishes the round. Each seat's rate is its own, from what it
  placed, paid and exchanged so far (all public), pulled towards a prior early on. A seat
  in phase 2 takes more: a payment and the rest of its colour (``scoring_rate``), or, with
  its rows empty, four tiles a turn, since it can only exchange. How far off it runs, and
  what the per-seat rates won over one rate for the table: docs/bots.md.
- **Scoring turns the rows need** (``scoring_turns``): phase 2 played out greedily on the
  rows, each turn scoring the biggest tail the paying power covers; the first turn with the
  hand's real power, later ones with a typical power.
- **The switch**: declare when the rows need as many scoring turns as are left, less a
  margin (a tile left in a row costs twice its value against scoring it, a turn declared
  early only the next placement; who empties the bag first cuts the rivals' time). Far
  ahead (``safe_lead``) there is no race to run, and the margin falls to nothing.
- **Solo**: further ahead still (``solo_lead``) no rival can catch up, and every constant
  gives way to the ``solo`` set, searched for the seat's own score alone.
- **Building**: the longest chain of one colour that starts a row high or extends one with
  small steps, valued per tile; late in phase 1 a tile placed is worth less (it may not be
  scored). When nothing is worth placing, or early on when the hand holds several tiles
  that fit no row (``fishing``, two players), the tiles that fit no row are exchanged.
- **Scoring**: the biggest tail the hand can pay, paid with the least overpay while keeping
  the most paying power for the next turn; the rest of the paying colour goes with the
  payment (``dump_max``), a free exchange: overpaying is allowed, and the refill brings
  new tiles at no cost of a turn. When nothing can be paid, the weak colours are exchanged
  to fish for a strong one.

``choose`` returns the engine's ``Decision`` tuple so that the search bot can play whole
games with it (``playout``); ``to_action`` turns it into an action (the ``plan`` bot of
``planner.py``). It reads only the seat's own hand and the public table, and every rule it
relies on (what fits a row, what a payment covers) is the engine's.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from random import Random
from typing import Any

from noreturn.engine import (
    DECLARE,
    EXCHANGE,
    MULLIGAN,
    MULLIGAN_CHOICE,
    PASS,
    PLACE,
    PLAY,
    SCORE,
    TILE_COLOUR,
    TILE_VALUE,
    Decision,
    GameState,
    colour_sums,
    covers,
    fits_row,
    payable_tail,
    tiles_value,
    turns_taken,
)

VALUE, COLOUR = TILE_VALUE, TILE_COLOUR
"""Each tile's value and colour by lookup (the engine's tables): the plan runs inside every
playout of a search."""


@dataclass(frozen=True)
class Params:
    """The plan's constants for one table size (see the module docstring and PARAMS)."""

    margin: float
    """Spare turns kept when declaring."""
    typical: int
    """Paying power assumed for the scoring turns after the first."""
    start_min: int = 6
    """The lowest tile that starts a row."""
    max_gap: int = 5
    """The largest step down a chain takes."""
    start_gain: float = 2.0
    step_cost: float = 1.5
    step_gain: float = 3.0
    value_gain: float = 0.25
    late: float = 12.0
    """Turns left below which a placed tile counts for less (it may stay unscored)."""
    keep_power: float = 0.0
    """How much a payment values the paying power it leaves for the next turn."""
    mulligan_max: int = 4
    """Tiles up to this value are set aside at the mulligan: they start no row."""
    prior_rate: float = 2.5
    """Tiles taken from the bag per turn assumed before any turn was seen."""
    prior_weight: float = 4.0
    completion: float = 0.5
    idle_rate: float = 4.0
    """Tiles a seat in phase 2 with empty rows takes from the bag per turn (exchanges)."""
    scoring_rate: float = 2.6
    """Tiles a seat in phase 2 with rows left takes per turn (measured in self-play): a
    payment and the rest of its colour, more than in phase 1; 0: its own rate so far."""
    safe_lead: float = 1000.0
    """A lead (projected score over the best other seat's) from which the race is won
    and the margin is ``safe_margin``."""
    safe_margin: float = 0.0
    dump_max: int = 11
    """The tiles of the paying colour up to this value that a payment leaves go with it
    (overpaid on purpose): a free exchange, as the refill replaces them."""
    solo_lead: float = 1000.0
    """A lead from which the plan plays ``solo``: the constants for its own score."""
    solo: Params | None = None
    mulligan_colours: int = 0
    """At the mulligan, outside the hand's strongest colours (this many; 0: no such rule)
    the tiles up to ``mulligan_weak`` go back too: rows and payments are single-coloured,
    and the mulligan is the one exchange that costs no turn (``set_aside``)."""
    mulligan_weak: int = 11
    fish_junk: int = 0
    """Hand tiles that fit no row, at least this many, are exchanged before building when
    no placement is worth ``fish_bar`` (``fishing``; 0: never, and never fewer than two)."""
    fish_worth: float = 0.0
    fish_left: float = 0.0
    fish_slope: float = 4.0


def _with_solo(base: Params, solo_lead: float, **solo: Any) -> Params:
    """``base``, playing by ``base`` with the ``solo`` changes from a lead of ``solo_lead``."""
    return replace(base, solo_lead=solo_lead, solo=replace(base, **solo))


PARAMS = {
    2: _with_solo(Params(margin=1, typical=15, start_min=7, max_gap=4, step_cost=0.5,
                         safe_lead=40, mulligan_max=5, fish_junk=3, fish_worth=15.0,
                         fish_left=15.0),
                  60, max_gap=5, keep_power=0.3, idle_rate=3.0, dump_max=5),
    3: _with_solo(Params(margin=1, typical=18, max_gap=11, step_cost=1.0, start_gain=1.0,
                         late=6.0, keep_power=0.3, mulligan_colours=2, mulligan_weak=7),
                  20, typical=16, start_min=5, step_cost=0.5, value_gain=0.0, dump_max=5),
    4: _with_solo(Params(margin=1, typical=15, start_min=5, max_gap=11, step_cost=0.5,
                         step_gain=5.0, value_gain=0.5, keep_power=0.6, completion=1.0,
                         mulligan_colours=2, mulligan_weak=7),
                  40, margin=2),
}
"""Chosen by coordinate search in self-play on paired deals (``benchmarks/tune_plan.py``):
each constant in turn over a few values, kept when it raised the win rate against
``heuristic-v1`` and the shipped plan plus the mean score against random play.
``typical`` is the paying power a scoring turn averages after the first (measured). The
``solo`` constants were searched for the seat's own score alone, the mulligan's and the
two-player fishing on their own: the figures in docs/bots.md."""


def params_for(players: int) -> Params:
    """The tuned constants for ``players`` (the nearest table size tuned)."""
    return PARAMS[min(max(players, 2), 4)]


def turns_left(state: GameState, p: Params) -> float:
    """How many more turns the player to move can expect, this one included: the bag
    over the tiles all seats take from it in a round, plus the completion of the round.

    Each seat's rate is its own (what it took so far, pulled towards ``prior_rate`` early
    on), all public: the tiles it placed, paid and exchanged were each refilled. A seat in
    phase 2 with its rows empty takes ``idle_rate``: it has nothing left to do but
    exchange, so the bag speeds up when a rival runs out of rows.
    """
    per_round = 0.0
    taken_by = turns_taken(state)
    for seat in range(state.rules.players):
        rows = state.rows[seat]
        if state.phases[seat] == 2 and (p.scoring_rate or not any(rows)):
            per_round += p.scoring_rate if any(rows) else p.idle_rate
            continue
        per_round += ((tiles_taken(state, seat) + p.prior_rate * p.prior_weight)
                      / (taken_by[seat] + p.prior_weight))
    return len(state.bag) / max(per_round, 0.5) + p.completion


def tiles_taken(state: GameState, seat: int) -> int:
    """Tiles ``seat`` has taken from the bag since the deal, all public: every tile it
    placed, paid or exchanged was refilled."""
    return (sum(map(len, state.rows[seat])) + len(state.piles[seat]) + len(state.paid[seat])
            + len(state.exchanged[seat]))


def scoring_turns(rows: list[list[int]], power: int, typical: int) -> int:
    """Phase-2 turns the rows need: each turn scores the biggest tail payable, the first
    with ``power`` (or ``typical``, if more), the others with ``typical``. A tile no power
    covers costs two turns (an exchange to build power, then the score)."""
    left = [row[:] for row in rows if row]
    turns = 0
    budget = max(power, typical)
    while left:
        best_due = index = count = 0
        for at, row in enumerate(left):
            tail, due = payable_tail(row, budget)
            if tail and due > best_due:  # the dearest tail, the first row on a tie
                best_due, index, count = due, at, tail
        if count == 0:
            turns += 2
            index, count = min(range(len(left)), key=lambda i: left[i][-1]), 1
        else:
            turns += 1
        del left[index][-count:]
        if not left[index]:
            del left[index]
        budget = typical
    return turns


def should_declare(state: GameState, p: Params, left: float | None = None) -> bool:
    """Whether the rows already need the turns that are left (less the margin); ``left``
    is ``turns_left`` when the caller has it already.

    The margin is a race's: declaring early and emptying the bag cuts a close rival's
    time. Far ahead there is no race, and the plan builds on for its own score. (The lead
    is looked at only when a margin is reached: this runs in every playout.)"""
    seat = state.to_move
    rows = state.rows[seat]
    left = turns_left(state, p) if left is None else left
    if 2 * sum(map(len, rows)) < left - max(p.margin, p.safe_margin):
        return False  # each scoring turn takes a tile, or two turns one: far from the switch
    needed = scoring_turns(rows, paying_power(state.hands[seat]), p.typical)
    if needed == 0 or needed < left - max(p.margin, p.safe_margin):
        return False
    margin = p.safe_margin if lead(state) >= p.safe_lead else p.margin
    return needed >= left - margin


def projected(state: GameState, seat: int) -> int:
    """A seat's score if its rows were all scored: its pile plus its rows (public)."""
    return state.pile_sums[seat] + state.row_sum(seat)


def lead(state: GameState) -> int:
    """How far the mover's projected score is ahead of the best other seat's."""
    seat = state.to_move
    scores = [projected(state, s) for s in range(state.rules.players)]
    mine = scores.pop(seat)
    return mine - max(scores)


def _chain(tiles: list[int], last: int | None, p: Params) -> tuple[float, list[int]]:
    """Tiles (descending) that start a row or extend one ending at ``last`` in small steps,
    and what they are worth to the plan."""
    chain: list[int] = []
    worth = 0.0
    for tile in tiles:
        value = VALUE[tile]
        if last is None:
            if value < p.start_min:
                break
            gain = p.start_gain * (value - p.start_min) + 1.0
        elif not fits_row((last,), value):
            continue
        elif last - value > p.max_gap:
            break
        else:
            gain = p.step_gain - p.step_cost * (last - value) + p.value_gain * value
        chain.append(tile)
        worth += gain
        last = value
    return worth, chain


def best_place(state: GameState, p: Params, left: float | None = None) -> tuple[
        float, tuple[int, ...]]:
    """The chain most worth placing now, with its worth (<= 0: none is); ``left`` is
    ``turns_left`` when the caller has it already."""
    seat = state.to_move
    hand = sorted(state.hands[seat])  # its order means nothing: ties fall alike
    rows = state.rows[seat]
    left = turns_left(state, p) if left is None else left
    lateness = 1.0 - min(left / p.late, 1.0)
    best: tuple[float, tuple[int, ...]] = (0.0, ())
    for colour in {COLOUR[t] for t in hand}:
        row = rows[colour]
        tiles = sorted((t for t in hand if COLOUR[t] == colour), reverse=True)
        worth, chain = _chain(tiles, row[-1] if row else None, p)
        worth -= lateness * tiles_value(chain) / 2
        if chain and worth > best[0]:
            best = (worth, tuple(chain))
    return best


def keep_value(rows: list[list[int]], tile: int, p: Params) -> float:
    """How much a hand tile is worth keeping in phase 1 (to place it, or to pay with it)."""
    row = rows[COLOUR[tile]]
    value = VALUE[tile]
    if row and fits_row(row, value):
        return 6.0 - 1.5 * (row[-1] - value) + value / 4
    if not row:
        return value - p.start_min + 2.0
    return value / 4 - 1.0


def paying_power(hand: list[int], sums: dict[int, int] | None = None) -> int:
    """The most one payment can cover: the sum of the hand's strongest colour (a payment is
    of one colour); ``sums`` is ``colour_sums(hand)`` when the caller has it."""
    return max((colour_sums(hand) if sums is None else sums).values(), default=0)


def best_score(hand: list[int], rows: list[list[int]],
               power: int | None = None) -> tuple[int, int, int] | None:
    """(due, row, count): the biggest row tail the hand's strongest colour can pay (the
    first row on a tie); ``power`` is ``paying_power(hand)`` when the caller has it."""
    power = paying_power(hand) if power is None else power
    best: tuple[int, int, int] | None = None
    for colour, row in enumerate(rows):
        if not row:
            continue  # (nothing to pay: skips a call per empty row, on every playout turn)
        count, due = payable_tail(row, power)
        if count and (best is None or due > best[0]):
            best = (due, colour, count)
    return best


def least_cover(values: list[int], due: int) -> tuple[int, int]:
    """The least sum of some of ``values`` that covers ``due``, and the fewest values that
    make it: ``(paid, count)``, or ``(0, 0)`` when even all of them fall short.

    Bitsets of the sums reachable with exactly k values (a 0/1 knapsack): the payment of
    every scoring turn of every playout asks this, so it costs a few shifts, not a loop
    over every subset."""
    reach = [1] + [0] * len(values)
    for used, value in enumerate(values):
        for count in range(used + 1, 0, -1):
            reach[count] |= reach[count - 1] << value
    best = (0, 0)
    for count in range(1, len(values) + 1):
        above = reach[count] >> due
        if above:
            paid = due + (above & -above).bit_length() - 1
            if best == (0, 0) or paid < best[0]:
                best = (paid, count)
    return best


def payment(hand: list[int], due: int, keep_power: float, dump_max: int = 0,
            sums: dict[int, int] | None = None) -> tuple[int, ...]:
    """Tiles of one colour that pay ``due``: the least overpay, less ``keep_power`` times
    the paying power the hand keeps for the next turn; then the fewest tiles. The tiles of
    that colour up to ``dump_max`` that the payment leaves are added to it (see Params).

    The cost grows with the sum paid, so each colour's best is its least covering sum
    (``least_cover``); the colours are compared by it, the first in the hand's order on a
    tie. ``sums`` is ``colour_sums(hand)`` when the caller has it."""
    sums = colour_sums(hand) if sums is None else sums
    paying = [colour for colour, total in sums.items() if covers(total, due)]
    if not paying:
        return ()
    colour = paying[0]
    if len(paying) > 1:  # (with one colour that covers, there is nothing to compare)
        colour = min(paying, key=lambda c: _pay_cost(hand, sums, c, due, keep_power))
    tiles = [t for t in hand if COLOUR[t] == colour]
    if all(VALUE[t] <= dump_max for t in tiles):
        return tuple(tiles)  # the whole colour goes, whichever tiles cover the due
    paid, count = least_cover([VALUE[t] for t in tiles], due)
    chosen = _first_cover(tiles, paid, count)
    rest = list(tiles)
    for tile in chosen:
        rest.remove(tile)
    return chosen + tuple(t for t in rest if VALUE[t] <= dump_max)


def _pay_cost(hand: list[int], sums: dict[int, int], colour: int, due: int,
              keep_power: float) -> tuple[float, int]:
    """What paying ``due`` with ``colour`` costs the plan (see ``payment``): the overpay
    of its least covering sum, less ``keep_power`` times the power left, then the tiles."""
    paid, count = least_cover([VALUE[t] for t in hand if COLOUR[t] == colour], due)
    total = sums[colour]
    others = max((v for c, v in sums.items() if c != colour), default=0)
    return (paid - due - keep_power * max(others, total - paid), count)


def _first_cover(tiles: list[int], paid: int, count: int) -> tuple[int, ...]:
    """The first subset of ``tiles`` (in the order of their bit masks) whose values sum to
    the least cover ``paid`` with ``count`` tiles: which tiles pay, when not all of the
    colour goes."""
    for mask in range(1, 1 << len(tiles)):
        if mask.bit_count() != count:
            continue
        chosen = tuple(tiles[i] for i in range(len(tiles)) if mask >> i & 1)
        if tiles_value(chosen) == paid:
            return chosen
    raise AssertionError(f"no subset of {tiles} sums to {paid} with {count} tiles")


def exchange_tiles(state: GameState, p: Params) -> tuple[int, ...]:
    """Phase 1: the tiles that fit no row (the least useful one at least); phase 2: the
    tiles outside the strongest colour, half the hand at most."""
    seat = state.to_move
    hand = sorted(state.hands[seat])  # its order means nothing: ties fall alike
    limit = state.rules.exchange_limit
    if state.phases[seat] == 2:
        sums = colour_sums(hand)
        strongest = max(sums, key=lambda c: sums[c])
        ranked = sorted(hand, key=lambda t: (COLOUR[t] == strongest, VALUE[t]))
        return tuple(ranked[: max(1, min(limit, len(hand) // 2))])
    rows = state.rows[seat]
    keep = {t: keep_value(rows, t, p) for t in hand}
    ranked = sorted(hand, key=keep.__getitem__)
    useless = [t for t in ranked if keep[t] < 1.0]
    return tuple(useless[:limit] or ranked[:1])


def fish_bar(p: Params, left: float) -> float:
    """The worth a placement needs to be made rather than fishing, ``left`` turns before
    the end: ``fish_worth`` early, falling by ``fish_slope`` a turn to nothing at
    ``fish_left``, as a turn spent fishing costs more the fewer are left."""
    return min(p.fish_worth, p.fish_slope * (left - p.fish_left))


def fishing(state: GameState, p: Params, worth: float, left: float) -> tuple[int, ...]:
    """Phase 1: the tiles to exchange before building (``Params.fish_junk``), or none;
    ``worth`` is the best placement's. A row started fixes its colour's ceiling for good."""
    if not p.fish_junk or worth >= fish_bar(p, left):
        return ()
    junk = exchange_tiles(state, p)  # more than one tile: all of them fit no row
    return junk if len(junk) >= max(p.fish_junk, 2) else ()


def choose(state: GameState, rng: Random | None = None) -> Decision:
    """The plan's decision for the player to move, as a decision tuple, with the constants
    tuned for the table size (``PARAMS``). Deterministic: ``rng`` fits ``playout``'s slot."""
    return decide(state, params_for(state.rules.players))


def decide(state: GameState, p: Params, may_declare: bool = True) -> Decision:
    """The plan's decision with the constants ``p`` (``benchmarks/tune_plan.py`` tries
    others). It reads the hand sorted (a copy: the state is never changed), so ties fall
    the same way however it was dealt. With ``may_declare`` false it stays in phase 1 this
    turn (the "wait" the switch advisor weighs against declaring)."""
    seat = state.to_move
    hand = sorted(state.hands[seat])
    if p.solo is not None and lead(state) >= p.solo_lead:
        p = p.solo  # (never at the mulligan: every lead is 0 there)
    if state.stage == MULLIGAN:
        aside = set_aside(hand, p.mulligan_max, p.mulligan_colours, p.mulligan_weak)
        return (MULLIGAN_CHOICE, 0, 0, aside[: len(state.bag)])
    if state.phases[seat] == 1:
        left = turns_left(state, p)
        if may_declare and should_declare(state, p, left):
            return (DECLARE, 0, 0, ())
        worth, chain = best_place(state, p, left)
        junk = fishing(state, p, worth, left)
        if junk:
            return (EXCHANGE, 0, 0, junk)
        if worth > 0:
            return (PLACE, 0, 0, chain)
    else:
        sums = colour_sums(hand)
        scoring = best_score(hand, state.rows[seat], paying_power(hand, sums))
        if scoring is not None:
            due, row, count = scoring
            return (SCORE, row, count, payment(hand, due, p.keep_power, p.dump_max, sums))
    if not hand:
        return (PASS, 0, 0, ())
    return (EXCHANGE, 0, 0, exchange_tiles(state, p))


def set_aside(hand: list[int], low: int, colours: int = 0, weak: int = 0) -> tuple[int, ...]:
    """The tiles of ``hand`` (in its order) a mulligan gives back: those up to ``low``
    and, outside the ``colours`` strongest colours (by the sum of their tiles; 0: no such
    rule), those up to ``weak``."""
    if not colours:
        return tuple(t for t in hand if VALUE[t] <= low)
    sums = colour_sums(hand)
    strong = sorted(sums, key=lambda c: (-sums[c], c))[:colours]
    return tuple(t for t in hand
                 if VALUE[t] <= (low if COLOUR[t] in strong else max(low, weak)))


def needed_and_left(state: GameState) -> tuple[int, float]:
    """The plan's cautious count of the mover's scoring turns, and the turns left."""
    p = params_for(state.rules.players)
    seat = state.to_move
    needed = scoring_turns(state.rows[seat], paying_power(state.hands[seat]), p.typical)
    return needed, turns_left(state, p)


WINDOW = 6.0
"""Turns before the plan's own switch (its rows' scoring turns against the turns left, less
its margin) from which the switch is weighed rather than ruled: medium weighs it over
sampled worlds, and the search does not favour the rule's move there."""


def near_switch(state: GameState) -> bool:
    """Whether the mover may declare and its rows are within ``WINDOW`` turns of the
    plan's switch: where the rule's own moment is least sure."""
    seat = state.to_move
    if state.stage != PLAY or state.phases[seat] != 1 or not any(state.rows[seat]):
        return False
    needed, left = needed_and_left(state)
    return needed - left >= -(params_for(state.rules.players).margin + WINDOW)


__all__ = ["PARAMS", "WINDOW", "Params", "choose", "decide", "lead", "near_switch",
           "needed_and_left", "params_for", "paying_power", "scoring_turns", "tiles_taken",
           "turns_left"]
