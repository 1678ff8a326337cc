"""Tournaments between bots: paired deals, a schedule of picklable games, the results.

Luck weighs heavily in No Return, so bots are compared on the same luck: every shuffled bag
(a deal, ``Deck(rules, f"{seed}:{deal}")``) is played once under every seating of the bots
(each rotation of a lineup), and every lineup plays the same deals. A bot's good draws in one
game are then its opponent's good draws in the next.

Every game is a pure function of its ``GameTask`` (rules, bots per seat, deal seed, bot
seed): a small picklable value. Bots are built from their spec strings inside the worker and
never pickled. The backends (local processes, Ray) run the same tasks in any order, and the
results are sorted by game number before anything is summed, so the same seed gives the same
results on every backend and any number of workers; only timings differ.
"""

from __future__ import annotations

import json
import math
import os
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import partial
from itertools import combinations
from pathlib import Path
from typing import Any

from noreturn.bots import Deck, make_bot, play_game
from noreturn.bots.base import display_name, name_after_game
from noreturn.engine import NoReturnError, Rules, compiled
from noreturn.files import OutputDir
from noreturn.records import Record, write_record
from noreturn.sim.backends import execute, processes, workers_problem
from noreturn.sim.stats import (
    bradley_terry_elo,
    margin_of,
    openskill_ratings,
    pairwise,
    rating_method,
    wilson_interval,
)

BACKENDS = ("local", "ray")


class TournamentError(NoReturnError):
    """Settings that do not make a tournament (no bots, a bot listed twice, no backend)."""


@dataclass(frozen=True)
class Settings:
    """What to play: bot specs, rules, how many games, the seed and where to run them."""

    bots: tuple[str, ...]
    rules: Rules
    games: int = 100
    seed: int = 0
    backend: str = "local"
    workers: int | None = None
    address: str | None = None

    @property
    def players(self) -> int:
        """Seats per game."""
        return self.rules.players


@dataclass(frozen=True)
class GameTask:
    """One game, everything it depends on; picklable, so any worker can play it."""

    game: int
    rules: Rules
    seats: tuple[str, ...]
    lineup: int
    deal: int
    rotation: int
    deal_seed: str
    bot_seed: str
    keep_record: bool = False


@dataclass
class GameSummary:
    """What a worker sends back about one game (the record only when asked for)."""

    game: int
    lineup: int
    deal: int
    rotation: int
    seats: list[str]
    scores: list[int]
    ranks: list[int]
    turns: int
    start_player: int
    forfeits: list[dict[str, Any]]
    decision_seconds: list[float]
    decisions: list[int]
    startup_seconds: list[float]
    names: list[str]
    record: Record | None = None

    def to_json(self) -> dict[str, Any]:
        """The game for results.json: no timings, so equal seeds give equal files."""
        keys = ("game", "lineup", "deal", "rotation", "seats", "scores", "ranks", "turns",
                "start_player", "forfeits")
        return {key: getattr(self, key) for key in keys}


@dataclass(frozen=True)
class Schedule:
    """The games to play: ``deals`` deals, each under every seating of every lineup."""

    lineups: list[tuple[str, ...]]
    deals: int
    per_deal: int
    tasks: list[GameTask]


@dataclass
class Tournament:
    """A finished tournament: its settings, schedule, games in order and the time taken."""

    settings: Settings
    schedule: Schedule
    games: list[GameSummary]
    elapsed: float
    workers: int


def lineups(bots: Sequence[str], players: int) -> list[tuple[str, ...]]:
    """Who sits together: every choice of ``players`` bots, or the list cycled to fill seats."""
    if len(bots) >= players:
        return list(combinations(bots, players))
    return [tuple(bots[i % len(bots)] for i in range(players))]


def seatings(lineup: Sequence[str]) -> list[tuple[str, ...]]:
    """The distinct rotations of a lineup around the table (seat ``i`` gets ``i + r``)."""
    count = len(lineup)
    rotations = (tuple(lineup[(i + r) % count] for i in range(count)) for r in range(count))
    return list(dict.fromkeys(rotations))


def schedule(settings: Settings, keep_records: bool = False) -> Schedule:
    """Every game of the tournament, numbered; ``games`` rounded up to whole deals."""
    check_settings(settings)
    groups = lineups(settings.bots, settings.players)
    per_deal = sum(len(seatings(group)) for group in groups)
    deals = math.ceil(settings.games / per_deal)
    tasks: list[GameTask] = []
    for deal in range(deals):
        for index, group in enumerate(groups):
            for rotation, seats in enumerate(seatings(group)):
                tasks.append(GameTask(
                    len(tasks), settings.rules, seats, index, deal, rotation,
                    deal_seed=f"{settings.seed}:{deal}",
                    bot_seed=f"{settings.seed}:{deal}:{index}:{rotation}",
                    keep_record=keep_records,
                ))
    return Schedule(groups, deals, per_deal, tasks)


