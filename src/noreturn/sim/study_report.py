"""What ``noreturn study switch`` shows and writes: progress, the tables, study.json, the
plot (``study_plot.py``). The games are ``study.py``'s, the figures ``study_stats.py``'s."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from rich import box
from rich.console import Console
from rich.markup import escape
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)
from rich.table import Table

from noreturn.engine import NoReturnError, Rules
from noreturn.files import OutputDir, OutputError
from noreturn.sim.report import rules_text
from noreturn.sim.study import Study, StudySchedule, StudySettings, run_study, study_schedule
from noreturn.sim.study_stats import study_json
from noreturn.text.narrate import plural


def switch_command(settings: StudySettings, out: Path | None = None,
                   console: Console | None = None) -> int:
    """Run the study with a progress bar, print its tables, write the files; exit status."""
    console = console or Console()
    try:
        plan = study_schedule(settings)
        console.print(plan_text(settings, plan), markup=False, highlight=False)
        study = _run_with_progress(settings, plan, console)
    except OutputError as exc:
        console.print(f"[red]error:[/] {escape(str(exc))}")
        return 1
    except NoReturnError as exc:
        console.print(f"[red]error:[/] {escape(str(exc))}")
        return 2
    data = study_json(study)
    for table in tables(data):
        console.print(table)
    console.print(summary_text(data), markup=False, highlight=False)
    if out is not None:
        try:
            _write_outputs(data, OutputDir(out, "study"), console)
        except OutputError as exc:
            console.print(f"[red]error:[/] {escape(str(exc))} (the tables above are the result)")
            return 1
    return 0


def plan_text(settings: StudySettings, plan: StudySchedule) -> str:
    """How many games will be played and why."""
    conditions = len(plan.conditions)
    per = plan.deals * settings.players
    text = (f"{len(plan.tasks)} games: {conditions} conditions (the free bot and "
            f"{conditions - 1} trigger values) x {plan.deals} deals x {settings.players} "
            f"seats; bot {settings.bot}, {settings.players} players")
    if per != settings.games:
        text += f"; {settings.games} games per condition asked for, {per} to fill whole deals"
    return text


def _run_with_progress(settings: StudySettings, plan: StudySchedule, console: Console
                       ) -> Study:
    """Play the study with a bar that advances as each game finishes."""
    columns = (TextColumn("playing"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
               TimeRemainingColumn())
    with Progress(*columns, console=console, transient=True) as progress:
        task = progress.add_task("games", total=len(plan.tasks))
        return run_study(settings, lambda _: progress.advance(task), plan)


def _pct(low_high: list[float]) -> str:
    return f"{100 * low_high[0]:.1f}-{100 * low_high[1]:.1f}"


def _range(low_high: list[float], scale: float = 1.0, signed: bool = True) -> str:
    sign = "+" if signed else ""
    return f"{scale * low_high[0]:{sign}.1f}..{scale * low_high[1]:{sign}.1f}"


def _table(title: str, headers: tuple[str, ...], caption: str | None = None) -> Table:
    """A study table: right-aligned columns that never wrap, narrow frames (80 columns)."""
    table = Table(title=title, caption=caption, box=box.SIMPLE_HEAD, pad_edge=False,
                  show_edge=False, collapse_padding=True)
    for header in headers:
        table.add_column(header, justify="right", no_wrap=True)
    return table


def tables(data: dict[str, Any]) -> list[Table]:
    """The conditions (one row each, in two tables: the forced seat, and paired against
    the free bot; one table of twelve columns needed 101), the windows per trigger kind,
    the seat order."""
    title = (f"{data['players']} players, bot {data['bot']}, {data['games_per_condition']} "
             f"games per condition, seed {data['seed']}")
    forced = _table(title, ("trigger", "win%", "95% CI", "margin", "never", "bag", "left",
                            "pts"),
                    "forced seat's win % (Wilson 95%) and mean margin (own - best other); "
                    "never: games that ended before the trigger held; bag, left, pts: mean "
                    "bag, plan's turns left and row points when it declared")
    paired = _table("paired against the free bot on the same deal and seat",
                    ("trigger", "Δwin%", "95% CI", "Δmargin", "95% CI"))
    for row in [data["baseline"], *data["conditions"]]:
        marks = row["declared_mean"]
        forced.add_row(
            row["label"], f"{100 * row['win_rate']:.1f}", _pct(row["win_ci"]),
            f"{row['margin']:+.1f}", str(row["never_declared"]),
            *(("-",) * 3 if marks["bag"] is None else (
                f"{marks['bag']:.0f}", f"{marks['turns_left']:.1f}", f"{marks['points']:.0f}")))
        paired.add_row(
            row["label"], f"{100 * row['win_diff']:+.1f}", _range(row["win_diff_ci"], 100),
            f"{row['margin_diff']:+.1f}", _range(row["margin_diff_ci"]))
    windows = _table("best window per trigger kind (paired margin not significantly below "
                     "the best value's)",
                     ("kind", "best", "window", "bounds", "vs earliest", "vs latest"),
                     "vs earliest, vs latest: the best value's paired margin against the "
                     "window's ends")
    free = _table("where the free bot declared", ("kind", "quartiles", "in the window"))
    for kind, row in data["windows"].items():
        early, late = row["best_vs_earliest"], row["best_vs_latest"]
        quartiles = row["free_quartiles"]
        windows.add_row(
            kind, f"{row['best']:g}", f"{row['window'][0]:g}-{row['window'][1]:g}",
            " - ".join("..." if b is None else f"{b:g}" for b in row["bounds"]),
            f"{early['margin_diff']:+.1f} ({row['earliest']:g})",
            f"{late['margin_diff']:+.1f} ({row['latest']:g})")
        free.add_row(kind, "-" if quartiles is None else " / ".join(
            f"{q:.1f}" for q in quartiles), "yes" if row["free_in_window"] else "no")
    seats = _table("seat order (every seat of every game)",
                   ("position", "games", "win %", "95% CI", "mean score"))
    for row in data["seat_order"]:
        seats.add_row(str(row["position"]), str(row["games"]), f"{100 * row['win_rate']:.1f}",
                      _pct(row["win_ci"]), f"{row['mean_score']:.1f}")
    return [forced, paired, windows, free, seats]


def summary_text(data: dict[str, Any]) -> str:
    """The luck figure and the run's size and speed, in one line each."""
    luck, near = data["luck"], data["luck_in_window"]
    return (f"luck: the deal (and seat) explains {100 * luck['deal_share']:.0f}% of the "
            f"forced seat's margin variance, the declaration moment "
            f"{100 * luck['trigger_share']:.0f}%, the rest {100 * luck['rest_share']:.0f}%; "
            f"within the windows {100 * near['deal_share']:.0f}%, "
            f"{100 * near['trigger_share']:.0f}% and {100 * near['rest_share']:.0f}%\n"
            f"{plural(data['games'], 'game')} in {data['elapsed_seconds']:.1f} s, backend "
            f"{data['backend']}, {plural(data['workers'], 'worker')}"
            f", rules {rules_text_of(data)}, forfeits {data['forfeits']}")


