"""``noreturn compare``: tournaments read again from their results.json, pooled and paired.

A hundred games cannot tell 47% from 50%: the luck of the deals drowns what a change to a
bot is worth. Two ways out, both from files a tournament already wrote:

* **Pooled.** Runs of the same bots on other deals (other seeds) add up: each bot's games,
  win rate with its 95% interval, mean score and margin over all of them.
* **Paired.** Two bots compared game by game on the same deals: in one run where both sit
  at the table (``hard`` and ``hard-shifts`` at one four-player table), or in two runs made
  on the same deals (``--seed`` and table alike), one with each bot. The luck of a deal
  falls on both, so their difference has a far smaller error than their win rates. Games
  are matched by table size, rules, seed, lineup number, deal and rotation; a bot with
  several seats at a table counts their mean. The standard error treats the games of one
  deal (its rotations) as one sample, since they share its tiles.

A bot is named as in the tournament's table (``name=``) or by its whole spec.
"""

from __future__ import annotations

import json
import math
from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from random import Random
from typing import Any

from noreturn.engine import NoReturnError, shortened
from noreturn.records.names import has_control
from noreturn.sim.stats import (
    Z95,
    Pairwise,
    bradley_terry_elo,
    margin_of,
    pairwise,
    wilson_interval,
)

FORMAT = "noreturn-tournament"
GAME_KEYS = ("lineup", "deal", "rotation", "seats", "scores", "ranks")

GameKey = tuple[int, str, int, int, int, int]
"""A game's place in its schedule: players, rules, seed, lineup, deal, rotation."""


class CompareError(NoReturnError):
    """A results file that cannot be read or compared; the message says what is wrong."""


@dataclass(frozen=True)
class Run:
    """One tournament's results.json: its games and the names of its bots."""

    path: Path
    players: int
    rules: str
    seed: int
    names: dict[str, str]
    """Spec -> name, as the tournament's table showed them."""
    games: list[dict[str, Any]]


@dataclass(frozen=True)
class Outcome:
    """One bot's result in one game: the mean over its seats there."""

    win: float
    """1 for first place (shared or not), as the tournament counts a win."""
    margin: float
    score: float


@dataclass
class Pooled:
    """One bot over every run: a seat played is a game, as in the tournament's table."""

    name: str
    games: int = 0
    wins: int = 0
    score: float = 0.0
    margin: float = 0.0
    rating: float = 0.0
    """Fitted on every game of every run together (``rate``): one scale for all the bots."""
    rating_low: float = 0.0
    rating_high: float = 0.0
    """The rating's 95% interval, by the bootstrap over deals (``rating_interval``)."""

    @property
    def win_rate(self) -> float:
        """Wins per game; a shared first place is a win for each."""
        return self.wins / self.games if self.games else 0.0

    @property
    def mean_score(self) -> float:
        """Mean final score."""
        return self.score / self.games if self.games else 0.0

    @property
    def mean_margin(self) -> float:
        """Mean of (own score - best other score at the table)."""
        return self.margin / self.games if self.games else 0.0

    def interval(self) -> tuple[float, float]:
        """The win rate's 95% Wilson interval."""
        return wilson_interval(self.wins, self.games)


@dataclass(frozen=True)
class Paired:
    """Two bots on the same games: their means there and the difference's error."""

    games: int
    deals: int
    first: Outcome
    second: Outcome
    win_se: float
    margin_se: float
    score_se: float


