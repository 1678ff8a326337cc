"""The OpenSpiel game ``python_no_return`` (``noreturn.rl.openspiel``).

OpenSpiel's own ``random_sim_test`` must pass (with serialization) for the published game
and small 3- and 4-player variants; beyond it: the sizes and bounds it declares hold, bad
parameters are refused with a clear message, observations are ``features``' and an
information state never shows a tile its seat may not see, resampling keeps the seat's
information state, and OpenSpiel's MCTS and ISMCTS bots play whole games.
"""

from __future__ import annotations

import copy
import pickle
import re
import subprocess
import sys
from pathlib import Path
from random import Random
from typing import Any

import pytest

pytest.importorskip("pyspiel", reason="OpenSpiel is not installed: pip install -e '.[openspiel]'")

import numpy as np
import pyspiel
from open_spiel.python.algorithms import ismcts, mcts
from open_spiel.python.observation import make_observation

from noreturn.engine import (
    Declare,
    Mulligan,
    NoReturnError,
    Place,
    Rules,
    RulesError,
    Score,
    decode_action,
    parse_action,
    parse_tile,
    view,
)
from noreturn.rl import features
from noreturn.rl.openspiel import (
    NoReturnState,
    max_chance_nodes,
    max_game_length,
    utility_bounds,
)
from noreturn.rl.openspiel_observer import SHORT_NAME

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "openspiel_ismcts.py"
SMALL = "colors=3,max_value=6,hand_size=5"
TINY = "colors=2,max_value=4,hand_size=3"


def load(params: str = "") -> Any:
    return pyspiel.load_game(f"{SHORT_NAME}({params})" if params else SHORT_NAME)


def step_random(state: Any, rng: Random) -> int:
    """Apply one random legal action (chance: by its probability); return it."""
    if state.is_chance_node():
        outcomes, probs = zip(*state.chance_outcomes(), strict=True)
        action = rng.choices(outcomes, probs)[0]
    else:
        action = rng.choice(state.legal_actions())
    state.apply_action(action)
    return int(action)


def random_states(game: Any, seed: int) -> Any:
    """Every state of one random game, the terminal one included."""
    rng = Random(seed)
    state = game.new_initial_state()
    yield state
    while not state.is_terminal():
        step_random(state, rng)
        yield state


def opened(game: Any, start: int = 0) -> Any:
    """A new game of ``game`` with seat ``start`` chosen to start (the first chance node)."""
    state = game.new_initial_state()
    assert state.choosing_start and state.is_chance_node()
    state.apply_action(start)
    return state


def draw(state: Any, *codes: str) -> None:
    """Apply chance outcomes drawing the tiles ``codes``, in order."""
    rules = state.engine.rules
    for code in codes:
        assert state.is_chance_node()
        state.apply_action(features.tile_index(rules, parse_tile(code)))


# ------------------------------------------------------------------- OpenSpiel's test
@pytest.mark.parametrize(("params", "sims"), [
    ("", 10),
    ("players=3,colors=3,max_value=6,hand_size=4", 20),
    ("players=4,colors=4,max_value=5,hand_size=4", 20),
])
def test_openspiel_random_sim_test_passes(params: str, sims: int) -> None:
    pyspiel.random_sim_test(load(params), num_sims=sims, serialize=True, verbose=False)


# ------------------------------------------------------------------- game and sizes
def test_default_game_declares_the_published_sizes() -> None:
    game = load()
    rules = Rules()
    assert game.rules == rules
    assert game.num_players() == 2
    assert game.num_distinct_actions() == features.player_action_count(rules) == 34_562
    assert game.max_chance_outcomes() == features.chance_outcome_count(rules) == 66
    assert (game.min_utility(), game.max_utility()) == (-792.0, 792.0)  # all tiles: 792
    assert game.utility_sum() == 0.0
    assert game.max_game_length() == 132 - 2 * 8 + 3 * 2 - 1
    assert game.max_chance_nodes_in_history() == 132 + 2 * 8 + 1  # + who starts
    assert game.observation_tensor_shape() == [features.observation_size(rules)] == [686]
    assert game.information_state_tensor_shape() == [686]
    kind = game.get_type()
    assert kind.chance_mode == pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC
    assert kind.information == pyspiel.GameType.Information.IMPERFECT_INFORMATION
    assert kind.utility == pyspiel.GameType.Utility.ZERO_SUM
    assert (kind.min_num_players, kind.max_num_players) == (2, 4)


