"""The tournament picture: win rates with their 95% intervals, and the score distributions.

Drawn with matplotlib's object API on the Agg canvas, never through ``pyplot``: no display,
no global figure state, so it works on servers, in workers and in tests alike.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from matplotlib.axes import Axes
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

from noreturn.sim.stats import wilson_interval
from noreturn.sim.tournament import BotStats


def plot_tournament(stats: Sequence[BotStats], players: int, title: str, path: Path) -> Path:
    """Write a PNG: win rate per bot with error bars (left), final scores per bot (right)."""
    figure = Figure(figsize=(max(8.0, 2.2 * len(stats) + 4), 4.5), layout="constrained")
    FigureCanvasAgg(figure)
    _win_rates(figure.add_subplot(1, 2, 1), stats, players)
    _scores(figure.add_subplot(1, 2, 2), stats)
    figure.suptitle(title)
    figure.savefig(path, format="png", dpi=110)
    return path


def _win_rates(axes: Axes, stats: Sequence[BotStats], players: int) -> None:
    """Points at the win rates, bars over the Wilson intervals, a line at an equal share."""
    positions = range(len(stats))
    rates = [bot.win_rate for bot in stats]
    intervals = [wilson_interval(bot.wins, bot.games) for bot in stats]
    below = [max(0.0, rate - low) for rate, (low, _) in zip(rates, intervals, strict=True)]
    above = [max(0.0, high - rate) for rate, (_, high) in zip(rates, intervals, strict=True)]
    axes.errorbar(positions, rates, yerr=[below, above], fmt="o", capsize=6, color="tab:blue")
    axes.axhline(1 / players, linestyle="--", color="grey", label=f"equal share (1/{players})")
    axes.set_xticks(list(positions), [bot.name for bot in stats], rotation=15)
    for x, rate in zip(positions, rates, strict=True):
        axes.annotate(f"{100 * rate:.1f}%", (x, rate), xytext=(8, 0), textcoords="offset points",
                      va="center")
    axes.set_ylim(-0.02, 1.02)
    axes.set_xlim(-0.5, len(stats) - 0.5)
    axes.set_ylabel("win rate")
    axes.set_title("win rate, 95% Wilson interval")
    axes.legend(loc="best")


def _scores(axes: Axes, stats: Sequence[BotStats]) -> None:
    """Box plots of each bot's final scores (boxes stay drawable for constant scores)."""
    axes.boxplot([bot.scores or [0] for bot in stats], showmeans=True)
    axes.set_xticks(range(1, len(stats) + 1), [bot.name for bot in stats], rotation=15)
    axes.axhline(0, color="grey", linewidth=0.8)
    axes.set_ylabel("final score")
    axes.set_title("final scores (box: quartiles, triangle: mean)")
