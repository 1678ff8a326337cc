"""Random legal play in bulk: many games, their records and a summary.

Two random policies: ``rollout`` (the engine's rollout policy, what search bots use for
playouts) and ``uniform`` (every legal action equally likely, the purest random player).
Each game has its own generator seeded from the base seed and the game's number, so game
17 of a run can be replayed alone and runs are reproducible on any machine.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from functools import partial
from random import Random

from noreturn.bots.loop import SampledDraws, play_out
from noreturn.engine import Action, GameState, Rules, legal_actions, new_game, rollout_action
from noreturn.files import OutputDir
from noreturn.records import Record, RecordWriter, default_meta, write_record

Policy = Callable[[GameState, Random], Action]


def uniform_action(state: GameState, rng: Random) -> Action:
    """A legal action chosen uniformly among all of them."""
    actions = legal_actions(state)
    return actions[int(rng.random() * len(actions))]


POLICIES: dict[str, Policy] = {"rollout": rollout_action, "uniform": uniform_action}


def game_rng(seed: int, index: int) -> Random:
    """The generator of game ``index`` of a run with base ``seed``."""
    return Random(f"noreturn:{seed}:{index}")


def play_random_game(rules: Rules, policy: Policy, rng: Random) -> tuple[GameState, Record]:
    """One whole game, every seat playing ``policy``; the final state and its record.

    The game loop is the one of every game (``play_out``): draws and decisions share
    ``rng`` in the order they come, so the game is a function of the generator alone.
    """
    state = new_game(rules, rng)
    writer = RecordWriter(state, meta=default_meta())
    play_out(state, lambda now: policy(now, rng), SampledDraws(rng), writer)
    return state, writer.record(state)


@dataclass
class Summary:
    """Totals of a run, per seat: wins count a shared first place for each sharer."""

    players: int
    games: int = 0
    turns: int = 0
    score_sums: list[int] = field(default_factory=list)
    wins: list[int] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.score_sums = [0] * self.players
        self.wins = [0] * self.players

    def add(self, state: GameState) -> None:
        """Count one finished game."""
        self.games += 1
        self.turns += state.turns
        for seat, (score, rank) in enumerate(zip(state.scores(), state.ranks(), strict=True)):
            self.score_sums[seat] += score
            self.wins[seat] += rank == 1

    def mean_score(self, seat: int) -> float:
        """Seat's mean final score."""
        return self.score_sums[seat] / max(self.games, 1)

    def win_rate(self, seat: int) -> float:
        """Share of games in which the seat finished first (shared or not)."""
        return self.wins[seat] / max(self.games, 1)


def simulate(
    rules: Rules,
    games: int,
    seed: int = 0,
    policy: str = "rollout",
    out: OutputDir | None = None,
) -> Iterator[GameState]:
    """Play ``games`` random games; yields each final state (``Summary.add`` totals them).

    With ``out``, every game's record is written there as ``game-<seed>-<n>.json`` (in a
    fallback folder if that folder fails meanwhile: ``out.problem`` then says why).
    """
    if policy not in POLICIES:
        raise ValueError(f"unknown policy {policy!r}: choose one of {', '.join(POLICIES)}")
    for index in range(games):
        state, record = play_random_game(rules, POLICIES[policy], game_rng(seed, index))
        if out is not None:
            out.write(f"game-{seed}-{index:05d}.json", partial(write_record, record))
        yield state
