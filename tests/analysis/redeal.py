"""Another truth a seat cannot tell apart: a record whose hidden tiles are re-dealt.

Every physical tile is followed through the record (deals, draws, set-asides going back
to the bag, exchanges). A tile that the seat never sees (never in its own hand, never
placed, never paid) can carry any code the other unseen tiles carry: shuffling the codes
among those tiles gives a second record of a game that the seat saw exactly as the first.
The other hands, the bag and the tiles exchanged unseen differ; every event the seat saw,
and every rule, holds as before (only the identity of tiles nobody showed changed).
"""

from __future__ import annotations

import copy
from collections import defaultdict
from random import Random

from noreturn.engine import Stage, tile_code
from noreturn.records import Record, check_header, replay_states

Place = tuple[str, int]
"""Where a physical tile lies: ("bag", -1), ("hand", seat), ("aside", -1) or ("gone", -1)."""


def redeal(record: Record, seat: int, rng: Random) -> Record:
    """A copy of ``record`` with the codes of the tiles ``seat`` never saw shuffled."""
    rules = check_header(record)
    codes = [tile_code(t) for t in rules.all_tiles()]
    where: dict[Place, dict[str, list[int]]] = defaultdict(lambda: defaultdict(list))
    for tile, code in enumerate(codes):
        where[("bag", -1)][code].append(tile)
    occurrences: dict[tuple[int, str, int], int] = {}
    seen: set[int] = set()
    steps = replay_states(record)
    for index, event in enumerate(record["events"]):
        _follow(index, event, where, occurrences, seen, seat)
        step = next(steps)
        if step.state.stage is not Stage.MULLIGAN and where[("aside", -1)]:
            for code, tiles in where.pop(("aside", -1)).items():
                where[("bag", -1)][code] += tiles
    unseen = sorted(set(range(len(codes))) - seen)
    shuffled = [codes[t] for t in unseen]
    rng.shuffle(shuffled)
    new_code = dict(zip(unseen, shuffled, strict=True))
    other = copy.deepcopy(record)
    for (index, key, position), tile in occurrences.items():
        if tile in new_code:
            other["events"][index][key][position] = new_code[tile]
    return other


def _follow(index: int, event: dict[str, object], where: dict[Place, dict[str, list[int]]],
            occurrences: dict[tuple[int, str, int], int], seen: set[int], seat: int) -> None:
    """Move the physical tiles of one event, noting which tile each code there names."""
    kind, player = event["type"], event["player"]
    assert isinstance(player, int)
    moves = {"deal": (("bag", -1), ("hand", player)), "draw": (("bag", -1), ("hand", player)),
             "mulligan": (("hand", player), ("aside", -1)),
             "exchange": (("hand", player), ("gone", -1)),
             "place": (("hand", player), ("gone", -1)), "score": (("hand", player), ("gone", -1))}
    if kind not in moves:
        return
    key = "pay" if kind == "score" else "tiles"
    source, target = moves[str(kind)]
    public = kind in ("place", "score")
    tile_codes = event[key]
    assert isinstance(tile_codes, list)
    for position, code in enumerate(tile_codes):
        tile = where[source][code].pop()
        where[target][code].append(tile)
        occurrences[(index, key, position)] = tile
        if public or player == seat:
            seen.add(tile)
