"""What ``noreturn review`` shows: a table per seat for people, or JSON (docs/review.md).

The table fits 80 columns: one line per decision (the event index, the seat's turn, the
move played, its expected margin, the better move when one was found, the loss and the
label), under a summary line per seat. The JSON holds everything the review measured, in
the shape docs/review.md documents.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from rich import box
from rich.console import Console, Group
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)
from rich.table import Table
from rich.text import Text

from noreturn.analysis.evaluate import Budget
from noreturn.analysis.points import ReviewError
from noreturn.analysis.review import (
    ACCURACY_SCALE,
    LABELS,
    NOISE_Z,
    DecisionReview,
    DrawReview,
    Review,
    SeatReview,
    review_record,
)
from noreturn.records import RecordError, read_record
from noreturn.text.lang import N_, _, ngettext
from noreturn.text.narrate import in_progress
from noreturn.text.numbers import decimal
from noreturn.text.refusals import error_text

FORMAT = "noreturn-review"
VERSION = 1


def review_command(file: Path, seats: list[int] | None, budget: Budget, seed: int,
                   workers: int | None, as_json: bool, console: Console | None = None,
                   errors: Console | None = None) -> int:
    """Review ``seats`` of the record in ``file`` with a progress bar; print the tables or
    the JSON. Returns the exit code: 0, or 2 for a record that cannot be reviewed."""
    console = console or Console()
    errors = errors or Console(stderr=True)
    try:
        record = read_record(file)
        with _progress(errors) as advance:
            review = review_record(record, seats, budget=budget, seed=seed, workers=workers,
                                   progress=advance)
    except (RecordError, ReviewError) as problem:
        errors.print(f"noreturn review: {file}: {error_text(problem)}", markup=False,
                     highlight=False, soft_wrap=True)
        return 2
    if as_json:
        console.file.write(json.dumps(review_json(review), indent=1) + "\n")
    else:
        console.print(review_tables(review, str(file)))
    return 0


@contextmanager
def _progress(console: Console) -> Iterator[Callable[[int, int], None]]:
    """A transient bar on ``console`` that moves as each job of the review finishes; where
    ``console`` is no terminal (a log, a pipe), a line at every tenth of the jobs."""
    if not console.is_terminal:
        yield _tenths(console)
        return
    columns = (TextColumn(_("reviewing")), BarColumn(), MofNCompleteColumn(),
               TimeElapsedColumn(), TimeRemainingColumn())
    with Progress(*columns, console=console, transient=True) as bar:
        task = bar.add_task("jobs", total=None)
        yield lambda done, total: bar.update(task, completed=done, total=total)


def _tenths(console: Console, clock: Callable[[], float] = time.monotonic
            ) -> Callable[[int, int], None]:
    """A progress callback that prints a line when another tenth of the jobs is done: a
    review of some minutes written to a log says how far it is."""
    began, said = clock(), 0

    def advance(done: int, total: int) -> None:
        nonlocal said
        tenth = 10 * done // max(total, 1)
        if tenth <= said:
            return
        said = tenth
        console.print(_("reviewed {done}/{total} jobs in {seconds:.0f} s").format(
            done=done, total=total, seconds=clock() - began), markup=False, highlight=False)

    return advance


# ---------------------------------------------------------------------------- JSON
def review_json(review: Review) -> dict[str, Any]:
    """The review as the JSON object of docs/review.md."""
    game = review.game
    budget: dict[str, float | int] = (
        {"playouts": review.budget.playouts} if review.budget.playouts is not None
        else {"seconds": review.budget.seconds or 0.0})
    return {
        "format": FORMAT,
        "version": VERSION,
        "game": {"players": list(game.names), "events": game.events, "over": game.over,
                 "scores": list(game.scores), "status": game.status},
        "budget": budget,
        "seed": review.seed,
        "method": {"labels": dict(LABELS),
                   "noise_z": NOISE_Z, "accuracy_scale": ACCURACY_SCALE},
        "seats": [_seat_json(seat) for seat in review.seats],
        "decisions": [_decision_json(d) for seat in review.seats for d in seat.decisions],
        "draws": [_draw_json(d) for seat in review.seats for d in seat.draws],
    }


def _seat_json(seat: SeatReview) -> dict[str, Any]:
    return {"seat": seat.seat, "name": seat.name, "decisions": len(seat.decisions),
            "mean_loss": _r(seat.mean_loss), "accuracy": _r(seat.accuracy),
            "luck": _r(seat.luck), "luck_se": _r(seat.luck_se),
            "declared_turn": seat.declared_turn,
            "best_declare_turns": list(seat.best_declare_turns), "labels": seat.labels()}


def _decision_json(d: DecisionReview) -> dict[str, Any]:
    return {"index": d.index, "seat": d.seat, "turn": d.turn, "kind": d.kind,
            "played": d.played, "best": d.best, "played_margin": _r(d.played_margin),
            "best_margin": _r(d.best_margin), "loss": _r(d.loss), "loss_se": _r(d.loss_se),
            "label": d.label,
            "declare_gain": None if d.declare_gain is None else _r(d.declare_gain),
            "worlds": d.worlds,
            "candidates": [{"move": c.move, "margin": _r(c.margin), "worlds": c.worlds}
                           for c in d.candidates]}


def _draw_json(d: DrawReview) -> dict[str, Any]:
    return {"index": d.index, "seat": d.seat, "kind": d.kind, "tiles": list(d.tiles),
            "before": _r(d.before), "after": _r(d.after), "luck": _r(d.luck),
            "luck_se": _r(d.luck_se)}


def _r(value: float) -> float:
    """Two decimals: the playouts do not measure finer, and the JSON stays readable."""
    return round(value, 2)


# --------------------------------------------------------------------------- tables
def review_tables(review: Review, source: str) -> Group:
    """A heading for the game, then per seat a summary and a table of its decisions."""
    game = review.game
    scores = ", ".join(f"{name} {score}" for name, score in zip(game.names, game.scores,
                                                               strict=True))
    state = _("game over, scores {scores}").format(scores=scores) if game.over else (
        _("{status}: reviewed up to its last event ({event})").format(
            status=in_progress(game.to_move, game.draws_due), event=game.events - 1))
    parts: list[Any] = [Text(_("review of {source}").format(source=source)), Text(state), Text(
        _("{budget} per decision, seed {seed}; margins are expected final margins (own score "
          "minus the best other) from what the seat knew then").format(
              budget=review.budget.text(), seed=review.seed), style="dim")]
    for seat in review.seats:
        parts += [Text(""), *_seat_summary(seat), _decision_table(seat)]
    return Group(*parts)


def _seat_summary(seat: SeatReview) -> list[Text]:
    declared = (_("never declared") if seat.declared_turn is None
                else _("declared at own turn {turn}").format(turn=seat.declared_turn))
    window = turns_text(seat.best_declare_turns) or _("none")
    return [
        Text(_("seat {seat} · {name}: accuracy {accuracy} · mean loss {loss} · luck {luck} ± "
               "{se}").format(seat=seat.seat, name=seat.name, accuracy=decimal(seat.accuracy, 0),
                              loss=decimal(seat.mean_loss), luck=decimal(seat.luck, 0, True),
                              se=decimal(seat.luck_se, 0)), style="bold"),
        Text("  " + _("{declared}; declaring was best at own turns: {window}").format(
            declared=declared, window=window)),
        Text(f"  {labels_text(seat)}"),
    ]


LABEL_WORDS = {"best": N_("best"), "good": N_("good"), "inaccuracy": N_("inaccuracy"),
               "mistake": N_("mistake"), "blunder": N_("blunder")}
"""A decision's label as a person reads it (the analysis and its JSON name them in
English)."""


def label_word(label: str) -> str:
    """``label`` (``review.LABELS``) in the reader's language."""
    return _(LABEL_WORDS.get(label, label))


