"""The ``noreturn`` command: parses arguments and calls one function of a layer."""

from __future__ import annotations

import sys
from enum import StrEnum
from pathlib import Path
from typing import Annotated

import typer

from noreturn import __version__
from noreturn.engine import NoReturnError, Rules, compiled
from noreturn.text.lang import _, from_command_line, pgettext, set_language
from noreturn.text.refusals import error_text

set_language(from_command_line(sys.argv[1:]))


class Lang(StrEnum):
    """The languages a player may choose (``--lang``)."""

    en = "en"
    de = "de"


def _chosen_language(lang: Lang | None) -> Lang | None:
    """``--lang``'s callback: the words from here on are in that language."""
    if lang is not None:
        set_language(lang.value)
    return lang


LangOption = Annotated[Lang | None, typer.Option(
    help=_("language of the game: en or de (default: the terminal's LANG)"),
    callback=_chosen_language, show_default=False)]


class Policy(StrEnum):
    """The random policies of ``simulate``."""

    rollout = "rollout"
    uniform = "uniform"


app = typer.Typer(
    name="noreturn",
    help=_("No Return (Marco Teubner, 2019): play, serve online tables, check records, "
           "simulate and benchmark."),
    no_args_is_help=True, add_completion=False, pretty_exceptions_enable=False,
    rich_markup_mode="markdown",  # a docstring paragraph flows as one: reads right at 80 columns
)
PLAY, RECORDS, RESEARCH = (pgettext("help panel", "Play"), pgettext("help panel", "Records"),
                           pgettext("help panel", "Research"))  # --help groups the commands


def _version(asked: bool) -> None:
    """``--version``: the version, and whether the search runs compiled (``compiled``)."""
    if asked:
        build = ("the search compiled by mypyc" if compiled() else
                 "pure Python: `pip install .` compiles the search, twice its playouts")
        typer.echo(f"noreturn {__version__}, {build}")
        raise typer.Exit


@app.callback()
def _everywhere(lang: LangOption = None, version: Annotated[bool, typer.Option(
        "--version", help=_("the version and whether the search runs compiled, then stop"),
        callback=_version, is_eager=True)] = False) -> None:
    """``noreturn --lang de COMMAND``: the language for any command (``play --lang`` too)."""


def _output_dir(folder: Path | None) -> Path | None:
    """An output folder checked before the work starts, so no finished work is lost to it."""
    if folder is None:
        return None
    from noreturn.files import check_output_dir  # noqa: PLC0415 - fast startup

    try:
        return check_output_dir(folder)
    except NoReturnError as exc:
        raise typer.BadParameter(str(exc)) from exc


@app.command(help=_("Play against bots (or friends, --hotseat) full screen, or with plain "
                    "prompts; --resume [RECORD] goes on with a saved game."),
             rich_help_panel=PLAY)
def play(
    players: Annotated[int, typer.Option(min=2, max=4, help=_("players, you included"))] = 2,
    bots: Annotated[str, typer.Option(
        help=_("bot specs or levels (easy, medium, hard, expert), one per bot seat, "
               "cycled: medium,hard"))] = "medium",
    seat_name: Annotated[str, typer.Option(
        help=_("your name; with --hotseat every player's, comma-separated"))] = "Ada",
    seed: Annotated[int | None, typer.Option(
        help=_("seed for a game you can play again"))] = None,
    hotseat: Annotated[bool, typer.Option(
        "--hotseat", help=_("every seat a person at this keyboard; hands hidden between "
                            "turns"))] = False,
    no_color: Annotated[bool, typer.Option(
        "--no-color", help=_("no colours: tiles keep their letters and symbols"))] = False,
    plain: Annotated[bool, typer.Option(
        "--plain", help=_("plain line prompts instead of the full-screen game"))] = False,
    rules: Annotated[str, typer.Option(
        help=_("size parameters, e.g. colors=3,max_value=6"))] = "",
    save_dir: Annotated[Path | None, typer.Option(
        help=_("folder where the record is saved"), callback=_output_dir)] = None,
    bot_delay: Annotated[float, typer.Option(
        min=0, max=60, help=_("seconds before a bot's move shows"))] = 0.6,
    resume: Annotated[bool, typer.Option(
        "--resume", help=_("go on with a saved unfinished game: RECORD, or the newest one "
                           "in the save folder"))] = False,
    record: Annotated[Path | None, typer.Argument(
        help=_("the record to resume (with --resume)"), show_default=False)] = None,
    lang: LangOption = None,
) -> None:
    """Play a game in the terminal (the help above is the translated one)."""
    from noreturn.table import SeatsError, make_seats  # noqa: PLC0415
    from noreturn.tui.play import play_command  # noqa: PLC0415 - keeps startup fast

    names = [n.strip() for n in seat_name.split(",") if n.strip()] or ["Ada"]
    specs = [b.strip() for b in bots.split(",") if b.strip()]
    try:
        make_seats(players, names, specs, hotseat)
    except SeatsError as exc:
        raise typer.BadParameter(str(exc), param_hint=exc.option) from exc
    raise typer.Exit(play_command(
        _rules(players, rules), names, specs, seed, hotseat=hotseat, color=not no_color,
        plain=plain, save_dir=save_dir, bot_delay=bot_delay,
        resume=_to_resume(resume, record, save_dir)))


