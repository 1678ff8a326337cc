"""The rule primitives the engine offers bots (``fits_row``, ``covers``, ``row_dues`` ...):
each agrees with the legal actions it is the rule of, and no code outside the engine reads
a tile's bits itself (docs/rules.md, "PLACE" and "SCORE"; issue 15, item 7)."""

from __future__ import annotations

import pickle
import re
from pathlib import Path
from random import Random

import pytest

import noreturn
from noreturn.engine import (
    DECLARE,
    PLAY,
    STATE_FIELDS,
    TILE_COLOUR,
    TILE_VALUE,
    Decision,
    Declare,
    Draw,
    GameState,
    Place,
    Rules,
    Score,
    colour_of,
    colour_sums,
    covers,
    fits_row,
    legal_actions,
    make_tile,
    make_tiles,
    payable_tail,
    placeable,
    placed_values,
    playout,
    row_due,
    row_dues,
    row_limit,
    tiles_value,
    to_action,
    to_decision,
    value_of,
)
from strategies import random_rules, sample_positions

SRC = Path(noreturn.__file__).parent


def _turns(seed: int, count: int = 40) -> list[GameState]:
    rules = random_rules(Random(seed))
    return [s for s in sample_positions(rules, seed, count, decisions_only=True)
            if s.stage == PLAY]


def test_a_row_takes_any_tile_when_empty_and_then_only_lower_or_equal() -> None:
    assert fits_row([], 1) and fits_row([], 11)
    assert fits_row([9, 7], 7) and fits_row([9, 7], 1)
    assert not fits_row([9, 7], 8)
    assert row_limit([9, 7]) == 7


@pytest.mark.parametrize("seed", range(8))
def test_placeable_is_exactly_the_tiles_a_one_tile_place_may_take(seed: int) -> None:
    for state in _turns(seed):
        seat = state.to_move
        if state.phases[seat] != 1:
            continue
        legal = {a.tiles for a in legal_actions(state) if isinstance(a, Place)}
        found = placeable(state.hands[seat], state.rows[seat])
        singles = {(t,) for tiles in found.values() for t in tiles}
        assert singles == {t for t in legal if len(t) == 1}
        for colour, tiles in found.items():
            assert {colour_of(t) for t in tiles} == {colour}
            assert all(fits_row(state.rows[seat][colour], value_of(t)) for t in tiles)


def test_a_payment_covers_a_due_when_it_is_at_least_the_due() -> None:
    assert covers(10, 10) and covers(11, 10) and not covers(9, 10)
    assert row_dues([9, 7, 2]) == [2, 9, 18]
    assert [row_due([9, 7, 2], k) for k in (1, 2, 3)] == [2, 9, 18]
    assert row_dues([]) == []


def test_the_payable_tail_is_the_longest_tail_a_payment_covers() -> None:
    assert payable_tail([9, 7, 2], 8) == (1, 2)
    assert payable_tail([9, 7, 2], 9) == (2, 9)  # exactly the due
    assert payable_tail([9, 7, 2], 40) == (3, 18)
    assert payable_tail([9, 7, 2], 1) == (0, 0)
    assert payable_tail([], 40) == (0, 0)
    for row in ([11, 9, 9, 4, 1], [6], [8, 8, 8]):
        for paid in range(0, 40):
            count = sum(covers(paid, due) for due in row_dues(row))
            assert payable_tail(row, paid) == (count, row_due(row, count) if count else 0)


def test_the_legal_scores_are_the_covering_one_colour_payments() -> None:
    checked = 0
    for state in (s for seed in range(12) for s in _turns(seed, 60)):
        seat = state.to_move
        if state.phases[seat] != 2:
            continue
        for action in legal_actions(state):
            if isinstance(action, Score):
                row = state.rows[seat][action.row]
                assert covers(tiles_value(action.pay), row_dues(row)[action.count - 1])
                checked += 1
        power = max(colour_sums(state.hands[seat]).values(), default=0)
        can_score = any(row and covers(power, row_dues(row)[0]) for row in state.rows[seat])
        assert can_score == any(isinstance(a, Score) for a in legal_actions(state))
    assert checked > 100


