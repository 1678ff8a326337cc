"""``noreturn history``: how you have done in your local games, from their saved records.

Every game ``noreturn play`` finishes is a record in the save folder (``default_save_dir``),
so the history needs no database of its own: it reads the records there, keeps the ones
with a result, and sums each person's games by the bots they faced (their specs, so that
"medium" and "hard" are told apart). A file that is not a valid record is counted and
named, never a reason to fail: a folder may hold other things.
"""

from __future__ import annotations

import re
import shlex
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from noreturn.engine import NoReturnError
from noreturn.records import check_record, read_record, saved_files
from noreturn.records.names import shown_name
from noreturn.text.lang import _, ngettext
from noreturn.text.narrate import bot_word
from noreturn.text.numbers import decimal

if TYPE_CHECKING:
    from rich.console import Console


@dataclass(frozen=True)
class PastGame:
    """One finished game from one person's seat."""

    path: Path
    date: str
    person: str
    opponents: str
    """The bot specs faced, sorted and joined by " + " ("people", in the reader's language,
    when none was a bot)."""
    players: int
    score: int
    margin: int
    """The person's score minus the best other seat's."""
    won: bool
    """First place, shared or not."""


@dataclass
class History:
    """The finished games found, the unfinished ones, and the files that were not records."""

    games: list[PastGame] = field(default_factory=list)
    unfinished: list[Path] = field(default_factory=list)
    skipped: list[Path] = field(default_factory=list)

    def people(self) -> list[str]:
        """The people who played, most games first."""
        counts: dict[str, int] = defaultdict(int)
        for game in self.games:
            counts[game.person] += 1
        return sorted(counts, key=lambda name: (-counts[name], name))

    def by_opponents(self, person: str) -> list[tuple[str, int, int, float, float]]:
        """(opponents, games, wins, mean score, mean margin) for ``person``, most played
        first."""
        groups: dict[str, list[PastGame]] = defaultdict(list)
        for game in self.games:
            if game.person == person:
                groups[game.opponents].append(game)
        rows = [(name, len(g), sum(x.won for x in g), sum(x.score for x in g) / len(g),
                 sum(x.margin for x in g) / len(g)) for name, g in groups.items()]
        return sorted(rows, key=lambda row: (-row[1], row[0]))


def load_history(folder: Path) -> History:
    """Every ``*.json`` record in ``folder``, oldest first (by the record's date, then by
    the file's time)."""
    history = History()
    files = sorted(saved_files(folder), key=lambda p: (p.stat().st_mtime, p.name))
    for path in files:
        record = _read(path)
        if record is None:
            history.skipped.append(path)
        elif "result" not in record:
            history.unfinished.append(path)
        else:
            history.games.extend(_results(path, record))
    history.games.sort(key=lambda g: g.date)  # stable: same-day games keep the file order
    return history


def _read(path: Path) -> dict[str, Any] | None:
    """The record in ``path``, or None if it is not a valid one (unreadable, not JSON,
    nested too deeply, another program's JSON: the records reader says which)."""
    try:
        record = read_record(path)
        valid = check_record(record).valid
    except NoReturnError:
        return None
    return dict(record) if valid else None


def _results(path: Path, record: dict[str, Any]) -> Iterable[PastGame]:
    """One result per person (a hot-seat game has several)."""
    players = record["players"]
    scores = record["result"]["scores"]
    date = str(record.get("meta", {}).get("date", ""))
    bots = sorted(bot_word(shown_name(p.get("policy", "bot"), i))
                  for i, p in enumerate(players) if p.get("kind") == "bot")
    for seat, player in enumerate(players):
        if player.get("kind") != "human":
            continue
        best_other = max(s for i, s in enumerate(scores) if i != seat)
        yield PastGame(path, date, shown_name(player.get("name"), seat),
                       " + ".join(bots) or _("people"), len(players), scores[seat],
                       scores[seat] - best_other, scores[seat] == max(scores))


