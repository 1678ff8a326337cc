"""The switch advisor (``noreturn.bots.switch``): declaring now against waiting."""

from __future__ import annotations

from random import Random

import pytest

from noreturn.bots import Deck, plan
from noreturn.bots.switch import (
    Outlook,
    SwitchAdvice,
    both_lines,
    can_advise,
    declare_value,
    switch_advice,
)
from noreturn.engine import GameState, Rules, sample_world, to_action, view

WORLDS = 60


def _play_until(rules: Rules, seed: int, stop: object) -> GameState:
    """A game of the plan in every seat, except that seat 0 never declares, up to the
    first state at which ``stop(state)`` holds."""
    deck = Deck(rules, seed)
    state = GameState(rules, deck.start_player)
    p = plan.params_for(rules.players)
    while not state.is_over():
        if state.draws_due:
            state.apply(deck.next_draw(state))
            continue
        if callable(stop) and stop(state):
            return state
        state.apply(to_action(plan.decide(state, p, may_declare=state.to_move != 0)))
    raise AssertionError("the game ended before the position sought")


def _first_turn(state: GameState) -> bool:
    return state.stage == 2 and state.to_move == 0


def _overdue(state: GameState) -> bool:
    """Seat 0's rows need more scoring turns than are left: waiting leaves tiles."""
    if state.stage != 2 or state.to_move != 0:
        return False
    needed, left = plan.needed_and_left(state)
    return needed >= left + 2


def test_no_advice_outside_a_phase_1_turn_of_ones_own() -> None:
    state = _play_until(Rules(), 1, _first_turn)
    assert can_advise(view(state, 0))
    assert not can_advise(view(state, 1))  # not its turn
    assert switch_advice(view(state, 1), worlds=4) is None
    assert switch_advice(view(state, None), worlds=4) is None  # a spectator
    state.phases[0] = 2
    assert switch_advice(view(state, 0), worlds=4) is None  # already declared


def test_at_the_first_turn_waiting_is_far_better() -> None:
    """Empty rows: declaring would leave nothing to score, a whole game thrown away."""
    state = _play_until(Rules(), 2, _first_turn)
    advice = switch_advice(view(state, 0), worlds=WORLDS, rng=Random(0))
    assert advice is not None and advice.better == "wait"
    assert advice.gain < -30, advice
    assert advice.declare.win < advice.wait.win


def test_with_rows_overdue_declaring_is_better() -> None:
    """Rows needing more scoring turns than are left: every turn waited leaves more."""
    for players in (2, 3):
        state = _play_until(Rules(players=players), 4, _overdue)
        advice = switch_advice(view(state, 0), worlds=WORLDS, rng=Random(0))
        assert advice is not None and advice.better == "declare", (players, advice)


def test_the_advice_does_not_depend_on_the_hidden_tiles() -> None:
    """Two truths the seat cannot tell apart (the others' hands and the bag re-dealt
    consistently with its view) get the same advice for the same seed and budget."""
    state = _play_until(Rules(), 5, lambda s: s.stage == 2 and s.to_move == 0 and s.turns > 10)
    seen = view(state, 0)
    other_truth = sample_world(seen, Random(99))
    assert other_truth.hands[1] != state.hands[1] or other_truth.bag != state.bag
    first = switch_advice(seen, worlds=WORLDS, rng=Random(3))
    second = switch_advice(view(other_truth, 0), worlds=WORLDS, rng=Random(3))
    assert first == second


def test_the_advice_reads_as_one_line_with_both_outlooks() -> None:
    state = _play_until(Rules(), 6, _first_turn)
    advice = switch_advice(view(state, 0), worlds=8, rng=Random(0))
    assert advice is not None and advice.worlds == 8
    text = advice.text()
    assert text.startswith("declare now: margin ") and " · wait: margin " in text
    assert "waiting looks better by" in text and "\n" not in text


def test_a_time_budget_samples_at_least_eight_worlds() -> None:
    state = _play_until(Rules(), 7, _first_turn)
    advice = switch_advice(view(state, 0), seconds=0.0)
    assert advice is not None and advice.worlds == 8


def test_both_lines_declare_now_or_wait_from_the_same_world() -> None:
    """The two lines the advisor (and ``benchmarks/switch_fit.py``) compare: the declaring
    one switches on this very turn, the waiting one does not; both are played to the end,
    and from the same sampled world (the same seed gives the same pair)."""
    state = _play_until(Rules(), 3, _overdue)
    turn = state.turns
    declared, waited = both_lines(view(state, 0), Random(5))
    assert declared.is_over() and waited.is_over()
    assert declared.declared_turns[0] == turn
    assert waited.declared_turns[0] != turn
    again = both_lines(view(state, 0), Random(5))
    assert [g.scores() for g in again] == [declared.scores(), waited.scores()]


def test_the_better_line_is_the_one_medium_s_switch_would_take() -> None:
    """The advice's verdict weighs the win and the margin as medium's switch does
    (``declare_value``): on the same sampled worlds the two agree. By the margin alone,
    declaring "looked better" where medium waited, with half the chance to win."""
    compared = 0
    for seed in range(6):
        state = _play_until(Rules(players=4), seed,
                            lambda s: s.stage == 2 and s.to_move == 0 and plan.near_switch(s))
        seen = view(state, 0)
        advice = switch_advice(seen, worlds=12, rng=Random(seed))
        gain = declare_value(seen, 12, Random(seed))
        assert advice is not None
        assert advice.declare.value - advice.wait.value == pytest.approx(gain)
        if gain:
            assert advice.better == ("declare" if gain > 0 else "wait"), (advice, gain)
            compared += 1
    assert compared >= 4


def test_where_the_win_and_the_margin_disagree_the_advice_says_so() -> None:
    advice = SwitchAdvice(declare=Outlook(3, 0.20, 0.36), wait=Outlook(-2, 0.67, 0.60),
                          worlds=50)
    assert advice.better == "wait" and advice.gain == 5
    assert advice.text().endswith("→ waiting looks better: it wins more often, though by 5 "
                                  "points less on average (50 samples)"), advice.text()
    agreeing = SwitchAdvice(declare=Outlook(9, 0.5, 0.6), wait=Outlook(1, 0.4, 0.5), worlds=8)
    assert agreeing.text().endswith("→ declaring now looks better by 8 points (8 samples)")
    clipped = SwitchAdvice(declare=Outlook(1, 0.5, 0.6), wait=Outlook(9, 0.5, 0.5), worlds=8)
    assert clipped.text().endswith("→ declaring now looks better (8 samples)"), clipped.text()