LABEL_TALLIES: dict[str, Callable[[int], str]] = {
    "best": lambda n: ngettext("{n} best move", "{n} best moves", n),
    "good": lambda n: ngettext("{n} good move", "{n} good moves", n),
    "inaccuracy": lambda n: ngettext("{n} inaccuracy", "{n} inaccuracies", n),
    "mistake": lambda n: ngettext("{n} mistake", "{n} mistakes", n),
    "blunder": lambda n: ngettext("{n} blunder", "{n} blunders", n)}
"""How many decisions got a label, counted in words ("1 blunder", "2 beste Züge"): a
label's word alone does not take a number in German."""


def labels_text(seat: SeatReview) -> str:
    """How many of the seat's decisions got each label ("3 best moves, 1 blunder"), the
    labels no decision got left out, so the line reads like a tally rather than a form."""
    counts = [LABEL_TALLIES[name](count).format(n=count) if name in LABEL_TALLIES
              else f"{count} {name}" for name, count in seat.labels().items() if count]
    return ", ".join(counts) or _("no decisions")


def turns_text(turns: tuple[int, ...]) -> str:
    """Turn numbers with runs written as ranges: ``10, 14-26``."""
    runs: list[list[int]] = []
    for turn in sorted(set(turns)):
        if runs and turn == runs[-1][-1] + 1:
            runs[-1].append(turn)
        else:
            runs.append([turn])
    return ", ".join(str(r[0]) if len(r) == 1 else f"{r[0]}-{r[-1]}" for r in runs)


def _decision_table(seat: SeatReview) -> Table:
    table = Table(box=box.SIMPLE_HEAD, pad_edge=False, show_edge=False,
                  collapse_padding=True)
    for header, justify, wraps in ((N_("event"), "right", False), (N_("turn"), "right", False),
                                   (N_("played"), "left", True), (N_("margin"), "right", False),
                                   (N_("better move"), "left", True),
                                   (N_("loss"), "right", False), (N_("label"), "left", False)):
        table.add_column(_(header), justify=justify,  # type: ignore[arg-type]
                         no_wrap=not wraps, overflow="fold")
    for d in seat.decisions:
        better = "" if d.best == d.played else d.best
        turn = _("mull.") if d.kind == "mulligan" else str(d.turn)
        table.add_row(str(d.index), turn, d.played, decimal(d.played_margin, signed=True),
                      better, decimal(d.loss), label_word(d.label))
    return table
