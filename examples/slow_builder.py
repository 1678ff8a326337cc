#!/usr/bin/env python3
"""A slow, careful builder: how a thoughtful first-time player tends to play No Return.

Issue 15 began with such a player beating the bots: they placed one or two tiles a turn,
declared late, scored a little at a time, and so made the game long; the old bots
declared early, emptied their rows and then could only exchange while the player kept
scoring. This bot plays that way, so that the bots can be measured against it:

- the mulligan keeps the hand;
- while the bag holds more than ``--late`` tiles (30) it builds: the placement of one or
  two tiles worth most, else it exchanges its lowest tile;
- then it declares, and scores the tail that gains most net of a third of its payment,
  else it exchanges its lowest tile.

It speaks the external-bot protocol (docs/bot-protocol.md) with the standard library
alone, like ``random_bot.py``::

    noreturn tournament --bots "hard,external:python examples/slow_builder.py,name=slow" \
        --games 20 --seed 1
"""

import argparse
import json
import sys
from typing import Any

PAYMENT_WEIGHT = 0.3
"""What a tile paid costs against a point scored: a beginner counts the payment a little."""


def value(code: str) -> int:
    """A tile's value: ``"R11"`` is 11."""
    return int(code[1:])


def tiles_of(text: str) -> list[str]:
    """The tiles named by an action text after its verb (``"place R8 R7"``)."""
    return [word for word in text.split()[1:] if word[:1].isalpha() and word[1:].isdigit()]


def score_gain(text: str, rows: dict[str, list[str]]) -> tuple[float, int]:
    """A SCORE text's worth: the tail's points less ``PAYMENT_WEIGHT`` of the payment;
    of equal worth, the shorter tail (``"score R x2 pay B7 B5"``)."""
    words = text.split()
    colour, count = words[1], int(words[2][1:])
    tail = rows[colour][-count:]
    paid = words[words.index("pay") + 1:]
    return sum(map(value, tail)) - PAYMENT_WEIGHT * sum(map(value, paid)), -count


def choose(view: dict[str, Any], legal: list[str], late: int) -> str:
    """The slow builder's action among the ``legal`` texts, from its ``view``."""
    if view["stage"] == "mulligan":
        return "mulligan" if "mulligan" in legal else legal[0]
    if "declare" in legal and view["bag_count"] <= late:
        return "declare"
    places = [text for text in legal if text.startswith("place ") and len(tiles_of(text)) <= 2]
    if places:
        return max(places, key=lambda text: sum(map(value, tiles_of(text))))
    rows = view["players"][view["seat"]]["rows"]
    scores = [text for text in legal if text.startswith("score ")]
    if scores:
        return max(scores, key=lambda text: score_gain(text, rows))
    singles = [text for text in legal if text.startswith("exchange ") and len(tiles_of(text)) == 1]
    if singles:
        return min(singles, key=lambda text: value(tiles_of(text)[0]))
    return legal[0]


def send(message: dict[str, object]) -> None:
    """Write one message as a JSON line, flushed."""
    print(json.dumps(message), flush=True)


def main() -> None:
    """Answer the host's messages until the game is over."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--late", type=int, default=30,
                        help="declare once the bag holds this many tiles or fewer")
    late = parser.parse_args().late
    for line in sys.stdin:
        message = json.loads(line)
        if message["type"] == "hello":
            send({"type": "ready", "name": "slow_builder.py", "version": 1})
        elif message["type"] == "decide":
            action = choose(message["view"], message["legal"], late)
            send({"type": "action", "id": message["id"], "action": action})
        elif message["type"] == "game_over":
            break


if __name__ == "__main__":
    main()
