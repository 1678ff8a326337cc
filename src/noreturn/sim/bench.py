"""How fast the engine is on the paths search bots live on.

Whole games with the rollout policy (deal to result, draws included, one process), then the
cost of the three hot operations on positions taken from random games: full legal-action
generation, ``apply`` and ``clone``. Figures, not timed tests: a shared 2-core machine is
too noisy for thresholds, so the README quotes what this prints.
"""

from __future__ import annotations

import platform
import time
from collections.abc import Callable
from random import Random
from typing import Any

from noreturn.engine import (
    Action,
    GameState,
    Rules,
    compiled,
    legal_actions,
    new_game,
    playout,
    rollout_action,
)


def bench_games(rules: Rules, seconds: float, seed: int = 0) -> dict[str, float]:
    """Play rollout games for about ``seconds``; games and turns per second."""
    rng = Random(seed)
    games = turns = 0
    begin = time.perf_counter()
    deadline = begin + seconds
    while True:
        turns += playout(new_game(rules, rng), rng)
        games += 1
        if games % 16 == 0 and time.perf_counter() >= deadline:
            break
    elapsed = time.perf_counter() - begin
    return {"games": games, "turns": turns, "seconds": elapsed,
            "games_per_s": games / elapsed, "turns_per_s": turns / elapsed}


def sample_positions(rules: Rules, count: int, seed: int = 1) -> list[GameState]:
    """Decision positions (not chance nodes) spread over random rollout games."""
    rng = Random(seed)
    positions: list[GameState] = []
    while len(positions) < count:
        state = new_game(rules, rng)
        while not state.is_over() and len(positions) < count:
            if state.is_chance():
                state.apply(state.sample_draw(rng))
                continue
            if rng.random() < 0.3:
                positions.append(state.clone())
            state.apply(rollout_action(state, rng))
    return positions


def _per_call_us(run: Callable[[], int], seconds: float) -> float:
    """Microseconds per call of ``run``, which makes some calls and returns how many."""
    calls = 0
    begin = time.perf_counter()
    while True:
        calls += run()
        elapsed = time.perf_counter() - begin
        if elapsed >= seconds:
            return elapsed / calls * 1e6


def _apply_us(positions: list[GameState], chosen: list[Action], seconds: float) -> float:
    """Microseconds per ``apply``, timed on fresh clones so that cloning is not counted
    (but the clones' time counts against ``seconds``: the wall clock is the budget)."""
    spent = 0.0
    calls = 0
    deadline = time.perf_counter() + seconds
    while calls == 0 or time.perf_counter() < deadline:
        copies = [p.clone() for p in positions]
        begin = time.perf_counter()
        for state, action in zip(copies, chosen, strict=True):
            state.apply(action)
        spent += time.perf_counter() - begin
        calls += len(copies)
    return spent / calls * 1e6


def bench_hot_paths(rules: Rules, seconds: float, count: int = 400) -> dict[str, float]:
    """Microseconds per ``legal_actions``, ``apply`` and ``clone`` on random positions,
    ``seconds`` for each (a pass over ``count`` positions is the unit of time, so it is
    kept short: the time asked for is the time taken)."""
    positions = sample_positions(rules, count)
    rng = Random(2)
    chosen = [rollout_action(p, rng) for p in positions]
    action_counts: list[int] = []

    def generate() -> int:
        for p in positions:
            actions = legal_actions(p)
            if len(action_counts) < len(positions):
                action_counts.append(len(actions))
        return len(positions)

    def clone() -> int:
        for p in positions:
            p.clone()
        return len(positions)

    legal_us = _per_call_us(generate, seconds)
    return {
        "positions": len(positions),
        "legal_actions_mean": sum(action_counts) / len(action_counts),
        "legal_actions_max": max(action_counts),
        "legal_actions_us": legal_us,
        "apply_us": _apply_us(positions, chosen, seconds),
        "clone_us": _per_call_us(clone, seconds),
    }


def run_bench(players: int = 2, seconds: float = 5.0, seed: int = 0) -> dict[str, Any]:
    """Everything ``noreturn bench`` reports, as one JSON-ready dictionary, in about
    ``seconds`` in all: half for whole games, a sixth for each hot path."""
    began = time.perf_counter()
    rules = Rules(players=players)
    result: dict[str, Any] = {"players": players, "python": platform.python_version(),
                              "machine": platform.machine(),
                              "compiled": compiled()}  # twice the speed: compare like builds
    result.update(bench_games(rules, seconds / 2, seed))
    result.update(bench_hot_paths(rules, max(seconds / 6, 0.05)))
    result["total_seconds"] = time.perf_counter() - began
    return result
