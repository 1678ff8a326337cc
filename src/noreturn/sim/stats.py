"""Statistics of a tournament: win-rate intervals and ratings.

Win rates get the Wilson score interval rather than the normal approximation, because
strong bots sit near 0 or 1, where the normal interval leaves [0, 1] and is too narrow.

Ratings:

* Two players: a Bradley-Terry model, P(i beats j) = g_i / (g_i + g_j), fitted by Hunter's
  MM algorithm (2004) on every pairwise result (a tie counts half a win for each). Each pair
  that met also gets one virtual tie, a weak prior that keeps a bot that never (or always)
  won at a finite rating; over hundreds of games its weight is negligible. The strengths are
  reported on the Elo scale, 400·log10(g), shifted so the mean rating is 1500: a difference
  of 200 means the stronger bot is expected to score about 76%.
* Three or four players: openskill's Plackett-Luce model rates each game's ranks in game
  order (shared places are ties). The rating reported is ``mu`` (the skill estimate, 25 at
  the start), with ``sigma`` beside it; openskill's ``ordinal`` (mu - 3·sigma) would mostly
  reflect how many games were played, which is the same for every bot in a tournament.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from itertools import combinations

Z95 = 1.959963984540054
"""The two-sided 95% quantile of the standard normal distribution."""

ELO_MEAN = 1500.0
ELO_SCALE = 400.0


def margin_of(scores: Sequence[int], seat: int) -> int:
    """``seat``'s final score less the best other seat's: above 0 means it won by that."""
    return scores[seat] - max(s for i, s in enumerate(scores) if i != seat)


def wilson_interval(wins: float, games: int, z: float = Z95) -> tuple[float, float]:
    """The Wilson score interval of a win rate; (0, 1) when nothing was played."""
    if games <= 0:
        return 0.0, 1.0
    rate = wins / games
    denominator = 1 + z * z / games
    centre = (rate + z * z / (2 * games)) / denominator
    half = z * math.sqrt(rate * (1 - rate) / games + z * z / (4 * games * games)) / denominator
    low = 0.0 if wins <= 0 else max(0.0, centre - half)
    return low, 1.0 if wins >= games else min(1.0, centre + half)


@dataclass(frozen=True)
class Pairwise:
    """One head-to-head result: ``a`` scored ``score`` (1 win, 0.5 tie, 0 loss) against ``b``."""

    a: str
    b: str
    score: float


def pairwise(seats: Sequence[str], ranks: Sequence[int]) -> list[Pairwise]:
    """One game as results between every two of its seats: the better placed wins (1), a
    shared place is a tie (0.5). Two players give one result; three give three, four six."""
    return [Pairwise(seats[a], seats[b],
                     1.0 if ranks[a] < ranks[b] else 0.5 if ranks[a] == ranks[b] else 0.0)
            for a, b in combinations(range(len(seats)), 2)]


def bradley_terry_elo(
    names: Sequence[str], results: Iterable[Pairwise], iterations: int = 10_000,
    tolerance: float = 1e-12,
) -> dict[str, float]:
    """Bradley-Terry strengths by the MM algorithm, on the Elo scale with mean 1500.

    A bot with no pairwise result (only self-play) gets the mean rating.
    """
    wins, meetings = _tally(results)
    met = [name for name in names if name in wins]
    strength = dict.fromkeys(met, 1.0)
    for _ in range(iterations):
        updated = _mm_step(strength, wins, meetings)
        change = max((abs(math.log(updated[n] / strength[n])) for n in met), default=0.0)
        strength = updated
        if change < tolerance:
            break
    logs = {n: ELO_SCALE * math.log10(strength[n]) for n in met}
    shift = ELO_MEAN - sum(logs.values()) / max(len(logs), 1)
    return {n: logs[n] + shift if n in logs else ELO_MEAN for n in names}


def _tally(
    results: Iterable[Pairwise],
) -> tuple[dict[str, float], dict[tuple[str, str], float]]:
    """Total wins per bot and games per unordered pair, with one virtual tie per pair."""
    wins: dict[str, float] = defaultdict(float)
    meetings: dict[tuple[str, str], float] = defaultdict(float)
    for result in results:
        if result.a == result.b:
            continue  # a bot against itself says nothing about its strength
        wins[result.a] += result.score
        wins[result.b] += 1 - result.score
        meetings[_pair(result.a, result.b)] += 1
    for a, b in meetings:
        wins[a] += 0.5
        wins[b] += 0.5
        meetings[a, b] += 1
    return wins, meetings


def _pair(a: str, b: str) -> tuple[str, str]:
    return (a, b) if a < b else (b, a)


def _mm_step(
    strength: dict[str, float], wins: dict[str, float], meetings: dict[tuple[str, str], float]
) -> dict[str, float]:
    """One MM update, g_i = W_i / sum_j n_ij / (g_i + g_j), normalised to geometric mean 1."""
    denominators: dict[str, float] = defaultdict(float)
    for (a, b), n in meetings.items():
        denominators[a] += n / (strength[a] + strength[b])
        denominators[b] += n / (strength[a] + strength[b])
    updated = {
        name: wins[name] / denominators[name] if denominators[name] else value
        for name, value in strength.items()
    }
    log_mean = sum(math.log(g) for g in updated.values()) / max(len(updated), 1)
    return {name: g / math.exp(log_mean) for name, g in updated.items()}


def rating_method(players: int) -> str:
    """What a ``rating`` means for this many players: Bradley-Terry for two, openskill for
    three or four (the module docstring says why)."""
    if players == 2:
        return "Bradley-Terry (MM), Elo scale, mean 1500"
    return "openskill Plackett-Luce mu (start 25)"


@dataclass(frozen=True)
class SkillRating:
    """An openskill rating: the skill estimate and its uncertainty."""

    mu: float
    sigma: float


def openskill_ratings(
    names: Sequence[str], games: Iterable[tuple[Sequence[str], Sequence[int]]]
) -> dict[str, SkillRating]:
    """Plackett-Luce ratings from games given as (bot per seat, rank per seat), in order.

    A bot seated twice at one table (fewer bots than seats) is rated per seat within the
    game, and its new rating is the mean of its seats' updated ratings.
    """
    from openskill.models import PlackettLuce  # noqa: PLC0415 - only 3-4 players need it

    model = PlackettLuce()
    ratings = {name: model.rating(name=name) for name in names}
    for seats, ranks in games:
        if len(set(seats)) < 2:
            continue  # a bot against itself says nothing about its strength
        teams = model.rate([[ratings[bot]] for bot in seats], ranks=list(ranks))
        for bot in dict.fromkeys(seats):
            mine = [team[0] for team, seat_bot in zip(teams, seats, strict=True) if seat_bot == bot]
            ratings[bot] = model.rating(
                mu=sum(r.mu for r in mine) / len(mine),
                sigma=sum(r.sigma for r in mine) / len(mine),
                name=bot,
            )
    return {name: SkillRating(r.mu, r.sigma) for name, r in ratings.items()}
