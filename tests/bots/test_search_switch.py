"""The search's plans for its own switch (``search.switch_options``, ``shifts=``): the plan
with its switch moved earlier or later, its move now and its play after, searched as
candidates near the switch."""

from __future__ import annotations

from random import Random

import pytest

from noreturn.bots import BotError, Deck, make_bot, plan, play_game
from noreturn.bots.candidates import candidates
from noreturn.bots.search import SearchBot, own_switch, parse_shifts, shifted, switch_options
from noreturn.engine import (
    DECLARE,
    PLAY,
    Declare,
    GameState,
    Rules,
    legal_actions,
    new_game,
    to_action,
    view,
)
from noreturn.records import check_record


def _phase_one(players: int, seeds: range) -> list[GameState]:
    """Phase-1 positions with rows to score, from games of the plan against itself (the
    games the search plays out, which reach the switch)."""
    found: list[GameState] = []
    for seed in seeds:
        rng = Random(seed)
        state = new_game(Rules(players=players), rng)
        while not state.is_over():
            if state.is_chance():
                state.apply(state.sample_draw(rng))
                continue
            if state.stage == PLAY and state.phases[state.to_move] == 1 and any(
                    state.rows[state.to_move]):
                found.append(state.clone())
            state.apply(to_action(plan.choose(state)))
    return found


def test_a_shift_moves_only_the_margin_of_the_switch_its_solo_set_too() -> None:
    base = plan.params_for(2)
    later = shifted(base, -2)
    assert later.margin == base.margin - 2 and later.typical == base.typical
    assert base.solo is not None and later.solo is not None
    assert later.solo.margin == base.solo.margin - 2
    assert later.solo.dump_max == base.solo.dump_max


@pytest.mark.parametrize("players", [2, 4])
def test_a_later_switch_never_declares_where_an_earlier_one_waits(players: int) -> None:
    """Declaring is monotone in the shift: every position where the plan shifted later
    declares, the plan shifted earlier declares too; and the shifts do change the moment."""
    base = plan.params_for(players)
    states = _phase_one(players, range(6))
    declares = {by: [plan.decide(s, shifted(base, by))[0] == DECLARE for s in states]
                for by in (-4, 0, 4)}
    for later, earlier in ((-4, 0), (0, 4)):
        assert all(e for lat, e in zip(declares[later], declares[earlier], strict=True)
                   if lat)
    assert sum(declares[4]) > sum(declares[0]) > sum(declares[-4]), {
        by: sum(flags) for by, flags in declares.items()}


def test_own_switch_plays_the_shifted_plan_for_its_seat_and_the_plan_for_the_others() -> None:
    states = _phase_one(3, range(4))
    later = shifted(plan.params_for(3), -6)
    for state in states[::5]:
        mover = state.to_move
        mine, other = own_switch(mover, later), own_switch((mover + 1) % 3, later)
        assert mine(state, Random(0)) == plan.decide(state, later)
        assert other(state, Random(0)) == plan.choose(state)


def test_switch_options_are_legal_and_pair_each_shift_with_its_plan() -> None:
    states = _phase_one(2, range(4))
    checked = 0
    for state in states:
        legal = legal_actions(state)
        paired = switch_options(state, legal, (-3, 3))
        assert [action for action, _ in paired] == [
            to_action(plan.decide(state, shifted(plan.params_for(2), by))) for by in (-3, 3)]
        assert all(action in legal for action, _ in paired)
        checked += any(action == Declare() for action, _ in paired)
    assert checked, "some positions offer the declaration among the shifted plans"


def test_an_earlier_switch_offers_no_move_the_candidates_lack() -> None:
    """Why expert weighs only later switches (``LEVELS``): the plan shifted earlier either
    declares, and the declaration is among the search's candidates already, or makes the
    plan's own move, the first candidate."""
    earlier = shifted(plan.params_for(2), 2)
    declared = 0
    for state in _phase_one(2, range(4)):
        move = to_action(plan.decide(state, earlier))
        searched = candidates(state, legal_actions(state))
        if move == Declare():
            declared += 1
            assert move in searched
        else:
            assert move == searched[0]
    assert declared, "some positions where the earlier switch declares"


@pytest.mark.parametrize("players", [2, 3, 4])
def test_a_search_with_shifts_plays_only_legal_actions(players: int) -> None:
    rules = Rules(players=players)
    for deal in range(2):
        bots = [make_bot("search:iterations=6,shifts=-2/-4/2")] + [make_bot("plan")] * (
            players - 1)
        result = play_game(rules, bots, Deck(rules, deal), seed=deal, keep_record=True)
        assert result.forfeits == []
        assert result.record is not None and check_record(result.record).valid


def test_the_same_seed_gives_the_same_decisions_with_shifts() -> None:
    states = [s for s in _phase_one(2, range(3)) if plan.near_switch(s)][:6]
    assert states
    bot = SearchBot(iterations=24, shifts=(-2, -4, 2))
    for state in states:
        seen, legal = view(state, state.to_move), legal_actions(state)
        assert bot.act(seen, legal, Random(7)) == bot.act(seen, legal, Random(7))


def test_shifts_are_turns_separated_by_slashes_and_anything_else_is_refused() -> None:
    assert parse_shifts("-2/-4/2") == (-2.0, -4.0, 2.0)
    assert parse_shifts("") == ()
    assert make_bot("search:shifts=-3").shifts == (-3.0,)  # type: ignore[attr-defined]
    with pytest.raises(BotError, match="separated by '/'"):
        make_bot("search:shifts=later")
