"""Frozen: ``ismcts-v1``, a yardstick (see ``yardsticks/__init__.py``).

Every gain of a new search bot is measured against this one, so it must not move: change
nothing here but what the engine's API forces (``tests/bots/test_yardsticks.py`` checks).

The first ``ismcts`` bot: information-set Monte Carlo tree search.

Each iteration imagines the hidden tiles (``sample_world``: a state consistent with
everything the seat knows), then walks a tree of this seat's own decisions. A node's
children are the actions taken there in earlier iterations; since an action may be legal in
one imagined world and not in another, UCB compares a child's wins with the number of
iterations in which it was *available* (Cowling, Powley and Whitehouse's ISMCTS). Other
players' turns and the draws between two of our decisions are played out inside the
imagined world. Below the tree, the game is finished by a fast playout, and the result (a
win, with a little weight on the margin) is backed up.

Branching is kept in check by the candidate actions (``candidates``): the heuristic's own
choice, the declaration, placing a colour's top tiles, the cheapest payment for each
scoring option and single-tile exchanges. The search then spends its iterations on moves
that differ in substance rather than on 160 ways of throwing tiles away. Other players and
all rollouts follow the heuristic strategy (``policy_v1.py``), so the search is a lookahead
improvement of that strategy against opponents who play like it.

Options: ``ismcts:iterations=2000`` or ``ismcts:time=1.0`` (seconds per decision; the
default), ``c=0.7`` (exploration).
"""

from __future__ import annotations

import math
import time
from collections.abc import Sequence
from random import Random

from noreturn.bots.base import (
    MAX_ITERATIONS,
    MAX_SECONDS,
    BotError,
    Budget,
    parse_options,
    register,
)
from noreturn.bots.yardsticks import policy_v1 as policy
from noreturn.bots.yardsticks.heuristic_v1 import HeuristicV1Bot
from noreturn.engine import (
    Action,
    Exchange,
    GameState,
    Place,
    Score,
    Stage,
    View,
    colour_of,
    legal_actions,
    placeable,
    playout,
    sample_world,
    tiles_value,
    to_action,
)

WIN_WEIGHT = 0.8
MARGIN_SCALE = 80.0


class Node:
    """Statistics of one action at one place in the tree of our decisions."""

    __slots__ = ("available", "children", "reward", "visits")

    def __init__(self) -> None:
        self.children: dict[Action, Node] = {}
        self.visits = 0
        self.available = 1
        self.reward = 0.0

    def ucb(self, c: float) -> float:
        """Mean reward plus the exploration bonus over the times it was available."""
        return self.reward / self.visits + c * math.sqrt(math.log(self.available) / self.visits)


def candidates(state: GameState) -> list[Action]:
    """The actions worth searching, the strategy's own choice first.

    Every declaration, PLACE of a colour's top placeable tiles (the best one, two, ...),
    for each scoring (row, count) the payment with the least overpay, and the exchanges of
    one tile: the rest differ from these mostly in which tiles are thrown away.
    """
    legal = legal_actions(state)
    favourite = to_action(policy.choose(state))
    chosen: list[Action] = [favourite] if favourite in legal else []
    cheapest: dict[tuple[int, int], tuple[int, Score]] = {}
    for action in legal:
        if isinstance(action, Score):
            paid = tiles_value(action.pay)
            key = (action.row, action.count)
            if key not in cheapest or paid < cheapest[key][0]:
                cheapest[key] = (paid, action)
        elif isinstance(action, Exchange):
            if len(action.tiles) == 1:
                chosen.append(action)
        elif not isinstance(action, Place) or _is_top_chain(state, action):
            chosen.append(action)
    chosen += [action for _, action in cheapest.values()]
    return list(dict.fromkeys(chosen)) or legal


def _is_top_chain(state: GameState, action: Place) -> bool:
    """Whether ``action`` places the highest placeable tiles of its colour, none skipped."""
    colour = colour_of(action.tiles[0])
    seat = state.to_move
    fitting = sorted(placeable(state.hands[seat], state.rows[seat]).get(colour, []),
                     reverse=True)
    return list(action.tiles) == fitting[: len(action.tiles)]


