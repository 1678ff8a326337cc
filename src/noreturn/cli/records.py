"""The commands that read records: ``validate``, ``replay`` and ``review``."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from noreturn.cli.common import FLAG, RECORDS, LangOption, app
from noreturn.text.lang import _


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
    as_json: Annotated[bool, typer.Option("--json", metavar=FLAG, help=_(
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


