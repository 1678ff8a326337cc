"""Bots: opponents that see only a seat's view (never the game state), found by name."""

from noreturn.bots.base import LEVELS, Bot, BotError, bot_names, make_bot, register
from noreturn.bots.match import Deck, Forfeit, GameResult, play_game

__all__ = [
    "LEVELS", "Bot", "BotError", "Deck", "Forfeit", "GameResult", "bot_names", "make_bot",
    "play_game", "register",
]
