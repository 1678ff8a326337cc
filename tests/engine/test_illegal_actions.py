"""Every kind of illegal action: refused with the rule in a player's words, state unchanged.

``refused`` (scenario.py) plays the action, expects ``IllegalActionError`` with the given key
words in its message, and checks that the state did not change and that the action is not
among the legal ones.
"""

from __future__ import annotations

import re

import pytest
from scenario import HANDS_2P, TINY, deal, refused, run, scenario, scoring_position, tiles

from noreturn.engine import (
    Declare,
    Draw,
    Exchange,
    GameState,
    IllegalActionError,
    Mulligan,
    Pass,
    Place,
    Rules,
    Score,
    make_tile,
    parse_action,
    parse_tile,
    why_illegal,
)


def place(text: str) -> Place:
    """PLACE of the tiles written ``text``."""
    return Place(tuple(tiles(text)))


def exchange(text: str) -> Exchange:
    """EXCHANGE of the tiles written ``text``."""
    return Exchange(tuple(tiles(text)))


# ----------------------------------------------------------------------------- chance
def test_acting_at_a_chance_node_is_refused() -> None:
    state = GameState(Rules(), 0)
    refused(state, Mulligan(), "player 0 must first draw 8 more tiles")
    state = scenario(HANDS_2P, actions=["place R11 R9"])
    refused(state, place("R5"), "must first draw 2 more tiles")
    refused(state, Declare(), "must first draw")
    refused(state, Pass(), "must first draw")


def test_drawing_a_tile_not_in_the_bag_is_refused() -> None:
    state = scenario(HANDS_2P, actions=["place R11 R9"])
    run(state, ["draw R11"])  # the other copy
    refused(state, Draw(parse_tile("R11")), "R11 is not in the bag")


def test_drawing_when_no_draw_is_due_is_refused() -> None:
    state = scenario(HANDS_2P)
    refused(state, Draw(parse_tile("R1")), "no draw is due")


def test_drawing_a_tile_not_of_the_game_is_refused() -> None:
    state = GameState(Rules(), 0)
    refused(state, Draw(make_tile(0, 12)), "R12 is not a tile of this game", "1 to 11")


# ----------------------------------------------------------------------------- over
def test_acting_after_the_game_is_over_is_refused() -> None:
    state = scenario(HANDS_2P, actions=["declare", "exchange B1", "draw *", "declare",
                                        "exchange P1", "draw *"])
    assert state.is_over()
    for action in (exchange("B8"), Pass(), Declare(), Draw(state.bag[0]), Mulligan()):
        refused(state, action, "the game is over")


# ----------------------------------------------------------------------- tiles held
def test_tiles_not_held_are_refused() -> None:
    state = scenario(HANDS_2P)
    refused(state, place("R10"), "you do not hold R10")
    refused(state, exchange("O10"), "you do not hold O10")  # seat 1's tile


def test_holding_only_one_of_two_equal_tiles_is_refused() -> None:
    state = scenario(HANDS_2P)
    refused(state, place("R11 R11"), "you hold only 1 R11, not 2")
    refused(state, exchange("B8 B8"), "you hold only 1 B8, not 2")


def test_tiles_not_of_the_variant_are_refused() -> None:
    state = scenario(HANDS_2P)
    refused(state, place("R12"), "R12 is not a tile of this game", "values 1 to 11")
    small = scenario(["R1 R2 R3", "O1 O2 O3"], rules=TINY)
    refused(small, place("Y1"), "Y1 is not a tile of this game", "colours RO")
    refused(small, exchange("R6"), "R6 is not a tile of this game", "values 1 to 5")
    # An int of no colour at all is refused too, not a crash while writing the message.
    refused(state, Place((make_tile(6, 1),)), "#193 is not a tile of this game")
    refused(GameState(Rules(), 0), Draw(-1), "#-1 is not a tile of this game")


def test_a_value_that_is_not_an_action_is_refused() -> None:
    state = scenario(HANDS_2P)
    before = state.clone()
    with pytest.raises(IllegalActionError, match="not an action"):
        state.play("place R11")  # type: ignore[arg-type]
    assert state == before


# -------------------------------------------------------------------------- mulligan
def test_other_actions_during_the_mulligan_are_refused() -> None:
    state = deal(HANDS_2P)
    refused(state, place("R11"), "first comes the mulligan")
    refused(state, Declare(), "first comes the mulligan")
    refused(state, exchange("R11"), "first comes the mulligan")


def test_mulligan_of_tiles_not_held_is_refused() -> None:
    state = deal(HANDS_2P)
    refused(state, Mulligan(tuple(tiles("O10"))), "you do not hold O10")


