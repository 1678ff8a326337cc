"""The search's own later moves chosen by a tree (``search:tree=D``, ``bots/tree.py``):
moves known by what they do, a bandit that learns the later move that pays, legal play,
the same decisions for the same seed."""

from __future__ import annotations

from random import Random

import pytest

from noreturn.bots import BotError, Deck, make_bot, plan, play_game
from noreturn.bots.candidates import turn_candidates
from noreturn.bots.search import SearchBot
from noreturn.bots.tree import TreePolicy, move_key
from noreturn.engine import (
    PLAY,
    Declare,
    Exchange,
    GameState,
    Place,
    Rules,
    Score,
    legal_actions,
    new_game,
    parse_tile,
    to_action,
    to_decision,
    view,
)
from noreturn.records import check_record


def _tiles(*codes: str) -> tuple[int, ...]:
    return tuple(parse_tile(code) for code in codes)


def _positions(players: int, seeds: range) -> list[GameState]:
    """Positions of the plan's self-play where the seat to move has several candidates."""
    found: list[GameState] = []
    for seed in seeds:
        rng = Random(seed)
        state = new_game(Rules(players=players), rng)
        while not state.is_over():
            if state.is_chance():
                state.apply(state.sample_draw(rng))
                continue
            if state.stage == PLAY and len(turn_candidates(state)) >= 3:
                found.append(state.clone())
            state.apply(to_action(plan.choose(state)))
    return found


def test_a_later_move_is_known_by_what_it_does_not_by_its_tiles() -> None:
    """The hands differ from world to world: the tree's moves are the same in each."""
    assert move_key(Place(_tiles("R11", "R9"))) == move_key(Place(_tiles("R8", "R2")))
    assert move_key(Place(_tiles("R11", "R9"))) != move_key(Place(_tiles("R11")))
    assert move_key(Place(_tiles("R11"))) != move_key(Place(_tiles("B11")))
    assert move_key(Score(0, 2, _tiles("B7", "B5"))) == move_key(Score(0, 2, _tiles("B9", "B1")))
    assert move_key(Score(0, 2, _tiles("B7", "B5"))) != move_key(Score(0, 2, _tiles("G9", "G1")))
    assert move_key(Score(0, 2, _tiles("B7"))) != move_key(Score(1, 2, _tiles("B7")))
    assert move_key(Exchange(_tiles("R1", "B2"))) == move_key(Exchange(_tiles("G3", "P3")))
    assert len({move_key(Declare()), move_key(Exchange(_tiles("R1"))),
                move_key(Place(_tiles("R1")))}) == 3


def test_the_tree_tries_the_plan_first_then_every_move_then_the_one_that_pays() -> None:
    state = _positions(2, range(1))[5]
    moves = turn_candidates(state)
    policy = TreePolicy(state.to_move, depth=1)
    tried = []
    for _ in moves:
        tried.append(policy(state, Random(0)))
        policy.backup(0.0)
    assert tried[0] == to_decision(moves[0]) == plan.choose(state)  # the plan's move first
    assert sorted(tried) == sorted(to_decision(move) for move in moves)  # each once
    paying = to_decision(moves[-1])
    picks = []
    for _ in range(60):
        picks.append(policy(state, Random(0)))
        policy.backup(1.0 if picks[-1] == paying else 0.0)
    assert picks[-20:].count(paying) >= 15
    node = policy.root.children[move_key(moves[-1])].node
    assert node.visits == picks.count(paying) + 1 and node.total == picks.count(paying)


def test_beyond_its_depth_and_for_the_other_seats_the_plan_plays() -> None:
    state = _positions(2, range(1))[5]
    other = TreePolicy(1 - state.to_move, depth=2)
    assert other(state, Random(0)) == plan.choose(state)
    done = TreePolicy(state.to_move, depth=0)
    assert done(state, Random(0)) == plan.choose(state)
    assert not done.root.children


@pytest.mark.parametrize("players", [2, 3, 4])
def test_a_search_with_a_tree_plays_only_legal_actions(players: int) -> None:
    rules = Rules(players=players)
    for deal in range(2):
        bots = [make_bot("search:iterations=6,tree=2")] + [make_bot("plan")] * (players - 1)
        result = play_game(rules, bots, Deck(rules, deal), seed=deal, keep_record=True)
        assert result.forfeits == []
        assert result.record is not None and check_record(result.record).valid


def test_the_same_seed_gives_the_same_decisions_with_a_tree() -> None:
    bot = SearchBot(iterations=24, tree=1)
    for state in _positions(3, range(1))[:12:3]:
        seen, legal = view(state, state.to_move), legal_actions(state)
        assert bot.act(seen, legal, Random(7)) == bot.act(seen, legal, Random(7))


@pytest.mark.parametrize("option", ["tree=5", "tree=-1", "tree=one"])
def test_a_tree_is_at_most_four_decisions_deep(option: str) -> None:
    with pytest.raises(BotError, match="tree"):
        make_bot(f"search:{option}")