def test_load_game_takes_every_rules_field_as_a_parameter() -> None:
    game = load("players=3,colors=3,max_value=5")
    assert game.rules == Rules(players=3, colors=3, max_value=5)
    assert game.num_players() == 3
    assert game.max_utility() == -game.min_utility() / 2  # 3+ players: at most P / 2
    full = pyspiel.load_game(SHORT_NAME, {"players": 4, "colors": 4, "max_value": 7,
                                          "copies": 3, "hand_size": 6, "exchange_limit": 2})
    assert full.rules == Rules(4, 4, 7, 3, 6, 2)
    assert full.num_distinct_actions() == features.player_action_count(full.rules)


@pytest.mark.parametrize(("params", "words"), [
    ("players=5", "players must be a whole number from 2 to 4"),
    ("colors=7", "colors must be a whole number from 1 to 6"),
    ("hand_size=0", "hand_size must be a whole number from 1 to 12"),
    ("colors=1,max_value=3,hand_size=8", "must hold more tiles than players x hand_size"),
])
def test_bad_parameters_are_refused_with_the_rule(params: str, words: str) -> None:
    with pytest.raises(RulesError, match=re.escape(words)) as info:
        load(params)
    assert SHORT_NAME in str(info.value)


def test_unknown_or_mistyped_parameter_is_refused_by_openspiel() -> None:
    with pytest.raises(pyspiel.SpielError, match=r"Unknown parameter 'foo'.*hand_size"):
        load("foo=1")
    with pytest.raises(pyspiel.SpielError, match=re.escape("hand_size. Expected type: kInt")):
        load("hand_size=2.5")


def test_the_starting_seat_is_chance_each_equally_likely() -> None:
    """docs/rules.md, "Setup", step 2: a starting player is chosen at random."""
    state = load("players=3," + SMALL).new_initial_state()
    assert state.current_player() == pyspiel.PlayerId.CHANCE and state.choosing_start
    assert state.chance_outcomes() == [(0, 1 / 3), (1, 1 / 3), (2, 1 / 3)]
    assert state.action_to_string(pyspiel.PlayerId.CHANCE, 2) == "p2 starts"
    with pytest.raises(NoReturnError, match=re.escape("starting seat 0..2")):
        state.apply_action(3)
    state.apply_action(2)
    assert state.engine.start == 2 and not state.choosing_start
    assert state.is_chance_node() and state.engine.to_move == 2  # seat 2 is dealt first


def test_seat_zero_chosen_to_start_is_dealt_first() -> None:
    state = opened(load(SMALL))
    assert state.current_player() == pyspiel.PlayerId.CHANCE
    assert state.engine.start == 0
    draw(state, *["R1", "R2", "R3", "O1", "O2"], *["Y1", "Y2", "Y3", "Y4", "Y5"])
    assert state.current_player() == 0  # the mulligan, seat 0 first
    assert sorted(state.engine.hands[1]) == sorted(parse_tile(f"Y{v}") for v in range(1, 6))


@pytest.mark.parametrize("params", [
    TINY, "colors=1,max_value=3,copies=3,hand_size=1", "players=4,colors=2,max_value=3,hand_size=1",
])
def test_declared_bounds_hold_in_random_games(params: str) -> None:
    game = load(params)
    rules = game.rules
    assert game.max_game_length() == max_game_length(rules)
    low, high = utility_bounds(rules)
    for seed in range(200):
        decisions = chances = 0
        rng = Random(seed)
        state = game.new_initial_state()
        while not state.is_terminal():
            chances += state.is_chance_node()
            decisions += not state.is_chance_node()
            step_random(state, rng)
        assert decisions <= game.max_game_length()
        assert chances <= max_chance_nodes(rules)
        assert len(state.history()) <= game.max_history_length()
        returns = state.returns()
        assert sum(returns) == pytest.approx(0.0)
        assert all(low <= r <= high for r in returns)


def stalling_action(state: Any, rng: Random) -> int:
    """A move that makes the game as long as it can: keep the hand, start one row with one
    tile, declare once a row stands (so the game cannot end early), never score, and
    otherwise exchange a single tile."""
    engine = state.engine
    has_row = any(engine.rows[engine.to_move])

    def cost(action_id: int) -> tuple[float, float]:
        move = decode_action(engine, action_id)
        tiles = len(getattr(move, "tiles", ()))
        if isinstance(move, Mulligan):
            return (tiles, 0.0)
        if isinstance(move, Declare):
            return (0.0 if has_row else 9.0, 0.0)
        if isinstance(move, Place) and not has_row and tiles == 1:
            return (1.0, 0.0)
        if isinstance(move, (Score, Place)):
            return (20.0, 0.0)
        return (2.0 + tiles, rng.random())

    return int(min(state.legal_actions(), key=cost))


