"""``noreturn study switch``: paired deals across triggers, the JSON's fields, the
variance split, errors that say the fix, and a tiny run of the command."""

from __future__ import annotations

import io
import json
import re
from collections import defaultdict
from pathlib import Path
from typing import Any

import pytest
from rich.console import Console
from typer.testing import CliRunner

from noreturn.bots.declare_at import Trigger
from noreturn.cli import app
from noreturn.engine import Rules
from noreturn.sim.study import (
    StudyError,
    StudyGame,
    StudySettings,
    parse_values,
    run_study,
    study_schedule,
)
from noreturn.sim.study_report import switch_command
from noreturn.sim.study_stats import luck, study_json

runner = CliRunner()

SMALL = "colors=4,max_value=9,hand_size=6"
"""A variant of 72 tiles whose games last a few milliseconds, and in which the plan builds
rows (with values up to 6 it starts none, and every margin would be 0)."""

TRIGGERS = (Trigger("bag", 40), Trigger("bag", 15), Trigger("turns", 4), Trigger("points", 20))

TOP_KEYS = {"format", "version", "players", "bot", "rules", "games_requested", "deals", "address",
            "games_per_condition", "games", "seed", "backend", "workers", "elapsed_seconds",
            "confidence", "forfeits", "triggers", "baseline", "conditions", "windows",
            "seat_order", "luck", "luck_in_window", "game_fields", "per_game"}
CONDITION_KEYS = {"kind", "value", "label", "games", "wins", "win_rate", "win_ci",
                  "mean_score", "margin", "margin_ci", "win_diff", "win_diff_ci",
                  "margin_diff", "margin_diff_ci", "never_declared", "declared_mean"}
WINDOW_KEYS = {"trigger", "best", "window", "bounds", "best_vs_earliest", "earliest",
               "best_vs_latest", "latest", "free_quartiles", "free_in_window"}


def settings(players: int = 2, games: int = 6, **options: Any) -> StudySettings:
    return StudySettings("medium", Rules.parse(SMALL, players=players), TRIGGERS, games,
                         seed=5, workers=1, **options)


def test_every_condition_plays_the_same_deals_from_every_seat() -> None:
    plan = study_schedule(settings(players=3, games=7))
    assert plan.deals == 3 and len(plan.tasks) == 3 * 3 * (1 + len(TRIGGERS))
    seeds: dict[int, set[tuple[int, int, str, str]]] = defaultdict(set)
    for task in plan.tasks:
        seeds[task.condition].add((task.deal, task.seat, task.deal_seed, task.bot_seed))
        assert task.trigger == (None if task.condition == 0 else TRIGGERS[task.condition - 1])
    assert len({frozenset(s) for s in seeds.values()}) == 1, "the same deals and seeds"
    assert {seat for _, seat, _, _ in seeds[0]} == {0, 1, 2}


def test_the_json_has_the_documented_fields_and_pairs_games() -> None:
    data = study_json(run_study(settings()))
    assert set(data) == TOP_KEYS
    assert data["games_per_condition"] == 6 and data["games"] == 6 * (1 + len(TRIGGERS))
    assert set(data["baseline"]) == CONDITION_KEYS and data["baseline"]["label"] == "free"
    assert [c["label"] for c in data["conditions"]] == [t.label for t in TRIGGERS]
    assert all(set(c) == CONDITION_KEYS for c in data["conditions"])
    assert data["baseline"]["margin_diff"] == 0 and data["baseline"]["win_diff"] == 0
    assert set(data["windows"]) == {"bag", "turns", "points"}
    assert all(set(w) == WINDOW_KEYS for w in data["windows"].values())
    assert [s["position"] for s in data["seat_order"]] == [0, 1]
    assert sum(s["games"] for s in data["seat_order"]) == 2 * data["games"]
    shares = data["luck"]
    assert shares["deal_share"] + shares["trigger_share"] + shares["rest_share"] == (
        pytest.approx(1.0))
    assert len(data["per_game"]) == data["games"]
    starts = {(row[2], row[4]) for row in data["per_game"]}  # (deal, start_player)
    assert len(starts) == data["deals"], "a deal starts with the same seat in every game"
    assert all(len(row) == len(data["game_fields"]) for row in data["per_game"])
    json.dumps(data)


