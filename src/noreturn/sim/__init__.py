"""Simulation at scale: tournaments between bots on paired deals, statistics and plots.

Runs on every local core or on a Ray cluster (``noreturn.sim.backends``); the figures come
from ``noreturn.sim.stats`` and the picture from ``noreturn.sim.plot`` (imported on demand,
as matplotlib is slow to load).
"""

from noreturn.sim.tournament import (
    BotStats,
    GameSummary,
    GameTask,
    Schedule,
    Settings,
    Tournament,
    TournamentError,
    bot_stats,
    play_task,
    results_json,
    run_tournament,
    schedule,
    split_specs,
)

__all__ = [
    "BotStats", "GameSummary", "GameTask", "Schedule", "Settings", "Tournament",
    "TournamentError", "bot_stats", "play_task", "results_json", "run_tournament", "schedule",
    "split_specs",
]