def check_settings(settings: Settings) -> None:
    """Refuse settings that cannot be played, before any worker starts.

    Raises:
        TournamentError: no bots, a bot listed twice, an unknown backend or no games.
        BotError: a spec names no registered bot or has bad options.
    """
    if not settings.bots:
        raise TournamentError("name at least one bot, e.g. --bots random,greedy")
    twice = sorted({spec for spec in settings.bots if settings.bots.count(spec) > 1})
    if twice:
        raise TournamentError(
            f"{', '.join(twice)} is listed twice: results are counted per spec, so two "
            "copies would be one bot; to play a bot against itself, name the copies "
            "(heuristic:name=A,heuristic:name=B)")
    if settings.backend not in BACKENDS:
        raise TournamentError(f"backend {settings.backend!r}: use one of {', '.join(BACKENDS)}")
    if settings.games < 1 or (settings.workers is not None and settings.workers < 1):
        raise TournamentError("games and workers must be at least 1")
    if problem := workers_problem(settings.workers, settings.backend, settings.address):
        raise TournamentError(problem)
    for spec in settings.bots:
        make_bot(spec)


def play_task(task: GameTask) -> GameSummary:
    """Play one scheduled game: a pure function of the task, apart from its timings."""
    bots = [make_bot(spec) for spec in task.seats]
    result = play_game(task.rules, bots, Deck(task.rules, task.deal_seed), seed=task.bot_seed,
                       names=[display_name(spec) for spec in task.seats],
                       keep_record=task.keep_record)
    if result.record is not None:
        for player, spec in zip(result.record["players"], task.seats, strict=True):
            player["policy"] = spec  # as a table's record says which bot played a seat
        result.record["meta"]["tournament"] = {
            "game": task.game, "deal": task.deal, "deal_seed": task.deal_seed,
            "rotation": task.rotation, "bot_seed": task.bot_seed,
        }
    forfeits = [{"seat": f.seat, "bot": f.bot, "turn": f.turn, "reason": f.reason}
                for f in result.forfeits]
    return GameSummary(task.game, task.lineup, task.deal, task.rotation, list(task.seats),
                       result.scores, result.ranks, result.turns, result.start_player, forfeits,
                       result.decision_seconds, result.decisions, result.startup_seconds,
                       [name_after_game(s, b) for s, b in zip(task.seats, bots, strict=True)],
                       result.record)


def run_tournament(
    settings: Settings,
    records_dir: Path | OutputDir | None = None,
    on_game: Callable[[GameSummary], None] | None = None,
    plan: Schedule | None = None,
) -> Tournament:
    """Play every scheduled game on the chosen backend; records are written as games end.

    ``on_game`` is called once per finished game, in the order games finish (progress).
    Records whose folder fails go to a fallback folder (an ``OutputDir`` says where).

    Raises:
        OutputError: no folder at all could take a record.
    """
    plan = plan or schedule(settings, keep_records=records_dir is not None)
    workers = settings.workers or os.cpu_count() or 1
    records = (OutputDir(records_dir, "tournament-records") if isinstance(records_dir, Path)
               else records_dir)
    begin = time.perf_counter()
    games: list[GameSummary] = []
    for summary in execute(plan.tasks, play_task, settings.backend, workers, settings.address):
        record = summary.record
        if records is not None and record is not None:
            records.write(record_name(summary.game), partial(write_record, record))
            summary.record = None  # on disk now; a long tournament need not hold them all
        games.append(summary)
        if on_game is not None:
            on_game(summary)
    games.sort(key=lambda g: g.game)
    return Tournament(settings, plan, games, time.perf_counter() - begin,
                      processes(workers, len(plan.tasks), settings.backend))


def record_name(game: int) -> str:
    """The file name of a game's record in ``records/``."""
    return f"{game:06d}.json"


@dataclass
class BotStats:
    """One bot's tally over the tournament; a seat played counts as one game."""

    spec: str
    name: str
    games: int = 0
    wins: int = 0
    scores: list[int] = field(default_factory=list)
    margins: list[int] = field(default_factory=list)
    decision_seconds: float = 0.0
    decisions: int = 0
    startup_seconds: float = 0.0
    forfeits: int = 0
    rating: float = 0.0
    rating_sigma: float | None = None

    @property
    def win_rate(self) -> float:
        """Wins per game; a shared first place is a win for each."""
        return self.wins / self.games if self.games else 0.0

    @property
    def mean_score(self) -> float:
        """Mean final score."""
        return sum(self.scores) / len(self.scores) if self.scores else 0.0

    @property
    def mean_margin(self) -> float:
        """Mean of (own score - best other score at the table): > 0 means winning by that."""
        return sum(self.margins) / len(self.margins) if self.margins else 0.0

    @property
    def ms_per_move(self) -> float:
        """Mean thinking time per decision, in milliseconds, start-up not included."""
        return 1000 * self.decision_seconds / self.decisions if self.decisions else 0.0

    @property
    def startup_ms_per_game(self) -> float:
        """Mean start-up time per game (an external program's start), in milliseconds."""
        return 1000 * self.startup_seconds / self.games if self.games else 0.0

    def add_seat(self, game: GameSummary, seat: int) -> None:
        """Count the game played at ``seat``."""
        self.games += 1
        self.wins += game.ranks[seat] == 1
        self.scores.append(game.scores[seat])
        self.margins.append(margin_of(game.scores, seat))
        self.decision_seconds += game.decision_seconds[seat]
        self.decisions += game.decisions[seat]
        self.startup_seconds += game.startup_seconds[seat]
        self.forfeits += sum(1 for f in game.forfeits if f["seat"] == seat)


