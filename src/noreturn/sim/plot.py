"""The tournament picture (win rates with their 95% intervals, the score distributions)
and the comparison's (pooled win rates, paired differences).

Drawn with matplotlib's object API on the Agg canvas, never through ``pyplot``: no display,
no global figure state, so it works on servers, in workers and in tests alike.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from pathlib import Path

from matplotlib.axes import Axes
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

from noreturn.sim.compare import Paired, Pooled
from noreturn.sim.stats import Z95, wilson_interval
from noreturn.sim.tournament import BotStats


def plot_tournament(stats: Sequence[BotStats], players: int, title: str, path: Path) -> Path:
    """Write a PNG: win rate per bot with error bars (left), final scores per bot (right)."""
    figure = Figure(figsize=(max(8.0, 2.2 * len(stats) + 4), 4.5), layout="constrained")
    FigureCanvasAgg(figure)
    _rates(figure.add_subplot(1, 2, 1), [(bot.name, bot.wins, bot.games) for bot in stats],
           players, "win rate, 95% Wilson interval")
    _scores(figure.add_subplot(1, 2, 2), stats)
    figure.suptitle(title)
    figure.savefig(path, format="png", dpi=110)
    return path


def _scores(axes: Axes, stats: Sequence[BotStats]) -> None:
    """Box plots of each bot's final scores (boxes stay drawable for constant scores)."""
    axes.boxplot([bot.scores or [0] for bot in stats], showmeans=True)
    axes.set_xticks(range(1, len(stats) + 1), [bot.name for bot in stats], rotation=15)
    axes.axhline(0, color="grey", linewidth=0.8)
    axes.set_ylabel("final score")
    axes.set_title("final scores (box: quartiles, triangle: mean)")


def plot_comparison(tallies: Sequence[Pooled], players: int, title: str, path: Path,
                    pair: Paired | None = None, names: tuple[str, str] = ("", "")) -> Path:
    """Write a PNG for ``noreturn compare``: each bot's pooled win rate with its Wilson
    interval (left) and, for a pair, the differences game by game with their 95% intervals
    (right), where an interval clear of zero is a difference the deals' luck does not
    explain."""
    panels = 2 if pair is not None else 1
    figure = Figure(figsize=(max(6.0, 1.8 * len(tallies) + 3) + 5 * (panels - 1), 4.5),
                    layout="constrained")
    FigureCanvasAgg(figure)
    rates = [(t.name, t.wins, t.games) for t in tallies]
    _rates(figure.add_subplot(1, panels, 1), rates, players,
           "pooled win rate, 95% Wilson interval")
    if pair is not None:
        _differences(figure.add_subplot(1, panels, 2), pair, names)
    figure.suptitle(title)
    figure.savefig(path, format="png", dpi=110)
    return path


def _rates(axes: Axes, rates: Sequence[tuple[str, int, int]], players: int,
           title: str) -> None:
    """Win rates (name, wins, games) as points with bars over their Wilson intervals, a
    line at an equal share."""
    shares = [wins / games if games else 0.0 for _name, wins, games in rates]
    intervals = [wilson_interval(wins, games) for _name, wins, games in rates]
    below = [max(0.0, s - low) for s, (low, _) in zip(shares, intervals, strict=True)]
    above = [max(0.0, high - s) for s, (_, high) in zip(shares, intervals, strict=True)]
    positions = range(len(rates))
    axes.errorbar(positions, shares, yerr=[below, above], fmt="o", capsize=6, color="tab:blue")
    axes.axhline(1 / players, linestyle="--", color="grey", label=f"equal share (1/{players})")
    axes.set_xticks(list(positions), [name for name, _w, _g in rates], rotation=15)
    for x, share in zip(positions, shares, strict=True):
        axes.annotate(f"{100 * share:.1f}%", (x, share), xytext=(8, 0),
                      textcoords="offset points", va="center")
    axes.set_xlim(-0.5, len(rates) - 0.5)
    axes.set_ylim(-0.02, 1.02)
    axes.set_ylabel("win rate")
    axes.set_title(title)
    axes.legend(loc="best")


def _differences(axes: Axes, pair: Paired, names: tuple[str, str]) -> None:
    """The paired differences with their normal 95% intervals, a line at no difference."""
    rows = [("win rate\n(points)", 100 * (pair.first.win - pair.second.win), 100 * pair.win_se),
            ("margin", pair.first.margin - pair.second.margin, pair.margin_se),
            ("score", pair.first.score - pair.second.score, pair.score_se)]
    positions = range(len(rows))
    errors = [0.0 if math.isnan(se) else Z95 * se for _label, _d, se in rows]
    axes.errorbar([d for _label, d, _se in rows], positions, xerr=errors, fmt="o", capsize=6,
                  color="tab:green")
    axes.axvline(0, color="grey", linewidth=0.8)
    axes.set_yticks(list(positions), [label for label, _d, _se in rows])
    axes.invert_yaxis()
    axes.set_xlabel(f"{names[0]} minus {names[1]}, game by game")
    axes.set_title(f"{pair.games} paired games on {pair.deals} deals, 95% interval")
