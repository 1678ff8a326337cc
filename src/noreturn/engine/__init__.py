"""The rules of No Return, pure and standard-library only (docs/rules.md, exactly).

Typical use::

    rng = Random(7)
    state = new_game(Rules(players=2), rng)
    while not state.is_over():
        if state.is_chance():
            state.apply(state.sample_draw(rng))
        else:
            state.play(choose_somehow(legal_actions(state)))

The rules are written once, here. Bots, rollouts and front ends that need a rule use the
primitives below rather than a copy: ``fits_row``/``row_limit``/``placeable`` (which tile a
row takes), ``covers``/``row_due``/``row_dues``/``payable_tail`` (what a score costs and
what pays it), and read tiles with ``colour_of``/``value_of`` (or
``TILE_COLOUR``/``TILE_VALUE`` in hot loops), ``tiles_value`` and ``colour_sums``. A policy
for ``playout`` returns a ``Decision`` tuple whose kind is one of ``PASS``, ``DECLARE``,
``MULLIGAN_CHOICE``, ``EXCHANGE``, ``PLACE``, ``SCORE``; ``to_action`` turns it into an
action, ``to_decision`` an action into it. A state's and a view's ``stage`` is a
``Stage`` (``Stage.PLAY``; its text form ``"play"`` is for JSON); ``DEAL``, ``MULLIGAN``,
``PLAY`` and ``OVER`` are its members under module names, for hot loops (a global is some
100 ns cheaper than ``Stage.PLAY`` on Python 3.11).

``view(state, seat)`` is the one gate for hidden information in states, ``observe(event,
seat)`` its twin for events (``event_of``, ``draw_event``, ``start_event`` make an
``Event``; an ``EventView`` has a public part for all and a private part for the actor).

This package is the engine's whole API: code outside it imports from here, never from a
module inside (tests/test_engine_api.py checks). ``play``/``check`` raise an
``IllegalActionError`` whose ``code`` names the broken rule (``RULE_CODES``);
``refusal`` gives the same code and reason without raising, ``why_illegal`` the reason.
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
from noreturn.engine.encoding import (
    decode_action,
    encode_action,
    encode_actions,
    layout,
    num_actions,
)
from noreturn.engine.errors import (
    RULE_CODES,
    IllegalActionError,
    NoReturnError,
    NotationError,
    Refusal,
    RulesError,
    WordedError,
    shortened,
)
from noreturn.engine.legal import (
    check,
    covers,
    fits_row,
    legal_actions,
    payable_tail,
    placeable,
    refusal,
    row_due,
    row_dues,
    row_limit,
    why_illegal,
)
from noreturn.engine.observe import (
    HIDING_KINDS,
    Event,
    EventKind,
    EventView,
    PrivatePart,
    PublicPart,
    draw_event,
    event_of,
    observe,
    start_event,
)
from noreturn.engine.rollout import (
    DECLARE,
    EXCHANGE,
    MULLIGAN_CHOICE,
    PASS,
    PLACE,
    SCORE,
    Decision,
    playout,
    rollout_action,
    to_action,
    to_decision,
)
from noreturn.engine.state import (
    DEAL,
    MULLIGAN,
    OVER,
    PLAY,
    STATE_FIELDS,
    GameState,
    Stage,
    new_game,
    resolve_chance,
    turns_taken,
)
from noreturn.engine.tiles import (
    COLOUR_LETTERS,
    COLOUR_NAMES,
    TILE_COLOUR,
    TILE_LIMIT,
    TILE_VALUE,
    Rules,
    colour_of,
    colour_sums,
    is_number,
    make_tile,
    make_tiles,
    parse_tile,
    placed_values,
    tile_code,
    tiles_text,
    tiles_value,
    value_of,
)
from noreturn.engine.view import View, view
from noreturn.engine.worlds import sample_world


def compiled() -> bool:
    """Whether the engine's hot modules (and the bots' plan) run compiled by mypyc, as a
    wheel installs them (``pip install .``, setup.py), rather than from their Python
    sources (``pip install -e .``): the same moves, about twice the games a second, so a
    search with a time budget plays about twice the games in its time."""
    from noreturn.engine import state  # noqa: PLC0415 - the module object, to ask its file

    return not (state.__file__ or "").endswith(".py")


__all__ = [
    "COLOUR_LETTERS", "COLOUR_NAMES", "DEAL", "DECLARE", "EXCHANGE", "HIDING_KINDS",
    "MULLIGAN", "MULLIGAN_CHOICE", "OVER", "PASS", "PLACE", "PLAY", "RULE_CODES", "SCORE",
    "STATE_FIELDS", "TILE_COLOUR", "TILE_LIMIT", "TILE_VALUE",
    "Action", "Decision", "Declare", "Draw", "Event", "EventKind",
    "EventView", "Exchange", "GameState", "IllegalActionError", "Mulligan", "NoReturnError",
    "NotationError", "Pass", "Place", "PlayerAction", "PrivatePart", "PublicPart", "Refusal",
    "Rules", "RulesError", "Score", "ShuffledBag", "Stage", "View", "WordedError", "check",
    "colour_of",
    "colour_sums", "compiled", "covers", "decode_action", "draw_event", "encode_action",
    "encode_actions",
    "event_of", "fits_row", "is_number", "layout", "legal_actions", "make_tile", "make_tiles",
    "new_game",
    "num_actions", "observe", "parse_action", "parse_tile", "payable_tail", "placeable",
    "placed_values", "playout", "refusal",
    "reshuffled", "resolve_chance", "rollout_action", "row_due", "row_dues", "row_limit",
    "sample_world", "shortened", "start_event", "texts_of", "tile_code", "tiles_text",
    "tiles_value",
    "to_action", "to_decision", "turns_taken", "value_of", "view", "why_illegal",
]
