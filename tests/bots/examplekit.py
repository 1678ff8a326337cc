"""The example bots of ``examples/`` as their tests use them: as modules (to ask their
``choose`` directly), and as external programs playing a whole game through the protocol."""

from __future__ import annotations

import importlib.util
import shlex
import sys
from pathlib import Path
from types import ModuleType

from noreturn.bots import Deck, GameResult, make_bot, play_game
from noreturn.bots.external import ExternalBot
from noreturn.engine import Rules

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def load(path: Path, name: str) -> ModuleType:
    """A script as a module, so that its functions can be asked directly."""
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def protocol_game(example: Path) -> tuple[GameResult, ExternalBot]:
    """A two-player game of medium against ``example`` run as an external program (deal
    and seed 5), its record kept; the result and the bot (its program name)."""
    rules = Rules(players=2)
    bot = make_bot(f"external:{shlex.quote(sys.executable)} {shlex.quote(str(example))}")
    assert isinstance(bot, ExternalBot)
    with bot:
        result = play_game(rules, [make_bot("medium"), bot], Deck(rules, 5), seed=5,
                           keep_record=True)
    return result, bot
