"""Playing one game between bots: deals, decisions, forfeits and the record.

Chance comes from a ``Deck``: the bag shuffled once at the start, drawn from the top. The
same deck can then be played again with the bots in other seats (paired deals), so a
tournament compares bots on the same luck. Set-aside mulligan tiles go back at random
places, as the rules shuffle them in.

A bot that fails (crashes, hangs, answers garbage or an illegal action) forfeits its seat:
a fallback bot plays on for it, and the result and the record say so.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from random import Random
from typing import Any

from noreturn.bots.base import Bot, BotError, make_bot
from noreturn.engine import (
    Action,
    GameState,
    Rules,
    ShuffledBag,
    legal_actions,
    view,
    why_illegal,
)
from noreturn.records import Record, RecordWriter, default_meta

FALLBACK = "heuristic"


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
        while not state.is_over():
            if state.is_chance():
                action: Action = deck.next_draw(state)
            else:
                action = _decide(state, seats, rngs, result, names)
            writer.observe(state, action)
            state.play(action)
    finally:
        for seat, bot in enumerate(bots):  # the original bots, a forfeited one too
            end = getattr(bot, "end_game", None)
            if callable(end):
                end(view(state, seat))
    result.scores, result.ranks, result.turns = state.scores(), state.ranks(), state.turns
    if keep_record:
        record = writer.record(state)
        for forfeit in result.forfeits:
            record["players"][forfeit.seat]["forfeit"] = forfeit.reason
        result.record = record
    return result


def _decide(state: GameState, seats: list[Bot], rngs: list[Random], result: GameResult,
            names: list[str]) -> Action:
    """Ask the seat's bot; on failure record a forfeit and ask the fallback instead.

    The time from asking to the answer counts as deciding, less what the bot spent
    starting up meanwhile (its ``startup_seconds``), which counts apart.
    """
    seat = state.to_move
    legal = legal_actions(state)
    bot = seats[seat]
    started = getattr(bot, "startup_seconds", 0.0)
    begin = time.perf_counter()
    try:
        action = bot.act(view(state, seat), legal, rngs[seat])
        if action not in legal:
            raise BotError(f"answered {action}, which is not legal: "
                           f"{_why(state, action)}")
    except BotError as exc:
        result.forfeits.append(Forfeit(seat, names[seat], state.turns, str(exc)))
        seats[seat] = make_bot(FALLBACK)
        action = seats[seat].act(view(state, seat), legal, rngs[seat])
    startup = getattr(bot, "startup_seconds", 0.0) - started
    result.startup_seconds[seat] += startup
    result.decision_seconds[seat] += time.perf_counter() - begin - startup
    result.decisions[seat] += 1
    return action


def _why(state: GameState, action: Any) -> str:
    try:
        return why_illegal(state, action) or "not among the legal actions"
    except Exception:
        return "not an action"

