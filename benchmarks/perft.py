"""Perft for No Return: legal-action counts of fixed positions, as a benchmark and golden data.

    python benchmarks/perft.py            # replay tests/engine/perft.json, time it, check counts
    python benchmarks/perft.py --update   # regenerate the positions and rewrite the file

Each position is a game replayed from its action texts (draws included), so the file does
not depend on the random generator or the rollout policy. ``perft(state, d)`` counts the
leaves of the tree of player decisions of depth ``d``: 1 at depth 0, at a chance node (a
draw is due) and at the end of the game; otherwise the sum over the legal actions of the
child's perft at ``d - 1``. Chance is not expanded: a refill ends a branch. ``legal`` is
``len(legal_actions(state))``, which at a chance node is the number of distinct tiles that
can be drawn.

Without ``--update`` the script prints, per position, its counts, the time to generate its
legal actions (best of several runs) and the perft nodes per second, and exits 1 if a
count differs from the file. ``tests/engine/test_perft.py`` checks the same counts.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from itertools import count
from pathlib import Path
from random import Random
from typing import Any

from noreturn.engine import (
    MULLIGAN,
    PLAY,
    Action,
    Declare,
    GameState,
    Rules,
    legal_actions,
    new_game,
    parse_action,
    rollout_action,
)

PERFT_FILE = Path(__file__).resolve().parent.parent / "tests" / "engine" / "perft.json"
FORMAT = "noreturn-perft/1"
MAX_DEPTH = 3
NODE_BUDGET = 60_000
"""Deeper counts are stored only while their tree stays under this many nodes, so that the
test that recomputes them stays quick."""
TIMING_RUNS = 5

SMALL = {"colors": 3, "max_value": 5, "copies": 2, "hand_size": 4, "exchange_limit": 2}
TINY = {"colors": 2, "max_value": 4, "copies": 2, "hand_size": 3, "exchange_limit": 2}
TWO, THREE, FOUR = {"players": 2}, {"players": 3}, {"players": 4}
SPECS: list[dict[str, Any]] = [
    {"name": "default-deal", "rules": TWO, "seed": 1, "target": "deal"},
    {"name": "default-mulligan-first", "rules": TWO, "seed": 1, "target": "mulligan"},
    {"name": "default-mulligan-second", "rules": TWO, "seed": 1, "target": "mulligan:1"},
    {"name": "default-first-turn", "rules": TWO, "seed": 2, "target": "phase1"},
    {"name": "default-phase1-rows", "rules": TWO, "seed": 3, "target": "rows", "patience": 8},
    {"name": "default-refill-draw", "rules": TWO, "seed": 3, "target": "chance"},
    {"name": "default-just-declared", "rules": TWO, "seed": 4, "target": "declared",
     "patience": 6},
    {"name": "default-phase2-rows", "rules": TWO, "seed": 5, "target": "phase2",
     "patience": 8},
    {"name": "default-phase2-long-rows", "rules": TWO, "seed": 6, "target": "phase2:2",
     "patience": 16},
    {"name": "default-bag-empty", "rules": TWO, "seed": 7, "target": "empty", "patience": 10},
    {"name": "default-over", "rules": TWO, "seed": 8, "target": "over", "patience": 6},
    {"name": "four-players-mulligan", "rules": FOUR, "seed": 9, "target": "mulligan:3"},
    {"name": "four-players-rows", "rules": FOUR, "seed": 10, "target": "rows:3",
     "patience": 8},
    {"name": "three-players-bag-empty", "rules": THREE, "seed": 11, "target": "empty-early",
     "patience": 8},
    {"name": "small-mulligan", "rules": {**TWO, **SMALL}, "seed": 12, "target": "mulligan"},
    {"name": "small-phase1", "rules": {**TWO, **SMALL}, "seed": 13, "target": "rows"},
    {"name": "small-declared", "rules": {**TWO, **SMALL}, "seed": 14, "target": "declared",
     "patience": 4},
    {"name": "small-phase2", "rules": {**THREE, **SMALL}, "seed": 15, "target": "phase2",
     "patience": 5},
    {"name": "small-bag-empty", "rules": {**THREE, **SMALL}, "seed": 16,
     "target": "empty-early",
     "patience": 4},
    {"name": "tiny-mulligan", "rules": {**THREE, **TINY}, "seed": 17, "target": "mulligan"},
    {"name": "tiny-phase1", "rules": {**TWO, **TINY}, "seed": 18, "target": "rows"},
    {"name": "tiny-bag-empty", "rules": {**THREE, **TINY}, "seed": 19,
     "target": "empty-early",
     "patience": 3},
]
"""Which positions the file holds: a variant, a first seed to try, a target written
``kind`` or ``kind:n`` (the n-th such position of the game, from 0; ``empty-early``: the
bag is empty and players after this one still have a turn), and ``patience``: the
rollout policy, but a player does not declare before holding that many row tiles (so that
phase 2 has long rows to score)."""


DEFINITION = [
    "Golden legal-action counts of fixed positions (tests/engine/test_perft.py checks them).",
    "A position is its action texts (draws included) played with the checked play() from",
    "new_game(Rules.from_dict(rules), start_player=start_player); seed, target and",
    "patience say how benchmarks/perft.py chose it and matter only to --update.",
    "stage, to_move, phases, bag (tiles in it) and turns describe the position reached.",
    "legal = len(legal_actions(state)); at a chance node, the distinct tiles in the bag.",
    "perft[d] = leaves of the tree of player decisions of depth d: 1 at depth 0, at a",
    "chance node (a draw is due: chance is not expanded, a refill ends a branch) and at",
    "the end of the game; else the sum over legal_actions of the child's perft at d - 1.",
    "perft[1] would equal legal at a decision node; depths 2..3 are stored while the",
    "tree stays under 60,000 nodes.",
]


class BudgetExceededError(Exception):
    """A perft tree grew beyond the node budget."""


def perft(state: GameState, depth: int, budget: list[int] | None = None) -> int:
    """Leaves of the decision tree of ``depth`` below ``state`` (module docstring)."""
    if depth == 0 or state.is_chance() or state.is_over():
        return 1
    actions = legal_actions(state)
    if budget is not None:
        budget[0] -= len(actions)
        if budget[0] < 0:
            raise BudgetExceededError
    if depth == 1:
        return len(actions)
    total = 0
    for action in actions:
        child = state.clone()
        child.apply(action)
        total += perft(child, depth - 1, budget)
    return total


def _matches(state: GameState, kind: str, last: str | None) -> bool:
    decision = not state.is_chance() and not state.is_over()
    seat = state.to_move
    in_play = decision and state.stage == PLAY
    checks = {
        "deal": lambda: True,
        "mulligan": lambda: decision and state.stage == MULLIGAN,
        "phase1": lambda: in_play and state.phases[seat] == 1,
        "rows": lambda: in_play and state.phases[seat] == 1
        and sum(map(len, state.rows[seat])) >= 3,
        "chance": lambda: state.is_chance() and state.stage == PLAY,
        "declared": lambda: in_play and last == "declare",
        "phase2": lambda: in_play and state.phases[seat] == 2
        and sum(map(len, state.rows[seat])) >= 3,
        "empty": lambda: in_play and not state.bag,
        "empty-early": lambda: in_play and not state.bag and seat != state.last,
        "over": state.is_over,
    }
    return bool(checks[kind]())


def patient_action(state: GameState, rng: Random, patience: int) -> Action:
    """The rollout policy's action, asked again while it declares too early."""
    row_tiles = sum(map(len, state.rows[state.to_move]))
    while True:
        action = rollout_action(state, rng)
        if not isinstance(action, Declare) or row_tiles >= patience:
            return action


