"""What moves are worth from one seat's view: Monte Carlo over re-dealt hidden tiles.

A review must judge a decision by what the player could know when taking it, never by the
record's true hidden tiles: a good move that met a bad bag is still a good move. So every
value here starts from a ``View``. Each sample imagines the hidden tiles
(``sample_world``: the other hands, the bag and the tiles removed unseen, dealt at random
from what the seat has not seen), plays the move, and lets the plan (``bots/plan.py``) play
every seat to the end. A move's value is the mean final margin of the seat: its score minus
the best other score, in points, the figure a player understands.

Common random numbers: every surviving candidate meets the same sampled worlds and the
same playout seed, as in the search bot, and more: the later draws come from one stream
per seat dealt from the world's bag (``_streams``), so each seat draws the same tiles in
the same order whichever move was played. The luck of a sample then falls on every
candidate alike, and the difference between two moves, which is what a review reports, is
measured with far fewer playouts than either value alone.

Sequential halving spends the budget: every candidate gets the same share of the first
round, the better half goes on, and so on, so the playouts go where the decision is close.
Moves named ``pinned`` (the move played, the declaration) are never dropped, so that the
loss of the played move, and what declaring was worth, are measured on exactly the worlds
the best move was measured on.
"""

from __future__ import annotations

import math
import time
from collections import Counter
from collections.abc import Callable, Sequence
from contextvars import ContextVar
from dataclasses import dataclass, field
from random import Random

from noreturn.bots import plan
from noreturn.bots.search import outcome
from noreturn.engine import Action, Draw, GameState, Stage, View, sample_world, to_action
from noreturn.text.lang import ngettext


@dataclass(frozen=True, slots=True)
class Budget:
    """What one evaluation may cost: playouts (reproducible) or seconds of wall clock.

    Attributes:
        playouts: games played to the end per decision, over all its candidates and
            rounds; with the same seed, the same playouts give the same values.
        seconds: wall-clock time per decision (at least two worlds a round).
    """

    playouts: int | None = None
    seconds: float | None = None

    def __post_init__(self) -> None:
        if (self.playouts is None) == (self.seconds is None):
            raise ValueError("a budget is playouts or seconds, exactly one of them")
        if self.playouts is not None and self.playouts < 1:
            raise ValueError(f"playouts must be at least 1, not {self.playouts}")
        if self.seconds is not None and not self.seconds > 0:
            raise ValueError(f"seconds must be more than 0, not {self.seconds}")

    def scaled(self, factor: float) -> Budget:
        """This budget times ``factor`` (a draw's value gets a share of a decision's)."""
        if self.playouts is not None:
            return Budget(playouts=max(1, round(self.playouts * factor)))
        return Budget(seconds=(self.seconds or 0.0) * factor)

    def text(self) -> str:
        """``"600 playouts"`` or ``"1.5 s"``: the budget as the review reports it, in the
        reader's language."""
        if self.playouts is not None:
            return ngettext("{count} playout", "{count} playouts", self.playouts).format(
                count=self.playouts)
        return f"{self.seconds:g} s"


@dataclass(slots=True)
class Line:
    """One move's playouts: the final margins of the seat, by world number.

    Attributes:
        move: the move first played in every playout of this line (None: no move, the
            view's position as it stands).
        margins: world number -> final margin (points) of the playout in that world.
    """

    move: Action | None
    margins: dict[int, float] = field(default_factory=dict)

    @property
    def count(self) -> int:
        """The number of worlds this line was played in."""
        return len(self.margins)

    @property
    def mean(self) -> float:
        """The expected final margin: the mean over every world played (0 when none)."""
        return _mean(list(self.margins.values()))

    @property
    def stderr(self) -> float:
        """The standard error of ``mean`` (0 with fewer than two worlds)."""
        return _stderr(list(self.margins.values()))

    def mean_over(self, worlds: Sequence[int]) -> float:
        """The mean margin over ``worlds`` (world numbers this line was played in)."""
        return _mean([self.margins[w] for w in worlds])


