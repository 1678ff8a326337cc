"""The one game loop: chance, decisions, the record, and the fallback for a failing bot.

Every game is played by the same few steps, whoever plays it:

- ``draw_due`` makes every draw due now from a ``Chance`` (a ``Deck``, shuffled once, for
  tournaments and tables; ``SampledDraws`` for simulation) and records each one;
- ``play_out`` plays a whole game: the draws due, then a decision, played and recorded,
  then the draws it makes due, until the end. Tournaments (``match.play_game``) and
  simulation (``simulate.play_random_game``) call it;
- interactive tables (``LocalTable``, and the server through it) cannot wait in a loop for
  a person, so they take one decision at a time and make the draws after it with
  ``draw_due`` themselves;
- a bot is asked through ``decide_safely`` everywhere: a bot that fails (raises a
  ``BotError``: crashes, hangs past its limit, answers garbage or an illegal action) gets
  the fallback bot's decision in its place, and the failure in words (``fault``). Callers
  then let the fallback play the seat on and record the fault in the record's player
  entry (``record_fault``); a table's log says it with ``fallback_note``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from random import Random
from typing import Protocol

from noreturn.bots.base import Bot, BotError, make_bot
from noreturn.engine import Action, Draw, GameState, View, refusal, sample_world
from noreturn.records import RecordWriter

FALLBACK = "heuristic"
"""The bot that plays on for a bot that failed."""

Choose = Callable[[GameState], Action]
"""Who decides: the action of the player to move in a state where no draw is due."""


class Chance(Protocol):
    """Where draws come from: ``ShuffledBag`` (a ``Deck``) or ``SampledDraws``."""

    def next_draw(self, state: GameState) -> Draw:
        """The draw due now in ``state``."""
        ...


class SampledDraws:
    """Chance from a generator: each draw sampled by the engine (``sample_draw``)."""

    __slots__ = ("rng",)

    def __init__(self, rng: Random) -> None:
        self.rng = rng

    def next_draw(self, state: GameState) -> Draw:
        """A tile of the bag, each as likely as its count there."""
        return state.sample_draw(self.rng)


def draw_due(state: GameState, chance: Chance, writer: RecordWriter,
             seen: Callable[[GameState, Draw], None] | None = None) -> None:
    """Make every draw due now from ``chance``, each recorded by ``writer``.

    ``seen`` is told each draw with the state it is drawn in, before it is played (a
    table's log notes it).
    """
    while state.is_chance():
        draw = chance.next_draw(state)
        if seen is not None:
            seen(state, draw)
        writer.observe(state, draw)
        state.play(draw)


def play_out(state: GameState, choose: Choose, chance: Chance, writer: RecordWriter) -> None:
    """Play ``state`` to the end: the draws due (``draw_due``), then a decision from
    ``choose``, and again, every event recorded by ``writer`` and played checked (a bug
    shows as an error, not as a corrupt record).

    Simulation plays thousands of games through here, so ``draw_due`` is written out
    inline and the bound methods are looked up once per game: a call per turn, or a
    lookup per event, would cost a measurable share of a random game.
    """
    next_draw, observe, play = chance.next_draw, writer.observe, state.play
    is_over, is_chance = state.is_over, state.is_chance
    while True:
        while is_chance():  # draw_due
            draw = next_draw(state)
            observe(state, draw)
            play(draw)
        if is_over():
            return
        action = choose(state)
        observe(state, action)
        play(action)


def offered(action: Action, legal: Sequence[Action]) -> bool:
    """Whether ``action`` is one of ``legal``: by identity first, since a bot nearly
    always answers one of the list's own objects, and ``in`` would compare it with every
    action before it in Python (some 85 calls, a fifth of a fast bot's decision); by
    value otherwise (an outside program's answer is parsed anew)."""
    return any(choice is action for choice in legal) or action in legal


def decide_safely(bot: Bot, seen: View, legal: Sequence[Action],
                  rng: Random) -> tuple[Action, str | None]:
    """``bot``'s decision on ``seen``, or the fallback's if ``bot`` fails.

    Returns:
        The action, one of ``legal``, and None; or, when ``bot`` raised a ``BotError`` or
        answered something not in ``legal``, the fallback bot's action (on the same view,
        legal actions and generator) and why ``bot`` failed, in words that name only what
        it did (``answered exchange R1 R2, which is not legal: ...``).

    Raises:
        BotError: the fallback bot failed too (a bug in it).
    """
    try:
        action = bot.act(seen, legal, rng)
        if not offered(action, legal):
            raise BotError(f"answered {action}, which is not legal: {why_not(seen, action)}")
    except BotError as exc:
        return make_bot(FALLBACK).act(seen, legal, rng), str(exc)
    return action, None


def why_not(seen: View, action: Action) -> str:
    """Why ``action`` is not legal for the seat to move, told from that seat's ``view``,
    in words every player may read (a table's log shows them to all).

    Legality reads only what the seat to move sees (its hand, the rows, the phases, the
    bag's size), so any world sampled from its view gives the true state's reason. Only
    a reason about the hand could tell others something hidden ("you hold only 1 R5"):
    it is said without the counts.
    """
    try:
        refused = refusal(sample_world(seen, Random(0)), action)
    except Exception:  # a bot's garbage may break anything a rule reads: say so
        return "not an action"
    if refused is None:
        return "not among the legal actions"
    return HIDDEN_HAND if refused.code == "not_in_hand" else refused.reason


HIDDEN_HAND = "you do not hold all of those tiles"
"""``why_not``'s words for tiles not held: the engine's would tell the others which tiles,
and how many, the failing bot holds."""


def fallback_note(name: str, fault: str) -> str:
    """The public line that says ``name``'s bot failed and the fallback plays on."""
    return f"{name}'s bot failed ({fault}); {FALLBACK} plays on"


def fault_in_note(name: str, note: str) -> str:
    """The fault a ``fallback_note`` for ``name`` tells (the whole note if it is none)."""
    head, tail = f"{name}'s bot failed (", f"); {FALLBACK} plays on"
    if note.startswith(head) and note.endswith(tail) and len(note) >= len(head) + len(tail):
        return note[len(head):len(note) - len(tail)]
    return note


def record_fault(writer: RecordWriter, seat: int, fault: str) -> None:
    """Note in the record's entry of ``seat`` that its bot failed, and why (``forfeit``)."""
    writer.players[seat] = {**writer.players[seat], "forfeit": fault}


__all__ = [
    "FALLBACK", "HIDDEN_HAND", "Chance", "Choose", "SampledDraws", "decide_safely", "draw_due",
    "fallback_note", "fault_in_note", "offered", "play_out", "record_fault", "why_not",
]
