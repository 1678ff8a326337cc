"""The review of a recorded game: every decision of a seat weighed, its luck and its switch.

For each decision (``points.py``) the candidate moves of the search bot (``candidates``:
the plan's move, the declaration, each colour's top tiles, each score, the exchanges),
plus the move played, are valued from the seat's view (``evaluate.py``): the expected final
margin, own score minus the best other, every seat played by the plan after the move. The
best move found is the best of the final round of sequential halving; the **loss** of the
move played is the best value minus the played value over the same worlds, counted only
beyond the noise (``NOISE_Z``; else the move played is the best found and the loss 0),
and its **label** follows ``LABELS``.

Per seat:

- **accuracy** = 100 x exp(-mean loss / ``ACCURACY_SCALE``): 100 for a game without a loss,
  halved at a mean loss of about 2.8 points a decision (docs/review.md).
- **luck**: for each of the seat's own draws (its deal, its mulligan redraw, every
  refill), the expected margin right after the draw minus right before it, summed. Before
  a redraw or refill that is the value of the move that caused it (measured already, on
  the decision's worlds); before the deal it is measured as a position of its own. What
  the draws gave is then apart from how the seat played: a loss moves the value before a
  draw, the tiles drawn move it after.
- the **switch window**: the seat's phase-1 turns at which declaring was the best move
  found (the declaration always survives the halving, so it is measured to the end), and
  the turn at which the seat declared.

Every job reads one view and a seed of its own, so the review is the same on one core or
many, and with a budget in playouts it is the same every time for the same seed.
"""

from __future__ import annotations

import math
import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from random import Random

from noreturn.analysis.evaluate import STOP, Budget, evaluate_moves, view_value
from noreturn.analysis.points import DecisionPoint, DrawPoint, GameFacts, ReviewError, seat_points
from noreturn.bots.candidates import candidates
from noreturn.engine import Action, Declare, View, legal_actions, sample_world
from noreturn.records import Record
from noreturn.sim.backends import run_local, workers_problem

DEFAULT_PLAYOUTS = 500
"""Playouts per decision by default: both seats of a two-player game in about a minute on
two cores (``benchmarks/review_speed.py``)."""

LUCK_SHARE = 0.25
"""A draw's value (the position right after it) gets this share of a decision's budget:
one line to play instead of a dozen candidates."""

LABELS = (("best", 0.0), ("good", 2.0), ("inaccuracy", 5.0), ("mistake", 10.0))
"""The label of a loss: the first whose bound (points of expected margin) it does not
exceed; beyond the last, "blunder". "best" is a loss of 0: the move played is the best
found."""

BLUNDER = "blunder"
LABEL_NAMES = (*(name for name, _ in LABELS), BLUNDER)

NOISE_Z = 2.0
"""A loss counts only when the best move beat the move played by more than this many
standard errors of their paired difference; below that, the move played is the best found.
Without it a move played well would show the noise of the estimate as a loss: among close
candidates the one the worlds happened to flatter always looks a little better."""

ACCURACY_SCALE = 4.0
"""Points of mean loss per decision at which accuracy falls to 100/e (about 37)."""


@dataclass(frozen=True, slots=True)
class MoveValue:
    """A candidate's expected final margin over the worlds it was played in."""

    move: str
    margin: float
    worlds: int


@dataclass(frozen=True, slots=True)
class DecisionReview:
    """One decision judged.

    Attributes:
        index, seat, turn, kind: as ``DecisionPoint``.
        played, best: the move played and the best move found (text form).
        played_margin, best_margin: their expected final margins (points).
        loss: ``best_margin - played_margin`` (>= 0), with ``loss_se`` its standard error.
        label: see ``LABELS``.
        declare_gain: at a phase-1 decision, what declaring was worth against the best
            move that waits (points; 0 within the noise, as a loss is judged; >= 0:
            declaring was best); else None.
        worlds: the worlds the played and best moves were both played in.
        candidates: every move considered, best first.
    """

    index: int
    seat: int
    turn: int
    kind: str
    played: str
    best: str
    played_margin: float
    best_margin: float
    loss: float
    loss_se: float
    label: str
    declare_gain: float | None
    worlds: int
    candidates: tuple[MoveValue, ...]


@dataclass(frozen=True, slots=True)
class DrawReview:
    """What one of the seat's draws gave: the expected margin after it minus before it."""

    index: int
    seat: int
    kind: str
    tiles: tuple[str, ...]
    before: float
    after: float
    luck: float
    luck_se: float