def _to_resume(resume: bool, record: Path | None, save_dir: Path | None) -> Path | None:
    """The record ``play --resume`` goes on with: the one given, or the newest unfinished."""
    from noreturn.table import default_save_dir  # noqa: PLC0415 - fast startup
    from noreturn.table.resume import newest_record  # noqa: PLC0415

    if record is not None and not resume:
        raise typer.BadParameter(_("to go on with {record}, say --resume {record}").format(
            record=record), param_hint="RECORD")
    if not resume or record is not None:  # (without --resume there is no record here)
        return record
    try:
        return newest_record(save_dir or default_save_dir())
    except NoReturnError as exc:
        raise typer.BadParameter(error_text(exc), param_hint="--resume") from exc


@app.command(help=_("A guided first game: each move explained when it comes, against the "
                    "easy bot."), rich_help_panel=PLAY)
def tutorial(
    no_color: Annotated[bool, typer.Option(
        "--no-color", help=_("no colours: tiles keep their letters and symbols"))] = False,
    save_dir: Annotated[Path | None, typer.Option(
        help=_("folder where the record is saved"), callback=_output_dir)] = None,
    bot_delay: Annotated[float, typer.Option(
        min=0, max=60, help=_("seconds before a bot's move shows"))] = 1.0,
    lang: LangOption = None,
) -> None:
    """The guided first game (the help above is the translated one)."""
    from noreturn.tui.tutorial import run_tutorial  # noqa: PLC0415 - Textual loads here

    raise typer.Exit(run_tutorial(save_dir, bot_delay, color=not no_color))


@app.command(help=_("Your local games: results by the bots you faced, and a plot over time."),
             rich_help_panel=PLAY)
def history(
    folder: Annotated[Path | None, typer.Option("--dir", help=_(
        "folder of your game records (default: where `noreturn play` saves)"))] = None,
    name: Annotated[str | None, typer.Option(help=_("only this person's games"))] = None,
    plot: Annotated[Path | None, typer.Option(help=_(
        "PNG of your margin game by game (default: history-NAME.png in the folder)"))] = None,
    lang: LangOption = None,
) -> None:
    """Your local games (the help above is the translated one)."""
    from noreturn.table import default_save_dir  # noqa: PLC0415 - fast startup
    from noreturn.table.history import history_command  # noqa: PLC0415

    raise typer.Exit(history_command(folder or default_save_dir(), name, plot))


@app.command(help=_("Check records: OK with the scores, or the first offending event and "
                    "why."), rich_help_panel=RECORDS)
def validate(
    files: Annotated[list[Path], typer.Argument(help=_("game records (docs/record-format.md)"))],
) -> None:
    """Check records (the help above is the translated one; the lines stay English)."""
    from noreturn.records.commands import validate_command  # noqa: PLC0415 - fast startup

    raise typer.Exit(validate_command(files))


@app.command(help=_("Tell a recorded game turn by turn, with the table after each turn."),
             rich_help_panel=RECORDS)
def replay(
    file: Annotated[Path, typer.Argument(help=_("a record file"))],
    seat: Annotated[int | None, typer.Option(
        help=_("show only what this seat could see"))] = None,
    lang: LangOption = None,
) -> None:
    """Tell a recorded game (the help above is the translated one)."""
    from noreturn.records.commands import replay_command  # noqa: PLC0415 - fast startup

    raise typer.Exit(replay_command(file, seat))


