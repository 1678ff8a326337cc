"""The commands that measure: ``simulate``, ``bench``, ``tournament``, ``compare`` and
``study``."""

from __future__ import annotations

from collections.abc import Sequence
from enum import StrEnum
from pathlib import Path
from typing import Annotated

import typer

from noreturn.cli.common import (
    FLAG,
    RESEARCH,
    app,
    checked_png,
    size_rules,
    unused_dir,
)
from noreturn.engine import NoReturnError


class Policy(StrEnum):
    """The random policies of ``simulate``."""

    rollout = "rollout"
    uniform = "uniform"


@app.command(rich_help_panel=RESEARCH)
def simulate(
    ctx: typer.Context,
    games: Annotated[int, typer.Option(min=1, help="how many games")] = 100,
    players: Annotated[int, typer.Option(min=2, max=4, help="players per game")] = 2,
    seed: Annotated[int, typer.Option(help="base seed; game i uses (seed, i)")] = 0,
    rules: Annotated[str, typer.Option(help="size parameters, e.g. colors=3,max_value=5")] = "",
    policy: Annotated[Policy, typer.Option(help="random policy of every seat")] = Policy.rollout,
    out: Annotated[Path | None, typer.Option(
        help="folder to write one record per game into",
        callback=unused_dir("game-*.json"))] = None,
) -> None:
    """Random legal play: progress bar, mean score and win rate per seat, records."""
    from noreturn.sim.commands import simulate_command  # noqa: PLC0415 - keeps startup fast

    raise typer.Exit(simulate_command(size_rules(players, rules, ctx), games, seed, policy.value,
                                      out))


@app.command(rich_help_panel=RESEARCH)
def bench(
    players: Annotated[int, typer.Option(min=2, max=4, help="players per game")] = 2,
    seconds: Annotated[float, typer.Option(min=0.1, max=3600, help="time for whole games")] = 5.0,
    as_json: Annotated[bool, typer.Option("--json", metavar=FLAG, help="one JSON object")] = False,
) -> None:
    """Engine speed: whole rollout games per second, and the hot paths' cost."""
    from noreturn.sim.commands import bench_command  # noqa: PLC0415 - keeps startup fast

    raise typer.Exit(bench_command(players, seconds, as_json))


class Backend(StrEnum):
    """Where ``tournament`` runs its games."""

    local = "local"
    ray = "ray"


# The options that tournaments and studies share (paired deals on local cores or Ray).
PairedSeed = Annotated[int | None, typer.Option(
    help="base seed; deal d uses the bag of (seed, d) (default 0; with an external: bot a "
         "fresh seed, said before the run, since a small one lets it rebuild the deals)")]
SizeRules = Annotated[str, typer.Option(help="size parameters, e.g. colors=3,max_value=5")]
Workers = Annotated[int | None, typer.Option(
    min=1, help="processes (default: every core; at most 4 a core); 1 plays in this process")]
BackendChoice = Annotated[Backend, typer.Option(help="local cores or a Ray cluster")]
RayAddress = Annotated[str | None, typer.Option(
    help="Ray cluster to join (default: start a local Ray)")]


@app.command(rich_help_panel=RESEARCH)
def tournament(
    ctx: typer.Context,
    bots: Annotated[str, typer.Option(
        help="bot specs, comma-separated: random,greedy or medium,hard or "
             "search:time=1; name=NAME gives one a short name (hard:name=H, or "
             "external:python bot.py,name=Rex). With fewer bots than seats the list "
             "cycles over the seats: at three players random,greedy seats random, "
             "greedy, random, so the first named gets two seats. The same spec twice is "
             "refused, since results are counted per spec: name the copies "
             "(medium:name=A and medium:name=B)")],
    players: Annotated[int, typer.Option(min=2, max=4, help="players per game")] = 2,
    games: Annotated[int, typer.Option(
        min=1, max=1_000_000, help="games; rounded up to whole paired deals")] = 100,
    seed: PairedSeed = None,
    rules: SizeRules = "",
    workers: Workers = None,
    backend: BackendChoice = Backend.local,
    address: RayAddress = None,
    out: Annotated[Path | None, typer.Option(
        help="folder to write results.json and tournament.png into",
        callback=unused_dir("results.json", "tournament.png", "records/*.json"))
    ] = None,
    records: Annotated[bool, typer.Option(
        metavar=FLAG, help="also write every game's record to OUT/records/")] = False,
) -> None:
    """Bots against bots on paired deals: win rates with 95% intervals, ratings, plot.

    With at least as many bots as seats, every choice of bots plays; with fewer, --bots
    cycles over the seats (the first named gets two seats at three players). Each deal is
    played under every rotation of the seats.
    """
    from noreturn.bots.base import split_specs  # noqa: PLC0415
    from noreturn.sim.report import tournament_command  # noqa: PLC0415 - keeps startup fast
    from noreturn.sim.tournament import Settings  # noqa: PLC0415

    specs = tuple(split_specs(bots))
    settings = Settings(specs, size_rules(players, rules, ctx), games, dealing_seed(seed, specs),
                        backend.value, workers, address)
    raise typer.Exit(tournament_command(settings, out, records))


