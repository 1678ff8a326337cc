"""The switch study: when to leave phase 1, measured by forcing the moment.

One seat is played by a copy of the bot made to declare at a trigger (``DeclareAt``: the
bag holds at most X tiles, the plan's turns left are at most T, the rows hold at least P
points), every other seat by the free bot. Each trigger value is one *condition*; one more
condition, the *baseline*, puts the free bot in that seat too. Every condition plays the
same deals, as ``noreturn tournament`` pairs them (the bag of deal d is
``Deck(rules, f"{seed}:{d}")``, starting seat included), and each deal is played with the
studied seat at every seat of the table, so each deal is seen from every position in turn
order. The bots' own generators are seeded per deal and seat, the same for every
condition. So a condition's game and the baseline's game on the same deal and seat differ
only by the forced declaration: their difference is paired, and the luck of the deal falls
out of it.

Games are ``StudyTask`` values, played by ``play_study_task`` on any backend of
``noreturn.sim.backends`` (local processes or Ray) and sorted by number before anything is
summed, so a seed gives the same figures on every backend. The figures are in
``study_stats.py``; what the command shows and writes in ``study_report.py``.
"""

from __future__ import annotations

import math
import os
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from noreturn.bots import Deck, make_bot, play_game
from noreturn.bots.declare_at import TRIGGER_KINDS, DeclareAt, Trigger
from noreturn.engine import NoReturnError, Rules
from noreturn.sim.backends import execute, processes, workers_problem
from noreturn.sim.tournament import BACKENDS

DEFAULT_GRIDS: dict[int, dict[str, tuple[float, ...]]] = {
    2: {"bag": (90, 75, 65, 60, 55, 50, 40, 25), "turns": (20, 16, 14, 12, 10, 8),
        "points": (70, 100, 120, 140, 160)},
    3: {"bag": (90, 75, 65, 60, 55, 50, 40, 25), "turns": (12, 10, 9, 8, 7, 5),
        "points": (50, 75, 95, 110, 130)},
    4: {"bag": (85, 70, 60, 55, 50, 45, 35, 20), "turns": (10, 8, 7, 6, 5, 3),
        "points": (35, 55, 70, 85, 105)},
}
"""The trigger values tried by default, per table size (19: each costs as many games as
the free bot's baseline): dense around where the free ``medium`` declares (its 10th to
90th percentiles in 40 self-play games before the study: bag 49-69 tiles, 11.6-16 turns
left, 109-155 points with two players; bag 46-64, 6.6-9 turns, 87-120 points with three;
bag 45-62, 5.4-7.1 turns, 63-85 points with four), and one or two values well to each
side so the curve has its ends."""


UNITS = {"bag": "tiles in the bag", "turns": "turns left", "points": "points in the rows"}
WHOLE = ("bag", "points")
"""Trigger kinds counted in whole numbers (tiles, points); the plan's turns left are not."""
MAX_VALUE = {"bag": 132.0, "turns": 100.0, "points": 792.0}
"""The largest trigger value that means anything: the whole tile set (132 tiles), more
turns than a game lasts, every tile's points (792)."""


class StudyError(NoReturnError):
    """Settings that do not make a study (a trigger value out of range, no games, ...)."""


@dataclass(frozen=True)
class StudySettings:
    """What to play: the bot, the rules, the trigger values, games per condition, where."""

    bot: str
    rules: Rules
    triggers: tuple[Trigger, ...]
    games: int = 200
    seed: int = 0
    backend: str = "local"
    workers: int | None = None
    address: str | None = None

    @property
    def players(self) -> int:
        """Seats per game."""
        return self.rules.players


@dataclass(frozen=True)
class StudyTask:
    """One game of the study: everything it depends on; picklable for any worker.

    ``condition`` 0 is the baseline (``trigger`` None: the free bot in the studied seat);
    condition ``i`` plays ``settings.triggers[i - 1]``."""

    game: int
    rules: Rules
    bot: str
    condition: int
    trigger: Trigger | None
    deal: int
    seat: int
    deal_seed: str
    bot_seed: str