def test_tile_fields_and_their_tables_agree_for_every_tile() -> None:
    for colour in range(6):
        for value in range(1, 32):
            tile = make_tile(colour, value)
            assert (colour_of(tile), value_of(tile)) == (colour, value)
            assert (TILE_COLOUR[tile], TILE_VALUE[tile]) == (colour, value)
        assert make_tiles(colour, [9, 4]) == [make_tile(colour, 9), make_tile(colour, 4)]
    hand = [make_tile(2, 5), make_tile(0, 3), make_tile(2, 1)]
    assert colour_sums(hand) == {2: 6, 0: 3} and list(colour_sums(hand)) == [2, 0]
    assert tiles_value(hand) == 9


class _StopError(Exception):
    """Ends a playout where the test has seen what it needs."""


def test_a_declaration_in_a_playout_is_the_same_step_as_apply_declare() -> None:
    rng = Random(4)
    state = GameState(Rules(players=3), 1)
    while state.stage != PLAY or state.is_chance():
        state.apply(state.sample_draw(rng) if state.is_chance() else legal_actions(state)[0])
    by_apply = state.clone()
    by_apply.apply(Declare())
    after: list[GameState] = []

    def declare_then_look(now: GameState, _: Random) -> Decision:
        if after or now.phases[now.to_move] == 2:  # the same turn goes on after declaring
            after.append(now.clone())
            raise _StopError
        return (DECLARE, 0, 0, ())

    with pytest.raises(_StopError):
        playout(state.clone(), rng, declare_then_look)
    assert after == [by_apply]
    assert by_apply.phases[state.to_move] == 2 and by_apply.declared == state.declared + 1


BIT_READS = re.compile(r"&\s*31\b|>>\s*5\b|<<\s*5\b|VALUE_MASK|VALUE_BITS")


def test_no_code_outside_the_engine_reads_a_tiles_bits() -> None:
    """Tile fields are read through ``colour_of``/``value_of`` (or their tables), so the
    layout of a tile is the engine's business alone."""
    outside = [p for p in SRC.rglob("*.py") if "engine" not in p.relative_to(SRC).parts]
    assert len(outside) > 20
    found = [f"{p.relative_to(SRC)}:{n}: {line.strip()}"
             for p in outside for n, line in enumerate(p.read_text().splitlines(), 1)
             if BIT_READS.search(line)]
    assert found == []


def _midgame(players: int, seed: int) -> GameState:
    """A game some turns into play, moves and draws chosen at random."""
    rng = Random(seed)
    state = GameState(Rules(players=players), 0)
    while state.turns < 6 + seed % 5 and not state.is_over():
        state.apply(state.sample_draw(rng) if state.is_chance()
                    else rng.choice(legal_actions(state)))
    return state


@pytest.mark.parametrize("players", [2, 3, 4])
def test_a_clone_and_a_pickled_state_are_the_same_game_and_independent(players: int) -> None:
    """``clone`` and pickling (process pools send states) keep every field, and the copy
    shares no list with the original: playing on in one leaves the other as it was."""
    for seed in range(8):
        state = _midgame(players, seed)
        before = pickle.loads(pickle.dumps(state))
        for copy in (state.clone(), pickle.loads(pickle.dumps(state))):
            assert copy == state and copy.key() == state.key()
            assert [getattr(copy, f) for f in STATE_FIELDS] == \
                [getattr(state, f) for f in STATE_FIELDS]
            rng = Random(seed)
            while not copy.is_over():
                copy.apply(copy.sample_draw(rng) if copy.is_chance()
                           else rng.choice(legal_actions(copy)))
            assert state == before and state.key() == before.key()


def test_to_decision_is_to_action_backwards_for_every_legal_move() -> None:
    """A playout policy that decides by action values hands the playout the tuple of
    its action: every legal move (mulligans and passes too) comes back as itself."""
    seen = 0
    for seed in range(6):
        rules = random_rules(Random(seed))
        for state in sample_positions(rules, seed, 20, decisions_only=True):
            for action in legal_actions(state):
                assert to_action(to_decision(action)) == action
                seen += 1
    assert seen > 1000
    with pytest.raises(ValueError, match="draw"):
        to_decision(Draw(make_tile(0, 5)))


def test_placed_values_are_added_to_a_row_in_descending_order() -> None:
    """RULES: PLACE adds the chosen tiles to the end of the row in descending order; the
    state's placement and a study's reading of a move share ``placed_values``."""
    tiles = [make_tile(2, 3), make_tile(2, 9), make_tile(2, 5), make_tile(2, 5)]
    assert placed_values(tiles) == [9, 5, 5, 3]
    assert placed_values([]) == []
