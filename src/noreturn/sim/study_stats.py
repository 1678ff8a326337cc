"""The figures of the switch study, from its games (``study.py``), as one JSON object.

Every figure is about the *studied seat* (the one whose declaration is forced) unless it
says otherwise, and every interval is a 95% one:

- **win rate**: first places (a shared first counts, as in tournaments) over games, with
  the Wilson interval (``stats.wilson_interval``);
- **margin**: the seat's score minus the best other seat's; mean with the normal interval
  mean ± 1.96·sd/√n;
- **paired differences** against the baseline (the free bot in the same seat, on the same
  deal): per pair, won - won_free and margin - margin_free; mean ± 1.96·sd/√n of those
  differences. The deal's luck is the same on both sides of a pair, so these intervals are
  much narrower than the raw ones;
- **seat order**: over every seat of every game, win rate and mean score by the position
  in turn order (0: the starting player);
- **skill and luck** (``luck``): the margins of the studied seat form a table with one row
  per (deal, seat) and one column per condition (baseline and triggers), every cell
  filled. Its sum of squares around the grand mean splits exactly (a balanced two-way
  layout) into SS_deal = C·Σ_rows (row mean - grand mean)², SS_trigger =
  R·Σ_columns (column mean - grand mean)² and the rest, SS_rest = SS_total - SS_deal -
  SS_trigger (how a trigger's effect differs from deal to deal, and the bots' own noise).
  ``deal_share`` = SS_deal / SS_total is the share of the margin's variance the deal and
  seat explain: luck, in the sense that no choice of the studied seat changes it;
  ``trigger_share`` = SS_trigger / SS_total is the share the declaration moment explains.
  Far-off triggers (declaring at once, or never) make the moment look decisive; so
  ``luck_in_window`` repeats the split over the free bot and the trigger values inside
  their kind's window alone, the choices a sensible player weighs.
- **the window** per trigger kind: the values whose mean paired margin, against the best
  value's on the same deals, is not significantly lower (the 95% interval of the
  difference reaches 0); its ``bounds`` are the nearest values tried outside it on either
  side (significantly worse), between which the best fixed moment lies; and where the
  free bot declared (median, quartiles): ``free_in_window`` when its median lies strictly
  between the bounds (a grid of values cannot say more). The best value is picked on the
  same games it is judged by, so its lead over its neighbours is a little flattering.
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Sequence
from typing import Any

from noreturn.bots.declare_at import TRIGGER_KINDS, TRIGGER_TEXT, Trigger
from noreturn.sim.stats import Z95, wilson_interval
from noreturn.sim.study import GAME_FIELDS, Study, StudyGame, by_condition

READINGS = ("turn", "bag", "turns_left", "points")
"""What ``StudyGame.declared`` holds, in order."""
KIND_READING = {"bag": "bag", "turns": "turns_left", "points": "points"}
"""The reading of ``declared`` that each trigger kind is about."""


def mean_interval(values: Sequence[float]) -> tuple[float, float, float]:
    """The mean and its normal 95% interval (both ends the mean for fewer than 2 values)."""
    if not values:
        return 0.0, 0.0, 0.0
    mean = statistics.fmean(values)
    if len(values) < 2:
        return mean, mean, mean
    half = Z95 * statistics.stdev(values) / math.sqrt(len(values))
    return mean, mean - half, mean + half


def _paired(games: Sequence[StudyGame], base: Sequence[StudyGame]) -> dict[str, Any]:
    """Win and margin differences of ``games`` against ``base``, pair by pair."""
    wins = [float(g.won) - float(b.won) for g, b in zip(games, base, strict=True)]
    margins = [float(g.margin - b.margin) for g, b in zip(games, base, strict=True)]
    win, win_low, win_high = mean_interval(wins)
    margin, margin_low, margin_high = mean_interval(margins)
    return {"win_diff": win, "win_diff_ci": [win_low, win_high],
            "margin_diff": margin, "margin_diff_ci": [margin_low, margin_high]}


def condition_json(trigger: Trigger | None, games: Sequence[StudyGame],
                   base: Sequence[StudyGame]) -> dict[str, Any]:
    """One condition's figures (``trigger`` None: the baseline, the free bot)."""
    wins = sum(g.won for g in games)
    low, high = wilson_interval(wins, len(games))
    margin, margin_low, margin_high = mean_interval([float(g.margin) for g in games])
    marks = [g.declared for g in games if g.declared is not None]
    declared = {name: statistics.fmean(m[i] for m in marks) if marks else None
                for i, name in enumerate(READINGS)}
    return {
        "kind": None if trigger is None else trigger.kind,
        "value": None if trigger is None else trigger.value,
        "label": "free" if trigger is None else trigger.label,
        "games": len(games), "wins": wins, "win_rate": wins / max(len(games), 1),
        "win_ci": [low, high], "mean_score": statistics.fmean(
            g.scores[g.seat] for g in games) if games else 0.0,
        "margin": margin, "margin_ci": [margin_low, margin_high],
        **_paired(games, base),
        "never_declared": len(games) - len(marks),
        "declared_mean": declared,
    }


def seat_order(games: Sequence[StudyGame], players: int) -> list[dict[str, Any]]:
    """Win rate and mean score by position in turn order, over every seat of every game."""
    wins = [0] * players
    scores: list[list[int]] = [[] for _ in range(players)]
    for game in games:
        for seat in range(players):
            position = (seat - game.start_player) % players
            wins[position] += game.ranks[seat] == 1
            scores[position].append(game.scores[seat])
    rows = []
    for position in range(players):
        count = len(scores[position])
        low, high = wilson_interval(wins[position], count)
        mean, mean_low, mean_high = mean_interval([float(s) for s in scores[position]])
        rows.append({"position": position, "games": count, "wins": wins[position],
                     "win_rate": wins[position] / max(count, 1), "win_ci": [low, high],
                     "mean_score": mean, "mean_score_ci": [mean_low, mean_high]})
    return rows


