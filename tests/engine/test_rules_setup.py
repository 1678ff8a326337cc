"""docs/rules.md, "Components", "Setup" and "Size parameters": one test per rule."""

from __future__ import annotations

from collections import Counter
from math import prod
from random import Random

import pytest
from scenario import DEFAULT, HANDS_2P, SIMPLE_HANDS, TINY, deal, refused, run, scenario, tiles

from noreturn.engine import (
    COLOUR_LETTERS,
    COLOUR_NAMES,
    DEAL,
    MULLIGAN,
    PLAY,
    Draw,
    Exchange,
    GameState,
    Mulligan,
    Place,
    Rules,
    RulesError,
    colour_of,
    legal_actions,
    make_tile,
    new_game,
    parse_tile,
    tile_code,
    tiles_text,
    value_of,
)

ONE_IN_BAG = Rules(players=2, colors=1, max_value=9, copies=1, hand_size=4)
"""R1..R9: after the deal the bag holds a single tile."""


# ------------------------------------------------------------------------- components
def test_components_132_tiles_six_colours_values_1_to_11_two_copies() -> None:
    tile_set = DEFAULT.all_tiles()
    assert len(tile_set) == DEFAULT.tile_count == 132
    counts = Counter(tile_set)
    assert len(counts) == 6 * 11 and set(counts.values()) == {2}
    assert {colour_of(t) for t in tile_set} == set(range(6))
    assert {value_of(t) for t in tile_set} == set(range(1, 12))


def test_decided_colour_order_and_letters_red_orange_yellow_green_blue_purple() -> None:
    assert COLOUR_LETTERS == "ROYGBP"
    assert COLOUR_NAMES == ("red", "orange", "yellow", "green", "blue", "purple")
    assert [tile_code(make_tile(c, 1)) for c in range(6)] == ["R1", "O1", "Y1", "G1", "B1", "P1"]
    # Rows are indexed in the same order: a red place lands in row 0, a purple one in row 5.
    state = scenario(["R1 R2 R3 R4 R5 R6 R7 P8", HANDS_2P[1]], actions=["place P8"])
    assert state.rows[0][5] == [8] and not any(state.rows[0][:5])


def test_tile_is_written_colour_letter_then_value() -> None:
    assert tile_code(make_tile(0, 11)) == "R11"
    assert tile_code(make_tile(4, 3)) == "B3"
    assert parse_tile("R11") == make_tile(0, 11)
    assert parse_tile("B3") == make_tile(4, 3)
    assert tiles_text(tiles("R11 B3 P1")) == "R11 B3 P1"


def test_two_tiles_with_the_same_code_are_one_legal_choice() -> None:
    state = scenario(["R5 R5 R3 O1 O1 Y2 G4 B6", HANDS_2P[1]])
    actions = legal_actions(state)
    assert len(actions) == len(set(actions))
    reds = [a for a in actions if isinstance(a, Place) and colour_of(a.tiles[0]) == 0]
    # {R5, R5, R3}: R5, R5 R5, R3, R5 R3, R5 R5 R3 and nothing else.
    assert sorted(str(a) for a in reds) == sorted(
        ["place R5", "place R5 R5", "place R3", "place R5 R3", "place R5 R5 R3"]
    )
    assert actions.count(Exchange(tuple(tiles("O1")))) == 1
    # Distinct exchanges of 1..4 tiles from the multiset {R5x2, R3, O1x2, Y2, G4, B6}.
    sizes = Counter(len(a.tiles) for a in actions if isinstance(a, Exchange))
    assert sum(sizes.values()) == sum(
        1 for k in range(prod([3, 2, 3, 2, 2, 2]))
        if 1 <= sum(_digits(k, [3, 2, 3, 2, 2, 2])) <= 4
    )


def _digits(number: int, bases: list[int]) -> list[int]:
    """``number`` in the mixed radix ``bases``: how many of each tile kind a choice takes."""
    out = []
    for base in bases:
        number, digit = divmod(number, base)
        out.append(digit)
    return out


def test_two_tiles_with_the_same_code_are_interchangeable_in_the_state() -> None:
    one = scenario(["R5 R3 R5 O1 O1 Y2 G4 B6", HANDS_2P[1]], actions=["place R5"])
    other = scenario(["R5 R5 O1 R3 O1 Y2 G4 B6", HANDS_2P[1]], actions=["place R5"])
    assert one == other
    assert Counter(one.hands[0])[parse_tile("R5")] == 1


def test_game_is_for_2_to_4_players() -> None:
    for players in (2, 3, 4):
        assert Rules(players=players).players == players
    for players in (1, 5):
        with pytest.raises(RulesError, match="players"):
            Rules(players=players)


# ------------------------------------------------------------------------------ setup
def test_setup_all_132_tiles_go_into_the_bag() -> None:
    state = GameState(DEFAULT, 0)
    assert sorted(state.bag) == DEFAULT.all_tiles()
    assert state.stage == DEAL and not any(state.hands)
    # Shuffled: the bag's order carries no meaning, so it is no part of the position.
    other = state.clone()
    other.bag.reverse()
    assert other == state and other.key() == state.key()


