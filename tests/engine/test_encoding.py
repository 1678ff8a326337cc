"""The dense action ids (``encoding.py``) and the text form, over thousands of positions.

Learning and search index actions by id, so an id must name one action, come back from
``decode_action`` as the same action, stay inside ``num_actions``, and follow the canonical
order of ``legal_actions``.
"""

from __future__ import annotations

from functools import lru_cache
from random import Random

import pytest

from noreturn.engine import (
    Draw,
    Exchange,
    GameState,
    NoReturnError,
    Place,
    Rules,
    Score,
    Stage,
    decode_action,
    encode_action,
    layout,
    legal_actions,
    make_tile,
    num_actions,
    parse_action,
)
from strategies import POLICIES, game_positions

VARIANTS = [
    Rules(),
    Rules(players=4),
    Rules(players=3, colors=3, max_value=5, copies=2, hand_size=4, exchange_limit=2),
    Rules(players=2, colors=1, max_value=7, copies=3, hand_size=6, exchange_limit=3),
    Rules(players=2, colors=6, max_value=2, copies=1, hand_size=5, exchange_limit=1),
    Rules(players=4, colors=2, max_value=4, copies=3, hand_size=2, exchange_limit=4),
]
GAMES = 24


@lru_cache(maxsize=16)
def decisions(rules: Rules, games: int, seed: int) -> tuple[GameState, ...]:
    """Every decision position (not chance, not over) of ``games`` random games (cached:
    two tests share them; none changes them)."""
    out: list[GameState] = []
    for game in range(games):
        out += [p for p in game_positions(rules, seed + game, POLICIES[game % len(POLICIES)])
                if not p.is_chance() and not p.is_over()]
    return tuple(out)


def seed_of(rules: Rules) -> int:
    """A fixed seed per variant."""
    return VARIANTS.index(rules) * 1000


def test_default_game_has_34628_ids() -> None:
    """The figure the encoding docstring documents for the published game."""
    assert num_actions(Rules()) == 34_628


def test_layout_blocks_tile_the_id_space() -> None:
    for rules in VARIANTS:
        lay = layout(rules)
        masks = 1 << rules.hand_size
        assert (lay.mulligan, lay.exchange, lay.place, lay.score) == (
            2, 2 + masks, 2 + 2 * masks, 2 + 3 * masks)
        assert lay.draw - lay.score == rules.colors * rules.max_row_length * masks
        assert lay.size - lay.draw == len(rules.kinds()) == num_actions(rules) - lay.draw


@pytest.mark.parametrize("rules", VARIANTS, ids=str)
def test_legal_actions_round_trip_through_ids(rules: Rules) -> None:
    size = num_actions(rules)
    states = decisions(rules, GAMES, seed_of(rules))
    assert len(states) >= 100
    for state in states:
        actions = legal_actions(state)
        ids = [encode_action(state, a) for a in actions]
        assert all(0 <= i < size for i in ids)
        assert ids == sorted(ids) and len(set(ids)) == len(ids), "ids not unique and ascending"
        for action, action_id in zip(actions, ids, strict=True):
            assert decode_action(state, action_id) == action


def test_thousands_of_positions_are_covered() -> None:
    """The round trip above runs over thousands of decision positions in all."""
    total = sum(len(decisions(r, GAMES, seed_of(r))) for r in VARIANTS)
    assert total >= 2000


@pytest.mark.parametrize("rules", VARIANTS, ids=str)
def test_draw_ids_round_trip(rules: Rules) -> None:
    state = game_positions(rules, 1)[0]
    lay = layout(rules)
    ids = [encode_action(state, Draw(t)) for t in rules.kinds()]
    assert ids == list(range(lay.draw, lay.size)), "one id per tile kind, in tile order"
    for tile, action_id in zip(rules.kinds(), ids, strict=True):
        assert decode_action(state, action_id) == Draw(tile)
    assert [encode_action(state, a) for a in legal_actions(state)] == sorted(
        encode_action(state, Draw(t)) for t in set(state.bag))


@pytest.mark.parametrize("bad", [-1, "size", "size+1", 10**9, 1.0, "3", None, True])
def test_decode_refuses_ids_out_of_range(bad: object) -> None:
    rules = Rules(players=2, colors=2, max_value=3, copies=2, hand_size=3)
    state = decisions(rules, 1, 0)[0]
    size = num_actions(rules)
    action_id = {"size": size, "size+1": size + 1}.get(bad, bad)  # type: ignore[call-overload]
    with pytest.raises(NoReturnError, match=rf"action id must be 0\.\.{size - 1}"):
        decode_action(state, action_id)


