"""The commands a player starts: ``play``, ``tutorial`` and ``history``."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from noreturn.cli.common import (
    FLAG,
    PLAY,
    LangOption,
    app,
    checked_dir,
    checked_png,
    given_on_command_line,
    size_rules,
)
from noreturn.engine import NoReturnError
from noreturn.text.lang import _
from noreturn.text.refusals import error_text


@app.command(help=_("Play against bots (or friends, --hotseat) full screen, or with plain "
                    "prompts; --resume [RECORD] goes on with a saved game."),
             rich_help_panel=PLAY)
def play(
    ctx: typer.Context,
    players: Annotated[int, typer.Option(min=2, max=4, help=_("players, you included"))] = 2,
    bots: Annotated[str, typer.Option(
        help=_("bot specs or levels (easy, medium, hard, expert), one per bot seat, "
               "cycled: medium,hard"))] = "medium",
    seat_name: Annotated[str, typer.Option(
        help=_("your name; with --hotseat every player's, comma-separated"))] = "Ada",
    seed: Annotated[int | None, typer.Option(
        help=_("seed for a game you can play again"))] = None,
    hotseat: Annotated[bool, typer.Option(
        "--hotseat", metavar=FLAG,
        help=_("every seat a person at this keyboard; hands hidden between turns"))] = False,
    no_color: Annotated[bool, typer.Option(
        "--no-color", metavar=FLAG,
        help=_("no colours: tiles keep their letters and symbols"))] = False,
    plain: Annotated[bool, typer.Option(
        "--plain", metavar=FLAG,
        help=_("plain line prompts instead of the full-screen game"))] = False,
    rules: Annotated[str, typer.Option(
        help=_("size parameters, e.g. colors=3,max_value=6"))] = "",
    save_dir: Annotated[Path | None, typer.Option(
        help=_("folder where the record is saved"), callback=checked_dir)] = None,
    bot_delay: Annotated[float, typer.Option(
        min=0, max=60, help=_("seconds before a bot's move shows"))] = 0.6,
    resume: Annotated[bool, typer.Option(
        "--resume", metavar=FLAG, help=_("go on with a saved unfinished game: RECORD, or "
                                         "the newest one in the save folder"))] = False,
    record: Annotated[Path | None, typer.Argument(
        help=_("the record to resume (with --resume)"), show_default=False)] = None,
    lang: LangOption = None,
) -> None:
    """Play a game in the terminal (the help above is the translated one)."""
    from noreturn.bots.base import split_specs  # noqa: PLC0415
    from noreturn.table import SeatsError, make_seats  # noqa: PLC0415
    from noreturn.text.refusals import error_text  # noqa: PLC0415
    from noreturn.tui.play import play_command  # noqa: PLC0415 - keeps startup fast

    _refuse_unused(ctx, resume, hotseat)
    names = [n.strip() for n in seat_name.split(",") if n.strip()] or ["Ada"]
    specs = split_specs(bots)  # "search:time=3,shifts=-1/-2" is one bot
    size = size_rules(players, rules, ctx)
    try:
        make_seats(size.players, names, specs, hotseat)
    except SeatsError as exc:
        raise typer.BadParameter(error_text(exc), param_hint=exc.option) from exc
    raise typer.Exit(play_command(
        size, names, specs, seed, hotseat=hotseat, color=not no_color,
        plain=plain, save_dir=save_dir, bot_delay=bot_delay,
        resume=_to_resume(resume, record, save_dir)))


def _refuse_unused(ctx: typer.Context, resume: bool, hotseat: bool) -> None:
    """Refuse options the game would not use, rather than drop them without a word: a
    resumed game keeps its own players, bots, names, deal and rules, and at a hot seat
    every seat is a person."""
    given = [f"--{name.replace('_', '-')}" for name in ctx.params
             if given_on_command_line(ctx, name)]
    if resume:
        unused = [option for option in given if option in (
            "--players", "--bots", "--seat-name", "--seed", "--hotseat", "--rules")]
        if unused:
            raise typer.BadParameter(_("a resumed game goes on as it was saved, with its "
                                       "own players and rules: leave out {options}").format(
                                           options=", ".join(unused)),
                                     param_hint="--resume")
    if hotseat and "--bots" in given:
        raise typer.BadParameter(_("at a hot seat every seat is a person at this keyboard: "
                                   "leave out --bots, or --hotseat to play against bots"),
                                 param_hint="--hotseat")


def _to_resume(resume: bool, record: Path | None, save_dir: Path | None) -> Path | None:
    """The record ``play --resume`` goes on with: the one given, or the newest unfinished."""
    from noreturn.table import default_save_dir  # noqa: PLC0415 - fast startup
    from noreturn.table.resume import newest_record  # noqa: PLC0415

    if record is not None and not resume:
        if str(record).lower() in ("true", "false", "yes", "no", "on", "off", "1", "0"):
            raise typer.BadParameter(_("{word}: an option such as --plain takes no value; "
                                       "leave {word} out").format(word=record),
                                     param_hint="RECORD")
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
        "--no-color", metavar=FLAG,
        help=_("no colours: tiles keep their letters and symbols"))] = False,
    save_dir: Annotated[Path | None, typer.Option(
        help=_("folder where the record is saved"), callback=checked_dir)] = None,
    bot_delay: Annotated[float, typer.Option(
        min=0, max=60, help=_("seconds before a bot's move shows"))] = 1.0,
    lang: LangOption = None,
) -> None:
    """The guided first game (the help above is the translated one)."""
    from noreturn.tui.tutorial import run_tutorial  # noqa: PLC0415 - Textual loads here

    raise typer.Exit(run_tutorial(save_dir, bot_delay, color=not no_color))


def _existing_folder(folder: Path | None) -> Path | None:
    """``history --dir``: a folder that exists (a typo said "no finished games in ...")."""
    if folder is not None and not folder.is_dir():
        raise typer.BadParameter(
            (_("{folder} is a file, not a folder: give the folder your records are in")
             if folder.exists() else
             _("{folder}: no such folder; give the folder your records are in")).format(
                 folder=folder))
    return folder


@app.command(help=_("Your local games: results by the bots you faced, and a plot over time."),
             rich_help_panel=PLAY)
def history(
    folder: Annotated[Path | None, typer.Option("--dir", help=_(
        "folder of your game records (default: where `noreturn play` saves)"),
        callback=_existing_folder)] = None,
    name: Annotated[str | None, typer.Option(help=_("only this person's games"))] = None,
    plot: Annotated[Path | None, typer.Option(help=_(
        "PNG of your margin game by game (default: history-NAME.png in the folder)"),
        callback=checked_png)] = None,
    lang: LangOption = None,
) -> None:
    """Your local games (the help above is the translated one)."""
    from noreturn.table import default_save_dir  # noqa: PLC0415 - fast startup
    from noreturn.table.history import history_command  # noqa: PLC0415

    raise typer.Exit(history_command(folder or default_save_dir(), name, plot))