def test_setup_starting_player_is_chosen_at_random() -> None:
    rules = Rules(players=4)
    starts = Counter(new_game(rules, Random(seed)).start for seed in range(400))
    assert set(starts) == {0, 1, 2, 3}
    assert min(starts.values()) > 60  # roughly 100 each
    assert new_game(rules, Random(1), start_player=2).start == 2
    with pytest.raises(RulesError, match="start player"):
        GameState(rules, 4)


def test_turn_order_follows_seats_upward_from_the_starting_player_and_wraps() -> None:
    rules = Rules(players=3)
    state = scenario(SIMPLE_HANDS, rules=rules, start=1)
    order = []
    for _ in range(4):
        order.append(state.to_move)
        letter = "ROY"[state.to_move]
        run(state, [f"exchange {letter}1" if len(order) < 4 else f"exchange {letter}2", "draw *"])
    assert order == [1, 2, 0, 1]
    assert state.start == 1 and state.last == 0


def test_deal_in_turn_order_8_tiles_each() -> None:
    state = GameState(Rules(players=3), 2)
    seats = []
    while state.stage == DEAL:
        seats.append(state.to_move)
        state.play(Draw(min(state.bag)))
    assert seats == [2] * 8 + [0] * 8 + [1] * 8
    assert [len(h) for h in state.hands] == [8, 8, 8]
    assert len(state.bag) == 132 - 24
    assert state.stage == MULLIGAN and state.to_move == 2


def test_mulligan_once_per_player_in_turn_order() -> None:
    state = deal(SIMPLE_HANDS, Rules(players=3), start=1)
    order = []
    for line in ["mulligan O1", "draw Y9", "mulligan", "mulligan R1 R2", "draw G1 G2"]:
        if line.startswith("mulligan"):
            assert state.stage == MULLIGAN
            order.append(state.to_move)
        run(state, [line])
    assert order == [1, 2, 0]
    assert state.stage == PLAY and state.to_move == 1
    assert [len(m or ()) for m in state.mulligan_tiles] == [2, 1, 0]
    refused(state, Mulligan(), "mulligan is over")


def test_decided_mulligan_any_number_of_tiles() -> None:
    state = deal(SIMPLE_HANDS[:2])
    mulligans = legal_actions(state)
    assert all(isinstance(a, Mulligan) for a in mulligans)
    assert len(mulligans) == 2**8  # eight distinct tiles: every subset, 0 to 8 of them
    assert Mulligan() in mulligans
    state.play(Mulligan(tuple(tiles(SIMPLE_HANDS[0]))))
    assert state.draws_due == 8 and state.hands[0] == []


def test_mulligan_sets_tiles_aside_and_draws_as_many() -> None:
    state = deal(HANDS_2P)
    run(state, ["mulligan R5 B1 G2"])
    assert state.draws_due == 3 and len(state.hands[0]) == 5
    assert sorted(state.aside) == sorted(tiles("R5 B1 G2"))
    run(state, ["draw Y11 Y10 Y9"])
    assert len(state.hands[0]) == 8 and state.to_move == 1 and not state.draws_due


def test_mulligan_keeping_every_tile_draws_nothing() -> None:
    state = deal(HANDS_2P)
    run(state, ["mulligan"])
    assert state.draws_due == 0 and state.to_move == 1 and state.mulligan_tiles[0] == []


def test_mulligan_no_more_than_the_bag_holds() -> None:
    state = deal(["R1 R2 R3 R4", "R5 R6 R7 R8"], ONE_IN_BAG)
    assert len(state.bag) == 1
    assert {len(a.tiles) for a in legal_actions(state)} == {0, 1}  # type: ignore[union-attr]
    refused(state, Mulligan(tuple(tiles("R1 R2"))), "at most 1", "bag")
    run(state, ["mulligan R1", "draw R9"])
    # The bag is empty now: the second player can only keep.
    assert legal_actions(state) == [Mulligan()]
    refused(state, Mulligan(tuple(tiles("R5"))), "at most 0")


def test_mulligan_set_aside_tiles_stay_out_of_the_bag_until_the_last_draw() -> None:
    state = deal(["R1 R2 R3", "O1 O2 O3"], TINY)
    run(state, ["mulligan R1", "draw R4", "mulligan O1"])
    assert sorted(state.aside) == tiles("R1 O1")
    assert sorted(state.bag) == tiles("R5 O4 O5")
    # The last player draws without their own set-aside tile (nor anyone else's) in the bag.
    refused(state, Draw(parse_tile("O1")), "not in the bag")
    refused(state, Draw(parse_tile("R1")), "not in the bag")


def test_mulligan_set_aside_tiles_return_after_the_last_draw() -> None:
    state = deal(["R1 R2 R3", "O1 O2 O3"], TINY)
    run(state, ["mulligan R1", "draw R4", "mulligan O1", "draw O4"])
    assert state.aside == [] and state.stage == PLAY
    assert sorted(state.bag) == tiles("R1 R5 O1 O5")
    # Also when nobody draws last: the tiles go back when the last player keeps.
    state = deal(["R1 R2 R3", "O1 O2 O3"], TINY)
    run(state, ["mulligan R1 R2", "draw R4 R5", "mulligan"])
    assert sorted(state.bag) == tiles("R1 R2 O4 O5") and state.stage == PLAY