def test_decode_refuses_empty_hand_positions() -> None:
    """A mask naming a position past the hand is refused. Play never reaches a decision with
    a short hand (the round ends before), so the hand is cut by hand."""
    rules = Rules(players=2, colors=2, max_value=3, copies=2, hand_size=4)
    short = decisions(rules, 1, 0)[0].clone()
    del short.hands[short.to_move][-2:]
    lay = layout(rules)
    beyond = 1 << len(short.hands[short.to_move])
    for base in (lay.mulligan, lay.exchange, lay.place, lay.score):
        with pytest.raises(NoReturnError, match="beyond"):
            decode_action(short, base + beyond)


def test_encode_refuses_tiles_not_held() -> None:
    rules = Rules(players=2, colors=3, max_value=4, copies=1, hand_size=3)
    state = decisions(rules, 1, 0)[0]
    hand = state.hands[state.to_move]
    stranger = next(t for t in rules.kinds() if t not in hand)
    for action in (Exchange((stranger,)), Place((hand[0], hand[0], hand[0], hand[0])),
                   Score(0, 1, (stranger,))):
        with pytest.raises(NoReturnError, match="does not hold"):
            encode_action(state, action)


@pytest.mark.parametrize("rules", VARIANTS[2:], ids=str)
def test_every_id_decodes_to_a_canonical_id(rules: Rules) -> None:
    """Decoding any id gives an action or a clear error; an action decoded from a
    non-canonical mask (the second of two equal tiles) encodes to the canonical id, which
    decodes to the same action."""
    rng = Random(3)
    size = num_actions(rules)
    for state in rng.sample(decisions(rules, GAMES, seed_of(rules)), 10):
        decoded = 0
        for action_id in range(size):
            try:
                action = decode_action(state, action_id)
            except NoReturnError as error:
                assert "beyond" in str(error)
                continue
            decoded += 1
            canonical = encode_action(state, action)
            assert canonical <= action_id
            assert decode_action(state, canonical) == action
        assert decoded > size // 4


@pytest.mark.parametrize("rules", VARIANTS[:3], ids=str)
def test_text_form_round_trips(rules: Rules) -> None:
    """Every legal action, draws included, reads back from its text and its repr."""
    positions = game_positions(rules, 11, "mixed")[:: 3]
    for state in positions:
        for action in legal_actions(state):
            assert parse_action(str(action)) == action
            assert eval(repr(action), {"parse_action": parse_action}) == action


def test_equal_tiles_share_one_id() -> None:
    """Two equal tiles in hand are one choice, so one id, whichever copy is meant."""
    rules = Rules(players=2, colors=1, max_value=3, copies=3, hand_size=3)
    state = GameState(rules, 0)
    state.hands[0] = [make_tile(0, 2), make_tile(0, 2), make_tile(0, 1)]
    state.draws_due, state.stage = 0, Stage.PLAY
    exchanges = [a for a in legal_actions(state) if isinstance(a, Exchange)]
    assert sorted(map(str, exchanges)) == sorted([
        "exchange R1", "exchange R2", "exchange R2 R1", "exchange R2 R2",
        "exchange R2 R2 R1"])
    assert len({encode_action(state, a) for a in exchanges}) == 5


@pytest.mark.parametrize("rules", VARIANTS[:3], ids=str)
def test_an_id_is_read_against_any_seats_hand_without_changing_the_state(rules: Rules) -> None:
    """OpenSpiel asks for every player's action strings; ``seat`` reads an id against that
    seat's hand, as if it were to move, and leaves the state as it was."""
    for state in decisions(rules, 2, seed_of(rules))[::7]:
        before = state.clone()
        for seat in range(rules.players):
            as_if = state.clone()
            as_if.to_move = seat  # a test may build states by hand
            for action in legal_actions(as_if)[:40]:
                action_id = encode_action(as_if, action)
                assert decode_action(state, action_id, seat) == decode_action(as_if, action_id)
        assert state == before
    with pytest.raises(NoReturnError, match="seat must be"):
        decode_action(state, 2, rules.players)
