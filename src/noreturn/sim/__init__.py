"""Simulation at scale: tournaments between bots on paired deals, statistics and plots.

Runs on every local core or on a Ray cluster (``noreturn.sim.backends``); the figures come
from ``noreturn.sim.stats`` and the picture from ``noreturn.sim.plot`` (imported on demand,
as matplotlib is slow to load). Random legal play in bulk is ``noreturn.sim.simulate``, the
engine's speed ``noreturn.sim.bench``; what ``noreturn simulate`` and ``noreturn bench``
show is ``noreturn.sim.commands``, what ``noreturn tournament`` shows
``noreturn.sim.report``.
"""

from noreturn.bots.base import split_specs
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
)

__all__ = [
    "BotStats", "GameSummary", "GameTask", "Schedule", "Settings", "Tournament",
    "TournamentError", "bot_stats", "play_task", "results_json", "run_tournament", "schedule",
    "split_specs",
]
