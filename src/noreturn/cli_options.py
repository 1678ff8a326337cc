"""The options and checks several ``noreturn`` commands share, and the language of a run.

Imported before any command is defined: it sets the language from the command line (or the
terminal) first, so that the help of every command, its own options' included, is written
in it.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from enum import StrEnum
from pathlib import Path
from typing import Annotated

import typer

from noreturn.engine import NoReturnError, Rules
from noreturn.text.lang import LANGUAGES, _, from_environment, set_language


def early_language(argv: Sequence[str]) -> str:
    """The language of this run, read before the commands' help is written: ``--lang X``
    anywhere on the command line, else the terminal's (LANG and friends)."""
    for i, arg in enumerate(argv):
        wanted = (argv[i + 1] if arg == "--lang" and i + 1 < len(argv)
                  else arg.removeprefix("--lang=") if arg.startswith("--lang=") else None)
        if wanted is not None and wanted in LANGUAGES:
            return wanted
    return from_environment()


set_language(early_language(sys.argv[1:]))


class Lang(StrEnum):
    """The languages a player may choose (``--lang``)."""

    en = "en"
    de = "de"


def chosen_language(lang: Lang | None) -> Lang | None:
    """``--lang``'s callback: the words from here on are in that language."""
    if lang is not None:
        set_language(lang.value)
    return lang


LangOption = Annotated[Lang | None, typer.Option(
    help=_("language of the game: en or de (default: the terminal's LANG)"),
    callback=chosen_language, show_default=False)]


def output_dir(folder: Path | None) -> Path | None:
    """An output folder checked before the work starts, so no finished work is lost to it."""
    if folder is None:
        return None
    from noreturn.files import check_output_dir  # noqa: PLC0415 - fast startup

    try:
        return check_output_dir(folder)
    except NoReturnError as exc:
        raise typer.BadParameter(str(exc)) from exc


def parse_rules(players: int, text: str) -> Rules:
    """``--players`` and ``--rules`` as the engine's rules, or the option's error."""
    try:
        return Rules.parse(text, players=players)
    except NoReturnError as exc:
        raise typer.BadParameter(f"{exc} (keys: colors, max_value, copies, hand_size, "
                                 "exchange_limit, players)", param_hint="--rules") from exc


class Backend(StrEnum):
    """Where ``tournament`` runs its games."""

    local = "local"
    ray = "ray"


# The options that tournaments and studies share (paired deals on local cores or Ray).
PairedSeed = Annotated[int, typer.Option(help="base seed; deal d uses the bag of (seed, d)")]
SizeRules = Annotated[str, typer.Option(help="size parameters, e.g. colors=3,max_value=5")]
Workers = Annotated[int | None, typer.Option(
    min=1, help="processes (default: every core); 1 plays in this process")]
BackendChoice = Annotated[Backend, typer.Option(help="local cores or a Ray cluster")]
RayAddress = Annotated[str | None, typer.Option(
    help="Ray cluster to join (default: start a local Ray)")]


__all__ = ["Backend", "BackendChoice", "Lang", "LangOption", "PairedSeed", "RayAddress",
           "SizeRules", "Workers", "chosen_language", "early_language", "output_dir",
           "parse_rules"]
