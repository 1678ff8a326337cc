"""docs/rules.md, "Scoring": pile minus rows, hands count nothing, ties share the rank."""

from __future__ import annotations

from scenario import HANDS_2P, TINY3, run, scenario, scoring_position

from noreturn.engine import view


def test_score_is_score_pile_minus_rows() -> None:
    state = scoring_position()
    assert state.scores() == [-(11 + 9 + 5 + 5 + 3 + 2), 0]
    run(state, ["score R x2 pay B8 B3", "draw *"])
    assert state.scores() == [10 - (11 + 9 + 3 + 2), 0]
    assert view(state, 1).scores == (-15, 0)


def test_hand_tiles_count_nothing() -> None:
    state = scoring_position()
    before = state.scores()
    run(state, ["exchange B8 B7 B5 B3", "draw *"])  # the hand changes a lot, the score not
    assert state.scores() == before
    rich = scenario(["R11 R11 O11 O11 Y11 Y11 G11 G11", "R1 R2 R3 R4 R5 R6 R7 R8"])
    assert rich.scores() == [0, 0]


def test_highest_score_wins() -> None:
    state = scoring_position()
    run(state, ["score R x3 pay B8 B7 B5", "draw *", "exchange O10", "draw *"])
    assert state.scores() == [19 - 16, 0]
    assert state.ranks() == [1, 2]


def test_decided_equal_scores_share_the_rank() -> None:
    state = scenario(["R1 R2 R3", "R4 R5 R6", "O1 O2 O3"], rules=TINY3, actions=[
        "exchange R1 R2", "draw *", "exchange R4 R5", "draw *", "place O3 O2", "draw *",
    ])
    assert state.is_over()
    assert state.scores() == [0, 0, -5]
    assert state.ranks() == [1, 1, 3]  # not 1, 1, 2: two players are ahead of the third
    tie = scenario(HANDS_2P, actions=["declare", "exchange B1", "draw *", "declare",
                                      "exchange P1", "draw *"])
    assert tie.is_over() and tie.ranks() == [1, 1]
