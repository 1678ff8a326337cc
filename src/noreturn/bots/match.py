"""Playing one game between bots: deals, decisions, forfeits and the record.

Chance comes from a ``Deck``: the bag shuffled once at the start, drawn from the top. The
same deck can then be played again with the bots in other seats (paired deals), so a
tournament compares bots on the same luck. Set-aside mulligan tiles go back at random
places, as the rules shuffle them in.

A bot that fails (crashes, hangs, answers garbage or an illegal action) forfeits its seat:
a fallback bot plays on for it, and the result and the record say so. The game itself is
played by the one game loop (``noreturn.bots.loop``), with its fallback.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import partial
from random import Random

from noreturn.bots.base import Bot, make_bot
from noreturn.bots.loop import FALLBACK, decide_safely, play_out, record_fault
from noreturn.engine import Action, GameState, Rules, ShuffledBag, legal_actions, view
from noreturn.records import Record, RecordWriter, default_meta


class Deck(ShuffledBag):
    """The whole tile set in one shuffled order, with the starting seat: a replayable deal."""

    def __init__(self, rules: Rules, seed: int | str) -> None:
        """Draw the starting seat, then shuffle every tile of ``rules``, from ``seed``."""
        rng = Random(f"deck:{seed}")
        self.start_player = rng.randrange(rules.players)
        super().__init__(rules.all_tiles(), rng)


@dataclass
class Forfeit:
    """A seat whose bot failed; a fallback bot played on for it."""

    seat: int
    bot: str
    turn: int
    reason: str


@dataclass
class GameResult:
    """The outcome of one game between bots."""

    bots: list[str]
    scores: list[int]
    ranks: list[int]
    turns: int
    start_player: int
    forfeits: list[Forfeit] = field(default_factory=list)
    decision_seconds: list[float] = field(default_factory=list)
    decisions: list[int] = field(default_factory=list)
    startup_seconds: list[float] = field(default_factory=list)
    record: Record | None = None


def play_game(
    rules: Rules,
    bots: Sequence[Bot],
    deck: Deck,
    seed: int | str = 0,
    names: Sequence[str] | None = None,
    keep_record: bool = False,
) -> GameResult:
    """Play one game, seat ``i`` by ``bots[i]``, drawing from ``deck``.

    Each seat gets its own generator from ``seed``, so a bot's randomness never changes
    the tiles drawn.
    """
    names = list(names or [b.name for b in bots])
    seats = list(bots)
    for seat, bot in enumerate(bots):  # bots with a life outside Python (external programs)
        start = getattr(bot, "start_game", None)
        if callable(start):
            start(seat, names)
    state = GameState(rules, deck.start_player)
    writer = RecordWriter(state, [{"name": n, "kind": "bot"} for n in names], default_meta())
    rngs = [Random(f"bot:{seed}:{seat}") for seat in range(rules.players)]
    result = GameResult(names, [], [], 0, deck.start_player,
                        decision_seconds=[0.0] * rules.players, decisions=[0] * rules.players,
                        startup_seconds=[0.0] * rules.players)
    try:
        play_out(state, partial(_decide, seats=seats, rngs=rngs, result=result, names=names,
                                writer=writer), deck, writer)
    finally:
        for seat, bot in enumerate(bots):  # the original bots, a forfeited one too
            end = getattr(bot, "end_game", None)
            if callable(end):
                end(view(state, seat))
    result.scores, result.ranks, result.turns = state.scores(), state.ranks(), state.turns
    if keep_record:
        result.record = writer.record(state)
    return result


def _decide(state: GameState, seats: list[Bot], rngs: list[Random], result: GameResult,
            names: list[str], writer: RecordWriter) -> Action:
    """Ask the seat's bot (``decide_safely``); on failure record a forfeit, in the result
    and the record, and let the fallback play the seat on.

    The time from asking to the answer counts as deciding, less what the bot spent
    starting up meanwhile (its ``startup_seconds``), which counts apart.
    """
    seat = state.to_move
    legal = legal_actions(state)
    bot = seats[seat]
    started = getattr(bot, "startup_seconds", 0.0)
    begin = time.perf_counter()
    action, fault = decide_safely(bot, view(state, seat), legal, rngs[seat])
    if fault is not None:
        result.forfeits.append(Forfeit(seat, names[seat], state.turns, fault))
        record_fault(writer, seat, fault)
        seats[seat] = make_bot(FALLBACK)
    startup = getattr(bot, "startup_seconds", 0.0) - started
    result.startup_seconds[seat] += startup
    result.decision_seconds[seat] += time.perf_counter() - begin - startup
    result.decisions[seat] += 1
    return action
