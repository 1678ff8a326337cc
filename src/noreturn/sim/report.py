"""What ``noreturn tournament`` shows and writes: progress, the table, results.json, the plot."""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path

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

from noreturn.bots.loop import FALLBACK
from noreturn.engine import NoReturnError, Rules, compiled
from noreturn.files import OutputDir, OutputError
from noreturn.sim.stats import rating_method, wilson_interval
from noreturn.sim.tournament import (
    BotStats,
    GameSummary,
    Schedule,
    Settings,
    Tournament,
    bot_stats,
    results_json,
    run_tournament,
    schedule,
    write_results,
)
from noreturn.text.narrate import plural


def tournament_command(
    settings: Settings, out: Path | None = None, records: bool = False,
    console: Console | None = None,
) -> int:
    """Run a tournament with a progress bar, print the table, write the files; the exit
    status (1 also when a bot never played: ``never_played``)."""
    console = console or Console()
    if records and out is None:
        console.print("[red]error:[/] --records needs --out DIR to write the records into")
        return 2
    records_dir = OutputDir(out / "records", "tournament-records") if out and records else None
    try:
        plan = schedule(settings, keep_records=records)
        console.print(plan_text(settings, plan))
        tournament = _run_with_progress(settings, plan, records_dir, console)
    except OutputError as exc:
        console.print(f"[red]error:[/] {escape(str(exc))}")
        return 1
    except NoReturnError as exc:
        console.print(f"[red]error:[/] {escape(str(exc))}")
        return 2
    stats = bot_stats(tournament)
    console.print(results_table(tournament, stats))
    for line in forfeit_lines(tournament):
        console.print(line, style="yellow", markup=False, highlight=False)
    console.print(f"{plural(len(tournament.games), 'game')} in {tournament.elapsed:.1f} s "
                  f"({len(tournament.games) / max(tournament.elapsed, 1e-9):.1f} games/s), "
                  f"backend {settings.backend}, {plural(tournament.workers, 'worker')}, "
                  f"{'compiled' if compiled() else 'pure Python'}")
    if out is not None:
        try:
            _write_outputs(tournament, stats, OutputDir(out, "tournament"), console)
        except OutputError as exc:
            console.print(f"[red]error:[/] {escape(str(exc))} (the table above is the result)")
            return 1
    if records_dir is not None:
        console.print(f"{records_dir.note('records')} (replay one: noreturn replay FILE)",
                      markup=False, highlight=False)
    return 1 if never_played(tournament) else 0  # (a bot that never played: no result)


def plan_text(settings: Settings, plan: Schedule) -> str:
    """How many games will be played and why: paired deals round the number up."""
    games = len(plan.tasks)
    text = (f"{plural(games, 'game')}: {plural(plan.deals, 'deal')} x "
            f"{plural(plan.per_deal, 'seating')} per deal "
            f"({plural(len(plan.lineups), 'lineup')} of "
            f"{settings.players}, every rotation around the table)")
    if games != settings.games:
        text += f"; {settings.games} asked for, rounded up to whole paired deals"
    return text


