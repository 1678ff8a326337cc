"""What every command shares: the language, read from the command line before any help is
written, the typer ``app`` with its panels, and the checks of shared options."""

from __future__ import annotations

import sys
from collections.abc import Callable
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



app = typer.Typer(
    name="noreturn",
    help=_("No Return (Marco Teubner, 2019): play, serve online tables, check records, "
           "simulate and benchmark."),
    no_args_is_help=True, add_completion=False, pretty_exceptions_enable=False,
    rich_markup_mode="markdown",  # a docstring paragraph flows as one: reads right at 80 columns
)
PLAY, RECORDS, RESEARCH = (pgettext("help panel", "Play"), pgettext("help panel", "Records"),
                           pgettext("help panel", "Research"))  # --help groups the commands
FLAG = ""
"""The metavar of an on/off option: none. typer 0.29 shows ``--plain <bool>`` otherwise,
which reads as if it took a value (``--plain true`` then met the record argument)."""


def _version(asked: bool) -> None:
    """``--version``: the version, and whether the search runs compiled (``compiled``)."""
    if asked:
        build = ("the search compiled by mypyc" if compiled() else
                 "pure Python: `pip install .` compiles the search, twice its playouts")
        typer.echo(f"noreturn {__version__}, {build}")
        raise typer.Exit


@app.callback()
def _everywhere(lang: LangOption = None, version: Annotated[bool, typer.Option(
        "--version", metavar=FLAG,
        help=_("the version and whether the search runs compiled, then stop"),
        callback=_version, is_eager=True)] = False) -> None:
    """``noreturn --lang de COMMAND``: the language for any command (``play --lang`` too)."""


def checked_dir(folder: Path | None) -> Path | None:
    """An output folder checked before the work starts, so no finished work is lost to it."""
    if folder is None:
        return None
    from noreturn.files import check_output_dir  # noqa: PLC0415 - fast startup

    try:
        return check_output_dir(folder)
    except NoReturnError as exc:
        raise typer.BadParameter(str(exc)) from exc


def unused_dir(*patterns: str) -> Callable[[Path | None], Path | None]:
    """An ``--out`` callback: the folder checked as ``checked_dir`` does, and refused while it
    holds files of ``patterns`` (globs) from an earlier run, which this one would replace or
    mix with its own: no finished work is lost to a folder given twice."""

    def check(folder: Path | None) -> Path | None:
        if folder is not None and folder.is_dir():
            found = sorted(str(path.relative_to(folder)) for pattern in patterns
                           for path in folder.glob(pattern))
            if found:
                raise typer.BadParameter(
                    _("{folder} holds an earlier run's {files}: give a new folder, or move "
                      "those files away first").format(folder=folder,
                                                       files=", ".join(found[:2])
                                                       + (" ..." if len(found) > 2 else "")))
        return checked_dir(folder)

    return check


def checked_png(path: Path | None) -> Path | None:
    """A ``--plot`` file: a PNG (its name ends in .png) in a folder that exists. matplotlib
    chose the format by the name (a .svg got PNG bytes, a .txt a traceback) and added .png
    to a name without one, so the file written was not the one named."""
    if path is None:
        return None
    if path.is_dir():
        raise typer.BadParameter(_("{path} is a folder: name a .png file, such as "
                                   "{example}").format(path=path, example=path / "plot.png"))
    if path.suffix.lower() != ".png":
        raise typer.BadParameter(_("the plot is a PNG image: name a file ending in .png, "
                                   "such as {example}").format(
                                       example=path.with_suffix(".png").name))
    if not path.parent.is_dir():
        raise typer.BadParameter(_("the folder {folder} does not exist: create it, or name "
                                   "a file in a folder that exists").format(
                                       folder=path.parent))
    return path


def given_on_command_line(ctx: typer.Context, name: str) -> bool:
    """Whether the option of parameter ``name`` was typed, not left at its default."""
    # (by the source's name: typer 0.29 brings its own copy of click, whose enum is not
    # click's)
    return getattr(ctx.get_parameter_source(name), "name", "") == "COMMANDLINE"


def size_rules(players: int, text: str, ctx: typer.Context | None = None) -> Rules:
    """``--players`` and ``--rules`` as the engine's rules, or its error (an unknown key's
    names the known ones) in the reader's language. ``--rules players=3`` alone is three
    players; against a ``--players`` given too (``ctx`` says), one that differs is refused."""
    given = ctx is None or given_on_command_line(ctx, "players")
    try:
        if not given and "players" in {part.partition("=")[0].strip()
                                       for part in text.split(",")}:
            return Rules.parse(text)
        return Rules.parse(text, players=players)
    except NoReturnError as exc:
        raise typer.BadParameter(error_text(exc), param_hint="--rules") from exc


