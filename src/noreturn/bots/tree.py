"""The search's own later moves chosen by a tree rather than by the plan (``search:tree=D``).

The flat search judges each candidate by playouts in which the plan plays the searching
seat after it. Yet the seat will search again at its next turns, and what the search finds
rests for half or more on its playouts foreseeing its own later play (docs/bot-studies.md,
"Its own later play"). Here each candidate gets a tree of the seat's next ``depth`` own
decisions: at each, a bandit (UCB1 over the moves available in that world, as information
set Monte Carlo tree search counts them) picks among the search's candidates
(``candidates.turn_candidates``), learning across the sampled worlds which later move
pays; deeper, and for every other seat, the plan plays on. A candidate's value is then
that of the candidate followed by the seat's best later play as far as the tree has
learned it, not by the plan's.

The tree is open-loop: the hands and draws differ from world to world, so a later move is
known by what it does (place so many tiles of a colour, score so many tiles of a row paid
by a colour, exchange so many tiles, declare), not by its tiles. The root stays the flat
search's: the same worlds for every candidate, sequential halving, and the plan's move
kept unless clearly beaten.
"""

from __future__ import annotations

import math
from random import Random

from noreturn.bots import plan
from noreturn.bots.candidates import turn_candidates
from noreturn.engine import (
    Action,
    Declare,
    Exchange,
    GameState,
    Mulligan,
    Place,
    Score,
    colour_of,
)
from noreturn.engine.rollout import Decision, to_decision

EXPLORATION = 0.3
"""UCB1's exploration constant, for values from 0 to 1 whose spread over worlds is some
0.3 to 0.4 (a win weighed half, the clipped margin the other half)."""

MoveKey = tuple[int, ...]
"""What a move does, whatever its tiles: the same key in every sampled world."""


def move_key(action: Action) -> MoveKey:
    """The key of ``action`` in the tree (see the module docstring)."""
    if isinstance(action, Place):
        return (0, colour_of(action.tiles[0]), len(action.tiles))
    if isinstance(action, Score):
        return (1, action.row, action.count, colour_of(action.pay[0]), len(action.pay))
    if isinstance(action, Exchange):
        return (2, len(action.tiles))
    if isinstance(action, Declare):
        return (3,)
    if isinstance(action, Mulligan):
        return (4, len(action.tiles))
    return (5,)


class Node:
    """A later decision of the searching seat: its visits, their total value, and how
    often each move was available and tried there."""

    __slots__ = ("children", "total", "visits")

    def __init__(self) -> None:
        self.visits = 0
        self.total = 0.0
        self.children: dict[MoveKey, Edge] = {}


class Edge:
    """A move at a node: how often it was available (ISMCTS's count) and where it leads."""

    __slots__ = ("available", "node")

    def __init__(self) -> None:
        self.available = 0
        self.node = Node()

    def score(self, exploration: float) -> float:
        """UCB1 over the worlds where this move could be played: untried first."""
        node = self.node
        if node.visits == 0:
            return math.inf
        return (node.total / node.visits
                + exploration * math.sqrt(math.log(self.available) / node.visits))


class TreePolicy:
    """A playout policy for one candidate: the searching seat's next ``depth`` decisions
    by the tree, everything else by the plan; ``backup`` ends a playout with its value."""

    def __init__(self, seat: int, depth: int, exploration: float = EXPLORATION,
                 widen: float = 0.0) -> None:
        self.seat = seat
        self.depth = depth
        self.exploration = exploration
        self.widen = widen
        self.root = Node()
        self._path: list[Node] = []
        self._at = self.root

    def __call__(self, state: GameState, rng: Random) -> Decision:
        """The decision at ``state``: the tree's while the seat is within its depth."""
        if state.to_move != self.seat or len(self._path) >= self.depth:
            return plan.choose(state, rng)
        moves = turn_candidates(state)
        if self.widen:  # the plan's move alone at first, then one more as visits grow
            moves = moves[: max(1, int(self.widen * math.sqrt(self._at.visits)))]
        if len(moves) == 1:
            self._at = self._at.children.setdefault(move_key(moves[0]), Edge()).node
            self._path.append(self._at)
            return to_decision(moves[0])
        edges = []
        for move in moves:
            edge = self._at.children.get(key := move_key(move))
            if edge is None:
                edge = self._at.children[key] = Edge()
            edge.available += 1
            edges.append(edge)
        best = max(range(len(moves)), key=lambda i: edges[i].score(self.exploration))
        self._at = edges[best].node
        self._path.append(self._at)
        return to_decision(moves[best])

    def backup(self, value: float) -> None:
        """Count a finished playout's ``value`` at every node it passed; start afresh."""
        self.root.visits += 1
        for node in self._path:
            node.visits += 1
            node.total += value
        self._path.clear()
        self._at = self.root
