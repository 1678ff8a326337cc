"""Environment steps per second through each learning interface.

    python benchmarks/rl_speed.py [--seconds 5] [--variant small|default|both] [--json]

A step is one decision of one agent, taken uniformly at random among the legal moves (the
mask), together with everything the interface does for it: applying the move, resolving
the draws that follow, and building the next observation and mask (PettingZoo, Gymnasium)
or the legal actions and the observation tensor (OpenSpiel). Gymnasium's opponents are
`random` bots, so the figure is the environment's, not a bot's. Each interface runs for
``--seconds`` of wall time per variant. A figure, not a test: this machine is shared.
"""

from __future__ import annotations

import argparse
import json
import time
from collections.abc import Callable
from typing import Any

import numpy as np
from rich.console import Console
from rich.table import Table

VARIANTS: dict[str, dict[str, int]] = {
    "default": {"players": 2},
    "small": {"players": 2, "colors": 3, "max_value": 6, "hand_size": 5},
}


def pettingzoo_steps(sizes: dict[str, int], seconds: float) -> tuple[int, float]:
    """Random masked play through the AEC API for ``seconds``."""
    from noreturn.rl.pettingzoo import env  # noqa: PLC0415 - optional dependency

    aec = env(**sizes)
    rng = np.random.default_rng(0)
    steps, games, begin = 0, 0, time.perf_counter()
    while time.perf_counter() - begin < seconds:
        aec.reset(seed=games)
        games += 1
        for _agent in aec.agent_iter():
            observation, _, termination, truncation, _ = aec.last()
            if termination or truncation:
                aec.step(None)
                continue
            aec.step(int(rng.choice(np.flatnonzero(observation["action_mask"]))))
            steps += 1
    return steps, time.perf_counter() - begin


def gymnasium_steps(sizes: dict[str, int], seconds: float) -> tuple[int, float]:
    """Random masked play of one seat against random bots for ``seconds``."""
    from noreturn.rl.gymnasium import env  # noqa: PLC0415 - optional dependency

    one_seat = env(opponents="random", **sizes)
    rng = np.random.default_rng(0)
    steps, games, begin = 0, 0, time.perf_counter()
    while time.perf_counter() - begin < seconds:
        _, info = one_seat.reset(seed=games)
        games += 1
        done = False
        while not done:
            action = int(rng.choice(np.flatnonzero(info["action_mask"])))
            _, _, terminated, truncated, info = one_seat.step(action)
            done = terminated or truncated
            steps += 1
    return steps, time.perf_counter() - begin


def openspiel_steps(sizes: dict[str, int], seconds: float) -> tuple[int, float]:
    """Random play through pyspiel's state API, reading the observation tensor each step."""
    import pyspiel  # noqa: PLC0415 - optional dependency

    import noreturn.rl.openspiel  # noqa: F401, PLC0415 - registers python_no_return

    game = pyspiel.load_game("python_no_return", sizes)
    rng = np.random.default_rng(0)
    steps, begin = 0, time.perf_counter()
    while time.perf_counter() - begin < seconds:
        state = game.new_initial_state()
        while not state.is_terminal():
            if state.is_chance_node():
                outcomes, probs = zip(*state.chance_outcomes(), strict=True)
                state.apply_action(int(rng.choice(outcomes, p=probs)))
                continue
            state.observation_tensor(state.current_player())
            state.apply_action(int(rng.choice(state.legal_actions())))
            steps += 1
    return steps, time.perf_counter() - begin


INTERFACES: dict[str, Callable[[dict[str, int], float], tuple[int, float]]] = {
    "pettingzoo": pettingzoo_steps,
    "gymnasium": gymnasium_steps,
    "openspiel": openspiel_steps,
}


def main() -> None:
    """Measure, print a table, and optionally the figures as JSON."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--seconds", type=float, default=5.0, help="wall time per run")
    parser.add_argument("--variant", choices=[*VARIANTS, "both"], default="both")
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    args = parser.parse_args()
    variants = list(VARIANTS) if args.variant == "both" else [args.variant]
    console = Console(stderr=args.json)
    results: list[dict[str, Any]] = []
    for variant in variants:
        for name, run in INTERFACES.items():
            with console.status(f"{name} on the {variant} game ..."):
                try:
                    steps, elapsed = run(VARIANTS[variant], args.seconds)
                except ImportError as exc:
                    console.print(f"[yellow]{name}: skipped ({exc}); "
                                  "pip install -e '.[rl,openspiel]'[/]")
                    continue
            results.append({"interface": name, "variant": variant, "steps": steps,
                            "seconds": round(elapsed, 2),
                            "steps_per_s": round(steps / elapsed, 1)})
    if args.json:
        print(json.dumps(results, indent=2))
        return
    table = Table(title="environment steps per second (random masked play)")
    for column in ("interface", "variant", "steps", "seconds", "steps/s"):
        table.add_column(column, justify="left" if column in {"interface", "variant"}
                         else "right")
    for row in results:
        table.add_row(row["interface"], row["variant"], f"{row['steps']:,}",
                      f"{row['seconds']:.1f}", f"{row['steps_per_s']:,.0f}")
    console.print(table)


if __name__ == "__main__":
    main()
