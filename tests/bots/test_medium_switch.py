"""Medium thinks at its switch with three and four players (``planner.SWITCH_WORLDS``).

Near the plan's own switch it declares exactly when the sampled worlds say declaring beats
waiting; everywhere else, and with two players, it is the plan. Hints weigh the switch
at every table size.
"""

from __future__ import annotations

from random import Random

import pytest
from botgames import bot_game

from noreturn.bots import BotError, Deck, make_bot, plan
from noreturn.bots.base import thinks_now
from noreturn.bots.hints import HINT_WORLDS, suggest
from noreturn.bots.plan import near_switch
from noreturn.bots.planner import SWITCH_WORLDS, THINK_BAG, PlanBot, reason
from noreturn.bots.search import TRUST, TRUST_NEAR, SearchBot
from noreturn.bots.switch import declare_value
from noreturn.engine import DECLARE, Declare, GameState, Rules, legal_actions, view


def _positions(players: int, seed: int) -> list[GameState]:
    """The decision states of a game medium plays in every seat."""
    return bot_game(Rules(players=players), seed, PlanBot())


@pytest.mark.parametrize("players", [3, 4])
def test_near_its_switch_medium_declares_as_the_sampled_worlds_say(players: int) -> None:
    worlds = SWITCH_WORLDS[players]
    assert worlds > 0
    plain, thinking = PlanBot(worlds=0), PlanBot()
    weighed = declared = 0
    for state in _positions(players, 1):
        seen, legal = view(state, state.to_move), legal_actions(state)
        chosen = thinking.act(seen, legal, Random(7))
        if not near_switch(state):
            assert chosen == plain.act(seen, legal, Random(7))
            continue
        weighed += 1
        gain = declare_value(seen, worlds, Random(7))
        declares = gain > 0 or (gain == 0 and plan.choose(state)[0] == DECLARE)
        assert (chosen == Declare()) == declares
        if not declares:  # waiting: the plan's best move that stays in phase 1
            assert chosen == plain.act(seen, [a for a in legal if a != Declare()], Random(7))
        declared += declares
    assert weighed >= players  # every seat weighs its switch at least once
    assert 0 < declared < weighed  # the worlds said both


def test_when_the_worlds_tie_the_rule_decides(monkeypatch: pytest.MonkeyPatch) -> None:
    """Far ahead every world's clipped value is the same both ways (``search.reward``): no
    evidence, so medium declares when its rule does, not never (which "not better" meant)."""
    monkeypatch.setattr("noreturn.bots.planner.declare_value", lambda *_args: 0.0)
    rule_declared = rule_waited = 0
    for state in _positions(4, 1) + _positions(3, 2):
        if not near_switch(state):
            continue
        seen, legal = view(state, state.to_move), legal_actions(state)
        rule = plan.choose(state)[0] == DECLARE
        assert (PlanBot().act(seen, legal, Random(0)) == Declare()) == rule
        rule_declared += rule
        rule_waited += not rule
    assert rule_declared > 0 and rule_waited > 0


def test_with_two_players_medium_is_the_plan_alone() -> None:
    assert SWITCH_WORLDS[2] == 0
    plain = PlanBot(worlds=0)
    for state in _positions(2, 2):
        seen, legal = view(state, state.to_move), legal_actions(state)
        assert PlanBot().act(seen, legal, Random(1)) == plain.act(seen, legal, Random(1))


def test_kept_in_phase_1_medium_never_declares() -> None:
    for state in _positions(4, 3):
        if not near_switch(state):
            continue
        legal = [a for a in legal_actions(state) if a != Declare()]
        assert PlanBot(worlds=8).act(view(state, state.to_move), legal, Random(0)) in legal


