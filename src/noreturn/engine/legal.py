"""Which actions the rules allow: the complete list, and the reason a given one is refused.

Both work on the hand sorted ascending, where equal tiles sit side by side. A choice of
tiles is a set of hand positions; among equal tiles only the lowest positions are used, so
two equal tiles are one choice, never two. The list comes out in the order of the dense
action ids (``encoding.py``), which is the canonical order.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from typing import Any

from noreturn.engine.actions import (
    Action,
    Declare,
    Draw,
    Exchange,
    Mulligan,
    Pass,
    Place,
    Score,
    of_sorted,
    score_of_sorted,
)
from noreturn.engine.errors import IllegalActionError, Refusal
from noreturn.engine.state import MULLIGAN, OVER, GameState
from noreturn.engine.tiles import (
    COLOUR_LETTERS,
    COLOUR_NAMES,
    MAX_SUPPORTED_VALUE,
    TILE_COLOUR,
    TILE_VALUE,
    colour_of,
    make_tile,
    tile_code,
    tiles_text,
    tiles_value,
)

Choice = tuple[int, tuple[int, ...], int]
"""A choice of hand tiles: (mask of hand positions, tiles descending, sum of values)."""


# ------------------------------------------------------------------ rule primitives
# The rules of PLACE and SCORE, each written once: the legal actions, the checks, the
# rollout policy and every bot use these rather than a copy (docs/rules.md, "PLACE" and "SCORE").

def row_limit(row: Sequence[int]) -> int:
    """The highest value a tile placed on ``row`` (its values, first to last) may have.

    A row only ever goes down: a tile goes on it when its value is at most the row's last
    (equal is allowed), and any tile starts an empty row.
    """
    return row[-1] if row else MAX_SUPPORTED_VALUE


def fits_row(row: Sequence[int], value: int) -> bool:
    """Whether a tile of ``value`` may be placed at the end of ``row`` (see ``row_limit``)."""
    return value <= row_limit(row)


def placeable(hand: Iterable[int], rows: Sequence[Sequence[int]]) -> dict[int, list[int]]:
    """The hand tiles that fit their colour's row, by colour (colours and tiles in hand
    order): what a PLACE may take, one colour at a time."""
    limits = [row_limit(row) for row in rows]
    by_colour: dict[int, list[int]] = {}
    colours, values = TILE_COLOUR, TILE_VALUE  # locals: a playout's hot loop
    for tile in hand:
        colour = colours[tile]
        if values[tile] <= limits[colour]:
            if colour in by_colour:
                by_colour[colour].append(tile)
            else:
                by_colour[colour] = [tile]
    return by_colour


def covers(paid: int, due: int) -> bool:
    """Whether a payment whose values sum to ``paid`` pays ``due``: at least it, so
    overpaying is allowed (the excess is lost)."""
    return paid >= due


def row_due(row: Sequence[int], count: int) -> int:
    """What scoring the last ``count`` tiles of ``row`` costs: the sum of their values."""
    return sum(row[-count:])


def row_dues(row: Sequence[int]) -> list[int]:
    """What scoring the last 1, 2, ... tiles of ``row`` costs: ``row_dues(row)[k - 1] ==
    row_due(row, k)``, increasing with the count."""
    dues: list[int] = []
    due = 0
    for value in reversed(row):
        due += value
        dues.append(due)
    return dues


def payable_tail(row: Sequence[int], paid: int) -> tuple[int, int]:
    """The longest tail of ``row`` that a payment worth ``paid`` covers, as ``(count,
    due)``; ``(0, 0)`` when not even its last tile. Dues grow with the count, so this is
    also the dearest tail ``paid`` can score (the plan asks it at every playout turn)."""
    count = due = 0
    for value in reversed(row):
        if not covers(paid, due + value):
            break
        due += value
        count += 1
    return count, due


def sub_choices(hand: list[int], lo: int, hi: int, most: int | None = None) -> list[Choice]:
    """Every distinct sub-multiset of ``hand[lo:hi]`` (the empty one first), by mask; with
    ``most``, only those of at most ``most`` tiles (an exchange's limit: of a full hand's
    some 240 sub-multisets, 150 are exchanges, and the others need not be made).

    ``hand`` is sorted ascending; each run of equal tiles contributes a prefix of its
    positions, which gives every multiset exactly one mask. The choices come out in mask
    order as they are made: a run's positions lie above all earlier ones, so the choices
    with k of its tiles, each of the earlier ones plus those k, follow all with fewer.
    Their tiles are descending for the same reason (a run's tiles are the highest yet).
    """
    out: list[Choice] = [(0, (), 0)]
    room = hi - lo if most is None else most
    i = lo
    while i < hi:
        tile = hand[i]
        j = i + 1
        while j < hi and hand[j] == tile:
            j += 1
        value = TILE_VALUE[tile]
        grown: list[Choice] = []
        bits, total = 0, 0
        tiles: tuple[int, ...] = ()
        for pos in range(i, min(j, i + room)):
            bits |= 1 << pos
            tiles += (tile,)
            total += value
            fits = room - (pos - i + 1)
            grown += [(mask | bits, tiles + more, more_total + total)
                      for mask, more, more_total in out if len(more) <= fits]
        out += grown
        i = j
    return out


def colour_ranges(hand: list[int], colours: int) -> list[tuple[int, int]]:
    """For each colour, the slice ``(lo, hi)`` of the sorted hand holding its tiles."""
    bounds = []
    pos = 0
    for c in range(colours):
        lo = pos
        while pos < len(hand) and TILE_COLOUR[hand[pos]] == c:
            pos += 1
        bounds.append((lo, pos))
    return bounds


def legal_actions(state: GameState) -> list[Action]:
    """Every action allowed now, each exactly once, in canonical (action id) order.

    At a chance node these are the distinct tiles that can be drawn.
    """
    if state.stage == OVER:
        return []
    if state.draws_due:
        return [Draw(t) for t in sorted(set(state.bag))]
    seat = state.to_move
    hand = sorted(state.hands[seat])
    # the choices' tiles are descending: of_sorted takes them
    if state.stage == MULLIGAN:
        return [of_sorted(Mulligan, tiles)
                for _, tiles, _ in sub_choices(hand, 0, len(hand), len(state.bag))]
    exchanges = sub_choices(hand, 0, len(hand), state.rules.exchange_limit)
    actions: list[Action] = [of_sorted(Exchange, t) for _, t, _ in exchanges[1:]]
    ranges = colour_ranges(hand, state.rules.colors)
    if state.phases[seat] == 1:
        actions += _places(state, hand, ranges)
        return [Declare(), *actions] if actions else [Pass(), Declare()]
    actions += _scores(state, hand, ranges)
    return actions or [Pass()]


def _places(state: GameState, hand: list[int], ranges: list[tuple[int, int]]) -> list[Action]:
    places: list[Action] = []
    for colour, (lo, hi) in enumerate(ranges):
        limit = row_limit(state.rows[state.to_move][colour])
        end = lo
        while end < hi and TILE_VALUE[hand[end]] <= limit:
            end += 1
        places += [of_sorted(Place, tiles) for _, tiles, _ in sub_choices(hand, lo, end)[1:]]
    return places


def _scores(state: GameState, hand: list[int], ranges: list[tuple[int, int]]) -> list[Action]:
    payments = [sub_choices(hand, lo, hi)[1:] for lo, hi in ranges]
    scores: list[Action] = []
    for colour, row in enumerate(state.rows[state.to_move]):
        for count, due in enumerate(row_dues(row), 1):
            scores += [
                score_of_sorted(colour, count, tiles)
                for choices in payments
                for _, tiles, total in choices
                if covers(total, due)
            ]
    return scores


def check(state: GameState, action: Action) -> None:
    """Raise ``IllegalActionError`` if ``action`` is not legal now; change nothing.

    The message names the broken rule in a player's words ("you", "your red row"), the
    error's ``code`` names it for programs (``RULE_CODES``).
    """
    refused = refusal(state, action)
    if refused is not None:
        raise IllegalActionError(f"{action}: {refused.reason}", refused.code)


def why_illegal(state: GameState, action: Action) -> str | None:
    """The rule ``action`` breaks now, in a player's words, or ``None`` if it is legal."""
    refused = refusal(state, action)
    return None if refused is None else refused.reason


def refusal(state: GameState, action: Action) -> Refusal | None:
    """The rule ``action`` breaks now, as its code and a player's words; ``None``: legal."""
    if state.stage == OVER:
        return Refusal("game_over", "the game is over")
    if type(action) not in _TILES_OF:
        return Refusal("not_an_action", "{action} is not an action", {"action": repr(action)})
    tiles = _TILES_OF[type(action)](action)
    problem = _malformed(state, tiles)
    if problem:
        return problem
    if state.draws_due or type(action) is Draw:
        return _draw_problem(state, action)
    if state.stage == MULLIGAN:
        return _mulligan_problem(state, action, tiles)
    if type(action) is Mulligan:
        return Refusal("mulligan_over", "the mulligan is over: each player sets tiles aside "
                       "only once, before the first turn")
    return _turn_problem(state, action, tiles)


_TILES_OF: dict[type, Callable[[Any], tuple[int, ...]]] = {
    Draw: lambda a: (a.tile,),
    Mulligan: lambda a: a.tiles,
    Exchange: lambda a: a.tiles,
    Place: lambda a: a.tiles,
    Score: lambda a: a.pay,
    Declare: lambda a: (),
    Pass: lambda a: (),
}


def _malformed(state: GameState, tiles: tuple[int, ...]) -> Refusal | None:
    rules = state.rules
    for tile in tiles:
        if type(tile) is not int or not rules.is_tile(tile):
            return Refusal("not_a_tile", "{tile} is not a tile of this game: colours {colours}, "
                           "values 1 to {max_value}", {
                "tile": tile_code(tile) if type(tile) is int else repr(tile),
                "colours": COLOUR_LETTERS[:rules.colors], "max_value": rules.max_value})
    return None


def _draw_problem(state: GameState, action: Action) -> Refusal | None:
    if not state.draws_due:
        return Refusal("no_draw_due", "no draw is due now")
    if type(action) is not Draw:
        if state.draws_due == 1:
            return Refusal("draw_first", "player {seat} must first draw 1 more tile from "
                           "the bag", {"seat": state.to_move})
        return Refusal("draw_first", "player {seat} must first draw {count} more tiles "
                       "from the bag", {"seat": state.to_move, "count": state.draws_due})
    if action.tile not in state.bag:
        return Refusal("not_in_bag", "{tile} is not in the bag", {"tile": tile_code(action.tile)})
    return None


def _not_held(state: GameState, tiles: tuple[int, ...]) -> Refusal | None:
    held = Counter(state.hands[state.to_move])
    for tile, wanted in Counter(tiles).items():
        if held[tile] < wanted:
            have = held[tile]
            if not have:
                return Refusal("not_in_hand", "you do not hold {tile}",
                               {"tile": tile_code(tile)})
            return Refusal("not_in_hand", "you hold only {have} {tile}, not {wanted}",
                           {"have": have, "tile": tile_code(tile), "wanted": wanted})
    return None


def _mulligan_problem(state: GameState, action: Action, tiles: tuple[int, ...]
                      ) -> Refusal | None:
    if type(action) is not Mulligan:
        return Refusal("mulligan_first", "first comes the mulligan: choose the tiles to set "
                       "aside (none is a choice too)")
    if len(tiles) > len(state.bag):
        return Refusal("mulligan_too_many", "you can set aside at most {count} tiles: that is "
                       "all the bag holds", {"count": len(state.bag)})
    return _not_held(state, tiles)


def _turn_problem(state: GameState, action: Action, tiles: tuple[int, ...]) -> Refusal | None:
    phase = state.phases[state.to_move]
    kind = type(action)
    if kind is Declare:
        return Refusal("already_declared", "you are already in phase 2, and there is no "
                       "return") if phase == 2 else None
    if kind is Pass:
        if state.hands[state.to_move]:
            return Refusal("cannot_pass", "you may pass only when you have no legal action: "
                           "you can exchange")
        return None
    if kind is Exchange:
        limit = state.rules.exchange_limit
        if not 1 <= len(tiles) <= limit:
            return Refusal("exchange_count", "exchange 1 to {limit} tiles, not {count}",
                           {"limit": limit, "count": len(tiles)})
        return _not_held(state, tiles)
    if kind is Place:
        return _place_problem(state, tiles, phase)
    if not isinstance(action, Score):
        return Refusal("not_an_action", "{action} is not an action", {"action": repr(action)})
    return _score_problem(state, action, phase)


def _one_colour(tiles: tuple[int, ...], paying: bool) -> Refusal | None:
    if not tiles:
        return (Refusal("no_tiles", "pay with at least one tile") if paying
                else Refusal("no_tiles", "place at least one tile"))
    if len({colour_of(t) for t in tiles}) > 1:
        return (Refusal("mixed_colours", "pay with tiles of one colour only") if paying
                else Refusal("mixed_colours", "place tiles of one colour only"))
    return None


def _place_problem(state: GameState, tiles: tuple[int, ...], phase: int) -> Refusal | None:
    if phase == 2:
        return Refusal("place_in_phase_2", "you are in phase 2: you can score or exchange, "
                       "but no longer place")
    problem = _one_colour(tiles, paying=False) or _not_held(state, tiles)
    if problem:
        return problem
    colour = colour_of(tiles[0])
    row = state.rows[state.to_move][colour]
    if not fits_row(row, TILE_VALUE[tiles[0]]):
        lowest = tile_code(make_tile(colour, row[-1]))
        return Refusal("row_order", "{tile} is higher than {lowest}, the lowest tile of your "
                       "{colour} row; a row only ever goes down", {
                           "tile": tile_code(tiles[0]), "lowest": lowest,
                           "colour": COLOUR_NAMES[colour]})
    return None


def _score_problem(state: GameState, action: Score, phase: int) -> Refusal | None:
    if phase == 1:
        return Refusal("score_in_phase_1", "you are in phase 1: declare phase 2 before you "
                       "score")
    colours = state.rules.colors
    if type(action.row) is not int or not 0 <= action.row < colours:
        return Refusal("no_such_row", "there is no such row: rows are {rows}",
                       {"rows": ", ".join(COLOUR_LETTERS[:colours])})
    name = COLOUR_NAMES[action.row]
    row = state.rows[state.to_move][action.row]
    if not row:
        return Refusal("empty_row", "you have no {colour} row to score", {"colour": name})
    if type(action.count) is not int or not 1 <= action.count <= len(row):
        params = {"colour": name, "size": len(row), "count": repr(action.count)}
        if len(row) == 1:
            return Refusal("score_count", "your {colour} row has 1 tile: score that one, "
                           "not {count}", params)
        return Refusal("score_count", "your {colour} row has {size} tiles: score 1 to "
                       "{size} of them, not {count}", params)
    return _one_colour(action.pay, paying=True) or _not_held(state, action.pay) or _underpaid(
        row, action, name)


def _underpaid(row: list[int], action: Score, name: str) -> Refusal | None:
    due = row_due(row, action.count)
    paid = tiles_value(action.pay)
    if covers(paid, due):
        return None
    params = {"pay": tiles_text(action.pay), "paid": paid, "due": due, "colour": name,
              "count": action.count}
    if len(action.pay) == 1:
        return (Refusal("underpaid", "{pay} is worth {paid}, less than {due}, the sum of the "
                        "lowest tile of your {colour} row", params) if action.count == 1
                else Refusal("underpaid", "{pay} is worth {paid}, less than {due}, the sum of "
                             "the {count} lowest tiles of your {colour} row", params))
    return (Refusal("underpaid", "{pay} sum to {paid}, less than {due}, the sum of the "
                    "lowest tile of your {colour} row", params) if action.count == 1
            else Refusal("underpaid", "{pay} sum to {paid}, less than {due}, the sum of the "
                         "{count} lowest tiles of your {colour} row", params))
