"""docs/rules.md, "End of the game": the trigger, the completed round and the early end.

Most tests use ``TINY3``: three players, R1..R7 and O1..O7, hands of 3, so the bag holds 5
tiles after the deal and empties within two rounds. Seats 0, 1, 2 are dealt R1 R2 R3, R4 R5
R6 and O1 O2 O3; the bag then holds R7 O4 O5 O6 O7.
"""

from __future__ import annotations

from scenario import DEFAULT, HANDS_2P, TINY, TINY3, random_game, refused, run, scenario, tiles

from noreturn.engine import Exchange, Rules, Score, legal_actions

HANDS_3 = ["R1 R2 R3", "R4 R5 R6", "O1 O2 O3"]


def test_end_is_triggered_when_a_refill_draw_takes_the_last_tile() -> None:
    state = scenario(HANDS_3, rules=TINY3, actions=[
        "exchange R1 R2", "draw R7 O4", "exchange R4", "draw O5", "exchange O1", "draw O6",
        "exchange R3",
    ])
    assert state.bag == tiles("O7") and not state.ending
    run(state, ["draw O7"])
    assert state.bag == [] and state.ending and not state.is_over()
    assert state.to_move == 1


def test_end_trigger_round_completed_to_player_before_start() -> None:
    # Start 1: the round is 1, 2, 0. Seat 1, the first of the round, empties the bag.
    state = scenario(HANDS_3, rules=TINY3, start=1, actions=[
        "exchange R4", "draw *", "exchange O1", "draw *", "exchange R1", "draw *",
        "exchange R5 R6", "draw *",
    ])
    assert state.ending and state.turns == 4 and not state.is_over()
    run(state, ["exchange O2"])  # seat 2: one more turn, nothing to draw
    assert not state.draws_due and not state.is_over() and state.to_move == 0
    run(state, ["exchange R2"])  # seat 0, just before the starting player: the last turn
    assert state.is_over() and state.turns == 6  # two turns each


def test_end_trigger_by_a_middle_player_gives_the_rest_of_the_round() -> None:
    state = scenario(HANDS_3, rules=TINY3, start=1, actions=[
        "exchange R4", "draw *", "exchange O1", "draw *", "exchange R1", "draw *",
        "exchange R5", "draw *", "exchange O2", "draw *",
    ])
    assert state.ending and state.to_move == 0 and not state.is_over()
    run(state, ["exchange R2"])
    assert state.is_over() and state.turns == 6


def test_trigger_by_last_player_of_round_ends_at_once() -> None:
    state = scenario(HANDS_3, rules=TINY3, start=1, actions=[
        "exchange R4 R5", "draw *", "exchange O1 O2", "draw *", "exchange R1",
    ])
    assert not state.is_over() and len(state.bag) == 1
    run(state, ["draw *"])
    assert state.is_over() and state.turns == 3
    assert legal_actions(state) == []
    refused(state, Exchange(tuple(tiles("R2"))), "game is over")


def test_after_the_trigger_nothing_is_left_to_draw() -> None:
    state = scenario(HANDS_3, rules=TINY3, actions=[
        "exchange R1 R2", "draw R7 O4", "exchange R4", "draw O5", "exchange O1", "draw O6",
        "exchange R3", "draw O7",
    ])
    assert state.ending and state.to_move == 1
    run(state, ["place R6 R5"])
    assert state.draws_due == 0 and state.hands[1] == tiles("O5") and state.to_move == 2
    run(state, ["place O6 O3"])
    assert state.draws_due == 0 and state.hands[2] == tiles("O2") and state.is_over()


def test_every_player_has_the_same_number_of_turns_at_the_end() -> None:
    variants = [TINY, TINY3, Rules(players=4, colors=2, max_value=8, hand_size=3)]
    checked = 0
    for rules in variants:
        for seed in range(12):
            final = random_game(rules, seed)[-1]
            early = all(p == 2 for p in final.phases) and not final.row_tiles
            if final.ending and not early:
                assert final.turns % rules.players == 0
                checked += 1
    assert checked > 10


def test_early_end_decided_when_all_in_phase_2_and_all_rows_empty() -> None:
    state = scenario(HANDS_2P, actions=["declare", "exchange B1", "draw *", "declare"])
    run(state, ["exchange P1", "draw *"])
    assert state.is_over() and len(state.bag) > 100 and not state.ending


def test_early_end_decided_is_checked_only_between_turns() -> None:
    state = scenario(HANDS_2P, actions=["declare", "exchange B1", "draw *"])
    run(state, ["declare"])  # the condition holds now, but the turn completes first
    assert not state.is_over() and state.to_move == 1
    run(state, ["exchange P1"])
    assert not state.is_over() and state.draws_due == 1
    run(state, ["draw *"])
    assert state.is_over() and state.turns == 2


def test_early_end_decided_after_the_score_that_empties_the_last_row() -> None:
    state = scenario(HANDS_2P, actions=[
        "place G3 G2", "draw *", "declare", "exchange P1", "draw *", "declare",
    ])
    run(state, ["score G x2 pay B8"])
    assert not state.is_over() and state.draws_due == 1  # the refill still comes
    run(state, ["draw *"])
    assert state.is_over() and state.scores() == [5, 0]


def test_early_end_decided_not_while_a_row_holds_tiles() -> None:
    state = scenario(HANDS_2P, actions=[
        "place G3 G2", "draw *", "declare", "exchange P1", "draw *", "declare",
        "score G x1 pay B8", "draw *", "exchange P2", "draw *",
    ])
    assert state.phases == [2, 2] and state.rows[0][3] == [3]
    assert not state.is_over() and state.to_move == 0


def test_early_end_decided_not_while_a_player_is_in_phase_1() -> None:
    state = scenario(HANDS_2P, actions=["declare", "exchange B1", "draw *", "exchange P1"])
    run(state, ["draw *"])
    assert state.phases == [2, 1] and not state.row_tiles
    assert not state.is_over() and state.to_move == 0


def test_early_end_decided_changes_no_result() -> None:
    """When the condition holds, only exchanges are left: no score can change any more."""
    state = scenario(HANDS_2P, actions=["declare", "exchange B1", "draw *", "declare"])
    actions = legal_actions(state)
    assert actions and all(isinstance(a, Exchange) for a in actions)
    assert not any(isinstance(a, Score) for a in actions)
    scores = state.scores()
    run(state, ["exchange P1", "draw *"])
    assert state.is_over() and state.scores() == scores == [0, 0]


def test_no_action_after_the_game_is_over() -> None:
    state = scenario(HANDS_2P, rules=DEFAULT, actions=[
        "declare", "exchange B1", "draw *", "declare", "exchange P1", "draw *",
    ])
    assert state.is_over() and legal_actions(state) == []
    refused(state, Exchange(tuple(tiles("B8"))), "game is over")
