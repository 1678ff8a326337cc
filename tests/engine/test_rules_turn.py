"""docs/rules.md, "A turn", "EXCHANGE", "PLACE", "SCORE" and "PASS": one test per rule."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable

from scenario import (
    DEFAULT,
    HANDS_2P,
    SIMPLE_HANDS,
    TINY,
    random_game,
    refused,
    run,
    scenario,
    scoring_position,
    tiles,
)

from noreturn.engine import (
    PLAY,
    Declare,
    Draw,
    Exchange,
    GameState,
    Pass,
    Place,
    Rules,
    Score,
    legal_actions,
    parse_action,
    parse_tile,
    view,
)

RED, ORANGE, GREEN, BLUE = 0, 1, 3, 4


def placed(*lines: str, hand: str = "R11 R9 R5 R5 B8 B1 G3 G2") -> GameState:
    """Seat 0 holding ``hand`` plays ``lines`` as its turns, seat 1 exchanging in between.

    Both refill with the highest tiles of the bag (purple), which stay out of the way; seat 0
    is to move at the end.
    """
    script: list[str] = []
    for line, other in zip(lines, ["O10", "O7", "Y6", "Y4", "G11"], strict=False):
        script += [line, "draw high", f"exchange {other}", "draw high"]
    return scenario([hand, "O10 O7 Y6 Y4 P2 P1 G11 B4"], actions=script)


def kinds(actions: Iterable[object]) -> set[str]:
    """The names of the kinds of ``actions``."""
    return {type(a).__name__ for a in actions}


def all_tiles_accounted(state: GameState) -> Counter[int]:
    """Every tile wherever it is (bag, hands, rows, piles, removed): must be the whole set."""
    where = Counter(state.bag) + Counter(state.aside)
    for seat in range(state.n):
        where += Counter(state.hands[seat]) + Counter(state.piles[seat])
        where += Counter(state.exchanged[seat]) + Counter(state.paid[seat])
        for colour, row in enumerate(state.rows[seat]):
            where += Counter(colour << 5 | v for v in row)
    return where


# ------------------------------------------------------------------------------ turn
def test_every_player_starts_in_phase_1() -> None:
    state = scenario(SIMPLE_HANDS, rules=Rules(players=4), start=3)
    assert state.phases == [1, 1, 1, 1] and state.declared == 0
    assert Declare() in legal_actions(state)


def test_declare_is_optional() -> None:
    state = scenario(HANDS_2P)
    assert Declare() in legal_actions(state)
    run(state, ["place R11", "draw *"])
    assert state.phases == [1, 1] and state.rows[0][RED] == [11] and state.to_move == 1


def test_declare_only_in_phase_1() -> None:
    state = scoring_position()
    assert state.phases[0] == 2
    assert Declare() not in legal_actions(state)
    refused(state, Declare(), "already in phase 2")


def test_decided_declaration_does_not_use_up_the_turn() -> None:
    state = scenario(HANDS_2P)
    run(state, ["declare"])
    assert state.phases[0] == 2
    assert state.to_move == 0 and state.turns == 0 and not state.draws_due
    actions = legal_actions(state)
    assert actions and kinds(actions) == {"Exchange"}  # no row yet: nothing to score
    run(state, ["exchange B1", "draw *"])
    assert state.to_move == 1 and state.turns == 1


def test_declare_comes_before_the_action_of_the_turn() -> None:
    state = scenario(HANDS_2P, actions=["place R11"])
    refused(state, Declare(), "must first draw")
    run(state, ["draw *"])
    assert state.to_move == 1 and state.phases[0] == 1


def test_declaration_is_public() -> None:
    state = scenario(HANDS_2P, actions=["declare"])
    assert view(state, 1).phases == view(state, None).phases == (2, 1)


def test_declaration_is_final_no_return() -> None:
    state = scenario(HANDS_2P, actions=["declare", "exchange B1", "draw *"])
    for line in ["exchange P1", "draw *", "exchange B8", "draw *", "exchange P2", "draw *"]:
        run(state, [line])
        assert state.phases[0] == 2
    assert state.to_move == 0
    refused(state, Declare(), "no return")
    refused(state, Place(tuple(tiles("R11"))), "phase 2", "no longer place")


def test_exactly_one_action_per_turn() -> None:
    state = scenario(HANDS_2P, actions=["place R11 R9"])
    # The turn goes on only with its refill, not with a second action.
    refused(state, Place(tuple(tiles("R5"))), "must first draw")
    refused(state, Exchange(tuple(tiles("B1"))), "must first draw")
    run(state, ["draw *"])
    assert state.to_move == 1 and state.turns == 1
    refused(state, Exchange(tuple(tiles("B1"))), "do not hold")  # seat 1's turn now


def test_declare_then_exactly_one_phase_2_action() -> None:
    state = scoring_position()
    run(state, ["score G x1 pay O2", "draw *"])
    assert state.to_move == 1 and state.turns == 5


def test_phase_1_actions_are_exchange_or_place() -> None:
    state = scenario(HANDS_2P)
    assert kinds(legal_actions(state)) == {"Declare", "Exchange", "Place"}


def test_phase_2_actions_are_exchange_or_score() -> None:
    assert kinds(legal_actions(scoring_position())) == {"Exchange", "Score"}


def test_phase_2_cannot_place() -> None:
    state = scoring_position()
    assert not any(isinstance(a, Place) for a in legal_actions(state))
    refused(state, Place(tuple(tiles("O3"))), "phase 2", "no longer place")


def test_phase_1_cannot_score() -> None:
    state = placed("place R11 R9", "place R5")
    assert state.rows[0][RED] == [11, 9, 5] and state.phases[0] == 1
    assert not any(isinstance(a, Score) for a in legal_actions(state))
    refused(state, parse_action("score R x1 pay B8"), "phase 1", "declare")


def test_refill_draws_until_the_hand_holds_8() -> None:
    state = scenario(HANDS_2P, actions=["place R11 R9 R5"])
    assert state.draws_due == 3 and len(state.hands[0]) == 5
    run(state, ["draw Y1 Y2 Y3"])
    assert len(state.hands[0]) == 8 and state.to_move == 1 and not state.draws_due


def test_refill_draws_only_as_many_as_the_bag_holds() -> None:
    state = scenario(["R1 R2 R3", "O1 O2 O3"], rules=TINY, actions=[
        "exchange R1 R2", "draw R4 R5", "exchange O1", "draw O4",
    ])
    assert state.bag == tiles("O5")
    run(state, ["place R5 R4"])
    assert state.draws_due == 1
    run(state, ["draw O5"])
    assert len(state.hands[0]) == 2 and state.bag == [] and state.to_move == 1


# -------------------------------------------------------------------------- exchange
def test_exchange_1_to_4_tiles() -> None:
    state = scenario(HANDS_2P)
    sizes = {len(a.tiles) for a in legal_actions(state) if isinstance(a, Exchange)}
    assert sizes == {1, 2, 3, 4}
    refused(state, Exchange(tuple(tiles("R11 R9 R5 B8 B1"))), "exchange 1 to 4", "not 5")
    refused(state, Exchange(), "exchange 1 to 4", "not 0")


def test_exchange_allowed_in_both_phases() -> None:
    state = scoring_position()
    assert Exchange(tuple(tiles("B8 B7 B5 B3"))) in legal_actions(state)
    run(state, ["exchange B8 B7 B5 B3", "draw *"])
    assert state.to_move == 1 and state.phases[1] == 1
    assert Exchange(tuple(tiles("O10 Y6"))) in legal_actions(state)


def test_exchanged_tiles_are_removed_from_the_game() -> None:
    state = scenario(["R1 R2 R3", "O1 O2 O3"], rules=TINY, actions=["exchange R1 R3"])
    assert sorted(state.exchanged[0]) == tiles("R1 R3")
    assert sorted(state.hands[0]) == tiles("R2")
    assert sorted(state.bag) == tiles("R4 R5 O4 O5")  # not back in the bag
    refused(state, Draw(parse_tile("R1")), "not in the bag")
    assert all_tiles_accounted(state) == Counter(TINY.all_tiles())


def test_exchange_refill_replaces_them() -> None:
    state = scenario(HANDS_2P, actions=["exchange R11 B8 G3"])
    assert state.draws_due == 3
    run(state, ["draw *"])
    assert len(state.hands[0]) == 8


def test_decided_exchange_allowed_with_empty_bag() -> None:
    state = scenario(["R1 R2 R3", "O1 O2 O3"], rules=TINY, actions=[
        "exchange R1 R2 ", "draw R4 R5", "exchange O1", "draw O4", "place R5 R4", "draw O5",
    ])
    assert state.bag == [] and state.to_move == 1 and not state.is_over()
    assert Exchange(tuple(tiles("O2 O3"))) in legal_actions(state)
    run(state, ["exchange O2 O3"])
    assert not state.draws_due and state.hands[1] == tiles("O4")
    assert sorted(state.exchanged[1]) == tiles("O1 O2 O3")
    assert state.is_over()  # seat 1 was the last of the round


# ----------------------------------------------------------------------------- place
def test_place_one_colour_only() -> None:
    state = scenario(HANDS_2P)
    assert all(len({t >> 5 for t in a.tiles}) == 1
               for a in legal_actions(state) if isinstance(a, Place))
    refused(state, Place(tuple(tiles("R5 B1"))), "one colour")


def test_place_one_or_more_tiles() -> None:
    state = scenario(HANDS_2P)
    refused(state, Place(), "at least one tile")
    run(state, ["place R11 R9 R5 R5"])
    assert state.rows[0][RED] == [11, 9, 5, 5]


def test_place_with_no_row_of_that_colour_starts_one() -> None:
    state = placed("place R5", "place B8 B1")
    assert state.rows[0][BLUE] == [8, 1]
    assert state.rows[0][RED] == [5]  # a new row may start higher than other rows end


def test_place_at_most_one_row_per_colour() -> None:
    state = placed("place R11 R9", "place R5")
    assert len(state.rows[0]) == 6
    assert state.rows[0][RED] == [11, 9, 5]
    assert sum(1 for row in state.rows[0] if row) == 1


def test_place_tiles_must_not_exceed_the_lowest_tile_of_the_row() -> None:
    state = placed("place R9 R5", hand="R11 R9 R5 R3 B8 B1 G3 G2")
    assert state.rows[0][RED] == [9, 5] and state.to_move == 0
    red = [a for a in legal_actions(state) if isinstance(a, Place) and a.tiles[0] >> 5 == RED]
    assert red == [Place(tuple(tiles("R3")))]
    refused(state, Place(tuple(tiles("R11"))), "R11 is higher than R5", "lowest", "red row")
    refused(state, Place(tuple(tiles("R11 R3"))), "higher than R5")


def test_place_equal_value_is_allowed() -> None:
    state = placed("place R9 R5")
    assert Place(tuple(tiles("R5"))) in legal_actions(state)
    run(state, ["place R5"])
    assert state.rows[0][RED] == [9, 5, 5]


def test_place_tiles_are_added_in_descending_order() -> None:
    state = scenario(HANDS_2P, actions=["place R5 R11 R5 R9"])
    assert state.rows[0][RED] == [11, 9, 5, 5]


def test_place_adds_to_the_end_of_the_row_which_reads_non_increasing() -> None:
    state = placed("place R11", "place R9 R5", hand="R11 R9 R5 R3 R1 B1 G3 G2")
    assert state.rows[0][RED] == [11, 9, 5]
    run(state, ["place R1 R3", "draw high"])
    row = state.rows[0][RED]
    assert row == [11, 9, 5, 3, 1] and row == sorted(row, reverse=True)


def test_rows_only_grow_in_phase_1_nothing_inserted() -> None:
    state = placed("place R11 R5", hand="R11 R9 R5 R3 R1 B1 G3 G2")
    before = list(state.rows[0][RED])
    # R9 would fit between R11 and R5, but rows are never opened up.
    refused(state, Place(tuple(tiles("R9"))), "higher than R5")
    run(state, ["place R3", "draw *"])
    assert state.rows[0][RED][: len(before)] == before


# ----------------------------------------------------------------------------- score
def test_score_takes_the_k_lowest_tiles_the_last_k_of_the_row() -> None:
    state = scoring_position()
    run(state, ["score R x2 pay B8 B3"])
    assert state.rows[0][RED] == [11, 9]
    assert sorted(state.piles[0]) == tiles("R5 R5") and state.pile_sums[0] == 10


def test_score_k_at_least_1_and_at_most_the_row_length() -> None:
    state = scoring_position()
    counts = {a.count for a in legal_actions(state) if isinstance(a, Score) and a.row == RED}
    assert counts == {1, 2, 3}  # R x4 costs 30, more than the 24 in blue
    refused(state, Score(RED, 0, tuple(tiles("B8"))), "score 1 to 4", "not 0")
    refused(state, Score(RED, 5, tuple(tiles("B8 B7 B5 B3 B1"))), "has 4 tiles", "not 5")


def test_score_needs_a_row() -> None:
    state = scoring_position()
    assert {a.row for a in legal_actions(state) if isinstance(a, Score)} == {RED, GREEN}
    refused(state, Score(ORANGE, 1, tuple(tiles("B8"))), "no orange row")


def test_score_payment_must_reach_the_sum() -> None:
    state = scoring_position()
    refused(state, parse_action("score R x2 pay B8 B1"), "sum to 9, less than 10")
    refused(state, parse_action("score R x4 pay B8 B7 B5 B3 B1"), "24, less than 30")
    assert parse_action("score R x2 pay B7 B3") in legal_actions(state)  # exactly 10


def test_score_payment_equal_to_the_sum_is_enough() -> None:
    state = scoring_position()
    run(state, ["score R x2 pay B7 B3"])
    assert state.pile_sums[0] == 10 and sorted(state.paid[0]) == tiles("B3 B7")


def test_score_payment_in_one_colour() -> None:
    state = scoring_position()
    assert all(len({t >> 5 for t in a.pay}) == 1
               for a in legal_actions(state) if isinstance(a, Score))
    refused(state, parse_action("score G x1 pay B1 O2"), "pay with tiles of one colour")


def test_score_payment_needs_at_least_one_tile() -> None:
    state = scoring_position()
    refused(state, Score(GREEN, 1, ()), "at least one tile")


def test_score_payment_colour_may_differ_from_the_row() -> None:
    state = scoring_position()
    assert parse_action("score G x2 pay O3 O2") in legal_actions(state)
    run(state, ["score G x2 pay O3 O2"])
    assert state.rows[0][GREEN] == [] and sorted(state.piles[0]) == tiles("G2 G3")


def test_score_overpay_allowed_even_with_unneeded_tiles() -> None:
    state = scoring_position()
    # S = 5 (R5): B8 alone covers it, B1 is not needed; both may be paid, the excess is lost.
    assert parse_action("score R x1 pay B8 B1") in legal_actions(state)
    run(state, ["score R x1 pay B8 B1"])
    assert state.pile_sums[0] == 5 and sorted(state.paid[0]) == tiles("B1 B8")


def test_score_paid_tiles_are_shown_and_removed_from_the_game() -> None:
    state = scoring_position()
    bag_before = Counter(state.bag)
    run(state, ["score R x2 pay B8 B3"])
    assert sorted(state.paid[0]) == tiles("B3 B8")
    assert Counter(state.hands[0])[parse_tile("B8")] == 0
    assert Counter(state.bag) == bag_before
    assert all_tiles_accounted(state) == Counter(DEFAULT.all_tiles())


def test_score_row_tiles_go_to_the_score_pile() -> None:
    state = scoring_position()
    run(state, ["score R x3 pay B8 B7 B5", "draw *"])
    assert sorted(state.piles[0]) == tiles("R5 R5 R9")
    assert state.pile_sums[0] == 19 and state.rows[0][RED] == [11]


def test_score_only_one_row_per_action() -> None:
    state = scoring_position()
    scores = [a for a in legal_actions(state) if isinstance(a, Score)]
    assert scores
    for action in scores:
        after = state.clone()
        after.play(action)
        changed = [c for c in range(6) if after.rows[0][c] != state.rows[0][c]]
        assert changed == [action.row]


def test_score_refill_after_the_payment() -> None:
    state = scoring_position()
    run(state, ["score G x2 pay B5"])
    assert state.draws_due == 1
    run(state, ["draw *"])
    assert len(state.hands[0]) == 8 and state.to_move == 1


# ------------------------------------------------------------------------------ pass
def test_pass_only_when_you_have_no_legal_action() -> None:
    state = scenario(HANDS_2P)
    assert Pass() not in legal_actions(state)
    refused(state, Pass(), "only when you have no legal action")
    # A position the rules never reach (see the next test): an empty hand.
    state.hands[0].clear()
    assert legal_actions(state) == [Pass(), Declare()]
    state.play(Declare())
    assert legal_actions(state) == [Pass()]


def test_pass_changes_nothing() -> None:
    state = scoring_position()
    state.hands[0].clear()  # unreachable by the rules: only so that a pass is legal
    before = state.clone()
    state.play(Pass())
    assert state.to_move == 1 and state.turns == before.turns + 1
    state.to_move, state.turns = before.to_move, before.turns
    assert state == before


def test_pass_never_happens_every_turn_starts_with_a_full_hand() -> None:
    variants = [TINY, Rules(players=3, colors=2, max_value=6, hand_size=4, exchange_limit=3),
                Rules(players=4, colors=3, max_value=5, hand_size=5), DEFAULT]
    for rules in variants:
        for seed in range(4):
            for state in random_game(rules, seed):
                if state.stage == PLAY and not state.is_chance():
                    assert len(state.hands[state.to_move]) == rules.hand_size
                    assert Pass() not in legal_actions(state)
