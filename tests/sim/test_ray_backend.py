"""The Ray backend plays the same games as the local one: same seed, same results.json."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from noreturn.engine import Rules
from noreturn.records import check_record, read_record
from noreturn.sim.tournament import (
    Settings,
    bot_stats,
    results_json,
    run_tournament,
    without_timings,
)

ray = pytest.importorskip(
    "ray", reason="Ray is not installed: pip install 'noreturn[ray]' to test the Ray backend")


@pytest.fixture(scope="module")
def local_ray() -> Iterator[Any]:
    """One local Ray instance for the module: starting Ray takes seconds."""
    ray.init(num_cpus=2, include_dashboard=False)
    yield ray
    ray.shutdown()


def results(setup: Settings, records_dir: Path | None = None) -> dict[str, Any]:
    tournament = run_tournament(setup, records_dir)
    return results_json(tournament, bot_stats(tournament))


@pytest.mark.parametrize(("bots", "players", "games"), [
    ("random,greedy", 2, 40), ("random,greedy,heuristic", 3, 12),
])
def test_ray_gives_the_same_results_as_local(local_ray: Any, bots: str, players: int,
                                             games: int) -> None:
    rules = Rules.parse("colors=3,max_value=6,hand_size=4", players=players)
    local = results(Settings(tuple(bots.split(",")), rules, games, seed=7, workers=2))
    remote = results(Settings(tuple(bots.split(",")), rules, games, seed=7, backend="ray"))
    assert remote["backend"] == "ray" and local["backend"] == "local"
    assert without_timings(remote) == without_timings(local)
    assert len(remote["per_game"]) == games


def test_ray_brings_the_records_back(local_ray: Any, tmp_path: Path) -> None:
    setup = Settings(("random", "greedy"), Rules.parse("colors=3,max_value=6,hand_size=4"), 4,
                     seed=2, backend="ray")
    data = results(setup, tmp_path)
    files = sorted(tmp_path.glob("*.json"))
    assert len(files) == data["games"] == 4
    assert all(check_record(read_record(path)).valid for path in files)


def test_ray_plays_the_switch_study_like_local(local_ray: Any) -> None:
    from noreturn.bots.declare_at import Trigger  # noqa: PLC0415 - only this test
    from noreturn.sim.study import StudySettings, run_study  # noqa: PLC0415

    rules = Rules.parse("colors=4,max_value=9,hand_size=6", players=2)
    triggers = (Trigger("bag", 30), Trigger("turns", 4))
    local = run_study(StudySettings("medium", rules, triggers, 4, seed=3, workers=2))
    remote = run_study(StudySettings("medium", rules, triggers, 4, seed=3, backend="ray"))
    assert remote.games == local.games and len(remote.games) == 12
