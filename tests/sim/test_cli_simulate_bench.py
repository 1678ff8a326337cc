"""``noreturn simulate`` and ``noreturn bench``: output, records, and the records validate."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from noreturn.cli import app
from noreturn.engine import compiled

runner = CliRunner()

VARIANTS = [
    (2, ""),
    (3, ""),
    (4, ""),
    (2, "colors=2,max_value=4,copies=2,hand_size=3,exchange_limit=2"),
    (3, "colors=3,max_value=5,copies=1,hand_size=2,exchange_limit=1"),
    (4, "colors=6,max_value=6,copies=3,hand_size=5,exchange_limit=3"),
    (2, "colors=1,max_value=9,copies=2,hand_size=4,exchange_limit=4"),
]


@pytest.mark.parametrize(("players", "rules"), VARIANTS)
@pytest.mark.parametrize("policy", ["rollout", "uniform"])
def test_validate_accepts_every_record_simulate_writes(
    tmp_path: Path, players: int, rules: str, policy: str
) -> None:
    games = 12 if policy == "uniform" and not rules else 30
    result = runner.invoke(app, ["simulate", "--games", str(games), "--players", str(players),
                                 "--rules", rules, "--policy", policy, "--seed", "11",
                                 "--out", str(tmp_path)])
    assert result.exit_code == 0, result.output
    files = sorted(tmp_path.glob("*.json"))
    assert len(files) == games
    checked = runner.invoke(app, ["validate", *map(str, files)])
    assert checked.exit_code == 0, checked.output
    assert checked.output.count("OK ") == games
    assert "scores=[" in checked.output


def test_simulate_prints_a_table_per_seat_and_is_reproducible(tmp_path: Path) -> None:
    first = runner.invoke(app, ["simulate", "--games", "20", "--players", "3", "--seed", "4",
                                "--out", str(tmp_path / "a")])
    second = runner.invoke(app, ["simulate", "--games", "20", "--players", "3", "--seed", "4",
                                 "--out", str(tmp_path / "b")])
    assert first.exit_code == 0 and second.exit_code == 0
    assert "mean score" in first.output and "win rate" in first.output
    assert "may add up to more than 100%" in " ".join(first.output.split())
    for seat in range(3):
        assert f"│    {seat} │" in first.output
    for a, b in zip(sorted((tmp_path / "a").iterdir()), sorted((tmp_path / "b").iterdir()),
                    strict=True):
        assert json.loads(a.read_text())["events"] == json.loads(b.read_text())["events"]


def test_simulate_refuses_bad_rules_with_a_hint() -> None:
    result = runner.invoke(app, ["simulate", "--games", "1", "--rules", "colours=3"])
    assert result.exit_code != 0
    assert "unknown key 'colours'" in result.output
    assert "colors" in result.output


def test_bench_json_has_the_promised_keys() -> None:
    result = runner.invoke(app, ["bench", "--seconds", "0.2", "--json"])
    assert result.exit_code == 0, result.output
    figures = json.loads(result.output)
    for key in ("games_per_s", "turns_per_s", "legal_actions_us", "apply_us", "clone_us"):
        assert figures[key] > 0
    assert figures["games"] >= 1
    assert figures["compiled"] is compiled()  # the build doubles every figure
    # the time asked for is the time taken (it was six times as long): a pass over the
    # positions may run past its share, so the bound is generous on a busy machine
    assert figures["total_seconds"] < 0.2 + 3.0


def test_bench_refuses_a_run_that_would_not_end() -> None:
    result = runner.invoke(app, ["bench", "--seconds", "1e308"])
    assert result.exit_code == 2 and "Invalid value for '--seconds'" in result.output


def test_bench_table_for_people() -> None:
    result = runner.invoke(app, ["bench", "--seconds", "0.2", "--players", "3"])
    assert result.exit_code == 0, result.output
    assert "games per second" in result.output
    assert "clone" in result.output
    assert ("compiled" if compiled() else "pure Python") in result.output


def test_players_in_the_rules_alone_are_the_players(tmp_path: Path) -> None:
    """``--rules players=3`` without ``--players`` was refused as disagreeing with a
    ``--players 2`` nobody typed; with ``--players 4`` it is refused, as one of the two
    would be dropped."""
    result = runner.invoke(app, ["simulate", "--games", "1", "--rules", "players=3",
                                 "--out", str(tmp_path)])
    assert result.exit_code == 0, result.output
    record = json.loads(next(tmp_path.glob("*.json")).read_text())
    assert record["rules"]["players"] == 3
    clash = runner.invoke(app, ["simulate", "--games", "1", "--players", "4", "--rules",
                                "players=3"], env={"COLUMNS": "300"})
    assert clash.exit_code == 2 and "players=3 disagrees with --players 4" in clash.output
