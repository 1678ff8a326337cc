"""Tournament statistics: the Wilson interval, Bradley-Terry ratings, openskill ratings."""

from __future__ import annotations

import math

import pytest

from noreturn.sim.stats import (
    Pairwise,
    bradley_terry_elo,
    openskill_ratings,
    pairwise,
    wilson_interval,
)


@pytest.mark.parametrize(
    ("wins", "games", "low", "high"),
    [
        (5, 10, 0.2366, 0.7634),  # textbook value, symmetric around one half
        (0, 10, 0.0, 0.2775),  # upper bound z²/(n + z²)
        (10, 10, 0.7225, 1.0),
        (1, 10, 0.0179, 0.4042),
        (81, 263, 0.2553, 0.3662),
    ],
)
def test_wilson_interval_matches_known_values(wins: int, games: int, low: float,
                                              high: float) -> None:
    got_low, got_high = wilson_interval(wins, games)
    assert got_low == pytest.approx(low, abs=5e-5)
    assert got_high == pytest.approx(high, abs=5e-5)


def test_wilson_interval_narrows_with_more_games_and_holds_the_rate() -> None:
    widths = []
    for games in (10, 100, 1000):
        low, high = wilson_interval(0.3 * games, games)
        assert low < 0.3 < high
        widths.append(high - low)
    assert widths == sorted(widths, reverse=True)
    assert wilson_interval(0, 0) == (0.0, 1.0)


def _results(a: str, b: str, wins: int, ties: int, losses: int) -> list[Pairwise]:
    return ([Pairwise(a, b, 1.0)] * wins + [Pairwise(a, b, 0.5)] * ties
            + [Pairwise(b, a, 1.0)] * losses)


def test_bradley_terry_orders_bots_by_strength() -> None:
    results = (_results("strong", "middle", 70, 0, 30) + _results("middle", "weak", 70, 0, 30)
               + _results("strong", "weak", 85, 0, 15))
    ratings = bradley_terry_elo(["weak", "middle", "strong"], results)
    assert ratings["strong"] > ratings["middle"] > ratings["weak"]
    assert sum(ratings.values()) / 3 == pytest.approx(1500)


def test_bradley_terry_two_bots_is_the_odds_ratio_on_the_elo_scale() -> None:
    ratings = bradley_terry_elo(["a", "b"], _results("a", "b", 70, 10, 20))
    # 75 wins against 25 (ties half), plus the prior's virtual tie: odds 75.5 / 25.5
    assert ratings["a"] - ratings["b"] == pytest.approx(400 * math.log10(75.5 / 25.5), abs=1e-6)
    assert ratings["a"] + ratings["b"] == pytest.approx(3000)


def test_bradley_terry_equal_records_give_equal_ratings() -> None:
    results = (_results("a", "b", 40, 20, 40) + _results("b", "c", 30, 0, 30)
               + _results("c", "a", 25, 10, 25))
    ratings = bradley_terry_elo(["a", "b", "c"], results)
    for name in "abc":
        assert ratings[name] == pytest.approx(1500, abs=1e-6)


def test_bradley_terry_keeps_an_undefeated_bot_finite_and_ignores_self_play() -> None:
    results = _results("perfect", "hopeless", 50, 0, 0) + [Pairwise("alone", "alone", 1.0)] * 9
    ratings = bradley_terry_elo(["perfect", "hopeless", "alone"], results)
    assert all(math.isfinite(r) for r in ratings.values())
    assert ratings["perfect"] - ratings["hopeless"] > 600
    assert ratings["alone"] == pytest.approx(1500, abs=1e-6)


def test_openskill_ranks_a_dominant_bot_first() -> None:
    games = [(("a", "b", "c"), (3, 1, 2)), (("b", "c", "a"), (1, 2, 3)),
             (("c", "a", "b"), (2, 3, 1))] * 10
    ratings = openskill_ratings(["a", "b", "c"], games)
    assert ratings["b"].mu > ratings["c"].mu > ratings["a"].mu
    assert ratings["b"].sigma < 25 / 3  # it learnt something


def test_openskill_with_a_bot_in_two_seats_and_ties() -> None:
    games = [(("x", "y", "x", "y"), (1, 3, 1, 3))] * 8 + [(("x", "x", "x", "x"), (1, 1, 1, 1))]
    ratings = openskill_ratings(["x", "y"], games)
    assert ratings["x"].mu > 25 > ratings["y"].mu
    even = openskill_ratings(["x", "y"], [(("x", "y", "x"), (1, 1, 1))] * 5)
    assert even["x"].mu == pytest.approx(even["y"].mu, abs=1e-9)


def test_a_game_is_a_result_between_every_two_seats() -> None:
    assert pairwise(["a", "b"], [2, 1]) == [Pairwise("a", "b", 0.0)]
    assert pairwise(["a", "b", "c"], [1, 1, 3]) == [
        Pairwise("a", "b", 0.5), Pairwise("a", "c", 1.0), Pairwise("b", "c", 1.0)]
    assert len(pairwise(["a", "b", "c", "d"], [4, 3, 2, 1])) == 6