def bot_stats(tournament: Tournament) -> list[BotStats]:
    """Each bot's tally and rating, in the order the bots were listed."""
    stats = {spec: BotStats(spec, name) for spec, name in bot_display_names(tournament).items()}
    for game in tournament.games:
        for seat, bot in enumerate(game.seats):
            stats[bot].add_seat(game, seat)
    _rate(stats, tournament)
    return list(stats.values())


def bot_display_names(tournament: Tournament) -> dict[str, str]:
    """Each spec's short name (``base.name_after_game`` in its first game), made distinct
    with `` #2``, `` #3``... where two bots would go by the same name."""
    names: dict[str, str] = {}
    for game in tournament.games:
        for spec, name in zip(game.seats, game.names, strict=True):
            names.setdefault(spec, name)
    taken: set[str] = set()
    for spec in tournament.settings.bots:
        name = base = names.get(spec) or display_name(spec)
        count = 1
        while name in taken:
            count += 1
            name = f"{base} #{count}"
        taken.add(name)
        names[spec] = name
    return {spec: names[spec] for spec in tournament.settings.bots}


def _rate(stats: dict[str, BotStats], tournament: Tournament) -> None:
    """Fill in ratings: Bradley-Terry for two players, openskill for three or four."""
    names = list(stats)
    if tournament.settings.players == 2:
        pairs = [pair for g in tournament.games for pair in pairwise(g.seats, g.ranks)]
        for name, rating in bradley_terry_elo(names, pairs).items():
            stats[name].rating = rating
        return
    games = [(g.seats, g.ranks) for g in tournament.games]
    for name, skill in openskill_ratings(names, games).items():
        stats[name].rating, stats[name].rating_sigma = skill.mu, skill.sigma


def bot_json(bot: BotStats) -> dict[str, Any]:
    """One entry of results.json's ``bots`` list."""
    low, high = wilson_interval(bot.wins, bot.games)
    return {
        "name": bot.name, "spec": bot.spec, "games": bot.games, "wins": bot.wins,
        "win_rate": bot.win_rate,
        "ci_low": low, "ci_high": high, "mean_score": bot.mean_score,
        "mean_margin": bot.mean_margin, "rating": bot.rating, "rating_sigma": bot.rating_sigma,
        "forfeits": bot.forfeits, "decisions": bot.decisions, "ms_per_move": bot.ms_per_move,
        "startup_ms_per_game": bot.startup_ms_per_game,
    }


RUN_KEYS = ("elapsed_seconds", "backend", "workers", "address")
"""Keys of results.json about how a run went, not what happened: they differ between runs."""
TIMING_KEYS = ("ms_per_move", "startup_ms_per_game")
"""Keys of a bot's entry in results.json that are timings: they differ between runs."""


def without_timings(data: dict[str, Any]) -> dict[str, Any]:
    """results.json minus timings and run settings: equal for equal seeds on any backend."""
    kept = {key: value for key, value in data.items() if key not in RUN_KEYS}
    kept["bots"] = [{k: v for k, v in bot.items() if k not in TIMING_KEYS}
                    for bot in data["bots"]]
    return kept


def results_json(tournament: Tournament, stats: Sequence[BotStats]) -> dict[str, Any]:
    """results.json: settings, one entry per bot, and a summary of every game; ``compiled``
    says whether the search ran compiled (``pip install .``) or from the sources, since a
    search's strength at a time budget depends on it."""
    settings, plan = tournament.settings, tournament.schedule
    return {
        "format": "noreturn-tournament", "version": 1,
        "players": settings.players, "games": len(tournament.games),
        "games_requested": settings.games, "deals": plan.deals, "seed": settings.seed,
        "rules": settings.rules.to_dict(), "lineups": [list(group) for group in plan.lineups],
        "backend": settings.backend, "workers": tournament.workers, "address": settings.address,
        "compiled": compiled(),  # this process's build: twice the search's playouts
        "elapsed_seconds": tournament.elapsed, "rating_method": rating_method(settings.players),
        "confidence": 0.95,
        "bots": [bot_json(bot) for bot in stats],
        "per_game": [game.to_json() for game in tournament.games],
    }


def write_results(data: dict[str, Any], path: Path) -> Path:
    """Write results.json, indented for people, one game per line for diffs."""
    head = json.dumps({k: v for k, v in data.items() if k != "per_game"}, indent=1)
    games = ",\n  ".join(json.dumps(game) for game in data["per_game"])
    path.write_text(f'{head[:-2]},\n "per_game": [\n  {games}\n ]\n}}\n', encoding="utf-8")
    return path
