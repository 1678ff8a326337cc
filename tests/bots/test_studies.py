"""The bots' studies in ``benchmarks/``: ``headroom.py`` (the plan and a search that knows its
rival is random, on the same deals), ``search_regret.py`` (``--beyond``: moves outside the
search's candidates; ``--near-switch``: positions near the switch; ``hands+`` and the other
partial truths a search may be given), ``hand_inference.py`` (the others' hands weighed by
their public histories), ``ranker_study.py`` (a move ranker learned from playout values),
``distill_study.py`` (a network that imitates hard's choices) and ``fingerprint.py`` (a
hash of fixed games' records, which speed work must leave alone), in tiny runs: they run,
and they print what they promise."""

from __future__ import annotations

import dataclasses
import importlib.util
import sys
from pathlib import Path
from random import Random
from types import ModuleType
from typing import Any

import pytest

from noreturn.bots import plan
from noreturn.bots.candidates import candidates, turn_candidates
from noreturn.bots.search import SearchBot
from noreturn.engine import (
    MULLIGAN,
    PLAY,
    Exchange,
    GameState,
    Rules,
    colour_sums,
    legal_actions,
    new_game,
    resolve_chance,
    sample_world,
    to_action,
    view,
)
from strategies import game_positions


def _study(name: str) -> ModuleType:
    path = Path(__file__).parents[2] / "benchmarks" / f"{name}.py"
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # a dataclass looks its module up there
    spec.loader.exec_module(module)
    return module


