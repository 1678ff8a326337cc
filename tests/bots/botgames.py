"""A game one bot plays in every seat, kept decision by decision (for tests of tests/bots)."""

from __future__ import annotations

from random import Random

from noreturn.bots import Bot, Deck
from noreturn.engine import GameState, Rules, legal_actions, view


def bot_game(rules: Rules, seed: int, bot: Bot) -> list[GameState]:
    """The decision states of a game ``bot`` plays in every seat on deal ``seed``; its
    randomness at the n-th decision comes from ``Random(n)``."""
    deck = Deck(rules, seed)
    state = GameState(rules, deck.start_player)
    states = []
    while not state.is_over():
        if state.is_chance():
            state.apply(deck.next_draw(state))
            continue
        states.append(state.clone())
        seen = view(state, state.to_move)
        state.apply(bot.act(seen, legal_actions(state), Random(len(states))))
    return states