@dataclass(frozen=True)
class StudyGame:
    """What a worker sends back about one game: the result and where the studied seat
    declared (``declared``: turn, bag, turns left, points; None if it never did)."""

    game: int
    condition: int
    deal: int
    seat: int
    scores: tuple[int, ...]
    ranks: tuple[int, ...]
    start_player: int
    turns: int
    declared: tuple[int, int, float, int] | None
    forfeits: int

    @property
    def position(self) -> int:
        """The studied seat's place in turn order (0: it started)."""
        return (self.seat - self.start_player) % len(self.scores)

    @property
    def margin(self) -> int:
        """The studied seat's score minus the best other seat's."""
        return self.scores[self.seat] - max(
            s for i, s in enumerate(self.scores) if i != self.seat)

    @property
    def won(self) -> bool:
        """Whether the studied seat finished first (a shared first place counts)."""
        return self.ranks[self.seat] == 1

    def to_json(self) -> list[object]:
        """One game for the JSON's ``per_game``: a compact row (see ``GAME_FIELDS``)."""
        return [self.game, self.condition, self.deal, self.seat, self.start_player,
                list(self.scores), list(self.ranks), self.turns,
                None if self.declared is None else list(self.declared)]


GAME_FIELDS = ("game", "condition", "deal", "seat", "start_player", "scores", "ranks",
               "turns", "declared")
"""The columns of each row of the JSON's ``per_game``; ``declared`` is
``[turn, bag, turns_left, points]`` when the studied seat declared, else null."""


@dataclass(frozen=True)
class StudySchedule:
    """The games to play: ``deals`` deals, each from every seat, under every condition."""

    conditions: tuple[Trigger | None, ...]
    deals: int
    tasks: list[StudyTask]


@dataclass
class Study:
    """A finished study: its settings, schedule, games in order and the time taken."""

    settings: StudySettings
    schedule: StudySchedule
    games: list[StudyGame]
    elapsed: float
    workers: int


def parse_values(kind: str, text: str | None, players: int) -> tuple[Trigger, ...]:
    """The triggers of one kind from ``--bag 60,40,20`` (None: the default grid; ``""``
    or ``none``: no trigger of that kind).

    Raises:
        StudyError: a value that is not a number, or out of range (the message says the
            range).
    """
    if text is None:
        return tuple(Trigger(kind, float(v)) for v in DEFAULT_GRIDS[players][kind])
    if text.strip().lower() in ("", "none"):
        return ()
    triggers: list[Trigger] = []
    for part in filter(None, (p.strip() for p in text.split(","))):
        try:
            value = float(part)
        except ValueError:
            example = ",".join(f"{v:g}" for v in DEFAULT_GRIDS[2][kind][:3])
            raise StudyError(f"--{kind} {part!r} is not a number: give {UNITS[kind]}, "
                             f"comma-separated (--{kind} {example})") from None
        if not 0 <= value <= MAX_VALUE[kind]:
            raise StudyError(f"--{kind} {part}: out of range, give {UNITS[kind]} from 0 "
                             f"to {MAX_VALUE[kind]:g}")
        if kind in WHOLE and not value.is_integer():  # (turns left are estimates: any)
            raise StudyError(f"--{kind} {part}: give whole {UNITS[kind]}, such as "
                             f"{int(value)}")
        triggers.append(Trigger(kind, value))
    return tuple(dict.fromkeys(triggers))