@pytest.mark.parametrize(("params", "slack"), [
    ("colors=1,max_value=3,copies=3,hand_size=1", 0),  # the bound is met exactly
    ("", 1),
    ("players=3,colors=3,max_value=5,hand_size=4", 2),
])
def test_max_game_length_is_nearly_reached_by_stalling(params: str, slack: int) -> None:
    game = load(params)
    longest = 0
    for seed in range(5):
        rng = Random(seed)
        state = game.new_initial_state()
        decisions = 0
        while not state.is_terminal():
            if state.is_chance_node():
                step_random(state, rng)
            else:
                state.apply_action(stalling_action(state, rng))
                decisions += 1
        longest = max(longest, decisions)
    assert game.max_game_length() - slack <= longest <= game.max_game_length()


# ------------------------------------------------------------------- chance and actions
def test_chance_outcomes_are_tile_kinds_with_bag_probabilities() -> None:
    game = load(SMALL)
    for state in random_states(game, seed=1):
        if not state.is_chance_node() or state.choosing_start:
            continue
        outcomes = state.chance_outcomes()
        assert sum(p for _, p in outcomes) == pytest.approx(1.0)
        bag = state.engine.bag
        rules = state.engine.rules
        expected = sorted((features.tile_index(rules, t), bag.count(t) / len(bag))
                          for t in set(bag))
        assert [a for a, _ in outcomes] == [a for a, _ in expected]
        assert [p for _, p in outcomes] == pytest.approx([p for _, p in expected])
        assert state.legal_actions() == [a for a, _ in outcomes]


def test_action_strings_are_the_actions_text_form() -> None:
    game = load(SMALL)
    seen_kinds = set()
    for state in random_states(game, seed=2):
        if state.is_terminal():
            break
        player = state.current_player()
        for action in state.legal_actions():
            text = state.action_to_string(player, action)
            if state.choosing_start:
                assert re.fullmatch(r"p[01] starts", text)
                continue
            if state.is_chance_node():
                assert re.fullmatch(r"draw [ROY][1-6]", text)
                continue
            assert parse_action(text) == decode_action(state.engine, action)
            seen_kinds.add(text.split()[0])
    assert {"mulligan", "exchange", "place"} <= seen_kinds


def test_action_string_of_a_place_names_its_tiles() -> None:
    state = opened(load(SMALL))
    draw(state, "R6", "R4", "O1", "O2", "O3", *["Y1", "Y2", "Y3", "Y4", "Y5"])
    state.apply_action(2)  # seat 0 keeps its hand
    state.apply_action(2)  # seat 1 too
    texts = {state.action_to_string(0, a): a for a in state.legal_actions()}
    assert "place R6 R4" in texts
    assert "exchange O3 O2 O1" in texts
    assert state.action_to_string(pyspiel.PlayerId.CHANCE, 5) == "draw R6"


def test_illegal_action_raises_and_changes_nothing() -> None:
    state = opened(load(SMALL))
    draw(state, "R6", "R6", "O1", "O2", "O3", *["Y1", "Y2", "Y3", "Y4", "Y5"])
    before, history = str(state), state.history()
    with pytest.raises(NoReturnError, match="declare"):
        state.apply_action(1)  # declare during the mulligan
    with pytest.raises(NoReturnError, match="other copies of equal tiles; its id is 3"):
        state.apply_action(2 + 0b10)  # the second R6 where the first is meant
    with pytest.raises(NoReturnError, match="action id must be 0"):
        state.apply_action(10**6)
    assert (str(state), state.history()) == (before, history)
    chance = opened(load(SMALL))
    with pytest.raises(NoReturnError, match=re.escape("tile kind 0..17")):
        chance.apply_action(18)


# ------------------------------------------------------------------- observations
def test_tensors_are_the_features_of_the_seats_view() -> None:
    game = load("players=3," + SMALL)
    for state in random_states(game, seed=3):
        for seat in range(3):
            expected = features.observation_tensor(view(state.engine, seat))
            if state.table.opening:  # nobody to move yet
                features.clear_to_move(expected, game.rules)
            assert np.array_equal(state.observation_tensor(seat), expected)
            assert np.array_equal(state.information_state_tensor(seat), expected)