def reward(state: GameState, seat: int) -> float:
    """1 for a win (shared: 1/k), 0 for a loss, with some weight on the margin."""
    scores = state.scores()
    mine = scores[seat]
    best_other = max(s for i, s in enumerate(scores) if i != seat)
    top = max(scores)
    win = (1.0 / scores.count(top)) if mine == top else 0.0
    margin = max(-0.5, min(0.5, (mine - best_other) / MARGIN_SCALE))
    return WIN_WEIGHT * win + (1 - WIN_WEIGHT) * (0.5 + margin)


class IsmctsV1Bot:
    """Search within a budget of iterations or seconds per decision."""

    name = "ismcts-v1"

    def __init__(self, iterations: int | None = None, seconds: float = 1.0,
                 c: float = 0.7) -> None:
        self.iterations = iterations
        self.seconds = seconds
        self.c = c
        self.last_iterations = 0
        self._fallback = HeuristicV1Bot()

    @property
    def budget(self) -> Budget:
        """What one decision may cost: the iterations when given, else the seconds."""
        if self.iterations:
            return Budget(iterations=self.iterations)
        return Budget(seconds=self.seconds)

    def act(self, view: View, legal: Sequence[Action], rng: Random) -> Action:
        """The root action visited most often by the search."""
        if len(legal) == 1:
            return legal[0]
        if view.stage is Stage.MULLIGAN:  # the search knows nothing useful yet
            return self._fallback.act(view, legal, rng)
        root = Node()
        deadline = time.perf_counter() + self.seconds
        done = 0
        while (done < self.iterations) if self.iterations else (
                done < 8 or time.perf_counter() < deadline):
            self._iterate(root, sample_world(view, rng), view.seat or 0, rng)
            done += 1
        self.last_iterations = done
        allowed = set(legal)
        ranked = sorted(root.children.items(), key=lambda item: -item[1].visits)
        return next((a for a, _ in ranked if a in allowed), legal[0])

    def _iterate(self, root: Node, state: GameState, seat: int, rng: Random) -> None:
        path = [root]
        node = root
        while _advance(state, seat, rng):
            options = candidates(state)
            untried = [a for a in options if a not in node.children]
            for action in options:
                child = node.children.get(action)
                if child is not None:
                    child.available += 1
            if untried:
                action = untried[0]  # the strategy's favourite first, then in order
                node.children[action] = child = Node()
                state.apply(action)
                path.append(child)
                break
            action = max(options, key=lambda a: node.children[a].ucb(self.c))
            node = node.children[action]
            state.apply(action)
            path.append(node)
        playout(state, rng, policy.choose)
        value = reward(state, seat)
        for visited in path:
            visited.visits += 1
            visited.reward += value


def _advance(state: GameState, seat: int, rng: Random) -> bool:
    """Play draws and other seats' turns until ``seat`` decides; False at the end."""
    while not state.is_over():
        if state.draws_due:
            state.apply(state.sample_draw(rng))
        elif state.to_move != seat:
            state.apply(to_action(policy.choose(state)))
        else:
            return True
    return False


@register("ismcts-v1", "frozen yardstick: the first information-set MCTS, never changed; "
          ":time=1 (s per move) or :iterations=N")
def _ismcts_v1(options: str) -> IsmctsV1Bot:
    values = parse_options(options, {"time": float, "iterations": int, "c": float})
    iterations = int(values["iterations"]) if "iterations" in values else None
    seconds, c = float(values.get("time", 1.0)), float(values.get("c", 0.7))
    if not (0 < seconds <= MAX_SECONDS and (iterations is None or
                                           0 < iterations <= MAX_ITERATIONS)
            and 0 <= c < math.inf):
        raise BotError(f"ismcts-v1 options: time must be above 0 and at most {MAX_SECONDS:g} "
                       f"(seconds), iterations from 1 to {MAX_ITERATIONS:,} and c a number "
                       "from 0 up")
    return IsmctsV1Bot(iterations=iterations, seconds=seconds, c=c)