@dataclass(frozen=True, slots=True)
class Evaluation:
    """The lines of a decision's candidates after sequential halving.

    Attributes:
        lines: one per candidate, in the order the candidates were given.
        ranked: the candidates of the final round (the leader of the earlier rounds, the
            best move not pinned, the pinned moves), best first by their mean over its
            worlds.
        final: the world numbers of the final round, which every candidate in ``ranked``
            was played in and no elimination looked at.
    """

    lines: list[Line]
    ranked: list[int]
    final: tuple[int, ...]

    def value(self, index: int) -> float:
        """A final candidate's expected margin over the final round's worlds."""
        return self.lines[index].mean_over(self.final)

    def gap(self, better: int, worse: int) -> tuple[float, float]:
        """``better`` minus ``worse`` over the final round's worlds, with its standard
        error: paired, so the luck both lines met cancels."""
        gaps = [self.lines[better].margins[w] - self.lines[worse].margins[w]
                for w in self.final]
        return _mean(gaps), _stderr(gaps)


def _mean(values: list[float]) -> float:
    return math.fsum(values) / len(values) if values else 0.0


def _stderr(values: list[float]) -> float:
    n = len(values)
    if n < 2:
        return 0.0
    mean = math.fsum(values) / n
    variance = math.fsum((v - mean) ** 2 for v in values) / (n - 1)
    return math.sqrt(variance / n)


FINAL_SHARE = 0.4
"""The share of a decision's budget for the final round of sequential halving; the earlier
rounds share the rest equally."""