def rules_text_of(data: dict[str, Any]) -> str:
    """The rules of a study's JSON as ``report.rules_text`` writes them."""
    return rules_text(Rules.from_dict(data["rules"]))


def write_json(data: dict[str, Any], path: Path) -> Path:
    """study.json: indented for people, one game per line for diffs."""
    head = json.dumps({k: v for k, v in data.items() if k != "per_game"}, indent=1)
    games = ",\n  ".join(json.dumps(game) for game in data["per_game"])
    path.write_text(f'{head[:-2]},\n "per_game": [\n  {games}\n ]\n}}\n', encoding="utf-8")
    return path


def _write_outputs(data: dict[str, Any], out: OutputDir, console: Console) -> None:
    """study.json and study.png in ``out`` (a fallback folder if it fails).

    Raises:
        OutputError: no folder at all could take them.
    """
    from noreturn.sim.study_plot import plot_study  # noqa: PLC0415 - matplotlib loads slowly

    written = out.write("study.json", lambda path: write_json(data, path))
    title = (f"When to declare: {data['players']} players, {data['bot']} against itself, "
             f"{data['games_per_condition']} games per trigger value")
    plot = out.write("study.png", lambda path: plot_study(data, title, path))
    if out.problem:
        console.print(out.note("results"), markup=False, highlight=False)
    console.print(f"results: {written}\nplot: {plot}", markup=False, highlight=False)


__all__ = ["switch_command", "tables", "write_json"]