def load_run(path: Path) -> Run:
    """A tournament's results: ``path`` is its results.json or the folder (``--out``)."""
    file = path / "results.json" if path.is_dir() else path
    try:
        data = json.loads(file.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise CompareError(f"{file}: no such file; give a tournament's --out folder or its "
                           "results.json") from None
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise CompareError(f"{file}: not a readable JSON file ({exc})") from None
    except (RecursionError, ValueError):  # a parser recurses per level; huge integers
        raise CompareError(f"{file}: not a tournament's results (JSON nested too deeply or "
                           "with a number too long)") from None
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise CompareError(f"{file}: not a tournament's results (format {FORMAT!r} expected)")
    try:
        games = [_checked_game(game) for game in data["per_game"]]
        names = {str(bot["spec"]): str(bot["name"]) for bot in data["bots"]}
        if any(map(has_control, (*names, *names.values()))):
            raise ValueError("a bot's spec or name holds control characters")
        return Run(file, int(data["players"]), json.dumps(data["rules"], sort_keys=True),
                   int(data["seed"]), names, games)
    except (KeyError, TypeError, ValueError) as exc:
        raise CompareError(f"{file}: a tournament's results with a missing or malformed "
                           f"field ({exc})") from None


def _checked_game(game: Any) -> dict[str, Any]:
    """One entry of ``per_game``, with the fields a comparison reads of the right shape."""
    if not isinstance(game, dict) or any(key not in game for key in GAME_KEYS):
        raise ValueError(f"a game lacks one of {', '.join(GAME_KEYS)}")
    seats, scores, ranks = game["seats"], game["scores"], game["ranks"]
    if not (isinstance(seats, list) and isinstance(scores, list) and isinstance(ranks, list)
            and len(seats) == len(scores) == len(ranks) >= 2):
        raise ValueError(f"game {game.get('game')}: seats, scores and ranks do not match")
    if not (all(isinstance(spec, str) and not has_control(spec) for spec in seats)
            and all(_is_int(n) for n in (*scores, *ranks, *(game[k] for k in GAME_KEYS[:3])))):
        raise ValueError(f"game {game.get('game')}: seats must be specs (no control "
                         "characters), the rest whole numbers")
    return game


def _is_int(value: object) -> bool:
    """A whole number as JSON gives it (``true`` is not one)."""
    return isinstance(value, int) and not isinstance(value, bool)


def parse_same(pairs: Sequence[str]) -> dict[str, str]:
    """``NAME=BOT`` pairs as a mapping.

    Raises:
        CompareError: a pair without ``=`` or with an empty side.
    """
    aliases: dict[str, str] = {}
    for pair in pairs:
        name, _, other = pair.partition("=")
        if not name.strip() or not other.strip():
            raise CompareError(f"--same {pair}: give NAME=BOT, such as --same H1=hard")
        aliases[name.strip()] = other.strip()
    return aliases


def unknown_aliases(runs: Sequence[Run], aliases: Mapping[str, str]) -> None:
    """Check that every ``NAME`` of ``--same NAME=BOT`` plays in one of ``runs`` (by name
    or spec): a typo there would leave the bot it meant apart, without a word.

    Raises:
        CompareError: a name that is in none of the runs, with the names they hold.
    """
    present = {key for run in runs for pair in run.names.items() for key in pair}
    for name in aliases:
        if name not in present:
            raise CompareError(f"--same {shortened(name)}=...: no bot {shortened(name)!r} in "
                               f"these runs; they hold {', '.join(known_names(runs))}")


def renamed(run: Run, aliases: Mapping[str, str]) -> Run:
    """``run`` with each bot named in ``aliases`` counted as the bot it names: three hard
    seats named H1, H2 and H3 (a tournament refuses one spec twice) as one hard, or an
    expert named after its version as expert, so that runs pool and rate as one bot."""
    if not aliases:
        return run
    names = {spec: aliases.get(name, aliases.get(spec, name))
             for spec, name in run.names.items()}
    return replace(run, names=names)


def bot_name(run: Run, spec: str) -> str:
    """The name a seat's spec had in the tournament's table."""
    return run.names.get(spec, spec)


def pooled(runs: Sequence[Run]) -> list[Pooled]:
    """Every bot's tally over ``runs``, in the order they first appear; the runs must share
    the table size and rules, since a win rate means another thing at another table."""
    sizes = {(run.players, run.rules) for run in runs}
    if len(sizes) > 1:
        raise CompareError("these runs differ in players or rules: pool and pair runs of "
                           f"one table ({', '.join(str(run.path) for run in runs)})")
    tallies: dict[str, Pooled] = {}
    for run in runs:
        for game in run.games:
            scores = game["scores"]
            for seat, spec in enumerate(game["seats"]):
                tally = tallies.setdefault(bot_name(run, spec), Pooled(bot_name(run, spec)))
                tally.games += 1
                tally.wins += game["ranks"][seat] == 1
                tally.score += scores[seat]
                tally.margin += margin_of(scores, seat)
    rate(runs, tallies)
    return list(tallies.values())


RESAMPLES = 200
"""Bootstrap resamples of the deals behind a rating's interval."""
RATING_METHOD = "Bradley-Terry (MM) over every pair of seats in a game, Elo scale, mean 1500"
"""What ``Pooled.rating`` is (``rate``)."""


def rate(runs: Sequence[Run], tallies: Mapping[str, Pooled]) -> None:
    """Fill in each bot's rating, fitted on every game of ``runs`` at once: Bradley-Terry
    over each pair of seats in a game (the better placed wins, a tie is half). Runs that
    share a bot put the others on one scale: the ladder's levels, run pairwise (random, easy
    and medium; medium and hard; hard and expert), get one rating each. With two players
    it is the tournament's own rating; with three and four the tournament rates by openskill,
    whose updates game by game would let the runs' order decide, so a pooled rating is fitted
    on all the games together instead. The interval is a bootstrap's (``rating_interval``)."""
    deals = deal_pairs(runs)
    names = list(tallies)
    for name, elo in bradley_terry_elo(names, [p for pairs in deals for p in pairs]).items():
        tallies[name].rating = elo
    for name, bounds in rating_interval(names, deals).items():
        tallies[name].rating_low, tallies[name].rating_high = bounds


def deal_pairs(runs: Sequence[Run]) -> list[list[Pairwise]]:
    """The pairwise results of every game, grouped by deal (its rotations share its tiles,
    so they are resampled together)."""
    grouped: dict[tuple[int, int, int], list[Pairwise]] = defaultdict(list)
    for index, run in enumerate(runs):
        for game in run.games:
            seats = [bot_name(run, spec) for spec in game["seats"]]
            deal = (index, int(game["lineup"]), int(game["deal"]))
            grouped[deal] += pairwise(seats, game["ranks"])
    return list(grouped.values())


def rating_interval(names: Sequence[str], deals: Sequence[Sequence[Pairwise]],
                    resamples: int = RESAMPLES) -> dict[str, tuple[float, float]]:
    """Each bot's 95% rating interval: the 2.5th and 97.5th percentiles of its rating over
    ``resamples`` fits to the deals drawn again with replacement (a fixed seed, so the same
    runs give the same interval). A fit is a few hundredths of a second."""
    rng = Random(0)
    fitted: dict[str, list[float]] = {name: [] for name in names}
    for _ in range(resamples):
        drawn = [pair for pairs in rng.choices(deals, k=len(deals)) for pair in pairs]
        present = {name for pair in drawn for name in (pair.a, pair.b)}
        for name, elo in bradley_terry_elo(names, drawn).items():
            if name in present:
                fitted[name].append(elo)
    bounds: dict[str, tuple[float, float]] = {}
    for name, values in fitted.items():
        if values:
            values.sort()
            bounds[name] = (values[int(0.025 * len(values))],
                            values[min(len(values) - 1, int(0.975 * len(values)))])
    return bounds


def known_names(runs: Sequence[Run]) -> list[str]:
    """The bots' names over ``runs``, for an error that says which names exist."""
    return list(dict.fromkeys(name for run in runs for name in run.names.values()))


def outcomes(runs: Sequence[Run], bot: str) -> dict[GameKey, Outcome]:
    """``bot``'s result in each game it played (by name or spec), keyed by its schedule."""
    found: dict[GameKey, Outcome] = {}
    where: dict[GameKey, Path] = {}
    for run in runs:
        for game in run.games:
            seats = [i for i, spec in enumerate(game["seats"])
                     if bot in (spec, bot_name(run, spec))]
            if not seats:
                continue
            key = (run.players, run.rules, run.seed, int(game["lineup"]), int(game["deal"]),
                   int(game["rotation"]))
            if key in found:
                raise CompareError(
                    f"{bot} plays the same game (seed {run.seed}, deal {game['deal']}, "
                    f"rotation {game['rotation']}) in {where[key]} and {run.path}: pool "
                    "runs of other seeds, or compare them as two bots")
            found[key], where[key] = _outcome(game, seats), run.path
    if not found:
        raise CompareError(f"no bot {shortened(bot)!r} in these runs; they hold "
                           f"{', '.join(known_names(runs))}")
    return found


def _outcome(game: Mapping[str, Any], seats: Sequence[int]) -> Outcome:
    """The mean result of ``seats`` in ``game``."""
    scores = game["scores"]
    wins = margins = total = 0.0
    for seat in seats:
        wins += game["ranks"][seat] == 1
        margins += margin_of(scores, seat)
        total += scores[seat]
    return Outcome(wins / len(seats), margins / len(seats), total / len(seats))


def paired(first: Mapping[GameKey, Outcome], second: Mapping[GameKey, Outcome]) -> Paired:
    """``first`` against ``second`` on the games both played."""
    keys = sorted(set(first) & set(second))
    if not keys:
        raise CompareError("the two bots share no game: pair runs made with the same "
                           "--seed, --players, --rules and number of bots")
    by_deal: dict[tuple[int, str, int, int], list[GameKey]] = defaultdict(list)
    for key in keys:
        by_deal[key[:3] + key[4:5]].append(key)
    clusters = list(by_deal.values())
    n = len(keys)

    def means_and_se(field: str) -> tuple[float, float, float]:
        ones = {k: float(getattr(first[k], field)) for k in keys}
        others = {k: float(getattr(second[k], field)) for k in keys}
        mean = sum(ones[k] - others[k] for k in keys) / n
        spread = sum(sum(ones[k] - others[k] - mean for k in cluster) ** 2
                     for cluster in clusters)
        se = (math.sqrt(spread * len(clusters) / (len(clusters) - 1)) / n
              if len(clusters) > 1 else math.nan)
        return sum(ones.values()) / n, sum(others.values()) / n, se

    win, margin, score = (means_and_se(field) for field in ("win", "margin", "score"))
    return Paired(n, len(clusters), Outcome(win[0], margin[0], score[0]),
                  Outcome(win[1], margin[1], score[1]), win[2], margin[2], score[2])


def interval(difference: float, se: float) -> tuple[float, float]:
    """The normal 95% interval of a paired difference."""
    return difference - Z95 * se, difference + Z95 * se


__all__ = ["CompareError", "Outcome", "Paired", "Pooled", "Run", "interval", "known_names",
           "load_run", "outcomes", "paired", "parse_same", "pooled", "renamed",
           "unknown_aliases"]
