"""The switch study's picture: win rate and margin against each trigger's value.

One column per trigger kind (each has its own unit, so each its own x axis), one line per
kind; the top row the studied seat's win rate with Wilson intervals, the bottom row its
mean margin with the 95% interval of the paired difference to the free bot (which is what
decides whether a value is better or worse than letting the bot choose). The free bot's
figures are the dashed line. The x axes run from the earliest declaration (left) to the
latest: a large bag, many turns left, few points in the rows are early. Drawn with
matplotlib's object API on the Agg canvas, never ``pyplot``, like ``plot.py``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

from noreturn.bots.declare_at import TRIGGER_KINDS

X_LABELS = {"bag": "declare when the bag holds at most X tiles",
            "turns": "declare when the plan's turns left are at most T",
            "points": "declare when the own rows hold at least P points"}
COLOURS = {"bag": "tab:blue", "turns": "tab:orange", "points": "tab:green"}


def plot_study(data: dict[str, Any], title: str, path: Path) -> Path:
    """Write the PNG of a study's JSON (``study_stats.study_json``) to ``path``."""
    kinds = [k for k in TRIGGER_KINDS if any(c["kind"] == k for c in data["conditions"])]
    figure = Figure(figsize=(4.6 * max(len(kinds), 1), 7.5), layout="constrained")
    FigureCanvasAgg(figure)
    base = data["baseline"]
    for column, kind in enumerate(kinds):
        rows = sorted((c for c in data["conditions"] if c["kind"] == kind),
                      key=lambda c: c["value"])
        values = [c["value"] for c in rows]
        win = figure.add_subplot(2, len(kinds), column + 1)
        rates = [c["win_rate"] for c in rows]
        win.errorbar(values, rates, yerr=[[r - c["win_ci"][0] for r, c in zip(rates, rows,
                                                                              strict=True)],
                                          [c["win_ci"][1] - r for r, c in zip(rates, rows,
                                                                              strict=True)]],
                     fmt="o-", capsize=4, color=COLOURS[kind], label=f"forced: {kind}")
        win.axhline(base["win_rate"], linestyle="--", color="grey",
                    label=f"free bot {100 * base['win_rate']:.1f}%")
        win.axhline(1 / data["players"], linestyle=":", color="lightgrey",
                    label=f"equal share (1/{data['players']})")
        win.set_ylabel("win rate of the forced seat (95% Wilson)")
        win.set_title(kind)
        win.legend(loc="best", fontsize="small")
        margin = figure.add_subplot(2, len(kinds), len(kinds) + column + 1)
        means = [c["margin"] for c in rows]
        half = [(c["margin_diff_ci"][1] - c["margin_diff_ci"][0]) / 2 for c in rows]
        margin.errorbar(values, means, yerr=half, fmt="o-", capsize=4, color=COLOURS[kind],
                        label=f"forced: {kind}")
        margin.axhline(base["margin"], linestyle="--", color="grey",
                       label=f"free bot {base['margin']:+.1f}")
        margin.set_ylabel("mean margin (bars: paired 95% vs free)")
        margin.set_xlabel(X_LABELS[kind])
        margin.legend(loc="best", fontsize="small")
        if kind != "points":  # left is early: a full bag, many turns left
            win.invert_xaxis()
            margin.invert_xaxis()
    figure.suptitle(title)
    figure.savefig(path, format="png", dpi=100)
    return path


__all__ = ["plot_study"]