def reach(
    rules: Rules, seed: int, target: str, patience: int = 0
) -> tuple[GameState, list[str]] | None:
    """Play the (patient) rollout policy with ``Random(seed)`` until ``target``; None if
    the game ends first."""
    kind, _, nth_text = target.partition(":")
    nth = int(nth_text or 0)
    rng = Random(seed)
    state = new_game(rules, rng)
    texts: list[str] = []
    while True:
        if _matches(state, kind, texts[-1] if texts else None):
            if nth == 0:
                return state, texts
            nth -= 1
        if state.is_over():
            return None
        if state.is_chance():
            action: Action = state.sample_draw(rng)
        else:
            action = patient_action(state, rng, patience)
        texts.append(str(action))
        state.play(action)


def replay(entry: dict[str, Any]) -> GameState:
    """The position of a file entry: its action texts played (checked) from the deal."""
    state = new_game(Rules.from_dict(entry["rules"]), start_player=entry["start_player"])
    for text in entry["actions"]:
        state.play(parse_action(text))
    return state


def fingerprint(state: GameState) -> dict[str, Any]:
    """A few public facts that show at a glance where a position is."""
    return {"stage": state.stage.text, "to_move": state.to_move,
            "phases": list(state.phases), "bag": len(state.bag), "turns": state.turns}


