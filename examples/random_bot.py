#!/usr/bin/env python3
"""A complete No Return bot in a few lines: it scores when it can, otherwise plays at random.

It speaks the external-bot protocol (docs/bot-protocol.md) on standard input and output and
needs nothing but the Python standard library, to show how little a bot needs: read one
JSON object per line, answer ``hello`` with ``ready`` and each ``decide`` with one of the
legal action texts, stop at ``game_over`` or at the end of the input.

Play it against a built-in bot::

    noreturn tournament --bots "greedy,external:python examples/random_bot.py" --games 4
"""

import json
import random
import sys


def send(message: dict[str, object]) -> None:
    """Write one message as a JSON line; flush, or the host waits for it forever."""
    print(json.dumps(message), flush=True)


def choose(legal: list[str], rng: random.Random) -> str:
    """The first SCORE action if there is one (points now), else any legal action."""
    scores = [text for text in legal if text.startswith("score ")]
    return scores[0] if scores else rng.choice(legal)


def main() -> None:
    """Answer the host's messages until the game is over."""
    rng = random.Random()
    for line in sys.stdin:
        message = json.loads(line)
        if message["type"] == "hello":
            rng.seed(message["seed"])  # the same seed replays the same game
            send({"type": "ready", "name": "random_bot.py", "version": 1})
        elif message["type"] == "decide":
            action = choose(message["legal"], rng)
            send({"type": "action", "id": message["id"], "action": action})
        elif message["type"] == "game_over":
            break


if __name__ == "__main__":
    main()
