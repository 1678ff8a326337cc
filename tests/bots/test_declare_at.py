"""The ``declare-at`` wrapper: never declares before its trigger, always at the first turn
it holds, otherwise plays as the bot it wraps; the plan honours a legal list without the
declaration."""

from __future__ import annotations

from collections.abc import Sequence
from random import Random

import pytest

from noreturn.bots import BotError, Deck, make_bot, play_game
from noreturn.bots.base import Budget
from noreturn.bots.declare_at import DeclareAt, Trigger, measure
from noreturn.bots.planner import PlanBot
from noreturn.engine import Action, Declare, Rules, View


class Spy:
    """Wraps a ``DeclareAt`` and notes each decision where declaring was legal."""

    def __init__(self, bot: DeclareAt) -> None:
        self.bot = bot
        self.name = bot.name
        self.offers: list[tuple[bool, bool, float]] = []
        """Per turn with a declaration offered: (trigger held, declared, reading)."""

    def act(self, view: View, legal: Sequence[Action], rng: Random) -> Action:
        action = self.bot.act(view, legal, rng)
        if any(isinstance(a, Declare) for a in legal):
            trigger = self.bot.trigger
            assert trigger is not None
            self.offers.append((trigger.holds(view), isinstance(action, Declare),
                                measure(view, trigger.kind)))
        return action


TRIGGERS = [Trigger("bag", 70), Trigger("bag", 25), Trigger("turns", 14), Trigger("turns", 6),
            Trigger("points", 60), Trigger("points", 120)]
"""Early and late values of each kind: the free plan would declare after the early ones
and before the late ones, so both the forcing and the holding back are exercised."""


@pytest.mark.parametrize("trigger", TRIGGERS, ids=lambda t: t.label)
@pytest.mark.parametrize("inner", ["medium", "greedy"])
def test_declares_at_the_first_own_turn_the_trigger_holds_and_never_before(
        trigger: Trigger, inner: str) -> None:
    rules = Rules(players=2)
    declared = 0
    for deal in range(3):
        spy = Spy(DeclareAt(make_bot(inner), trigger))
        play_game(rules, [spy, make_bot("medium")], Deck(rules, f"declare-at:{deal}"),
                  seed=deal)
        assert spy.offers, "the seat had phase-1 turns"
        before = [o for o in spy.offers if not o[0]]
        assert not any(declared for _, declared, _ in before), "declared before the trigger"
        held = [i for i, (holds, _, _) in enumerate(spy.offers) if holds]
        if held:  # the declaration is the first turn the trigger held, and the last offer
            assert held[0] == len(spy.offers) - 1 and spy.offers[-1][1]
            assert spy.bot.declared is not None
            declared += 1
        else:
            assert spy.bot.declared is None
    assert declared >= 1


def test_a_trigger_that_never_holds_never_declares() -> None:
    rules = Rules(players=3)
    bot = DeclareAt(make_bot("medium"), Trigger("points", 792))
    result = play_game(rules, [bot, make_bot("medium"), make_bot("medium")],
                       Deck(rules, "never"), seed=1)
    assert bot.declared is None and result.turns > 0


def test_without_a_trigger_it_plays_as_the_free_bot_and_notes_its_switch() -> None:
    rules = Rules(players=2)
    watched = DeclareAt(make_bot("medium"), None)
    free = play_game(rules, [make_bot("medium"), make_bot("medium")], Deck(rules, "w"), seed=4)
    same = play_game(rules, [watched, make_bot("medium")], Deck(rules, "w"), seed=4)
    assert same.scores == free.scores and same.turns == free.turns
    assert watched.declared is not None and watched.declared.bag >= 0


def test_the_plan_stays_in_phase_1_when_declaring_is_not_offered() -> None:
    rules = Rules(players=2)
    plan, rng = PlanBot(), Random(0)
    seen: list[tuple[View, list[Action]]] = []

    class Recorder:
        name = "rec"

        def act(self, view: View, legal: Sequence[Action], rng: Random) -> Action:
            seen.append((view, list(legal)))
            return plan.act(view, legal, rng)

    play_game(rules, [Recorder(), make_bot("medium")], Deck(rules, "p"), seed=0)
    view, legal = next((v, lg) for v, lg in seen if isinstance(plan.act(v, lg, rng), Declare))
    held = plan.act(view, [a for a in legal if not isinstance(a, Declare)], rng)
    assert not isinstance(held, Declare) and held in legal


def test_the_registered_spec_and_bad_triggers() -> None:
    bot = make_bot("declare-at:bag=40,bot=greedy")
    assert isinstance(bot, DeclareAt) and bot.trigger == Trigger("bag", 40)
    assert bot.name.endswith("@bag<=40") and bot.budget is None
    searching = make_bot("declare-at:turns=5,bot=hard")
    assert isinstance(searching, DeclareAt) and searching.budget == Budget(seconds=1.0)
    with pytest.raises(BotError, match="one trigger"):
        make_bot("declare-at:bag=40,turns=3")
    with pytest.raises(BotError, match="bag, turns, points"):
        Trigger("cards", 3)
    with pytest.raises(BotError, match="0 or more"):
        Trigger("turns", -1)