def check_study(settings: StudySettings) -> None:
    """Refuse settings that cannot be played, before any worker starts.

    Raises:
        StudyError: no trigger, no games, an unknown backend or workers below 1.
        BotError: the bot spec names no registered bot or has bad options.
    """
    if not settings.triggers:
        raise StudyError("no trigger values to study: give at least one of --bag, "
                         "--turns or --points (or leave them at their defaults)")
    if settings.games < 1 or (settings.workers is not None and settings.workers < 1):
        raise StudyError("--games and --workers must be at least 1")
    if problem := workers_problem(settings.workers, settings.backend, settings.address):
        raise StudyError(problem)
    if settings.backend not in BACKENDS:
        raise StudyError(f"backend {settings.backend!r}: use one of {', '.join(BACKENDS)}")
    if any(t.kind not in TRIGGER_KINDS for t in settings.triggers):
        raise StudyError(f"trigger kinds are {', '.join(TRIGGER_KINDS)}")
    make_bot(settings.bot)


def study_schedule(settings: StudySettings) -> StudySchedule:
    """Every game of the study, numbered: ``games`` per condition, rounded up to whole
    deals (a deal is played once from every seat), the same deals for every condition."""
    check_study(settings)
    players = settings.players
    deals = math.ceil(settings.games / players)
    conditions: tuple[Trigger | None, ...] = (None, *settings.triggers)
    tasks: list[StudyTask] = []
    for deal in range(deals):
        for seat in range(players):
            for condition, trigger in enumerate(conditions):
                tasks.append(StudyTask(
                    len(tasks), settings.rules, settings.bot, condition, trigger, deal, seat,
                    deal_seed=f"{settings.seed}:{deal}",
                    bot_seed=f"{settings.seed}:{deal}:{seat}"))
    return StudySchedule(conditions, deals, tasks)


def play_study_task(task: StudyTask) -> StudyGame:
    """Play one game: the studied seat by ``DeclareAt`` (no trigger: the free bot, which
    it only watches), the others by the free bot. A pure function of the task."""
    studied = DeclareAt(make_bot(task.bot), task.trigger)
    bots = [studied if seat == task.seat else make_bot(task.bot)
            for seat in range(task.rules.players)]
    result = play_game(task.rules, bots, Deck(task.rules, task.deal_seed), seed=task.bot_seed)
    mark = studied.declared
    declared = None if mark is None else (mark.turn, mark.bag, round(mark.turns_left, 3),
                                          mark.points)
    return StudyGame(task.game, task.condition, task.deal, task.seat, tuple(result.scores),
                     tuple(result.ranks), result.start_player, result.turns, declared,
                     len(result.forfeits))


def run_study(settings: StudySettings, on_game: Callable[[StudyGame], None] | None = None,
              plan: StudySchedule | None = None) -> Study:
    """Play every scheduled game on the chosen backend; ``on_game`` is told each game as
    it finishes (progress). The games come back sorted by number."""
    plan = plan or study_schedule(settings)
    workers = settings.workers or os.cpu_count() or 1
    begin = time.perf_counter()
    games: list[StudyGame] = []
    for game in execute(plan.tasks, play_study_task, settings.backend, workers,
                        settings.address):
        games.append(game)
        if on_game is not None:
            on_game(game)
    games.sort(key=lambda g: g.game)
    return Study(settings, plan, games, time.perf_counter() - begin,
                 processes(workers, len(plan.tasks), settings.backend))


def by_condition(games: Sequence[StudyGame], conditions: int) -> list[list[StudyGame]]:
    """The games of each condition, each list in (deal, seat) order, so that the i-th
    games of two conditions are a pair (the same deal from the same seat)."""
    split: list[list[StudyGame]] = [[] for _ in range(conditions)]
    for game in sorted(games, key=lambda g: (g.deal, g.seat, g.condition)):
        split[game.condition].append(game)
    return split


__all__ = ["DEFAULT_GRIDS", "GAME_FIELDS", "Study", "StudyError", "StudyGame", "StudySchedule",
           "StudySettings", "StudyTask", "by_condition", "check_study", "parse_values",
           "play_study_task", "run_study", "study_schedule"]