@dataclass(frozen=True, slots=True)
class SeatReview:
    """A seat's game judged: its decisions, draws, and the figures over them."""

    seat: int
    name: str
    decisions: tuple[DecisionReview, ...]
    draws: tuple[DrawReview, ...]
    mean_loss: float
    accuracy: float
    luck: float
    luck_se: float
    declared_turn: int | None
    best_declare_turns: tuple[int, ...]

    def labels(self) -> dict[str, int]:
        """How many decisions got each label, every label named."""
        return {name: sum(d.label == name for d in self.decisions) for name in LABEL_NAMES}


@dataclass(frozen=True, slots=True)
class Review:
    """The review of a record: the game's facts, the budget and seed, each seat's review."""

    game: GameFacts
    budget: Budget
    seed: int
    seats: tuple[SeatReview, ...]


@dataclass(frozen=True, slots=True)
class Job:
    """One piece of work for a worker: a view, the move played (None: value the position
    as it stands), a budget and a seed. Nothing else of the game goes to a worker."""

    key: tuple[str, int]
    view: View
    played: Action | None
    budget: Budget
    seed: str


@dataclass(frozen=True, slots=True)
class JobResult:
    """What a job found.

    Attributes:
        key: the job's key.
        values: a decision's candidates (the final round's first, best first, valued over
            its worlds; then the others, over the worlds they were played in); for a
            position, one value.
        best, played: indices in ``values`` of the best move found and the move played.
        loss, loss_se: best minus played over the final round's worlds (0 when the move
            played did as well), and its standard error.
        declare_gain: the declaration against the best move that waits (None: no choice).
        worlds: the worlds of the final round.
        value, value_se: the move played (or the position) over every world it was played
            in: the value before a draw, for luck.
    """

    key: tuple[str, int]
    values: tuple[MoveValue, ...]
    best: int
    played: int
    loss: float
    loss_se: float
    declare_gain: float | None
    worlds: int
    value: float
    value_se: float


def label_of(loss: float) -> str:
    """The label of a loss in points (see ``LABELS``)."""
    for name, bound in LABELS:
        if loss <= bound:
            return name
    return BLUNDER


def noise_bound(stderr: float, worlds: int) -> float:
    """The largest loss that is still noise: ``NOISE_Z`` standard errors, widened for few
    worlds as Student's t is (its first Cornish-Fisher term), since the standard error is
    itself estimated from those worlds."""
    freedom = max(worlds - 1, 1)
    return stderr * (NOISE_Z + (NOISE_Z ** 3 + NOISE_Z) / (4 * freedom))


def accuracy_of(mean_loss: float) -> float:
    """Accuracy from 0 to 100 for a mean loss per decision (see ``ACCURACY_SCALE``)."""
    return 100.0 * math.exp(-max(mean_loss, 0.0) / ACCURACY_SCALE)


def review_record(record: Record, seats: Sequence[int] | None = None, *,
                  budget: Budget | None = None, seed: int = 0, workers: int | None = None,
                  progress: Callable[[int, int], None] | None = None,
                  stop: Callable[[], bool] | None = None) -> Review:
    """Review ``seats`` (default: every seat) of ``record``.

    ``workers`` processes share the decisions (default: every core; 1 works in this
    process); ``progress(done, total)`` is called as each job finishes. ``stop``, asked
    before every sampled world when the review works in this process, calls it off at
    once (``StoppedError``).

    Raises:
        ReviewError: the record cannot be reviewed (see ``points.seat_points``), or
            ``workers`` is more than this machine takes (``workers_problem``).
    """
    if problem := workers_problem(workers):  # (said in English, as tournaments say it)
        raise ReviewError("{problem}", {"problem": problem})
    budget = budget or Budget(playouts=DEFAULT_PLAYOUTS)
    game, points = seat_points(record, seats)
    jobs = [job for seat in points for job in _jobs(seat.decisions, seat.draws, budget, seed)]
    results: dict[tuple[str, int], JobResult] = {}
    token = STOP.set(stop)
    try:
        for done, result in enumerate(run_local(jobs, run_job, workers or os.cpu_count() or 1),
                                      1):
            results[result.key] = result
            if progress is not None:
                progress(done, len(jobs))
    finally:
        STOP.reset(token)
    reviews = tuple(_seat_review(p.seat, game.names[p.seat], p.decisions, p.draws, results)
                    for p in points)
    return Review(game, budget, seed, reviews)