def test_headroom_plays_each_deal_by_the_plan_and_by_the_search(
        capsys: pytest.CaptureFixture[str]) -> None:
    headroom = _study("headroom")
    assert headroom.main(["--deals", "2", "--worlds", "1"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert [line.split(":")[0] for line in lines] == ["1 deals", "2 deals"]
    assert "plan " in lines[-1] and "search " in lines[-1] and "(SE " in lines[-1]
    rules = Rules(players=2)  # the plan's mean is the mean of its games on those deals
    plans = [headroom.play(rules, deal, 0) for deal in (0, 1)]
    assert f"plan {sum(plans) / 2:.1f}, search " in lines[-1]
    assert headroom.play(rules, 0, 0) == plans[0]  # a deal is the same each time played


def test_headroom_finishes_a_game_and_returns_the_seats_score() -> None:
    headroom = _study("headroom")
    state = new_game(Rules(players=3), Random(4))
    resolve_chance(state, Random(5))
    score = headroom.finish(state, Random(6), 1)
    assert state.is_over() and score == state.scores()[1]


def test_the_regret_study_judges_moves_beyond_the_candidates(
        capsys: pytest.CaptureFixture[str]) -> None:
    regret = _study("search_regret")
    assert regret.main(["--players", "2", "--positions", "2", "--beyond", "2",
                        "--playouts", "4"]) == 0
    line = capsys.readouterr().out.strip()
    assert line.startswith("2 positions: the best legal move gains ")
    assert "over the best candidate (SE " in line and "it is not a candidate at " in line


def test_the_regret_study_can_keep_to_positions_near_the_switch() -> None:
    regret = _study("search_regret")
    near = regret.positions(3, 6, 0, near=True)
    assert len(near) == 6 and all(plan.near_switch(state) for state in near)
    spread = regret.positions(3, 30, 0)  # without: phase 2 and the mulligan's aftermath too
    assert any(not plan.near_switch(state) for state in spread)


def test_the_ranker_study_labels_fits_and_plays(capsys: pytest.CaptureFixture[str]) -> None:
    study = _study("ranker_study")
    assert study.main(["--games", "6", "--worlds", "1", "--deals", "1", "--rounds", "2"]) == 0
    lines = capsys.readouterr().out.splitlines()
    rounds = [line for line in lines if line.startswith("round ")]
    assert [line.split(":")[0] for line in rounds] == ["round 1", "round 2"]
    assert all("points a decision over the plan's (SE " in line for line in rounds)
    learned = [int(line.split(": ")[1].split()[0]) for line in rounds]
    assert learned[1] > learned[0]  # the second round adds its positions to the first's
    assert len([line for line in lines if line.startswith("  ") and "games" not in line]) == len(
        study.NAMES)
    assert [line.split(":")[0] for line in lines if line.startswith("against ")] == [
        "against the plan", "against heuristic-v1", "against random"]


def test_the_rankers_features_read_only_what_the_seat_may_see() -> None:
    study = _study("ranker_study")
    state = new_game(Rules(players=3), Random(8))
    resolve_chance(state, Random(9))
    rng = Random(10)
    while state.stage != PLAY or state.turns < 9:  # a position some turns into the game
        if state.draws_due:
            resolve_chance(state, rng)
        else:
            state.apply(study.shipped(state, rng))
    seen = view(state, state.to_move)
    worlds = [sample_world(seen, Random(seed)) for seed in (1, 2)]
    assert worlds[0].hands != worlds[1].hands  # other hands differ between the worlds
    p = plan.params_for(3)
    for action in candidates(state, legal_actions(state)):
        first, second = (study.features(w, action, 10.0, p) for w in worlds)
        assert first == second == study.features(state, action, 10.0, p)
        assert len(first) == len(study.NAMES)


def test_the_ranker_keeps_the_plans_move_unless_another_scores_above_it() -> None:
    study = _study("ranker_study")
    weights = study.np.array([1.0, -1.0])
    assert study.pick([[0.0, 0.0], [1.0, 2.0], [0.0, 1.0]], weights) == 0
    assert study.pick([[0.0, 0.0], [1.0, 2.0], [2.0, 1.0]], weights) == 2


def test_the_regret_studys_partial_truths_keep_what_they_know_and_deal_the_rest() -> None:
    regret = _study("search_regret")
    state = regret.positions(4, 1, 0, near=True)[0]
    me = state.to_move
    for _ in range(4):  # every seat exchanges two tiles: the box holds others' tiles
        state.play(Exchange(tuple(sorted(state.hands[state.to_move][:2], reverse=True))))
        resolve_chance(state, Random(7))
    assert state.to_move == me and state.bag
    others = [s for s in range(4) if s != me]

    def hidden(world: GameState) -> list[int]:
        return sorted([t for s in others for t in world.hands[s] + world.exchanged[s]]
                      + world.bag)

    seen = view(state, me)
    moved = {"hands": 0, "bag": 0}
    for knows in moved:
        for k in range(5):
            world = regret.stand_in(knows, state, 0)(seen, Random(k))
            assert world.hands[me] == state.hands[me]  # the tiles are conserved
            assert hidden(world) == hidden(state)
            if knows == "hands":
                assert all(world.hands[s] == state.hands[s] for s in others)
                moved[knows] += sorted(world.bag) != sorted(state.bag)
            else:
                assert sorted(world.bag) == sorted(state.bag)
                moved[knows] += any(world.hands[s] != state.hands[s] for s in others)
    assert moved == {"hands": 5, "bag": 5}  # and the rest is dealt again
    power = regret.stand_in("power", state, 0)(seen, Random(1))

    def strongest(hand: list[int]) -> int:
        return max(colour_sums(hand).values())

    assert all(abs(strongest(power.hands[s]) - strongest(state.hands[s])) <= 2
               for s in others)
    fixed = regret.stand_in("fixed", state, 3)
    assert fixed(seen, Random(1)).hands == fixed(seen, Random(2)).hands


def test_the_regret_study_runs_a_search_that_knows_part_of_the_truth(
        capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    regret = _study("search_regret")
    assert regret.main(["--players", "2", "--positions", "2", "--playouts", "2",
                        "--near-switch", "--cache", str(tmp_path / "cache.json"),
                        "--bots", "search:iterations=4;hands+search:iterations=4"]) == 0
    lines = [line for line in capsys.readouterr().out.splitlines()
             if not line.startswith("  ") or "against the first" in line]
    assert lines[1].startswith("search:iterations=4: gain ")
    assert lines[2].startswith("hands+search:iterations=4: gain ")
    assert lines[3].startswith("  against the first: ")


def test_the_regret_study_splits_the_gains_by_kind_and_judges_mulligans(
        capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    regret = _study("search_regret")
    mulligans = regret.positions(3, 4, 0, mulligan=True)
    assert all(state.stage == MULLIGAN for state in mulligans)
    assert regret.main(["--players", "3", "--positions", "4", "--playouts", "2",
                        "--mulligan", "--cache", str(tmp_path / "cache.json"),
                        "--bots", "search:iterations=4"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[2].startswith("  mulligan: 4 positions, gain ") and len(lines) == 3
    spread = regret.positions(4, 40, 1)
    kinds = {regret.kind(state, to_action(plan.choose(state))) for state in spread}
    assert {"place in phase 1", "score in phase 2", "declaration"} <= kinds
    with pytest.raises(SystemExit):
        regret.main(["--near-switch", "--mulligan"])


def test_the_fingerprint_repeats_and_changes_with_a_decision(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """``fingerprint.py`` guards speed work: the same bots give the same hash, and a bot
    that pays otherwise gives another."""
    fingerprint = _study("fingerprint")
    first = fingerprint.fingerprint(2, [2])
    assert fingerprint.fingerprint(2, [2]) == first and len(first) == 64
    changed = dataclasses.replace(plan.PARAMS[2], dump_max=0)
    monkeypatch.setitem(plan.PARAMS, 2, changed)
    assert fingerprint.fingerprint(2, [2]) != first


def test_the_inference_study_rebuilds_a_true_history_without_a_misfit() -> None:
    """Walked backward with the draws as they came, the true hand gives back every decision
    the plan made: the rebuilding of past hands is right, so misfits measure the world."""
    study = _study("hand_inference")
    checked = 0
    for state, history in study.positions(4, 6, 0):
        assert plan.near_switch(state)
        for other in range(4):
            if other != state.to_move:
                wrong, decisions = study.misfits(history, other, state.hands[other],
                                                 state.exchanged[other], Random(1),
                                                 true_draws=True)
                assert wrong == 0
                checked += decisions
    assert checked > 6
    state, history = study.positions(4, 1, 0)[0]  # a wrong hand misfits somewhere
    other = (state.to_move + 1) % 4
    misfit = [study.misfits(history, other, sample_world(view(state, state.to_move),
                                                         Random(k)).hands[other],
                            state.exchanged[other], Random(k))[0] for k in range(20)]
    assert any(misfit)


def test_the_inference_study_prints_the_errors_of_each_way_of_weighing(
        capsys: pytest.CaptureFixture[str]) -> None:
    study = _study("hand_inference")
    assert study.main(["--players", "3", "--positions", "2", "--worlds", "3",
                       "--latents", "2"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == "2 positions:" and lines[1].startswith("4 other seats, ")
    ways = [line.split(":")[0].strip() for line in lines[2:]]
    assert ways == ["uniform worlds", *(f"weighed, eps {e:g}" for e in study.EPS)]
    assert all("power error " in line and "effective worlds " in line for line in lines[2:])


def test_the_regret_study_can_judge_against_rivals_the_search_does_not_model(
        tmp_path: Path) -> None:
    """``--rivals v1``: the plan's seat among frozen v1 rivals, whose moves the oracle plays
    as v1; ``model+`` lets a search's playouts play the rivals as they really play."""
    regret = _study("search_regret")
    states = regret.positions(3, 6, 0, rivals="v1")
    assert len(states) == 6
    games = regret.positions(3, 40, 0, rivals="v1")
    assert len({state.to_move for state in games}) > 1  # the plan's seat goes round
    policy = regret.seats(1, "v1")
    state = states[0]
    mover = state.to_move
    assert policy(state, Random(0)) == (plan.choose(state) if mover == 1
                                        else regret.policy_v1.choose(state))
    bot = SearchBot(iterations=4)
    rival = next(s for s in states if s.to_move != 1)  # a state where seat 1 is a rival
    assert bot.playout_policy(1)(rival, Random(0)) == plan.choose(rival)
    with regret.knowing("model", bot, rival, 0, "v1"):
        assert bot.playout_policy(1)(rival, Random(0)) == regret.policy_v1.choose(rival)
    own = next(s for s in states if s.to_move == 1)  # and one where seat 1 moves itself
    with regret.knowing("ownv1", bot, own, 0, "plan"):
        assert bot.playout_policy(1)(own, Random(0)) == regret.policy_v1.choose(own)
        assert bot.playout_policy(1)(rival, Random(0)) == plan.choose(rival)
    assert regret.main(["--players", "3", "--positions", "2", "--playouts", "2",
                        "--rivals", "v1", "--cache", str(tmp_path / "cache.json"),
                        "--bots", "model+search:iterations=4"]) == 0
    with pytest.raises(SystemExit):
        regret.main(["--rivals", "nobody"])


def test_the_hidden_ceiling_deals_the_truth_to_the_search_alone(
        capsys: pytest.CaptureFixture[str]) -> None:
    """``hidden_ceiling.py``: the cheat's worlds hold the true hands of the game as it
    stands (its bag shuffled), and each deal is played as shipped and with the truth."""
    study = _study("hidden_ceiling")
    state = new_game(Rules(players=3), Random(2))
    resolve_chance(state, Random(3))
    world = study.truth(state, Random(4))
    first = world(view(state, 0), Random(5))
    assert first.hands == state.hands and first.exchanged == state.exchanged
    assert sorted(first.bag) == sorted(state.bag) and first is not state
    state.play(legal_actions(state)[0])  # it follows the game: asked later, the later truth
    resolve_chance(state, Random(6))
    assert world(view(state, 1), Random(7)).hands == state.hands
    assert study.main(["--players", "2", "--deals", "2", "--first", "3", "--step", "2",
                       "--bot", "search:iterations=4", "--rivals", "greedy"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert [line.split(":")[0] for line in lines] == ["deal 3", "deal 5"]
    assert "as shipped, " in lines[1] and "with the true hands, difference " in lines[1]


def _collected(tmp_path: Path) -> tuple[ModuleType, Path]:
    """The distillation study and a tiny file of hard's choices (two three-player games)."""
    study = _study("distill_study")
    data = tmp_path / "d.npz"
    assert study.main(["collect", "--players", "3", "--games", "2", "--iterations", "4",
                       "--workers", "1", "--out", str(data)]) == 0
    return study, data


def test_the_distillation_study_keeps_hards_choice_among_the_candidates(
        tmp_path: Path) -> None:
    study, data = _collected(tmp_path)
    positions, chosen = study.load(str(data))
    assert len(positions) == len(chosen) > 4
    assert all(len(rows) > 1 and 0 <= c < len(rows) and rows.shape[1] == len(
        _study("ranker_study").NAMES) for rows, c in zip(positions, chosen, strict=True))


def test_the_distillation_study_trains_and_plays(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A network fitted with PyTorch (installed by hand, else skipped) plays whole games
    through its own reading of the saved weights."""
    pytest.importorskip("torch", reason="the study's training needs PyTorch: pip install torch")
    study, data = _collected(tmp_path)
    model = tmp_path / "m.npz"
    assert study.main(["train", str(data), "--out", str(model), "--epochs", "2"]) == 0
    assert study.main(["play", str(model), "--players", "3", "--deals", "1",
                       "--rivals", "plan,v1,medium,random"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert any(line.startswith("held out, ") for line in lines)
    assert [line.split(":")[0] for line in lines if line.startswith("against ")] == [
        "against the plan", "against heuristic-v1", "against medium", "against random"]
    assert study.main(["games", str(model), "--players", "3", "--deals", "1", "--time",
                       "0.02", "--turns", "1", "--lead"]) == 0
    last = capsys.readouterr().out.splitlines()[-1]
    assert last.startswith("deal 0: 1 deals, win share ") and "playouts a decision" in last


def test_the_distilled_network_scores_the_plans_choice_apart() -> None:
    """A candidate's inputs: its features, their difference from the plan choice's, and
    a flag that is set for the plan's choice alone."""
    study = _study("distill_study")
    rows = study.np.array([[1.0, 2.0], [3.0, 5.0]], dtype=study.np.float32)
    assert study.inputs(rows).tolist() == [[1.0, 2.0, 0.0, 0.0, 1.0],
                                           [3.0, 5.0, 2.0, 3.0, 0.0]]


@pytest.mark.parametrize("players", [2, 3, 4])
def test_the_learned_policy_describes_moves_as_the_played_copies_do(players: int) -> None:
    """``learned_policy.move_features`` reads a move's features off the move itself; they
    must be the ranker study's, which play the move on a copy (``distill_study collect``
    saves those for training), for every candidate of positions of plan and of random
    play."""
    fast, ranker = _study("learned_policy"), _study("ranker_study")
    seen = 0
    for state in _turns(players, 10 + players)[::2]:
        p = plan.params_for(players)
        left = plan.turns_left(state, p)
        shared = fast.table(state)
        for action in turn_candidates(state):
            assert fast.move_features(state, action, shared) == pytest.approx(
                ranker.features(state, action, left, p)), action
            seen += 1
    assert seen > 200


def _turns(players: int, seed: int) -> list[GameState]:
    """The turns (no mulligan) of a game of the plan and one of random play."""
    return [s for policy in ("builder", "mixed")
            for s in game_positions(Rules(players=players), seed, policy)
            if not s.is_chance() and not s.is_over() and s.stage != MULLIGAN]


def _network_on(feature: str, sign: float = 1.0) -> Any:
    """A network (``learned_policy.scorer``) whose score rises with one feature alone
    (``sign``: or falls)."""
    fast = _study("learned_policy")
    np = fast.np
    inputs = 2 * len(fast.FEATURES) + 1
    w0 = np.zeros((1, inputs), dtype=np.float32)
    w0[0, fast.FEATURES.index(feature)] = 0.01 * sign
    return fast.scorer({"mean": np.zeros(inputs, dtype=np.float32),
                        "scale": np.ones(inputs, dtype=np.float32), "w0": w0,
                        "b0": np.zeros(1, dtype=np.float32),
                        "w1": np.ones((1, 1), dtype=np.float32),
                        "b1": np.zeros(1, dtype=np.float32)})


def test_the_learned_policy_reads_the_network_as_trained() -> None:
    """Weights on "points scored" pick the candidate that scores most; negated, one
    that scores least."""
    fast = _study("learned_policy")
    most, least = _network_on("points scored"), _network_on("points scored", -1.0)
    checked = 0
    for state in _turns(3, 5):
        options = turn_candidates(state)
        if len(options) < 2:
            continue
        shared = fast.table(state)
        points = [fast.move_features(state, a, shared)[4] for a in options]
        assert points[options.index(fast.pick(state, most))] == max(points)
        assert points[options.index(fast.pick(state, least))] == min(points)
        checked += 1
    assert checked > 20


@pytest.mark.parametrize("players", [2, 3, 4])
def test_the_guided_searchs_playouts_play_only_legal_moves(players: int) -> None:
    """``distill_study.Guided``'s playout policy: the network for the searching seat (as
    a decision tuple), the plan for the others; its candidates lead with the network's."""
    study, fast = _study("distill_study"), _study("learned_policy")
    best = _network_on("row points")
    guided = study.Guided(fast.chooser(best), 99, True, 1.0, 2)
    for state in _turns(players, 7)[::3]:
        seat = state.to_move
        legal = legal_actions(state)
        guided.horizon = state.turns + 99
        for who in (seat, (seat + 1) % players):
            assert to_action(guided.playout_policy(who)(state, Random(1))) in legal
        assert guided.candidates(state, legal)[0] == fast.pick(state, best)