def test_mulligan_draws_never_trigger_the_end() -> None:
    state = deal(["R1 R2 R3 R4", "R5 R6 R7 R8"], ONE_IN_BAG)
    run(state, ["mulligan R1", "draw R9"])
    assert state.bag == [] and not state.ending
    run(state, ["mulligan"])
    assert state.stage == PLAY and not state.ending and state.bag == tiles("R1")
    # The end comes with the first refill that empties the bag.
    run(state, ["place R9", "draw R1"])
    assert state.ending and not state.is_over()


def test_mulligan_is_the_only_choice_before_the_first_turn() -> None:
    state = deal(HANDS_2P)
    assert all(isinstance(a, Mulligan) for a in legal_actions(state))
    refused(state, Place(tuple(tiles("R11"))), "first comes the mulligan")


# ------------------------------------------------------------------- size parameters
def test_size_parameters_default_to_the_published_game() -> None:
    rules = Rules()
    assert (rules.players, rules.colors, rules.max_value, rules.copies, rules.hand_size,
            rules.exchange_limit) == (2, 6, 11, 2, 8, 4)


@pytest.mark.parametrize(
    ("name", "good", "bad"),
    [("colors", (1, 6), (0, 7)), ("players", (2, 4), (1, 5)), ("max_value", (2, 11), (0, -1)),
     ("copies", (1, 3), (0,)), ("hand_size", (1, 8), (0,)), ("exchange_limit", (1, 9), (0,))],
)
def test_size_parameters_take_their_ranges(
    name: str, good: tuple[int, ...], bad: tuple[int, ...]
) -> None:
    for value in good:
        assert getattr(Rules(**{name: value}), name) == value
    for value in bad:
        with pytest.raises(RulesError, match=name):
            Rules(**{name: value})


def test_size_parameters_tile_set_must_hold_more_than_players_times_hand_size() -> None:
    with pytest.raises(RulesError, match="more tiles than"):
        Rules(players=2, colors=1, max_value=8, copies=1, hand_size=4)
    assert Rules(players=2, colors=1, max_value=9, copies=1, hand_size=4).tile_count == 9
    with pytest.raises(RulesError, match="more tiles than"):
        Rules(players=4, colors=1, max_value=11, copies=2, hand_size=8)


def test_size_parameters_set_the_tile_set() -> None:
    rules = Rules(colors=3, max_value=5, copies=3)
    assert rules.tile_count == 45 == len(rules.all_tiles())
    assert {tile_code(t) for t in rules.kinds()} == {f"{c}{v}" for c in "ROY" for v in range(1, 6)}
    assert Counter(rules.all_tiles())[parse_tile("Y5")] == 3
    assert not rules.is_tile(parse_tile("G1")) and not rules.is_tile(parse_tile("R6"))


def test_size_parameters_hand_size_sets_the_deal_and_the_refill() -> None:
    state = deal(["R1 R2 R3", "O1 O2 O3"], TINY)
    assert [len(h) for h in state.hands] == [3, 3]
    run(state, ["mulligan", "mulligan", "place R3 R2"])
    assert state.draws_due == 2


def test_size_parameters_exchange_limit_sets_the_most_tiles_exchanged() -> None:
    state = scenario(["R1 R2 R3", "O1 O2 O3"], rules=TINY)
    sizes = {len(a.tiles) for a in legal_actions(state) if isinstance(a, Exchange)}
    assert sizes == {1, 2}
    refused(state, Exchange(tuple(tiles("R1 R2 R3"))), "exchange 1 to 2 tiles")


def test_size_parameters_change_no_rule() -> None:
    """The same turn, PLACE, EXCHANGE and SCORE rules on a variant with other sizes."""
    rules = Rules(players=3, colors=3, max_value=6, copies=2, hand_size=5, exchange_limit=2)
    state = scenario(["R6 R5 R4 O2 Y1", "O6 O5 O4 O3 O1", "Y6 Y5 Y4 Y3 Y2"], rules=rules,
                     actions=["place R6 R4", "draw R4 R2"])
    assert state.rows[0][0] == [6, 4] and state.to_move == 1
    run(state, ["exchange O1", "draw O1", "exchange Y2", "draw Y2"])
    assert state.to_move == 0
    assert Place(tuple(tiles("R4 R2"))) in legal_actions(state)  # equal to the lowest
    refused(state, Place(tuple(tiles("R5"))), "higher than R4")
    refused(state, Place(tuple(tiles("R4 O2"))), "one colour")
    refused(state, Exchange(tuple(tiles("R5 R4 R2"))), "exchange 1 to 2 tiles")
    run(state, ["declare", "score R x2 pay R5 R4 R2"])
    assert sorted(state.piles[0]) == sorted(tiles("R6 R4")) and state.rows[0][0] == []
    assert state.pile_sums[0] == 10 and state.draws_due == 3