def _run_with_progress(
    settings: Settings, plan: Schedule, records_dir: OutputDir | None, console: Console
) -> Tournament:
    """Play the tournament with a bar that advances as each game finishes; where the
    output is no terminal (a log, a pipe), where a bar shows nothing, with ``log_lines``."""
    if not console.is_terminal:
        return run_tournament(settings, records_dir, log_lines(console, len(plan.tasks)), plan)
    columns = (TextColumn("playing"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
               TimeRemainingColumn())
    with Progress(*columns, console=console, transient=True) as progress:
        task = progress.add_task("games", total=len(plan.tasks))
        return run_tournament(settings, records_dir, lambda _: progress.advance(task), plan)


def log_lines(console: Console, total: int, lines: int = 10,
              clock: Callable[[], float] = time.monotonic) -> Callable[[GameSummary], None]:
    """A game-finished callback that prints a line at every ``lines``-th part of the
    ``total`` games: how many are played, in how long, about how long the rest takes (at
    the pace so far). A long run written to a log so says how far it is."""
    began, done = clock(), 0
    every = max(1, total // lines)

    def advance(_game: GameSummary) -> None:
        nonlocal done
        done += 1
        if done % every and done != total:
            return
        elapsed = clock() - began
        console.print(f"played {done}/{total} games in {duration(elapsed)}, about "
                      f"{duration(elapsed / done * (total - done))} left",
                      markup=False, highlight=False)
    return advance


def duration(seconds: float) -> str:
    """``seconds`` as a person reads it: 42 s, 7 min 05 s, 1 h 32 min."""
    whole = round(seconds)
    if whole < 60:
        return f"{whole} s"
    if whole < 3600:
        return f"{whole // 60} min {whole % 60:02d} s"
    return f"{whole // 3600} h {whole % 3600 // 60:02d} min"


def results_table(tournament: Tournament, stats: list[BotStats]) -> Table:
    """One row per bot: games, win rate with its interval, scores, margin, rating, speed."""
    settings = tournament.settings
    table = Table(title=f"{plural(len(tournament.games), 'game')}, {settings.players} players, "
                        f"rules {rules_text(settings.rules)}, seed {settings.seed}",
                  box=box.SIMPLE_HEAD, pad_edge=False, show_edge=False, collapse_padding=True,
                  caption=f"score, margin: means; margin = score - best other score; "
                          f"a shared first place is a win for each; "
                          f"rating: {rating_method(settings.players)}")
    for header in ("bot", "games", "win %", "95% CI", "score", "margin", "rating", "ms/move",
                   "forfeits"):
        table.add_column(header, justify="right", no_wrap=True)
    table.columns[0].justify, table.columns[0].no_wrap, table.columns[0].overflow = (
        "left", False, "fold")  # only the bot's name may fold on narrow terminals
    for bot in stats:
        low, high = wilson_interval(bot.wins, bot.games)
        rating = (f"{bot.rating:.0f}" if bot.rating_sigma is None
                  else f"{bot.rating:.1f}±{bot.rating_sigma:.1f}")
        table.add_row(bot.name, str(bot.games), f"{100 * bot.win_rate:.1f}",
                      f"{100 * low:.1f}-{100 * high:.1f}", f"{bot.mean_score:.1f}",
                      f"{bot.mean_margin:+.1f}", rating, f"{bot.ms_per_move:.2f}",
                      str(bot.forfeits))
    return table


def forfeit_lines(tournament: Tournament) -> list[str]:
    """Why bots forfeited, one line for each that did: in how many seats, the commonest
    reason with its count, and how to look closer. A bot that forfeited every seat in the
    game's first turn hardly played at all (a program that did not start, say), and its
    row in the table is the fallback's play: that is said outright, since the numbers
    alone look like a result."""
    kinds: dict[str, Counter[str]] = {}  # by spec: a game's seats name bots by spec
    example: dict[tuple[str, str], str] = {}  # the first reason of each kind
    names: dict[str, str] = {}
    seats: Counter[str] = Counter(spec for game in tournament.games for spec in game.seats)
    hollow = never_played(tournament)
    for game in tournament.games:
        for forfeit in game.forfeits:
            spec, reason = game.seats[forfeit["seat"]], str(forfeit["reason"])
            names[spec] = str(forfeit["bot"])
            kind = reason_kind(reason)
            kinds.setdefault(spec, Counter())[kind] += 1
            example.setdefault((spec, kind), reason)
    lines = []
    for spec, counted in kinds.items():
        kind, times = counted.most_common(1)[0]
        others = " (and other reasons)" if len(counted) > 1 else ""
        line = (f"{names[spec]} forfeited {counted.total()} of its {seats[spec]} seats; "
                f"{times} times: {example[spec, kind]}{others}")
        if spec in hollow:
            line += (f", every one before the game's first turn was over: {FALLBACK} played "
                     "them, so its row above is not its own play. Check its spec (an external "
                     "program: run its command by hand, or keep its standard error with "
                     "external:log=FILE)")
        lines.append(line)
    return lines


def never_played(tournament: Tournament) -> set[str]:
    """The specs of the bots that forfeited every seat before the game's first turn was
    over (a program that did not start, say): their rows are the fallback's play."""
    seats: Counter[str] = Counter(spec for game in tournament.games for spec in game.seats)
    at_once: Counter[str] = Counter(game.seats[forfeit["seat"]] for game in tournament.games
                                    for forfeit in game.forfeits if forfeit["turn"] == 0)
    return {spec for spec, count in at_once.items() if count == seats[spec]}


def reason_kind(reason: str) -> str:
    """What a forfeit's reason says happened, without its particulars: "illegal action",
    "timed out", "crashed" ... (the words before its first colon), so that reasons that
    differ only in a decision's number or a count of legal moves are counted together."""
    return reason.partition(":")[0]


def rules_text(rules: Rules) -> str:
    """The rules as their differences from the published game, or ``standard``."""
    standard = Rules(players=rules.players).to_dict()
    changed = [f"{k}={v}" for k, v in rules.to_dict().items() if standard[k] != v]
    return ",".join(changed) or "standard"


def _write_outputs(
    tournament: Tournament, stats: list[BotStats], out: OutputDir, console: Console
) -> None:
    """results.json and tournament.png in ``out`` (a fallback folder if it fails).

    Raises:
        OutputError: no folder at all could take them.
    """
    from noreturn.sim.plot import plot_tournament  # noqa: PLC0415 - matplotlib loads slowly

    data = results_json(tournament, stats)
    results = out.write("results.json", lambda path: write_results(data, path))
    title = (f"{plural(len(tournament.games), 'game')}, {tournament.settings.players} players, "
             f"rules {rules_text(tournament.settings.rules)}")
    players = tournament.settings.players
    plot = out.write("tournament.png",
                     lambda path: plot_tournament(stats, players, title, path))
    if out.problem:
        console.print(out.note("results"), markup=False, highlight=False)
    console.print(f"results: {results}\nplot: {plot}", markup=False, highlight=False)