def _jobs(decisions: Sequence[DecisionPoint], draws: Sequence[DrawPoint], budget: Budget,
          seed: int) -> list[Job]:
    """A job per decision, one per draw (the position after it) and one before a deal."""
    jobs = [Job(("decision", d.index), d.view, d.played, budget, f"review:{seed}:{d.index}")
            for d in decisions]
    share = budget.scaled(LUCK_SHARE)
    for draw in draws:
        jobs.append(Job(("after", draw.index), draw.after, None, share,
                        f"after:{seed}:{draw.index}"))
        if draw.before is not None:
            jobs.append(Job(("before", draw.index), draw.before, None, share,
                            f"before:{seed}:{draw.index}"))
    return jobs


def run_job(job: Job) -> JobResult:
    """Do one job (in a worker process): value a decision's moves, or a position."""
    rng = Random(job.seed)
    if job.played is None:
        line = view_value(job.view, job.budget, rng)
        return JobResult(job.key, (MoveValue("", line.mean, line.count),), 0, 0, 0.0, 0.0,
                         None, line.count, line.mean, line.stderr)
    return _decision_job(job, job.played, rng)


def _decision_job(job: Job, played: Action, rng: Random) -> JobResult:
    """The candidates of the decision, the move played and the declaration pinned."""
    world = sample_world(job.view, rng)
    moves = candidates(world, legal_actions(world))
    if played not in moves:
        moves.append(played)
    declare = Declare()
    pinned = [played] + ([declare] if declare in moves else [])
    found = evaluate_moves(job.view, moves, pinned, job.budget, rng)
    best, mine = found.ranked[0], moves.index(played)
    loss, loss_se = found.gap(best, mine)
    if loss <= noise_bound(loss_se, len(found.final)):  # no better move beyond the noise
        best, loss = mine, 0.0
    gain = None
    waits = [i for i in found.ranked if moves[i] != declare]
    if declare in moves and waits:
        gain, gain_se = found.gap(moves.index(declare), waits[0])
        if abs(gain) <= noise_bound(gain_se, len(found.final)):
            gain = 0.0  # as good as waiting, within the noise: as a loss is judged
    order = found.ranked + sorted((i for i in range(len(moves)) if i not in found.ranked),
                                  key=lambda i: -found.lines[i].mean)
    values = tuple(MoveValue(str(moves[i]), found.value(i) if i in found.ranked
                             else found.lines[i].mean, found.lines[i].count) for i in order)
    line = found.lines[mine]
    return JobResult(job.key, values, order.index(best), order.index(mine), loss, loss_se,
                     gain, len(found.final), line.mean, line.stderr)


def _seat_review(seat: int, name: str, decisions: Sequence[DecisionPoint],
                 draws: Sequence[DrawPoint],
                 results: dict[tuple[str, int], JobResult]) -> SeatReview:
    """One seat's figures from its jobs' results."""
    judged = tuple(_decision_review(d, results[("decision", d.index)]) for d in decisions)
    lucks = tuple(_draw_review(draw, results) for draw in draws)
    mean_loss = math.fsum(d.loss for d in judged) / len(judged) if judged else 0.0
    declared = next((d.turn for d in judged if d.played == str(Declare())), None)
    window = tuple(d.turn for d in judged if d.declare_gain is not None and d.declare_gain >= 0)
    return SeatReview(seat, name, judged, lucks, mean_loss, accuracy_of(mean_loss),
                      math.fsum(d.luck for d in lucks),
                      math.sqrt(math.fsum(d.luck_se ** 2 for d in lucks)), declared, window)


def _decision_review(point: DecisionPoint, result: JobResult) -> DecisionReview:
    best, played = result.values[result.best], result.values[result.played]
    return DecisionReview(point.index, point.seat, point.turn, point.kind, played.move,
                          best.move, played.margin, best.margin, result.loss, result.loss_se,
                          label_of(result.loss), result.declare_gain, result.worlds,
                          result.values)


def _draw_review(draw: DrawPoint, results: dict[tuple[str, int], JobResult]) -> DrawReview:
    """After minus before; before a redraw or refill, the value of the move played."""
    after = results[("after", draw.index)]
    if draw.decision is None:
        before = results[("before", draw.index)]
    else:
        before = results[("decision", draw.decision)]
    start, start_se, end = before.value, before.value_se, after.value
    return DrawReview(draw.index, draw.seat, draw.kind, draw.tiles, start, end, end - start,
                      math.hypot(start_se, after.value_se))