def test_in_a_game_of_thousands_of_tiles_medium_keeps_to_the_rule(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Each world plays the rest of the game out: with more than ``THINK_BAG`` tiles in
    the bag medium does not think (a server's bot table at the largest rules)."""
    def no_worlds(*_args: object) -> float:
        raise AssertionError("medium sampled worlds with a bag of hundreds of tiles")

    monkeypatch.setattr("noreturn.bots.planner.declare_value", no_worlds)
    rules = Rules(players=4, colors=6, max_value=31, copies=4)
    deck, plain = Deck(rules, 0), PlanBot(worlds=0)
    state = GameState(rules, deck.start_player)
    seen_near = 0
    while not state.is_over() and len(state.bag) > THINK_BAG:
        if state.is_chance():
            state.apply(deck.next_draw(state))
            continue
        seen, legal = view(state, state.to_move), legal_actions(state)
        chosen = PlanBot().act(seen, legal, Random(0))
        assert chosen == plain.act(seen, legal, Random(0))
        seen_near += near_switch(state)
        state.apply(chosen)
    assert seen_near > 0  # the plan came near its switch with a full bag


def test_the_worlds_option() -> None:
    bot = make_bot("heuristic:worlds=4")
    assert isinstance(bot, PlanBot) and bot.worlds == 4
    assert make_bot("heuristic:worlds=1000").worlds == 1000  # type: ignore[attr-defined]
    for spec in ("heuristic:worlds=-1", "heuristic:worlds=many", "heuristic:time=1",
                 "heuristic:worlds=100000000"):  # the last would never answer
        with pytest.raises(BotError, match="worlds"):
            make_bot(spec)


def test_hints_play_medium_s_switch_and_say_when_the_worlds_overrule_the_rule() -> None:
    """A hint is the move medium plays (its worlds drawn by a fixed seed); where the worlds
    and the turn budget disagree about switching, its reason says the worlds decided."""
    bot, overruled = PlanBot(), 0
    for state in _positions(3, 3) + _positions(4, 1):
        seen, legal = view(state, state.to_move), legal_actions(state)
        action, why = bot.decide(seen, legal)
        assert action == bot.act(seen, legal, Random(0))
        if near_switch(state) and (action == Declare()) != (plan.choose(state)[0] == DECLARE):
            overruled += 1
            assert "sampled games" in why and "turns left" in why, why
            assert why.startswith("switch to phase 2 now" if action == Declare()
                                  else "do not switch yet"), why
            if action != Declare():  # and it says what it plays instead, and why
                assert why.endswith(reason(state, action)), why
        else:
            assert "sampled games" not in why, why
    assert overruled > 0


def test_with_two_players_a_hint_weighs_the_switch_where_medium_keeps_to_the_rule() -> None:
    """A hint weighs its switch over sampled worlds at every table size, as the switch
    advice does, so the two agree; medium itself keeps to the rule with two players."""
    assert HINT_WORLDS > 0
    weighing, overruled = PlanBot(worlds=HINT_WORLDS), 0
    for state in _positions(2, 4) + _positions(2, 5):
        seen, legal = view(state, state.to_move), legal_actions(state)
        hinted, why = suggest(seen)
        assert (hinted, why) == weighing.decide(seen, legal)
        if hinted != PlanBot().act(seen, legal, Random(0)):
            assert near_switch(state) and "sampled games" in why, why
            overruled += 1
    assert overruled > 0


def test_medium_says_it_thinks_exactly_where_it_weighs_its_switch() -> None:
    """``thinks_now``: a server runs these decisions outside its table lock, one at a
    time (a run of fast moves under the lock must stay fast); elsewhere medium is fast."""
    said = 0
    for state in _positions(3, 1) + _positions(2, 2):
        seen = view(state, state.to_move)
        weighs = state.rules.players > 2 and seen.bag_count <= THINK_BAG and near_switch(state)
        assert thinks_now(PlanBot(), seen) == weighs
        assert not thinks_now(PlanBot(worlds=0), seen)
        said += weighs
    assert said >= 3
    assert thinks_now(SearchBot(iterations=2), view(_positions(2, 2)[0], 0))  # a Budget


def test_near_the_switch_the_search_plays_its_plain_winner(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Near the plan's switch hard does not favour the plan's move (``trust_near``): the
    rule is least sure there; elsewhere a move must beat it by ``trust`` standard errors."""
    asked: list[float] = []  # the trust each halving was given

    def halving(*args: object) -> int:
        trust = args[-1]
        assert isinstance(trust, float)
        asked.append(trust)
        return 0

    monkeypatch.setattr(SearchBot, "_halving", halving)
    bot = make_bot("search:iterations=2")
    assert isinstance(bot, SearchBot)
    given: dict[bool, set[float]] = {True: set(), False: set()}  # by near_switch
    for state in _positions(4, 3):
        asked.clear()
        bot.act(view(state, state.to_move), legal_actions(state), Random(0))
        given[near_switch(state)].update(asked)
    assert TRUST_NEAR < TRUST
    assert given == {True: {TRUST_NEAR}, False: {TRUST}}
    custom = make_bot("search:trust=2,trust_near=0.5")
    assert isinstance(custom, SearchBot) and (custom.trust, custom.trust_near) == (2.0, 0.5)