def hidden_twins() -> tuple[Any, Any]:
    """Two games that differ only in what seat 1 was dealt, exchanged and drew."""
    twins = []
    dealt: tuple[tuple[str, ...], ...] = (("O1", "O2", "O3", "O4", "O5"),
                                          ("Y1", "Y2", "Y3", "Y4", "Y5"))
    for other in dealt:
        state = opened(load(SMALL))
        draw(state, "R1", "R2", "R3", "R4", "R5", *other)
        state.apply_action(2)  # seat 0 keeps
        state.apply_action(2 + 0b11)  # seat 1 sets its two lowest tiles aside
        draw(state, "R6", "R6")
        state.apply_action(2 + (1 << 5) + 0b1)  # seat 0 exchanges R1
        draw(state, "Y6")
        state.apply_action(2 + (1 << 5) + 0b100)  # seat 1 exchanges its third tile
        draw(state, "O6" if other[0] == "Y1" else "Y1")
        twins.append(state)
    return twins[0], twins[1]


def test_information_state_hides_other_seats_tiles() -> None:
    a, b = hidden_twins()
    assert a.engine.hands[1] != b.engine.hands[1]
    assert a.current_player() == b.current_player() == 0
    assert a.information_state_string(0) == b.information_state_string(0)
    assert a.observation_string(0) == b.observation_string(0)
    assert np.array_equal(a.observation_tensor(0), b.observation_tensor(0))
    assert a.information_state_string(1) != b.information_state_string(1)  # control
    mine = a.information_state_string(0)
    assert "p0 was dealt R5 R4 R3 R2 R1" in mine and "p0 exchanged R1" in mine
    assert "p1 was dealt 5 tiles" in mine and "p1 set aside 2 tiles" in mine
    assert "p1 exchanged 1 tile" in mine and "O1" not in mine
    assert "p1 set aside O2 O1" in a.information_state_string(1)


def test_observers_of_public_or_private_information_only() -> None:
    a, b = hidden_twins()
    game = a.get_game()
    public = make_observation(game, pyspiel.IIGObservationType(
        public_info=True, perfect_recall=False, private_info=pyspiel.PrivateInfoType.NONE))
    for seat in (0, 1):
        public.set_from(a, seat)
        first = public.tensor.copy()
        public.set_from(b, seat)
        assert np.array_equal(first, public.tensor)  # nobody's private tiles in it
        assert not public.dict["own_tiles"][:3].any()
        assert public.string_from(a, seat) == public.string_from(b, seat)
    history = make_observation(game, pyspiel.IIGObservationType(
        public_info=True, perfect_recall=True, private_info=pyspiel.PrivateInfoType.NONE))
    assert history.string_from(a, 1) == history.string_from(b, 1)
    assert "p1 exchanged 1 tile" in history.string_from(a, 1)
    private = make_observation(game, pyspiel.IIGObservationType(
        public_info=False, perfect_recall=False,
        private_info=pyspiel.PrivateInfoType.SINGLE_PLAYER))
    private.set_from(a, 1)
    assert private.tensor.shape == (3 * 18,)
    assert private.tensor.sum() > 0
    assert private.string_from(a, 1).startswith("hand: ")
    nothing = make_observation(game, pyspiel.IIGObservationType(
        public_info=False, perfect_recall=False, private_info=pyspiel.PrivateInfoType.NONE))
    assert nothing.tensor is None
    assert nothing.string_from(a, 0) == ""
    with pytest.raises(ValueError, match="every player's private information"):
        make_observation(game, pyspiel.IIGObservationType(
            perfect_recall=False, private_info=pyspiel.PrivateInfoType.ALL_PLAYERS))
    with pytest.raises(ValueError, match="take no parameters"):
        game.make_py_observer(None, {"x": 1})


# ------------------------------------------------------------------- serialization
def test_serialization_and_pickle_round_trip_continue_the_same_game() -> None:
    game = load(SMALL)
    rng = Random(4)
    state = game.new_initial_state()
    for _ in range(40):
        step_random(state, rng)
    text = pyspiel.serialize_game_and_state(game, state)
    game2, state2 = pyspiel.deserialize_game_and_state(text)
    assert str(game2) == str(game)
    assert str(state2) == str(state)
    assert state2.history() == state.history()
    for seat in range(2):
        assert state2.information_state_string(seat) == state.information_state_string(seat)
    pickled = pickle.loads(pickle.dumps(state))
    assert isinstance(pickled, NoReturnState) and str(pickled) == str(state)
    for copied in (pickle.loads(pickle.dumps(game)), copy.deepcopy(game)):  # the game too
        assert copied.get_parameters() == game.get_parameters()
        assert str(copied.new_initial_state()) == str(game.new_initial_state())
    while not state.is_terminal():
        action = step_random(state, rng)
        state2.apply_action(action)
        assert str(state2) == str(state)
    assert state2.returns() == state.returns()


