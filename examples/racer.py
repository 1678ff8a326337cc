#!/usr/bin/env python3
"""A greedy racer: builds as much as it can for a few turns, then scores as it can.

An outside probe of the bots (2026-12-07) found this plain style the hardest for them of
five simple ones with two players: it took about a quarter of its games from medium.
It plays so:

- the mulligan gives back the tiles up to 5;
- for its first ``--build`` turns (9) it places the tiles of one colour worth most, any
  steps down (else it exchanges its four least useful tiles: the lowest, its strongest
  colour last);
- then it declares, and scores the tail worth most less a fifth of what it overpays, of
  the tails it can pay at half their value or better; else it exchanges as above.

It speaks the external-bot protocol (docs/bot-protocol.md) with the standard library
alone, like ``slow_builder.py``::

    noreturn tournament --bots "medium,external:python examples/racer.py,name=racer" \
        --games 100 --seed 1
"""

import argparse
import json
import sys
from collections import Counter
from typing import Any

OVERPAY_WEIGHT = 0.2
"""What a point paid beyond the tail's sum costs against a point scored."""
MIN_RATIO = 0.5
"""A tail is scored only if it is worth at least this share of its payment."""
MULLIGAN_MAX = 5
"""The mulligan gives back the tiles up to this value."""


def value(code: str) -> int:
    """A tile's value: ``"R11"`` is 11."""
    return int(code[1:])


def tiles_of(text: str) -> list[str]:
    """The tiles named by an action text after its verb (``"place R8 R7"``)."""
    return [word for word in text.split()[1:] if word[:1].isalpha() and word[1:].isdigit()]


def with_tiles(legal: list[str], verb: str, tiles: list[str]) -> str | None:
    """The legal text of ``verb`` with exactly ``tiles`` (in any order), if there is one."""
    wanted = Counter(tiles)
    return next((text for text in legal
                 if text.split()[0] == verb and Counter(tiles_of(text)) == wanted), None)


def junk(view: dict[str, Any], legal: list[str]) -> str:
    """The exchange of the four least useful tiles: the lowest, the strongest colour's
    last; of the legal exchanges, the largest made of them."""
    hand = view["hand"]
    sums: Counter[str] = Counter()
    for tile in hand:
        sums[tile[0]] += value(tile)
    strongest = sums.most_common(1)[0][0] if sums else ""
    order = sorted(hand, key=lambda tile: (tile[0] == strongest, value(tile)))
    pool = Counter(order[:4])
    exchanges = [text for text in legal if text.startswith("exchange ")
                 and not Counter(tiles_of(text)) - pool]
    return max(exchanges, key=lambda text: len(tiles_of(text))) if exchanges else legal[0]


def best_score(view: dict[str, Any], legal: list[str]) -> str | None:
    """The score worth most less ``OVERPAY_WEIGHT`` of its overpay (then fewer tiles
    paid), of those worth at least ``MIN_RATIO`` of their payment."""
    rows = view["players"][view["seat"]]["rows"]
    best, best_key = None, None
    for text in legal:
        if not text.startswith("score "):
            continue
        words = text.split()
        colour, count = words[1], int(words[2][1:])
        tail = sum(map(value, rows[colour][-count:]))
        paid = [value(tile) for tile in words[words.index("pay") + 1:]]
        if tail < MIN_RATIO * sum(paid):
            continue
        key = (tail - OVERPAY_WEIGHT * (sum(paid) - tail), -len(paid))
        if best_key is None or key > best_key:
            best, best_key = text, key
    return best


def choose(view: dict[str, Any], legal: list[str], build: int) -> str:
    """The racer's action among the ``legal`` texts, from its ``view``."""
    if view["stage"] == "mulligan":
        low = [tile for tile in view["hand"] if value(tile) <= MULLIGAN_MAX]
        return with_tiles(legal, "mulligan", low) or "mulligan"
    me = view["players"][view["seat"]]
    if me["phase"] == 1:
        if me["turns_taken"] >= build and "declare" in legal:
            return "declare"
        places = [text for text in legal if text.startswith("place ")]
        if places:
            return max(places, key=lambda text: sum(map(value, tiles_of(text))))
        return junk(view, legal)
    return best_score(view, legal) or junk(view, legal)


def send(message: dict[str, object]) -> None:
    """Write one message as a JSON line, flushed."""
    print(json.dumps(message), flush=True)


def main() -> None:
    """Answer the host's messages until the game is over."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--build", type=int, default=9,
                        help="own turns of building before it declares")
    build = parser.parse_args().build
    for line in sys.stdin:
        message = json.loads(line)
        if message["type"] == "hello":
            send({"type": "ready", "name": "racer.py", "version": 1})
        elif message["type"] == "decide":
            action = choose(message["view"], message["legal"], build)
            send({"type": "action", "id": message["id"], "action": action})
        elif message["type"] == "game_over":
            break


if __name__ == "__main__":
    main()