def evaluate_moves(view: View, moves: Sequence[Action], pinned: Sequence[Action],
                   budget: Budget, rng: Random) -> Evaluation:
    """The value of each of ``moves`` for the seat of ``view``, whose turn it is.

    The earlier rounds of sequential halving only choose: the better half goes on, and
    before the final round only the leader and the best move not pinned (so that a pinned
    leader, the move played or the declaration, still meets its best rival). The final
    round plays those and the ``pinned`` moves in fresh worlds, and only those worlds
    rank them. Ranking by the
    worlds that did the choosing would favour whichever candidate they happened to
    flatter (the winner's curse), and a move played well would show a loss that is only
    noise; and the fewer lines the final round plays, the more worlds each gets.
    """
    seat = _seat(view)
    lines = [Line(move) for move in moves]
    keep = {i for i, move in enumerate(moves) if move in pinned}
    alive = list(range(len(moves)))
    ends = _round_ends(max(1, math.ceil(math.log2(len(moves)))))
    began = time.perf_counter()
    number = 0
    final: list[int] = []
    for done, (share, end) in enumerate(ends):
        final = []
        deadline = began + (budget.seconds or 0.0) * end
        while _more_worlds(budget, len(final), len(alive), share, deadline):
            world = sample_world(view, rng)
            seed = rng.random()
            for index in alive:
                lines[index].margins[number] = _play(world, lines[index].move, seed, seat)
            final.append(number)
            number += 1
        if done < len(ends) - 1:
            alive.sort(key=lambda i: -lines[i].mean)
            if done == len(ends) - 2:  # the final round: the leader, the best move not
                half = alive[:1] + [i for i in alive if i not in keep][:1]  # pinned, and
            else:  # the pinned ones
                half = alive[: max(1, (len(alive) + 1) // 2)]
            alive = list(dict.fromkeys(half + [i for i in alive if i in keep]))
    alive.sort(key=lambda i: -lines[i].mean_over(final))
    return Evaluation(lines, alive, tuple(final))


def _round_ends(rounds: int) -> list[tuple[float, float]]:
    """Each round's share of the budget and the fraction of it spent when it ends."""
    if rounds == 1:
        return [(1.0, 1.0)]
    early = (1.0 - FINAL_SHARE) / (rounds - 1)
    shares = [early] * (rounds - 1) + [FINAL_SHARE]
    return [(share, math.fsum(shares[: i + 1])) for i, share in enumerate(shares)]


def view_value(view: View, budget: Budget, rng: Random) -> Line:
    """The expected final margin of the seat of ``view`` from the position as it stands
    (whoever is to move or to draw), every seat played by the plan."""
    seat = _seat(view)
    line = Line(None)
    deadline = time.perf_counter() + (budget.seconds or 0.0)
    while _more_worlds(budget, line.count, 1, 1.0, deadline):
        world = sample_world(view, rng)
        line.margins[line.count] = _play(world, None, rng.random(), seat)
    return line


def _play(world: GameState, move: Action | None, seed: float, seat: int) -> float:
    """The seat's final margin after ``move`` in a copy of ``world``, the plan playing on.

    The draws come from per-seat streams dealt from the world's bag with ``seed`` before
    the move (``_streams``), so every candidate meets the same future tiles.
    """
    state = world.clone()
    rng = Random(seed)
    streams = _streams(state.bag, state.rules.players, rng)
    held = len(state.bag)  # before the move: a last mulligan returns tiles to the bag
    if move is not None:
        state.apply(move)
    choose = plan.choose
    while state.stage is not Stage.OVER:
        if state.draws_due:
            if len(state.bag) > held:  # the set-aside tiles went back after the mulligan
                held += _shuffle_in(state.bag, streams, rng)
            own = streams[state.to_move] or max(streams, key=len)
            state.apply(Draw(own.pop()))
            held -= 1
        else:
            state.apply(to_action(choose(state)))
    return float(outcome(state, seat)[0])


def _streams(bag: list[int], players: int, rng: Random) -> list[list[int]]:
    """The bag dealt at random into one stream of future draws per seat.

    Common random numbers need the same luck for every candidate, and one shared order of
    draws is not that: a move that takes one tile more shifts every later tile to the
    other seat, and the lines of two candidates part at once (measured: the spread of their
    difference was as wide as the spread of either). With a stream per seat, a seat draws
    the same tiles in the same order whatever was played before, and the spread of the
    difference between two moves fell two- to five-fold early in a game. Each draw is
    still uniform over the bag: the streams are a random deal that nobody sees. A seat
    whose stream runs dry draws from the longest other one.
    """
    deck = sorted(bag)
    rng.shuffle(deck)
    return [deck[seat::players] for seat in range(players)]


def _shuffle_in(bag: list[int], streams: list[list[int]], rng: Random) -> int:
    """Put the tiles of ``bag`` that no stream holds (the set-aside tiles) at random places
    in random streams, as the rules shuffle them into the bag; returns how many."""
    extra = Counter(bag)
    for stream in streams:
        extra.subtract(stream)
    added = sorted(extra.elements())
    for tile in added:
        stream = streams[rng.randrange(len(streams))]
        stream.insert(rng.randrange(len(stream) + 1), tile)
    return len(added)


class StoppedError(Exception):
    """An evaluation was called off (``STOP``) in the middle."""


STOP: ContextVar[Callable[[], bool] | None] = ContextVar("noreturn_review_stop", default=None)
"""Asked before every world of an evaluation in this thread: True calls it off
(``StoppedError``). A person who leaves during a review need not wait for the decision under
way, which may take seconds at a large budget."""


def _more_worlds(budget: Budget, worlds: int, alive: int, share: float,
                 deadline: float) -> bool:
    """Whether a round samples another world: until it has played its ``share`` of the
    playouts, or until ``deadline`` (a budget in seconds); at least two worlds.

    Raises:
        StoppedError: ``STOP`` says so.
    """
    stop = STOP.get()
    if stop is not None and stop():
        raise StoppedError
    if worlds < 2:
        return True
    if budget.playouts is not None:
        return worlds * alive < budget.playouts * share
    return time.perf_counter() < deadline


def _seat(view: View) -> int:
    if view.seat is None:
        raise ValueError("a value is measured for a seat's view, not a spectator's")
    return view.seat
