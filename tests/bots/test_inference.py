"""The hand model (bots/inference.py) and the leaning deal it gives ``sample_world``."""

from __future__ import annotations

from collections import Counter
from random import Random

import pytest

from noreturn.bots import make_bot, plan
from noreturn.bots.inference import (
    ABOVE,
    FITS,
    NO_ROW,
    PHASE1_WEIGHTS,
    hand_weights,
    rival_weights,
    tile_class,
    value_band,
)
from noreturn.engine import (
    PLAY,
    TILE_LIMIT,
    GameState,
    Rules,
    RulesError,
    make_tile,
    new_game,
    row_limit,
    sample_world,
    to_action,
    view,
)
from strategies import hidden_from, tile_places


def plan_positions(players: int, games: int, seed: int) -> list[GameState]:
    """Positions of the plan's own games (its policy at every seat), every third turn."""
    rng = Random(seed)
    found: list[GameState] = []
    for _ in range(games):
        state = new_game(Rules(players=players), rng)
        while not state.is_over():
            if state.is_chance():
                state.apply(state.sample_draw(rng))
            else:
                if state.stage == PLAY and state.turns % 3 == 0:
                    found.append(state.clone())
                state.play(to_action(plan.choose(state, rng)))
    return found


@pytest.fixture(scope="module")
def positions() -> dict[int, list[GameState]]:
    return {players: plan_positions(players, 3, players) for players in (2, 3, 4)}


def test_value_bands_split_the_standard_values_four_four_three() -> None:
    assert [value_band(v, 11) for v in range(1, 12)] == [0] * 4 + [1] * 4 + [2] * 3
    assert [value_band(v, 6) for v in range(1, 7)] == [0, 0, 1, 1, 2, 2]


def test_a_tile_is_classed_by_the_row_of_its_colour() -> None:
    rows = ((9, 7), (), (), (), (), ())  # red down to 7, nothing else
    assert row_limit(rows[0]) == 7
    assert tile_class(make_tile(0, 7), rows) == FITS  # equal fits (each value twice)
    assert tile_class(make_tile(0, 3), rows) == FITS
    assert tile_class(make_tile(0, 8), rows) == ABOVE
    assert tile_class(make_tile(1, 11), rows) == NO_ROW


@pytest.mark.parametrize("players", [2, 3, 4])
def test_leaning_worlds_agree_with_the_view_and_conserve_every_tile(
        players: int, positions: dict[int, list[GameState]]) -> None:
    rng = Random(players)
    for state in positions[players][::4]:
        for seat in range(players):
            seen = view(state, seat)
            leaning = hand_weights(seen)
            sample = sample_world(seen, rng, leaning)
            assert view(sample, seat) == seen
            assert tile_places(sample) == Counter(state.rules.all_tiles())
            assert sorted(hidden_from(sample, seat).elements()) == sorted(
                seen.unseen().elements())


def test_only_hands_still_building_lean() -> None:
    state = next(s for s in plan_positions(2, 4, 11)
                 if s.phases[1 - s.to_move] == 2 and s.phases[s.to_move] == 1)
    seen, other = view(state, state.to_move), view(state, 1 - state.to_move)
    assert rival_weights(seen, 1 - state.to_move, seen.unseen()) is None
    assert hand_weights(seen) == {}
    assert rival_weights(other, state.to_move, other.unseen()) is not None


def test_the_mulligan_is_dealt_uniformly() -> None:
    """The model was measured in play; at the mulligan every hand is as the bag gives."""
    state = new_game(Rules(players=3), Random(4))
    while state.is_chance():
        state.apply(state.sample_draw(Random(5)))
    assert state.stage != PLAY
    assert hand_weights(view(state, state.to_move)) == {}


def test_a_heavy_weight_draws_its_tiles_into_that_hand() -> None:
    state = plan_positions(2, 1, 3)[2]
    seat, rival = state.to_move, 1 - state.to_move
    seen = view(state, seat)
    target = sorted(seen.unseen())[:4]
    weights = [1.0] * TILE_LIMIT
    for tile in target:
        weights[tile] = 1000.0
    rng = Random(1)
    uniform = sum(len(set(target) & set(sample_world(seen, rng).hands[rival]))
                  for _ in range(50))
    leaned = sum(len(set(target) & set(sample_world(seen, rng, {rival: weights}).hands[rival]))
                 for _ in range(50))
    assert leaned >= 0.9 * 50 * len(target) > 3 * uniform


def test_a_weight_that_is_not_positive_is_refused() -> None:
    state = plan_positions(2, 1, 3)[2]
    seen = view(state, state.to_move)
    weights = [1.0] * TILE_LIMIT
    weights[next(iter(seen.unseen()))] = 0.0
    with pytest.raises(RulesError, match="not positive"):
        sample_world(seen, Random(0), {1 - state.to_move: weights})


@pytest.mark.parametrize("players", [2, 3, 4])
def test_the_model_deals_building_rivals_closer_to_their_true_hands(
        players: int, positions: dict[int, list[GameState]]) -> None:
    """The model's claim, on games it was not measured on: a phase-1 rival's true hand
    holds fewer tiles that fit its rows than a uniform deal gives it, and the leaning deal
    comes nearer the truth."""
    rng = Random(7)
    true = uniform = leaned = 0
    for state in positions[players]:
        seat = state.to_move
        seen = view(state, seat)
        leaning = hand_weights(seen)
        for rival in leaning:
            rows = state.rows[rival]

            def fitting(hand: list[int], rows: list[list[int]] = rows) -> int:
                return sum(tile_class(t, rows) == FITS for t in hand)

            true += fitting(state.hands[rival])
            uniform += fitting(sample_world(seen, rng).hands[rival])
            leaned += fitting(sample_world(seen, rng, leaning).hands[rival])
    assert true < uniform and abs(leaned - true) < abs(uniform - true), (true, uniform, leaned)


def test_weights_are_measured_for_every_table_size() -> None:
    assert sorted(PHASE1_WEIGHTS) == [2, 3, 4]
    assert all(w > 0 for table in PHASE1_WEIGHTS.values() for cls in table for w in cls)


def test_the_search_leans_its_deals_only_when_asked() -> None:
    from noreturn.bots.search import SearchBot  # noqa: PLC0415 - the one test of the option

    leaning, plain = make_bot("search:iterations=8,infer=1"), make_bot("search:iterations=8")
    assert isinstance(leaning, SearchBot) and isinstance(plain, SearchBot)
    assert leaning.infer and not plain.infer
    for level in ("hard", "expert"):
        bot = make_bot(level)
        assert isinstance(bot, SearchBot) and not bot.infer, level