def counts(state: GameState) -> dict[str, Any]:
    """``legal`` and every perft depth from 2 whose tree fits the node budget."""
    found: dict[str, Any] = {"legal": len(legal_actions(state)), "perft": {}}
    for depth in range(2, MAX_DEPTH + 1):
        try:
            found["perft"][str(depth)] = perft(state, depth, [NODE_BUDGET])
        except BudgetExceededError:
            break
    return found


def build_entry(spec: dict[str, Any]) -> dict[str, Any]:
    """A file entry for ``spec``: the first seed from its own that reaches its target."""
    rules = Rules.from_dict(spec["rules"])
    for seed in count(spec["seed"]):
        reached = reach(rules, seed, spec["target"], spec.get("patience", 0))
        if reached is not None:
            state, texts = reached
            return {"name": spec["name"], "rules": rules.to_dict(), "seed": seed,
                    "target": spec["target"], "patience": spec.get("patience", 0),
                    "start_player": state.start,
                    **fingerprint(state), **counts(state), "actions": texts}
    raise AssertionError("unreachable: count() never ends")


def dump(entries: list[dict[str, Any]]) -> str:
    """The file text: a readable header, then one position per line."""
    header = {"format": FORMAT, "about": DEFINITION,
              "regenerate": "python benchmarks/perft.py --update"}
    lines = json.dumps(header, indent=1)[:-2]
    body = ",\n".join("  " + json.dumps(e) for e in entries)
    return f'{lines},\n "positions": [\n{body}\n ]\n}}\n'


def load(path: Path = PERFT_FILE) -> list[dict[str, Any]]:
    """The positions stored in ``path``."""
    data = json.loads(path.read_text())
    if data.get("format") != FORMAT:
        raise SystemExit(f"{path}: not a {FORMAT} file")
    return list(data["positions"])


def best_time(state: GameState) -> float:
    """The best of several runs of ``legal_actions`` on ``state``, in seconds."""
    best = float("inf")
    for _ in range(TIMING_RUNS):
        begin = time.perf_counter()
        legal_actions(state)
        best = min(best, time.perf_counter() - begin)
    return best


def report(entries: list[dict[str, Any]]) -> int:
    """Print counts and speeds per position; the number of counts that differ."""
    wrong = 0
    print(f"{'position':28} {'legal':>6} {'perft':>14} {'legal us':>9} {'perft leaves/s':>14}")
    for entry in entries:
        state = replay(entry)
        now = counts(state)
        stored = {"legal": entry["legal"], "perft": entry["perft"]}
        deepest = max(now["perft"], key=int, default=None)
        rate = ""
        if deepest is not None:
            begin = time.perf_counter()
            nodes = perft(state, int(deepest))
            rate = f"{nodes / (time.perf_counter() - begin):14,.0f}"
        depth_text = f"d{deepest}={now['perft'][deepest]}" if deepest else "-"
        flag = "" if now == stored else f"   MISMATCH, file says {stored}"
        wrong += now != stored
        print(f"{entry['name']:28} {now['legal']:6} {depth_text:>14} "
              f"{best_time(state) * 1e6:9.0f} {rate:>14}{flag}")
    return wrong


def main(argv: list[str] | None = None) -> int:
    """Check and time the stored positions, or rewrite the file with ``--update``."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0] if __doc__ else None)
    parser.add_argument("--update", action="store_true", help="regenerate and rewrite")
    parser.add_argument("--file", type=Path, default=PERFT_FILE, help="the perft file")
    args = parser.parse_args(argv)
    if args.update:
        entries = [build_entry(spec) for spec in SPECS]
        args.file.write_text(dump(entries))
        print(f"wrote {len(entries)} positions to {args.file}")
        return 0
    begin = time.perf_counter()
    wrong = report(load(args.file))
    print(f"{'all':28} {time.perf_counter() - begin:.2f} s, {wrong} mismatch(es)")
    return 1 if wrong else 0


if __name__ == "__main__":
    sys.exit(main())
