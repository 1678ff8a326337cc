#!/usr/bin/env python3
"""A test bot for the external-bot protocol that plays well, then fails on purpose.

Usage: ``misbehave.py MODE [AT] [EXTRA]``. It answers ``hello`` and every decision with the
first legal action (a SCORE first, if any), until decision number AT (1 = the first; 0 =
at ``hello``), where MODE decides what goes wrong:

- ``good``: nothing goes wrong. ``chatty``: also sends ``info`` messages and blank lines
  and writes to stderr before every answer (all of which the host must tolerate).
- ``crash``: exits with code 3. ``hang``: sleeps for an hour. ``close_output``: closes its
  standard output and sleeps. ``spawn``: starts a sleeping child process, writes its id to
  stderr, and hangs (the host must kill both). ``slow_start``: sleeps EXTRA seconds
  before ``ready``. ``linger``: plays well, but ignores ``game_over`` and the end of its
  input and sleeps (the host must kill it).
- ``illegal``: answers ``pass`` (never legal while other actions are). ``unreadable``:
  answers text that is no action. ``garbage``: prints a line that is not JSON.
  ``wrong_id``: answers with the wrong id. ``wrong_type``: a message of an unknown type.
  ``not_object``: a JSON array. ``huge``: a line of 2 MB. ``deep``: a JSON array nested
  100,000 deep (the parser recurses per level). ``version``: a ``ready`` with protocol
  version 2.
- ``respell``: answers each action in another spelling (lower case, tiles reversed).
- ``record``: writes every line it receives to the file EXTRA, and plays at random
  (seeded by ``hello``), so that a game passes through many kinds of position.

Standard library only, like any external bot.
"""

import json
import os
import random
import subprocess
import sys
import time

FAILURES = {"crash", "hang", "spawn", "close_output", "illegal", "unreadable", "wrong_id",
            "wrong_type", "not_object", "garbage", "huge", "deep"}


def send(message: object) -> None:
    """One JSON line to the host."""
    print(json.dumps(message), flush=True)


def first_choice(legal: list[str]) -> str:
    """A SCORE if there is one, else the first legal action."""
    return next((text for text in legal if text.startswith("score ")), legal[0])


def fail(mode: str, message: dict[str, object]) -> None:
    """Misbehave in ``mode`` where ``message`` (hello or decide) wants an answer."""
    if mode == "crash":
        sys.exit(3)
    if mode in ("hang", "spawn", "close_output"):
        if mode == "spawn":
            child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
            print(f"child {child.pid}", file=sys.stderr, flush=True)
        if mode == "close_output":
            os.close(1)
        time.sleep(3600)
    answer_id = message.get("id", 0)
    assert isinstance(answer_id, int), f"the host sent a non-integer id: {answer_id!r}"
    lines = {
        "illegal": {"type": "action", "id": answer_id, "action": "pass"},
        "unreadable": {"type": "action", "id": answer_id, "action": "fly away"},
        "wrong_id": {"type": "action", "id": answer_id + 1, "action": "pass"},
        "wrong_type": {"type": "move", "id": answer_id},
        "not_object": [1, 2, 3],
    }
    if mode in lines:
        send(lines[mode])
    elif mode == "garbage":
        print("thinking about it...", flush=True)
    elif mode == "huge":
        print("x" * (2 << 20), flush=True)
    elif mode == "deep":
        print("[" * 100_000, flush=True)


def main() -> None:
    """Play until ``game_over`` or the end of the input, failing where asked."""
    mode = sys.argv[1]
    at = int(sys.argv[2]) if len(sys.argv) > 2 else 1
    extra = sys.argv[3] if len(sys.argv) > 3 else ""
    decisions = 0
    rng = random.Random()
    for line in sys.stdin:
        if mode == "record":
            with open(extra, "a", encoding="utf-8") as out:
                out.write(line)
        message = json.loads(line)
        if message["type"] == "game_over":
            break
        if message["type"] == "decide":
            decisions += 1
        due = (message["type"] == "hello" and at == 0) or (
            message["type"] == "decide" and decisions == at)
        if due and mode in FAILURES:
            fail(mode, message)
            continue
        if mode == "chatty":
            print(f"stderr noise before message {decisions}", file=sys.stderr, flush=True)
            print("", flush=True)
            send({"type": "info", "text": f"thinking about decision {decisions}"})
        if message["type"] == "hello":
            rng.seed(message["seed"])
            if mode == "slow_start":
                time.sleep(float(extra))
            send({"type": "ready", "name": f"misbehave {mode}",
                  "version": 2 if mode == "version" else 1})
        elif message["type"] == "decide":
            legal = message["legal"]
            action = rng.choice(legal) if mode == "record" else first_choice(legal)
            if mode == "respell":
                words = action.lower().split()
                keep = 4 if words[0] == "score" else 1  # score r x2 pay, then the tiles
                action = " ".join(words[:keep] + words[:keep - 1:-1])
            send({"type": "action", "id": message["id"], "action": action})
    if mode == "linger":
        time.sleep(3600)


if __name__ == "__main__":
    main()
