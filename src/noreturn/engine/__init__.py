"""The rules of No Return, pure and standard-library only (docs/rules.md, exactly).

Typical use::

    rng = Random(7)
    state = new_game(Rules(players=2), rng)
    while not state.is_over():
        if state.is_chance():
            state.apply(state.sample_draw(rng))
        else:
            state.play(choose_somehow(legal_actions(state)))
"""

from noreturn.engine.actions import (
    Action,
    Declare,
    Draw,
    Exchange,
    Mulligan,
    Pass,
    Place,
    PlayerAction,
    Score,
    parse_action,
    texts_of,
)
from noreturn.engine.chance import ShuffledBag, reshuffled
from noreturn.engine.encoding import decode_action, encode_action, layout, num_actions
from noreturn.engine.errors import IllegalActionError, NoReturnError, NotationError, RulesError
from noreturn.engine.legal import check, legal_actions, why_illegal
from noreturn.engine.rollout import playout, rollout_action
from noreturn.engine.state import GameState, new_game, resolve_chance
from noreturn.engine.tiles import (
    COLOUR_LETTERS,
    COLOUR_NAMES,
    Rules,
    colour_of,
    make_tile,
    parse_tile,
    tile_code,
    tiles_text,
    value_of,
)
from noreturn.engine.view import View, view
from noreturn.engine.worlds import sample_world

__all__ = [
    "COLOUR_LETTERS", "COLOUR_NAMES", "Action", "Declare", "Draw", "Exchange", "GameState",
    "IllegalActionError", "Mulligan", "NoReturnError", "NotationError", "Pass", "Place",
    "PlayerAction", "Rules", "RulesError", "Score", "ShuffledBag", "View", "check",
    "colour_of", "decode_action", "encode_action", "layout", "legal_actions", "make_tile",
    "new_game", "num_actions", "parse_action", "parse_tile", "playout", "reshuffled",
    "resolve_chance", "rollout_action", "sample_world", "texts_of", "tile_code",
    "tiles_text", "value_of", "view", "why_illegal",
]