def plot_history(history: History, person: str, path: Path) -> Path:
    """A PNG of ``person``'s margin game by game, one colour per opponents, with the
    running mean of the last ten games: are you getting better?"""
    import matplotlib  # noqa: PLC0415 - only this command draws

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt  # noqa: PLC0415

    games = [g for g in history.games if g.person == person]
    figure, axes = plt.subplots(figsize=(8, 4.5))
    for name in sorted({g.opponents for g in games}):
        numbers = [i + 1 for i, g in enumerate(games) if g.opponents == name]
        margins = [g.margin for g in games if g.opponents == name]
        axes.scatter(numbers, margins, label=_("against {name}").format(name=name), s=24)
    window = 10
    running = [sum(g.margin for g in games[max(0, i - window + 1): i + 1])
               / (i + 1 - max(0, i - window + 1)) for i in range(len(games))]
    axes.plot(range(1, len(games) + 1), running, color="black",
              label=_("mean of the last {n} games").format(n=window))
    axes.axhline(0, color="grey", linewidth=0.8)
    axes.set_xlabel(_("game"))
    axes.set_ylabel(_("your score minus the best other (points)"))
    axes.set_title(_("{name}'s games: above the line is a win").format(name=person))
    axes.legend(loc="best", fontsize="small")
    figure.tight_layout()
    figure.savefig(path, dpi=100)
    plt.close(figure)
    return path


def file_part(name: str) -> str:
    """``name`` as part of a file name: a path separator (``../x`` would put the plot in
    another folder) or a control character as ``_``."""
    return re.sub(r"[/\\\x00-\x1f\x7f]", "_", name)


def _unfinished(console: Console, history: History) -> None:
    """The unfinished games, and the command that goes on with the newest."""
    if history.unfinished:
        console.print(ngettext(
            "{n} unfinished game; go on with it: noreturn play --resume {path}",
            "{n} unfinished games; go on with the newest: noreturn play --resume {path}",
            len(history.unfinished)).format(n=len(history.unfinished),
                                            path=shlex.quote(str(history.unfinished[-1]))),
            soft_wrap=True)  # a command to copy: the terminal wraps it, not rich


def history_command(folder: Path, person: str | None, plot: Path | None) -> int:
    """Print each person's results by opponents (or ``person``'s), and plot the first
    one's margins over time; the exit code (1: no finished game in ``folder``, or the
    plot asked for by ``plot`` could not be written)."""
    from rich.console import Console  # noqa: PLC0415 - only this command prints tables
    from rich.table import Table  # noqa: PLC0415

    console = Console()
    history = load_history(folder) if folder.is_dir() else History()
    if history.skipped:
        names = ", ".join(p.name for p in history.skipped[:3])
        more = (_(" and {n} more").format(n=len(history.skipped) - 3)
                if len(history.skipped) > 3 else "")
        console.print(ngettext(
            "{n} file in {folder} is not a game record, left out: {names}",
            "{n} files in {folder} are not game records, left out: {names}",
            len(history.skipped)).format(n=len(history.skipped), folder=folder,
                                         names=names + more))
    people = [person] if person else history.people()
    if not history.games or (person and person not in history.people()):
        none = (_("no finished games of {name} in {folder}") if person
                else _("no finished games in {folder}")).format(
                    name=shown_name(person, 0), folder=folder)
        console.print(none + _(": play one with `noreturn play` (or give --dir, the folder "
                               "your records are in)"))
        _unfinished(console, history)
        return 1
    for name in people:
        table = Table(title=_("{name}: games by opponents").format(name=name),
                      caption=_("a shared first place counts as won"))
        for n, column in enumerate((_("opponents"), _("games"), _("won"), _("mean score"),
                                    _("mean margin"))):
            table.add_column(column, justify="left" if n == 0 else "right")
        for opponents, games, wins, score, margin in history.by_opponents(name):
            table.add_row(opponents, str(games), f"{wins} ({wins / games:.0%})",
                          decimal(score), decimal(margin, signed=True))
        console.print(table)
    _unfinished(console, history)
    target = plot or folder / f"history-{file_part(people[0])}.png"
    try:
        drawn = plot_history(history, people[0], target)
        console.print(_("plot of {name}'s games: {path}").format(name=people[0], path=drawn))
    except OSError as exc:
        console.print(_("the plot could not be written to {path}: {error}; give --plot a "
                        "writable file").format(path=target, error=exc.strerror or exc))
        return 1 if plot is not None else 0  # (unasked, in a read-only folder: a warning)
    return 0


__all__ = ["History", "PastGame", "file_part", "history_command", "load_history",
           "plot_history"]