def test_mulligan_of_more_than_the_bag_holds_is_refused() -> None:
    state = deal(["R1 R2 R3 R4", "R5 R6 R7 R8"], Rules(players=2, colors=1, max_value=9,
                                                       copies=1, hand_size=4))
    refused(state, Mulligan(tuple(tiles("R1 R2"))), "at most 1 tiles", "all the bag holds")


def test_second_mulligan_is_refused() -> None:
    state = scenario(HANDS_2P)
    refused(state, Mulligan(), "mulligan is over", "only once")


# --------------------------------------------------------------------------- declare
def test_declaring_twice_is_refused() -> None:
    state = scoring_position()
    refused(state, Declare(), "already in phase 2", "no return")


# ------------------------------------------------------------------------------ pass
def test_passing_with_a_legal_action_is_refused() -> None:
    refused(scenario(HANDS_2P), Pass(), "only when you have no legal action")
    refused(scoring_position(), Pass(), "only when you have no legal action")


# -------------------------------------------------------------------------- exchange
def test_exchange_of_no_tile_or_too_many_is_refused() -> None:
    state = scenario(HANDS_2P)
    refused(state, Exchange(), "exchange 1 to 4 tiles, not 0")
    refused(state, exchange("R11 R9 R5 R5 B8"), "exchange 1 to 4 tiles, not 5")


# ----------------------------------------------------------------------------- place
def test_place_in_phase_2_is_refused() -> None:
    refused(scoring_position(), place("O3"), "you are in phase 2", "no longer place")


def test_place_of_no_tile_is_refused() -> None:
    refused(scenario(HANDS_2P), Place(), "place at least one tile")


def test_place_of_two_colours_is_refused() -> None:
    refused(scenario(HANDS_2P), place("R11 B8"), "place tiles of one colour only")


def test_place_above_the_lowest_tile_of_the_row_is_refused() -> None:
    state = scenario(HANDS_2P, actions=["place R9", "draw *", "exchange P1", "draw *"])
    refused(state, place("R11"), "R11 is higher than R9", "lowest tile of your red row")


# ----------------------------------------------------------------------------- score
def test_score_in_phase_1_is_refused() -> None:
    state = scenario(HANDS_2P, actions=["place R9", "draw *", "exchange P1", "draw *"])
    refused(state, parse_action("score R x1 pay B8 B1"), "you are in phase 1",
            "declare phase 2")


def test_score_of_a_missing_row_is_refused() -> None:
    refused(scoring_position(), parse_action("score B x1 pay O3"), "you have no blue row")


def test_score_of_a_row_that_does_not_exist_is_refused() -> None:
    state = scoring_position()
    refused(state, Score(6, 1, tuple(tiles("B8"))), "score #6 x1 pay B8", "no such row")
    small = scenario(["R1 R2 R3", "O1 O2 O3"], rules=TINY, actions=["declare"])
    refused(small, parse_action("score Y x1 pay R3"), "no such row", "rows are R, O")


def test_score_of_a_bad_count_is_refused() -> None:
    state = scoring_position()
    refused(state, Score(0, 0, tuple(tiles("B8"))), "red row has 4 tiles", "not 0")
    refused(state, Score(3, 3, tuple(tiles("B8 B7"))), "green row has 2 tiles", "not 3")


def test_score_paid_with_no_tile_is_refused() -> None:
    refused(scoring_position(), Score(3, 1, ()), "pay with at least one tile")


def test_score_paid_in_two_colours_is_refused() -> None:
    refused(scoring_position(), parse_action("score G x1 pay B1 O2"),
            "pay with tiles of one colour only")


def test_score_paid_with_tiles_not_held_is_refused() -> None:
    refused(scoring_position(), parse_action("score G x1 pay B11"), "you do not hold B11")


def test_score_paid_too_little_is_refused() -> None:
    refused(scoring_position(), parse_action("score R x2 pay B8 B1"),
            "B8 B1 sum to 9, less than 10", "2 lowest tiles of your red row")
    refused(scoring_position(), parse_action("score G x2 pay B3"),
            "B3 is worth 3, less than 5")


# ------------------------------------------------------------------------ consistency
def test_why_illegal_agrees_with_play() -> None:
    state = scoring_position()
    assert why_illegal(state, parse_action("score R x2 pay B7 B3")) is None
    reason = why_illegal(state, parse_action("score R x2 pay B8 B1"))
    assert reason is not None and "less than 10" in reason
    with pytest.raises(IllegalActionError, match=re.escape(reason)):
        state.play(parse_action("score R x2 pay B8 B1"))