def luck(split: Sequence[Sequence[StudyGame]]) -> dict[str, Any]:
    """The two-way split of the studied seat's margin variance (module docstring)."""
    table = [[float(g.margin) for g in column] for column in split]  # [condition][cell]
    columns, rows = len(table), len(table[0]) if table else 0
    if columns == 0 or rows == 0:
        return {"deal_share": None, "trigger_share": None, "rest_share": None}
    grand = statistics.fmean(v for column in table for v in column)
    total = sum((v - grand) ** 2 for column in table for v in column)
    row_means = [statistics.fmean(table[c][r] for c in range(columns)) for r in range(rows)]
    deal = columns * sum((m - grand) ** 2 for m in row_means)
    trigger = rows * sum((statistics.fmean(column) - grand) ** 2 for column in table)
    parts = {"deal_share": deal, "trigger_share": trigger, "rest_share": total - deal - trigger}
    return {**{key: part / total if total else 0.0 for key, part in parts.items()},
            "cells": rows, "conditions": columns,
            "formula": "SS_total = SS_deal + SS_trigger + SS_rest over the studied seat's "
                       "margins, rows (deal, seat) x columns (conditions); "
                       "deal_share = SS_deal / SS_total"}


def _early_first(kind: str, indices: list[int], conditions: Sequence[dict[str, Any]]
                 ) -> list[int]:
    """Conditions of one kind from the earliest declaration to the latest: a large bag or
    many turns left is early, many points in the rows is late."""
    return sorted(indices, key=lambda i: conditions[i]["value"] * (1 if kind == "points" else -1))


def _between(value: float, below: float | None, above: float | None) -> bool:
    """Whether ``value`` lies strictly between two bounds (None: no bound that side)."""
    return (below is None or value > below) and (above is None or value < above)


def windows(split: Sequence[Sequence[StudyGame]], conditions: Sequence[dict[str, Any]]
            ) -> dict[str, Any]:
    """Per trigger kind: the best value, the window (module docstring), how much the best
    beats the earliest and the latest value (paired), and where the free bot declared."""
    free_marks = [g.declared for g in split[0] if g.declared is not None]
    result: dict[str, Any] = {}
    for kind in TRIGGER_KINDS:
        indices = [i for i, c in enumerate(conditions) if c["kind"] == kind]
        if not indices:
            continue
        ordered = _early_first(kind, indices, conditions)
        best = max(ordered, key=lambda i: conditions[i]["margin"])
        window = [conditions[i]["value"] for i in ordered
                  if _paired(split[i], split[best])["margin_diff_ci"][1] >= 0]
        reading = READINGS.index(KIND_READING[kind])
        free = sorted(m[reading] for m in free_marks)
        quartiles = statistics.quantiles(free, n=4) if len(free) >= 2 else free * 3
        low, high = min(window), max(window)
        tried = sorted(conditions[i]["value"] for i in indices)
        below = max((v for v in tried if v < low), default=None)
        above = min((v for v in tried if v > high), default=None)
        result[kind] = {
            "trigger": TRIGGER_TEXT[kind].format(value=conditions[best]["value"]),
            "best": conditions[best]["value"], "window": [low, high],
            "bounds": [below, above],
            "best_vs_earliest": _paired(split[best], split[ordered[0]]),
            "earliest": conditions[ordered[0]]["value"],
            "best_vs_latest": _paired(split[best], split[ordered[-1]]),
            "latest": conditions[ordered[-1]]["value"],
            "free_quartiles": quartiles if free else None,
            "free_in_window": bool(free) and _between(quartiles[1], below, above),
        }
    return result


def _in_window(condition: dict[str, Any], found: dict[str, Any]) -> bool:
    """Whether a condition's value lies in its kind's window."""
    low, high = found[condition["kind"]]["window"]
    return bool(low <= condition["value"] <= high)


def study_json(study: Study) -> dict[str, Any]:
    """The study's JSON: settings, one entry per condition, seat order, luck, windows,
    and every game (``per_game``, rows of ``game_fields``)."""
    settings, plan = study.settings, study.schedule
    split = by_condition(study.games, len(plan.conditions))
    conditions = [condition_json(trigger, split[i], split[0])
                  for i, trigger in enumerate(plan.conditions)]
    found = windows(split, conditions)
    return {
        "format": "noreturn-study-switch", "version": 1,
        "players": settings.players, "bot": settings.bot, "rules": settings.rules.to_dict(),
        "games_requested": settings.games, "deals": plan.deals,
        "games_per_condition": len(split[0]), "games": len(study.games),
        "seed": settings.seed, "backend": settings.backend, "workers": study.workers,
        "address": settings.address, "elapsed_seconds": study.elapsed, "confidence": 0.95,
        "forfeits": sum(g.forfeits for g in study.games),
        "triggers": {kind: TRIGGER_TEXT[kind].replace("{value:g}", "X")
                     for kind in TRIGGER_KINDS},
        "baseline": conditions[0], "conditions": conditions[1:],
        "windows": found,
        "seat_order": seat_order(study.games, settings.players),
        "luck": luck(split),
        "luck_in_window": luck([split[0], *(split[i] for i, c in enumerate(conditions)
                                           if i and _in_window(c, found))]),
        "game_fields": list(GAME_FIELDS),
        "per_game": [game.to_json() for game in study.games],
    }


__all__ = ["condition_json", "luck", "mean_interval", "seat_order", "study_json", "windows"]