def _rules(players: int, text: str) -> Rules:
    """``--players`` and ``--rules`` as the engine's rules, or its error (an unknown key's
    names the known ones) in the reader's language."""
    try:
        return Rules.parse(text, players=players)
    except NoReturnError as exc:
        raise typer.BadParameter(error_text(exc), param_hint="--rules") from exc


@app.command(rich_help_panel=RESEARCH)
def simulate(
    games: Annotated[int, typer.Option(min=1, help="how many games")] = 100,
    players: Annotated[int, typer.Option(min=2, max=4, help="players per game")] = 2,
    seed: Annotated[int, typer.Option(help="base seed; game i uses (seed, i)")] = 0,
    rules: Annotated[str, typer.Option(help="size parameters, e.g. colors=3,max_value=5")] = "",
    policy: Annotated[Policy, typer.Option(help="random policy of every seat")] = Policy.rollout,
    out: Annotated[Path | None, typer.Option(
        help="folder to write one record per game into", callback=_output_dir)] = None,
) -> None:
    """Random legal play: progress bar, mean score and win rate per seat, records."""
    from noreturn.sim.commands import simulate_command  # noqa: PLC0415 - keeps startup fast

    raise typer.Exit(simulate_command(_rules(players, rules), games, seed, policy.value, out))


@app.command(rich_help_panel=RESEARCH)
def bench(
    players: Annotated[int, typer.Option(min=2, max=4, help="players per game")] = 2,
    seconds: Annotated[float, typer.Option(min=0.1, max=3600, help="time for whole games")] = 5.0,
    as_json: Annotated[bool, typer.Option("--json", help="one JSON object")] = False,
) -> None:
    """Engine speed: whole rollout games per second, and the hot paths' cost."""
    from noreturn.sim.commands import bench_command  # noqa: PLC0415 - keeps startup fast

    raise typer.Exit(bench_command(players, seconds, as_json))


class Backend(StrEnum):
    """Where ``tournament`` runs its games."""

    local = "local"
    ray = "ray"


# The options that tournaments and studies share (paired deals on local cores or Ray).
PairedSeed = Annotated[int, typer.Option(help="base seed; deal d uses the bag of (seed, d)")]
SizeRules = Annotated[str, typer.Option(help="size parameters, e.g. colors=3,max_value=5")]
Workers = Annotated[int | None, typer.Option(
    min=1, help="processes (default: every core; at most 4 a core); 1 plays in this process")]
BackendChoice = Annotated[Backend, typer.Option(help="local cores or a Ray cluster")]
RayAddress = Annotated[str | None, typer.Option(
    help="Ray cluster to join (default: start a local Ray)")]


@app.command(rich_help_panel=RESEARCH)
def tournament(
    bots: Annotated[str, typer.Option(
        help="bot specs, comma-separated: random,greedy or heuristic,ismcts:time=1; "
             "name=NAME gives one a short name (ismcts:time=1,name=Deep, "
             "external:python bot.py,name=Rex). With fewer bots than seats the list "
             "cycles over the seats: at three players random,greedy seats random, "
             "greedy, random, so the first named gets two seats. The same spec twice is "
             "refused, since results are counted per spec: name the copies "
             "(heuristic:name=A,heuristic:name=B)")],
    players: Annotated[int, typer.Option(min=2, max=4, help="players per game")] = 2,
    games: Annotated[int, typer.Option(
        min=1, max=1_000_000, help="games; rounded up to whole paired deals")] = 100,
    seed: PairedSeed = 0,
    rules: SizeRules = "",
    workers: Workers = None,
    backend: BackendChoice = Backend.local,
    address: RayAddress = None,
    out: Annotated[Path | None, typer.Option(
        help="folder to write results.json and tournament.png into", callback=_output_dir)
    ] = None,
    records: Annotated[bool, typer.Option(
        help="also write every game's record to OUT/records/")] = False,
) -> None:
    """Bots against bots on paired deals: win rates with 95% intervals, ratings, plot.

    With at least as many bots as seats, every choice of bots plays; with fewer, --bots
    cycles over the seats (the first named gets two seats at three players). Each deal is
    played under every rotation of the seats.
    """
    from noreturn.sim.report import tournament_command  # noqa: PLC0415 - keeps startup fast
    from noreturn.sim.tournament import Settings, split_specs  # noqa: PLC0415

    settings = Settings(tuple(split_specs(bots)), _rules(players, rules), games, seed,
                        backend.value, workers, address)
    raise typer.Exit(tournament_command(settings, out, records))


