"""Recorded games for the record tests: a game played and written as a record, with the
state before each event when asked, over the published sizes and random size variants.

Shared by the round-trip, validation, breaker, account and CLI record tests (test
modules import this kit, not one another).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from random import Random

from noreturn.engine import Action, GameState, Rules, RulesError, legal_actions, rollout_action
from noreturn.records import Record, RecordWriter


@dataclass
class Game:
    """A played game: its record, its final state, and the state before each event."""

    record: Record
    state: GameState
    befores: list[GameState]

    def after(self, index: int) -> GameState:
        """The state just after event ``index``."""
        return self.befores[index + 1] if index + 1 < len(self.befores) else self.state


def recorded_game(
    rules: Rules,
    seed: int,
    policy: str = "rollout",
    snapshots: bool = False,
    players: list[dict[str, str]] | None = None,
) -> Game:
    """Play one game with ``policy`` ("rollout" or "uniform") and record it."""
    rng = Random(seed)
    state = GameState(rules, rng.randrange(rules.players))
    writer = RecordWriter(state, players)
    befores: list[GameState] = []
    while not state.is_over():
        action: Action
        if state.is_chance():
            action = state.sample_draw(rng)
        elif policy == "uniform":
            choices = legal_actions(state)
            action = choices[rng.randrange(len(choices))]
        else:
            action = rollout_action(state, rng)
        events = len(writer.events)
        before = state.clone() if snapshots else state
        writer.observe(state, action)
        if snapshots and len(writer.events) > events:
            befores.append(before)
        state.apply(action)
    return Game(writer.record(state), state, befores)


def _variants(count: int, seed: int) -> list[Rules]:
    """Size variants spread over the ranges of the task (rejecting unplayable sets)."""
    rng = Random(seed)
    out: list[Rules] = []
    while len(out) < count:
        try:
            out.append(Rules(
                players=2 + len(out) % 3, colors=rng.randint(2, 6), max_value=rng.randint(4, 11),
                copies=rng.randint(1, 3), hand_size=rng.randint(2, 8),
                exchange_limit=rng.randint(1, 4),
            ))
        except RulesError:
            continue
    return out


VARIANTS: list[Rules] = [
    Rules(),
    Rules(players=3),
    Rules(players=4),
    Rules(players=2, colors=1, max_value=5, copies=3, hand_size=2, exchange_limit=1),
    *_variants(15, seed=2026),
]
"""The published game for 2, 3 and 4 players, one single-colour set, and 15 random sizes."""

SMALL_VARIANTS = [r for r in VARIANTS if r.tile_count <= 80]


@cache
def snapshot_game(rules: Rules, seed: int, policy: str = "rollout") -> Game:
    """``recorded_game`` with snapshots, kept for the tests that only read it."""
    return recorded_game(rules, seed, policy, snapshots=True)
