"""The engine's errors: one base class, so callers can catch every refusal at once."""

from __future__ import annotations


class NoReturnError(ValueError):
    """Base of every error the engine raises for bad input."""


class NotationError(NoReturnError):
    """Text (a tile, an action) that does not parse."""


class RulesError(NoReturnError):
    """Size parameters that do not make a playable game."""


class IllegalActionError(NoReturnError):
    """An action the rules do not allow now; the message names the rule in a player's words."""