def test_the_same_seed_gives_the_same_games() -> None:
    first, second = run_study(settings(games=4)), run_study(settings(games=4))
    assert first.games == second.games


def _game(condition: int, deal: int, margin: int) -> StudyGame:
    return StudyGame(0, condition, deal, 0, (margin, 0), (1, 2), 0, 10, None, 0)


def test_the_variance_split_separates_deals_from_triggers() -> None:
    only_deals = [[_game(c, d, 10 * d) for d in range(4)] for c in range(3)]
    assert luck(only_deals)["deal_share"] == pytest.approx(1.0)
    only_triggers = [[_game(c, d, 10 * c) for d in range(4)] for c in range(3)]
    assert luck(only_triggers)["trigger_share"] == pytest.approx(1.0)


def test_trigger_values_out_of_range_say_the_range() -> None:
    assert [t.value for t in parse_values("bag", "60, 40", 2)] == [60, 40]
    assert parse_values("points", "none", 3) == ()
    assert parse_values("turns", None, 4)
    with pytest.raises(StudyError, match="from 0 to 132"):
        parse_values("bag", "200", 2)
    with pytest.raises(StudyError, match="not a number"):
        parse_values("turns", "soon", 2)
    result = runner.invoke(app, ["study", "switch", "--bag", "-5"])
    assert result.exit_code == 2 and "out of range" in result.output
    result = runner.invoke(app, ["study", "switch", "--games", "100001"])  # a schedule of GBs
    assert result.exit_code == 2 and "less than or equal to 100000" in result.output


def test_the_command_writes_the_plot_and_the_json(tmp_path: Path) -> None:
    result = runner.invoke(app, [
        "study", "switch", "--players", "2", "--games", "2", "--rules", SMALL, "--workers",
        "1", "--bag", "40,15", "--turns", "4", "--points", "20", "--out", str(tmp_path)],
        env={"COLUMNS": "200"})
    assert result.exit_code == 0, result.output
    assert (tmp_path / "study.png").read_bytes().startswith(b"\x89PNG")
    data = json.loads((tmp_path / "study.json").read_text(encoding="utf-8"))
    assert set(data) == TOP_KEYS and len(data["conditions"]) == 4
    assert "luck" in result.output and "seat order" in result.output


def test_the_tables_fit_80_columns() -> None:
    """The conditions took one table of twelve columns, 101 wide: at 80 every header and
    number was cut (``trig…  w…``)."""
    out = io.StringIO()
    settings = StudySettings("medium", Rules(players=2),
                             (Trigger("bag", 40.0), Trigger("points", 30.0)), 2, workers=1)
    code = switch_command(settings, console=Console(file=out, width=80))
    assert code == 0
    text = out.getvalue()
    assert "…" not in text and max(map(len, text.splitlines())) <= 80
    for header in ("trigger", "Δmargin", "vs earliest", "quartiles", "mean score"):
        assert header in text


def test_a_trigger_of_tiles_or_points_is_a_whole_number() -> None:
    """``--bag 40.5`` was taken and shown as ``bag<=40.5``; the plan's turns left are an
    estimate, and any value of them is a trigger."""
    said = "--bag 40.5: give whole tiles in the bag, such as 40"
    with pytest.raises(StudyError, match=re.escape(said)):
        parse_values("bag", "40.5", 2)
    with pytest.raises(StudyError, match=re.escape("--points 30.2: give whole points in the rows")):
        parse_values("points", "30.2", 2)
    assert parse_values("turns", "4.5", 2) == (Trigger("turns", 4.5),)
    assert parse_values("bag", "40.0", 2) == (Trigger("bag", 40.0),)
