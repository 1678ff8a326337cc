"""Frozen: ``heuristic-v1``, a yardstick (see ``yardsticks/__init__.py``).

Every gain of a new bot is measured against this bot, so it must not move: change nothing
here but what the engine's API forces (``tests/bots/test_yardsticks.py`` checks).

The first ``heuristic`` bot: a documented strategy, and the reasons behind each move.

The game is an investment followed by a race. In phase 1 every tile put in a row costs its
value now and is worth twice its value once scored; in phase 2 each turn can score only one
row's tail, paid for with hand tiles of a single colour. Whatever is still in a row when the
bag runs out counts against you. So the strategy is:

1. **Start rows high, keep gaps small.** A row is started only with a tile of 6 or more,
   and extended with tiles below its lowest one in steps of at most 5, smaller steps
   preferred: every value skipped is a tile that can never be placed there again. Equal
   values cost no gap. (Tidier rows, started at 9 with steps of 2, lost to plain greedy
   play in 3- and 4-player games: rows must also grow fast.)
2. **Keep paying power.** A SCORE needs one colour whose hand tiles sum to the row's tail;
   the strongest colour in hand is kept rather than exchanged.
3. **Score the most, pay with the least overpay**: the row tail worth the most points that
   the hand can pay, paid with the smallest excess and then the fewest tiles. (Paying with
   more tiles to cycle the hand while the bag is full is not tried yet.)
4. **Exchange to fish**: in phase 1 the tiles that fit no row and would start a poor one go
   first; in phase 2 the tiles outside the strongest colour.
5. **Time the switch** to phase 2 from the bag: the turns the bag still allows (estimated
   from how fast it has emptied so far) against the scoring turns the rows need (their sums
   against the hand's paying power), with a margin of one turn in two-player games and
   one turn later with more players (measured by tournaments, see ``policy_v1.py``).

Mulligan: tiles of 4 or less are set aside; they start no row and pay little.
"""

from __future__ import annotations

from collections.abc import Sequence
from random import Random

from noreturn.bots.base import BotError, parse_options, register
from noreturn.bots.yardsticks import policy_v1 as policy
from noreturn.engine import (
    COLOUR_NAMES,
    Action,
    Declare,
    Exchange,
    GameState,
    Mulligan,
    Place,
    Score,
    View,
    colour_of,
    make_tile,
    row_due,
    sample_world,
    tile_code,
    tiles_text,
    to_action,
)


class HeuristicV1Bot:
    """The documented strategy above; ``decide`` also says why."""

    name = "heuristic-v1"

    def act(self, view: View, legal: Sequence[Action], rng: Random) -> Action:
        """The strategy's choice among ``legal``."""
        return self.decide(view, legal)[0]

    def decide(self, view: View, legal: Sequence[Action]) -> tuple[Action, str]:
        """The chosen action with a one-line reason a player understands.

        The strategy reads only the seat's own hand and the public table, so it runs on
        any state consistent with the view; which one does not matter.
        """
        state = sample_world(view, Random(0))
        action = to_action(policy.choose(state))
        if action not in legal:  # a strategy bug must not cost the game: say so loudly
            raise BotError(f"heuristic chose {action}, which is not legal here")
        return action, reason(state, action)


def reason(state: GameState, action: Action) -> str:
    """Why the strategy chose ``action`` in ``state``, in a player's words."""
    seat = state.to_move
    if isinstance(action, Mulligan):
        if not action.tiles:
            return "keep the hand: it has no low tiles to get rid of"
        return f"set aside {tiles_text(action.tiles)}: low tiles start no row and pay little"
    if isinstance(action, Declare):
        needed = policy.scoring_turns_needed(state.rows[seat], state.hands[seat])
        return (f"declare phase 2: about {policy.turns_left(state):.0f} turns are left and "
                f"your rows need {needed} scoring turns")
    if isinstance(action, Score):
        due = row_due(state.rows[seat][action.row], action.count)
        return (f"score {action.count} of your {COLOUR_NAMES[action.row]} row for {due} "
                f"points, paying {tiles_text(action.pay)} with the least overpay")
    if isinstance(action, Place):
        colour = colour_of(action.tiles[0])
        row = state.rows[seat][colour]
        name = COLOUR_NAMES[colour]
        if not row:
            article = "an" if name[0] in "aeiou" else "a"
            return f"place {tiles_text(action.tiles)}: start {article} {name} row high"
        below = tile_code(make_tile(colour, row[-1]))
        fits = "it fits" if len(action.tiles) == 1 else "they fit"
        return f"place {tiles_text(action.tiles)}: {fits} under your {below} with small gaps"
    if isinstance(action, Exchange):
        if state.phases[seat] == 2:
            return (f"exchange {tiles_text(action.tiles)}: fish for paying power, keeping "
                    "your strongest colour")
        fits = "it fits" if len(action.tiles) == 1 else "they fit"
        return f"exchange {tiles_text(action.tiles)}: {fits} no row; fish for tiles that do"
    return "nothing else is possible"


@register("heuristic-v1", "frozen yardstick: the first heuristic (high rows, small gaps, timed "
          "declaration), never changed")
def _heuristic_v1(options: str) -> HeuristicV1Bot:
    parse_options(options, {})
    return HeuristicV1Bot()
