"""docs/rules.md, "What each player may see": what is public, what is hidden, and from whom.

Hidden information is tested by pairs of games that differ only in something hidden from a
seat: that seat's view (and the spectators') must be the same in both.
"""

from __future__ import annotations

from dataclasses import fields

from scenario import HANDS_2P, run, scenario, scoring_position, tiles

from noreturn.engine import GameState, View, view

VIEWERS = (None, 0, 1)


def scored() -> GameState:
    """``scoring_position`` after seat 0 scores R x2 paying B8 B3 and refills."""
    return run(scoring_position(), ["score R x2 pay B8 B3", "draw *"])


def test_rows_are_public() -> None:
    state = scored()
    for seat in VIEWERS:
        rows = view(state, seat).rows
        assert rows[0][0] == (11, 9) and rows[0][3] == (3, 2)
        assert rows == tuple(tuple(tuple(r) for r in seat_rows) for seat_rows in state.rows)


def test_phases_are_public() -> None:
    state = scored()
    for seat in VIEWERS:
        assert view(state, seat).phases == (2, 1)


def test_decided_score_pile_is_public() -> None:
    state = scored()
    for seat in VIEWERS:
        assert view(state, seat).piles[0] == tuple(tiles("R5 R5"))


def test_number_of_tiles_in_each_hand_is_public() -> None:
    state = scenario(HANDS_2P, actions=["place R11 R9"])  # the refill is still due
    for seat in VIEWERS:
        assert view(state, seat).hand_counts == (6, 8)


def test_number_of_tiles_in_the_bag_is_public_not_its_contents() -> None:
    state = scored()
    for seat in VIEWERS:
        assert view(state, seat).bag_count == len(state.bag)
    assert not any("bag" in f.name and f.name != "bag_count" for f in fields(View))


def test_tiles_paid_in_score_actions_are_public() -> None:
    state = scored()
    for seat in VIEWERS:
        assert view(state, seat).paid[0] == tuple(tiles("B3 B8"))


def test_exchange_count_is_public() -> None:
    state = scored()  # seat 1 exchanged P1, then P2
    for seat in VIEWERS:
        assert view(state, seat).exchanged_counts == (0, 2)
    before = view(state, None).exchanged_counts[1]
    run(state, ["exchange O10 O7 Y6"])
    for seat in VIEWERS:  # how many this EXCHANGE removed: 3
        assert view(state, seat).exchanged_counts[1] - before == 3


def test_mulligan_count_is_public() -> None:
    state = scenario(HANDS_2P, mulligans=["mulligan R5 R5 G2", "draw Y1 Y2 Y3", "mulligan"])
    for seat in VIEWERS:
        assert view(state, seat).mulligan_counts == (3, 0)


def test_exchanged_tiles_hidden_from_others_but_known_to_self() -> None:
    def game(exchanged: str) -> GameState:
        return scenario(HANDS_2P, actions=["place R11", "draw Y1", f"exchange {exchanged}",
                                           "draw Y2"])
    one, other = game("P1"), game("P2")
    assert one != other
    assert view(one, 0) == view(other, 0) and view(one, None) == view(other, None)
    assert view(one, 1).own_exchanged == tuple(tiles("P1"))
    assert view(other, 1).own_exchanged == tuple(tiles("P2"))
    assert view(one, 0).own_exchanged == ()
    assert view(one, 0).unseen() == view(other, 0).unseen()


def test_mulligan_tiles_hidden_from_others_but_known_to_self() -> None:
    def game(aside: str) -> GameState:
        return scenario(HANDS_2P, mulligans=[f"mulligan {aside}", "draw Y1", "mulligan"])
    one, other = game("R11"), game("B8")
    assert one != other
    assert view(one, 1) == view(other, 1) and view(one, None) == view(other, None)
    assert view(one, 0).own_mulligan == tuple(tiles("R11"))
    assert view(other, 0).own_mulligan == tuple(tiles("B8"))
    assert view(one, 1).own_mulligan == ()


def test_other_hands_are_hidden() -> None:
    one = scenario(["R11 R9 R5 R5 B8 B1 G3 G2", "O10 O7 Y6 Y4 P2 P1 G11 B4"],
                   actions=["place R11", "draw R1"])
    other = scenario(["R11 R9 R5 R5 B8 B1 G3 G2", "O10 O7 Y6 Y4 P2 P3 G11 B5"],
                     actions=["place R11", "draw R1"])
    assert one.hands[1] != other.hands[1] and one.bag != other.bag
    assert view(one, 0) == view(other, 0)
    assert view(one, 0).unseen() == view(other, 0).unseen()
    assert view(one, 1) != view(other, 1)


def test_bag_contents_are_hidden() -> None:
    # Seat 0's set-aside tile went back into the bag: R11 in one game, B8 in the other.
    one = scenario(HANDS_2P, mulligans=["mulligan R11", "draw Y1", "mulligan"])
    other = scenario(HANDS_2P, mulligans=["mulligan B8", "draw Y1", "mulligan"])
    assert sorted(one.bag) != sorted(other.bag)
    assert view(one, None) == view(other, None) and view(one, 1) == view(other, 1)
    assert view(one, 1).bag_count == view(other, 1).bag_count == len(one.bag)


def test_player_knows_own_hand_and_a_spectator_no_hand() -> None:
    state = scored()
    assert view(state, 0).hand == tuple(sorted(state.hands[0]))
    assert view(state, 1).hand == tuple(sorted(state.hands[1]))
    assert view(state, None).hand is None
    assert view(state, None).own_exchanged == () and view(state, None).own_mulligan is None