@app.command(rich_help_panel=RESEARCH)
def compare(
    runs: Annotated[list[Path], typer.Argument(
        help="tournaments' --out folders (or their results.json)")],
    bot: Annotated[str | None, typer.Option(help="a bot to pair (name or spec)")] = None,
    against: Annotated[str | None, typer.Option(help="the bot it is paired against, game by "
        "game: at one table, or in runs on the same deals (--seed, --players, --rules)")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="one JSON object")] = False,
    plot: Annotated[Path | None, typer.Option(help="PNG of the win rates and differences")] = None,
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
    seed: PairedSeed = 0,
    rules: SizeRules = "",
    workers: Workers = None,
    backend: BackendChoice = Backend.local,
    address: RayAddress = None,
    out: Annotated[Path | None, typer.Option(
        help="folder to write study.json and study.png into", callback=_output_dir)] = None,
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
    settings = StudySettings(bot, _rules(players, rules), triggers, games, seed,
                             backend.value, workers, address)
    raise typer.Exit(switch_command(settings, out))


@app.command(help=_("Judge every decision of a recorded game from what its seat knew: the "
                    "best move found, the points lost, a label; per seat accuracy, luck and "
                    "the switch window."), rich_help_panel=RECORDS)
def review(
    file: Annotated[Path, typer.Argument(help=_("a record file (docs/record-format.md)"))],
    seat: Annotated[str, typer.Option(help=_("the seat to review, or all"))] = "all",
    budget: Annotated[float | None, typer.Option(
        min=0.001, max=600, help=_("seconds per decision, instead of --iterations"))] = None,
    iterations: Annotated[int | None, typer.Option(min=1, max=1_000_000, help=_(
        "playouts per decision (default 500): the same seed and iterations give the same "
        "review"))] = None,
    as_json: Annotated[bool, typer.Option("--json", help=_(
        "one JSON object (docs/review.md), in English"))] = False,
    workers: Annotated[int | None, typer.Option(min=1, help=_(
        "processes (default: every core; at most 4 a core); 1 works here"))] = None,
    seed: Annotated[int, typer.Option(help=_("seed of the sampled worlds"))] = 0,
    lang: LangOption = None,
) -> None:
    """Review a recorded game (the help above is the translated one)."""
    from noreturn.analysis import DEFAULT_PLAYOUTS, Budget  # noqa: PLC0415 - fast startup
    from noreturn.analysis.report import review_command  # noqa: PLC0415

    if budget is not None and iterations is not None:
        raise typer.BadParameter(_("give --budget (seconds) or --iterations (playouts), "
                                   "not both"), param_hint="--budget")
    chosen = Budget(seconds=budget) if budget is not None else Budget(
        playouts=iterations or DEFAULT_PLAYOUTS)
    raise typer.Exit(review_command(file, _seats(seat), chosen, seed, workers, as_json))


def _seats(text: str) -> list[int] | None:
    """``all`` (None: every seat) or one seat number."""
    if text.strip().lower() == "all":
        return None
    try:
        return [int(text)]
    except ValueError:
        raise typer.BadParameter(_("{text} is not a seat: give a seat number (0, 1, ...) "
                                   "or all").format(text=repr(text)), param_hint="--seat") from None


@app.command(help=_("Online tables: lobby, seat links, play in the browser, records and "
                    "replays."), rich_help_panel=PLAY)
