"""What ``noreturn compare`` shows: the pooled table and the paired difference."""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from dataclasses import asdict
from pathlib import Path

from rich import box
from rich.console import Console
from rich.table import Table

from noreturn.engine import shortened
from noreturn.sim.compare import (
    RATING_METHOD,
    CompareError,
    Paired,
    Pooled,
    Run,
    interval,
    load_run,
    outcomes,
    paired,
    parse_same,
    pooled,
    renamed,
    unknown_aliases,
)


def compare_command(paths: Sequence[Path], bot: str | None = None,
                    against: str | None = None, as_json: bool = False,
                    plot: Path | None = None, console: Console | None = None,
                    errors: Console | None = None, same: Sequence[str] | None = None) -> int:
    """Pool the runs and, given two bots, pair them game by game; the exit status (2: a
    file or a bot that cannot be compared, said on ``errors``). ``same``: ``NAME=BOT``
    renamings (``renamed``)."""
    console = console or Console()
    errors = errors or Console(stderr=True)
    try:
        if (bot is None) != (against is None):
            raise CompareError("--bot and --against go together: the two bots paired game "
                               "by game (--bot hard --against medium)")
        if bot is not None and bot == against:
            raise CompareError(f"--bot and --against name the same bot, {shortened(bot)!r}: "
                               "pair two different bots")
        aliases = parse_same(same or ())
        once(paths)
        loaded = [load_run(path) for path in paths]
        unknown_aliases(loaded, aliases)
        runs = [renamed(run, aliases) for run in loaded]
        tallies = pooled(runs)
        pair = paired(outcomes(runs, bot), outcomes(runs, against)) if bot and against else None
    except CompareError as exc:
        errors.print(f"noreturn compare: {exc}", markup=False, highlight=False,
                     soft_wrap=True)
        return 2
    if as_json:
        console.print_json(json.dumps(_json(runs, tallies, bot, against, pair)))
    else:
        console.print(pooled_table(runs, tallies))
        if pair is not None:
            console.print(paired_table(pair, bot or "", against or ""))
    shown = errors if as_json else console  # the JSON on stdout stays one object
    return _plot(runs, tallies, pair, (bot or "", against or ""), plot, shown, errors)


def once(paths: Sequence[Path]) -> None:
    """Refuse a run named twice (its folder and its results.json count as one): pooled
    twice, its games would count double and its intervals look twice as sure."""
    seen: dict[Path, Path] = {}
    for path in paths:
        file = (path / "results.json" if path.is_dir() else path).resolve()
        if file in seen:
            raise CompareError(f"{path} names the run of {seen[file]} again: name each run "
                               "once")
        seen[file] = path


def _plot(runs: Sequence[Run], tallies: Sequence[Pooled], pair: Paired | None,
          names: tuple[str, str], path: Path | None, shown: Console,
          errors: Console) -> int:
    """Draw ``--plot``, if asked, and say where on ``shown``; 1 if it cannot be written
    (nothing else is lost: the tables are printed already)."""
    if path is None:
        return 0
    from noreturn.sim.plot import plot_comparison  # noqa: PLC0415 - matplotlib loads slowly

    title = f"{len(runs)} run{'s' * (len(runs) > 1)}, {runs[0].players} players"
    try:
        plot_comparison(tallies, runs[0].players, title, path, pair, names)
    except OSError as exc:
        errors.print(f"noreturn compare: the plot could not be written to {path}: "
                     f"{exc.strerror or exc}; give --plot a file in a folder you can write",
                     markup=False, highlight=False, soft_wrap=True)
        return 1
    shown.print(f"plot: {path}", markup=False, highlight=False)
    return 0


def pooled_table(runs: Sequence[Run], tallies: Sequence[Pooled]) -> Table:
    """Each bot over every run: games (seats played), win rate, mean score and margin."""
    seeds = [str(seed) for seed in dict.fromkeys(run.seed for run in runs)]
    title = (f"{len(runs)} run{'s' * (len(runs) > 1)} pooled "
             f"(seed{'s' * (len(seeds) > 1)} {', '.join(seeds)})")
    table = Table(title=title, box=box.SIMPLE_HEAD)
    notes = [f"rating: {RATING_METHOD}, fitted on all the runs' games"]
    if len(seeds) < len(runs):
        notes.append("runs share a seed: a bot that plays in two of them counts the same "
                     "deals twice")
    table.caption = "; ".join(notes)
    for column in ("bot", "games", "win rate (95%)", "score", "margin", "rating (95%)"):
        table.add_column(column, justify="left" if column == "bot" else "right")
    for tally in tallies:
        low, high = tally.interval()
        table.add_row(tally.name, str(tally.games),
                      f"{tally.win_rate:.1%} ({low:.1%}-{high:.1%})",
                      f"{tally.mean_score:.1f}", f"{tally.mean_margin:+.1f}",
                      f"{tally.rating:.0f} ({tally.rating_low:.0f}-{tally.rating_high:.0f})")
    return table


def paired_table(pair: Paired, bot: str, against: str) -> Table:
    """``bot`` against ``against`` on the same games: both means and the difference."""
    table = Table(title=f"{bot} against {against}, game by game: {pair.games} games on "
                        f"{pair.deals} deals", box=box.SIMPLE_HEAD)
    for column in ("", bot, against, "difference (95%)", "SE"):
        table.add_column(column, justify="left" if not column else "right")
    rows = (("win rate", pair.first.win, pair.second.win, pair.win_se, 100.0),
            ("margin", pair.first.margin, pair.second.margin, pair.margin_se, 1.0),
            ("score", pair.first.score, pair.second.score, pair.score_se, 1.0))
    for label, mine, theirs, se, unit in rows:
        low, high = interval(mine - theirs, se)
        suffix = " points" if unit == 100.0 else ""
        shown = "{:.1f}%" if unit == 100.0 else "{:.1f}"
        table.add_row(label, shown.format(mine * unit), shown.format(theirs * unit),
                      f"{(mine - theirs) * unit:+.1f} ({low * unit:+.1f} to "
                      f"{high * unit:+.1f}){suffix}",
                      "-" if math.isnan(se) else f"{se * unit:.1f}")
    return table


def _json(runs: Sequence[Run], tallies: Sequence[Pooled], bot: str | None,
          against: str | None, pair: Paired | None) -> dict[str, object]:
    """The comparison as one JSON object (``--json``)."""
    data: dict[str, object] = {"runs": [str(run.path) for run in runs], "pooled": [
        {"name": t.name, "games": t.games, "wins": t.wins, "win_rate": t.win_rate,
         "ci_low": t.interval()[0], "ci_high": t.interval()[1], "mean_score": t.mean_score,
         "mean_margin": t.mean_margin, "rating": t.rating, "rating_low": t.rating_low,
         "rating_high": t.rating_high} for t in tallies],
        "rating_method": RATING_METHOD}
    if pair is not None:
        fields = {key: None if isinstance(value, float) and math.isnan(value) else value
                  for key, value in asdict(pair).items()}
        data["paired"] = {"bot": bot, "against": against, **fields}
    return data