def dealing_seed(seed: int | None, specs: Sequence[str]) -> int:
    """The run's base seed (``sim.seeds.base_seed``), saying on stderr what the person
    should know of it: a fresh seed drawn, or a small one an external bot could guess."""
    from noreturn.sim.seeds import base_seed  # noqa: PLC0415 - keeps startup fast

    chosen, note = base_seed(seed, specs)
    if note:
        typer.echo(note, err=True)
    return chosen


@app.command(rich_help_panel=RESEARCH)
def compare(
    runs: Annotated[list[Path], typer.Argument(
        help="tournaments' --out folders (or their results.json)")],
    bot: Annotated[str | None, typer.Option(help="a bot to pair (name or spec)")] = None,
    against: Annotated[str | None, typer.Option(help="the bot it is paired against, game by "
        "game: at one table, or in runs on the same deals (--seed, --players, --rules)")] = None,
    as_json: Annotated[bool, typer.Option("--json", metavar=FLAG, help="one JSON object")] = False,
    plot: Annotated[Path | None, typer.Option(
        help="PNG of the win rates and differences", callback=checked_png)] = None,
    same: Annotated[list[str] | None, typer.Option(
        help="NAME=BOT: count NAME as BOT in every run (H1=hard); again for more")] = None,
) -> None:
    """Tournaments read again: every bot pooled over the runs and rated on one scale, and
    two bots paired on the same games, a difference with its standard error."""
    from noreturn.sim.compare_report import compare_command  # noqa: PLC0415 - fast startup

    raise typer.Exit(compare_command(runs, bot, against, as_json, plot, same=same))


study_app = typer.Typer(
    help="Studies of the game's big decisions, by restricted self-play on paired deals.",
    no_args_is_help=True,
)
app.add_typer(study_app, name="study", rich_help_panel=RESEARCH)


@study_app.command()
def switch(
    ctx: typer.Context,
    players: Annotated[int, typer.Option(min=2, max=4, help="players per game")] = 2,
    games: Annotated[int, typer.Option(
        min=1, max=100_000, help="games per condition (the free bot, and each trigger value); "
        "rounded up to whole deals, each deal played once from every seat")] = 200,
    bot: Annotated[str, typer.Option(
        help="the bot studied, in every seat: a spec or level. medium (the plan) plays a "
             "game in a few hundredths of a second; hard and expert (the search) cost about "
             "1 s a move, too slow for a large study on a small machine")] = "medium",
    bag: Annotated[str | None, typer.Option(
        help="bag triggers, comma-separated: declare at the first own turn on which the bag "
             "holds at most X tiles (default: a grid for the table size; none: skip)")] = None,
    turns: Annotated[str | None, typer.Option(
        help="turns-left triggers: declare at the first own turn on which the plan's own "
             "estimate of the turns left (plan.turns_left, the clock the plan declares by) "
             "is at most T (default: a grid; none: skip)")] = None,
    points: Annotated[str | None, typer.Option(
        help="points triggers: declare at the first own turn on which the own rows hold at "
             "least P points (default: a grid; none: skip)")] = None,
    seed: PairedSeed = None,
    rules: SizeRules = "",
    workers: Workers = None,
    backend: BackendChoice = Backend.local,
    address: RayAddress = None,
    out: Annotated[Path | None, typer.Option(
        help="folder to write study.json and study.png into",
        callback=unused_dir("study.json", "study.png"))] = None,
) -> None:
    """When to declare: one seat forced to declare at a trigger against the free bot.

    Every trigger value plays the same deals, each deal once from every seat, and so does
    the free bot in that seat (the baseline). Per trigger: the forced seat's win rate and
    mean margin (own score minus best other) with 95% intervals, and both paired against
    the free bot on the same deal and seat; the best window per trigger kind and where the
    free bot declares; win rate and score by position in turn order; the share of the
    margin's variance the deal explains (luck). Before its trigger the forced seat plays as
    the free bot but never declares; it declares at its first own turn on which the
    trigger holds, and never if the game ends first (counted). See docs/study.md.
    """
    from noreturn.sim.study import StudySettings, parse_values  # noqa: PLC0415 - fast startup
    from noreturn.sim.study_report import switch_command  # noqa: PLC0415

    try:
        triggers = (*parse_values("bag", bag, players), *parse_values("turns", turns, players),
                    *parse_values("points", points, players))
    except NoReturnError as exc:
        raise typer.BadParameter(str(exc)) from exc
    settings = StudySettings(bot, size_rules(players, rules, ctx), triggers, games,
                             dealing_seed(seed, [bot]), backend.value, workers, address)
    raise typer.Exit(switch_command(settings, out))