def serve(
    host: Annotated[str, typer.Option(help=_("address to listen on (0.0.0.0: every one)"))] = (
        "127.0.0.1"),
    port: Annotated[int, typer.Option(min=0, max=65535, help=_("port to listen on"))] = 8000,
    db: Annotated[str | None, typer.Option(
        help=_("database URL: sqlite:///PATH or postgresql://USER@HOST/DB "
               "(default: SQLite under $XDG_DATA_HOME/noreturn)"))] = None,
    bot_delay: Annotated[float, typer.Option(
        min=0, max=60, help=_("seconds before each bot move, so people can follow"))] = 0.6,
    redis: Annotated[str | None, typer.Option(
        envvar="NORETURN_REDIS_URL",
        help=_("Redis URL (redis://HOST:6379/0) to run several processes on one PostgreSQL "
               "database: table updates go through Redis (docs/deploy.md)"))] = None,
    takeover_after: Annotated[float, typer.Option(
        min=0.5, max=86_400, help=_("seconds a game may wait on a bot before this process "
                                    "moves it (another process died)"))] = 10.0,
    create_limit: Annotated[int, typer.Option(
        min=0, help=_("tables one address may create per minute (0: no limit)"))] = 300,
    lobby_hours: Annotated[float, typer.Option(
        min=0.01, max=87_600, help=_("hours a table may stay unchanged in the lobby before "
                                     "it is abandoned"))] = 24.0,
    idle_hours: Annotated[float, typer.Option(
        min=0.01, max=87_600, help=_("hours a game may go without a move before it is "
                                     "abandoned"))] = 168.0,
    seat_limit: Annotated[int, typer.Option(
        min=0, help=_("joins, starts, leaves and closes one address may make per minute, "
                      "together (0: no limit)"))] = 900,
    socket_limit: Annotated[int, typer.Option(
        min=0, help=_("WebSockets one address may hold open (0: no limit)"))] = 64,
    failed_hello_limit: Annotated[int, typer.Option(
        min=0, help=_("refused WebSocket hellos (wrong token, no such table) one address may "
                      "make per minute (0: no limit)"))] = 30,
    review_playouts: Annotated[int, typer.Option(
        min=0, help=_("finished games are reviewed in the background, one at a time at a low "
                      "priority, at this many playouts a decision (0: no reviews; "
                      "docs/review.md)"))] = 200,
    extra_turn_seconds: Annotated[list[int] | None, typer.Option(
        min=1, max=259_200, help=_("another turn timer new tables may choose, in seconds, "
        "besides 30 s to 3 days (e.g. 5, to try timers out); may be given again"))] = None,
    lang: LangOption = None,
) -> None:
    """Serve online tables (the help above is the translated one)."""
    try:
        import uvicorn  # noqa: PLC0415 - keeps startup fast

        from noreturn.server import create_app, default_db_url, listen_problem  # noqa: PLC0415
        from noreturn.server.broadcast import BroadcastError  # noqa: PLC0415
        from noreturn.server.dbstart import shown_url  # noqa: PLC0415
        from noreturn.server.limits import WS_MAX_SIZE  # noqa: PLC0415
        from noreturn.server.timing import TURN_TIMES  # noqa: PLC0415
    except ImportError as exc:
        typer.echo(f"noreturn serve needs the server's packages ({exc.name} is missing): "
                   "reinstall noreturn: pip install -e .", err=True)
        raise typer.Exit(1) from exc

    if problem := listen_problem(host, port):
        raise typer.BadParameter(problem, param_hint="--host")
    url = db or default_db_url()
    try:
        server_app = create_app(url, bot_delay=bot_delay, redis_url=redis,
                                takeover_after=takeover_after,
                                create_limit_per_minute=create_limit or None,
                                lobby_after=lobby_hours * 3600, idle_after=idle_hours * 3600,
                                seat_limit_per_minute=seat_limit or None,
                                sockets_per_address=socket_limit or None,
                                failed_hellos_per_minute=failed_hello_limit or None,
                                review_playouts=review_playouts or None,
                                turn_times=(*TURN_TIMES, *(extra_turn_seconds or ())))
    except BroadcastError as exc:
        raise typer.BadParameter(str(exc), param_hint="--redis") from exc
    except ValueError as exc:  # the database (dbstart.DatabaseSetupError): one line, no trace
        typer.echo(f"noreturn serve: {exc}", err=True)
        raise typer.Exit(2) from None
    typer.echo(_("noreturn server: open http://{host}:{port}/ in a browser (database {db}"
                 "{redis}; Ctrl+C stops)").format(
        host="localhost" if host in ("127.0.0.1", "0.0.0.0", "::") else host, port=port,
        db=shown_url(url), redis=_("; updates through Redis") if redis else ""))
    # Client messages are a few hundred bytes: a small frame limit keeps floods cheap.
    # Per-message deflate costs CPU on every state and saves little on loopback or LAN.
    uvicorn.run(server_app, host=host, port=port, log_level="info", ws_max_size=WS_MAX_SIZE,
                ws_per_message_deflate=False)


def main() -> None:
    """Entry point of the console script."""
    app()