# ------------------------------------------------------------------- resampling
def test_resample_keeps_the_information_state_and_redeals_the_rest() -> None:
    game = load(SMALL)
    sampler = Random(5).random
    redealt = 0
    for state in random_states(game, seed=5):
        if state.is_chance_node() or state.is_terminal():
            continue
        for seat in range(2):
            other = state.resample_from_infostate(seat, sampler)
            assert isinstance(other, NoReturnState)
            assert other.current_player() == state.current_player()
            assert other.information_state_string(seat) == state.information_state_string(seat)
            assert other.information_state_tensor(seat) == state.information_state_tensor(seat)
            assert sorted(other.engine.hands[seat]) == sorted(state.engine.hands[seat])
            if seat == state.current_player():
                assert other.legal_actions() == state.legal_actions()
            redealt += sorted(other.engine.hands[1 - seat]) != sorted(state.engine.hands[1 - seat])
    assert redealt > 0


def test_resampled_state_names_only_imagined_tiles_for_the_others() -> None:
    a, _ = hidden_twins()
    other = a.resample_from_infostate(0, pyspiel.UniformProbabilitySampler(0.0, 1.0))
    theirs = other.information_state_string(1)
    assert "p1 set aside 2 tiles" in theirs  # its real set-aside tiles are unknown here
    assert "p1 imagined: hand: " in theirs
    hand = theirs.splitlines()[-1].split("hand: ")[1].split(";")[0]
    assert sorted(parse_tile(t) for t in hand.split()) == sorted(other.engine.hands[1])
    assert other.information_state_string(0) == a.information_state_string(0)


# ------------------------------------------------------------------- OpenSpiel's bots
def test_openspiel_mcts_bot_plays_whole_games() -> None:
    game = load(TINY)
    rs = np.random.RandomState(7)
    bot = mcts.MCTSBot(game, uct_c=2.0, max_simulations=20,
                       evaluator=mcts.RandomRolloutEvaluator(random_state=rs), random_state=rs)
    rng = Random(7)
    for _ in range(2):
        state = game.new_initial_state()
        while not state.is_terminal():
            if state.is_chance_node():
                step_random(state, rng)
            else:
                action = bot.step(state)
                assert action in state.legal_actions()
                state.apply_action(action)
        assert sum(state.returns()) == pytest.approx(0.0)


def test_openspiel_ismcts_bot_plays_a_whole_game() -> None:
    game = load(SMALL)
    rs = np.random.RandomState(8)
    bot = ismcts.ISMCTSBot(game, mcts.RandomRolloutEvaluator(random_state=rs), uct_c=10.0,
                           max_simulations=15, random_state=rs)
    rng = Random(8)
    state = game.new_initial_state()
    searched = 0
    while not state.is_terminal():
        if state.is_chance_node() or state.current_player() == 1:
            step_random(state, rng)
        else:
            action = bot.step(state)  # resamples with OpenSpiel's default sampler
            assert action in state.legal_actions()
            state.apply_action(action)
            searched += 1
    assert searched > 0
    assert sum(state.returns()) == pytest.approx(0.0)


def test_example_runs_and_reports_win_rates() -> None:
    done = subprocess.run(
        [sys.executable, str(EXAMPLE), "--games", "1", "--simulations", "3", "--seed", "2"],
        capture_output=True, text=True, timeout=120, check=False,
    )
    assert done.returncode == 0, done.stderr
    assert re.search(r"random\s.*\s2\s", done.stdout)
    assert "heuristic" in done.stdout and "95% interval" in done.stdout


def test_nobody_is_to_move_while_chance_chooses_who_starts() -> None:
    """The first chance node's observation named seat 0 to draw and set its "to move"
    entry, before chance had chosen who starts."""
    game = load(SMALL)
    state = game.new_initial_state()
    assert state.is_chance_node() and state.choosing_start
    text = state.observation_string(0)
    assert "choosing who starts" in text and "to draw" not in text
    lay = features.observation_layout(game.rules)
    tensor = np.array(state.observation_tensor(0))
    for rel in range(game.rules.players):
        assert tensor[lay.scalars_start + rel * features.SEAT_SCALARS + 1] == 0.0
    state.apply_action(1)  # seat 1 starts: it is to draw
    after = np.array(state.observation_tensor(0))
    assert after[lay.scalars_start + 1 * features.SEAT_SCALARS + 1] == 1.0
