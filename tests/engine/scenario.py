"""Build game positions from short scripts in the shared text form, for the rule tests.

A rule test reads best as the table would: who holds what, then the moves. ``scenario``
deals the given hands with ``Draw`` actions in turn order, applies the mulligans and then
the actions, all through the checked ``play`` so that a script can never reach a position the
rules forbid. Script lines are action texts (``place R11 R9``, ``score R x2 pay B7``), plus two
conveniences for chance: ``draw B3 G7`` draws several given tiles, and ``draw *`` (``draw
high``) draws every tile now due, lowest (highest) first, when the test does not care which.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from random import Random

import pytest

from noreturn.engine import (
    Action,
    Draw,
    GameState,
    IllegalActionError,
    PlayerAction,
    Rules,
    legal_actions,
    parse_action,
    parse_tile,
    rollout_action,
)

DEFAULT = Rules()

TINY = Rules(players=2, colors=2, max_value=5, copies=1, hand_size=3, exchange_limit=2)
"""10 tiles: R1..R5 and O1..O5; 6 are dealt, so the bag holds 4 after the deal."""

TINY3 = Rules(players=3, colors=2, max_value=7, copies=1, hand_size=3, exchange_limit=2)
"""14 tiles: R1..R7 and O1..O7; 9 are dealt, so the bag holds 5 after the deal."""


def tiles(text: str) -> list[int]:
    """The tiles written ``text`` (``"R11 B3"``), in the given order."""
    return [parse_tile(word) for word in text.split()]


def deal(hands: Sequence[str], rules: Rules = DEFAULT, start: int = 0) -> GameState:
    """A game whose seats were dealt ``hands`` (indexed by seat), in turn order from ``start``."""
    state = GameState(rules, start)
    for i in range(rules.players):
        seat = (start + i) % rules.players
        assert state.to_move == seat and state.draws_due == rules.hand_size
        for tile in tiles(hands[seat]):
            state.play(Draw(tile))
    return state


def run(state: GameState, lines: Iterable[str]) -> GameState:
    """Play each script line on ``state`` (checked) and return it."""
    for line in lines:
        words = line.split()
        if words and words[0] == "draw" and words[1:] in (["*"], ["high"]):
            pick = min if words[1] == "*" else max
            while state.draws_due:
                state.play(Draw(pick(state.bag)))
        elif words and words[0] == "draw":
            for tile in tiles(" ".join(words[1:])):
                state.play(Draw(tile))
        else:
            state.play(parse_action(line))
    return state


def scenario(
    hands: Sequence[str],
    *,
    rules: Rules = DEFAULT,
    start: int = 0,
    mulligans: Sequence[str] | None = None,
    actions: Iterable[str] = (),
) -> GameState:
    """Deal ``hands``, play ``mulligans`` (default: everyone keeps), then ``actions``.

    ``mulligans`` is a script like the actions: ``["mulligan R3", "draw B4", "mulligan"]``.
    """
    state = deal(hands, rules, start)
    run(state, ["mulligan"] * rules.players if mulligans is None else mulligans)
    return run(state, actions)


def refused(state: GameState, action: Action, *words: str) -> IllegalActionError:
    """Assert that ``play(action)`` is refused with a message naming ``words``, state unchanged.

    Also checks that the refused action is not among the legal actions, so the checked and
    the listed rules agree.
    """
    before = state.clone()
    key = state.key()
    with pytest.raises(IllegalActionError) as caught:
        state.play(action)
    message = str(caught.value).lower()
    for word in words:
        assert word.lower() in message, f"{word!r} not in {message!r}"
    assert state == before and state.key() == key
    assert action not in legal_actions(state)
    return caught.value


def random_game(rules: Rules, seed: int, start: int | None = None) -> list[GameState]:
    """A whole game played (checked) with the rollout policy: every state, first to last."""
    rng = Random(seed)
    state = GameState(rules, rng.randrange(rules.players) if start is None else start)
    states = [state.clone()]
    while not state.is_over():
        assert len(states) < 20_000, "the game does not end"  # a broken engine must not hang
        action: Action | PlayerAction
        action = state.sample_draw(rng) if state.is_chance() else rollout_action(state, rng)
        state.play(action)
        states.append(state.clone())
    return states


SIMPLE_HANDS = [" ".join(f"{letter}{v}" for v in range(1, 9)) for letter in "ROYG"]
"""Seat s holds the values 1..8 of colour s (R, O, Y, G): easy to follow in any order."""

HANDS_2P = ["R11 R9 R5 R5 B8 B1 G3 G2", "O10 O7 Y6 Y4 P2 P1 G11 B4"]
"""A default two-player deal; ``scoring_position`` plays on from it."""


def scoring_position() -> GameState:
    """Seat 0 has declared, with rows R 11 9 5 5 and G 3 2, and must now act (4 turns played).

    Its hand is B8 B7 B5 B3 B1 (blue sum 24), G7, O3, O2; seat 1 is still in phase 1.
    """
    return scenario(HANDS_2P, actions=[
        "place R11 R9 R5 R5", "draw B7 B5 B3 G7",
        "exchange P1", "draw P3",
        "place G3 G2", "draw O3 O2",
        "exchange P2", "draw P4",
        "declare",
    ])
