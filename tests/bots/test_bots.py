"""Bots: the registry, legal play in many games, honest sampling, hints, forfeits."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence
from random import Random

import pytest

from noreturn.bots import Deck, make_bot, plan, play_game, search
from noreturn.bots.base import CURRENT, LEVELS, BotError, Budget, bot_names, budget_of
from noreturn.bots.evaluate import action_value, action_values, row_credit
from noreturn.bots.hints import suggest
from noreturn.bots.search import SearchBot, reward
from noreturn.bots.yardsticks.heuristic_v1 import HeuristicV1Bot as HeuristicBot
from noreturn.bots.yardsticks.ismcts_v1 import IsmctsV1Bot as IsmctsBot
from noreturn.bots.yardsticks.ismcts_v1 import candidates
from noreturn.engine import (
    Action,
    Declare,
    Exchange,
    GameState,
    Mulligan,
    Place,
    Rules,
    RulesError,
    Score,
    View,
    legal_actions,
    sample_world,
    tiles_value,
    value_of,
    view,
)
from noreturn.records import check_record
from strategies import game_positions, hidden_from, random_rules, tile_places

SMALL = Rules(players=2, colors=3, max_value=6, copies=2, hand_size=4, exchange_limit=2)


# ----------------------------------------------------------------------------- registry
def test_registry_knows_every_bot_and_level() -> None:
    names = bot_names()
    for name in ("random", "greedy", "heuristic", "ismcts", "plan", "search", *LEVELS):
        assert name in names
        if name != "external":
            assert make_bot(name).name in {"random", "greedy", "plan", "search", "ismcts-v1"}


def test_the_general_names_stand_for_the_current_bots() -> None:
    assert CURRENT == {"heuristic": "plan", "ismcts": "ismcts-v1"}
    for name, bot in CURRENT.items():
        assert make_bot(f"{name}").name == make_bot(bot).name == bot
        assert bot_names()[name].startswith(f"now {bot}: ")
    assert isinstance(make_bot("ismcts:iterations=9"), IsmctsBot)


def test_expert_thinks_three_times_as_long_as_hard_and_plans_its_own_switch() -> None:
    hard, expert = make_bot("hard"), make_bot("expert")
    assert isinstance(hard, SearchBot) and isinstance(expert, SearchBot)
    assert (hard.seconds, hard.shifts) == (1.0, ())
    assert (expert.seconds, expert.shifts) == (3.0, (-1.0, -2.0))


def test_a_thinking_bot_says_its_budget_and_a_fast_one_has_none() -> None:
    assert budget_of(make_bot("ismcts:iterations=17")) == Budget(iterations=17)
    assert budget_of(make_bot("ismcts-v1:time=0.5")) == Budget(seconds=0.5)
    assert budget_of(make_bot("hard")) == Budget(seconds=1.0)
    for fast in ("random", "greedy", "heuristic", "easy", "medium"):
        assert budget_of(make_bot(fast)) is None


@pytest.mark.parametrize("options", ["time=-1", "time=0", "time=nan", "time=inf",
                                     "time=1e308", "time=601", "iterations=0",
                                     "iterations=100001", "c=-0.1", "c=nan"])
def test_ismcts_refuses_a_budget_it_cannot_keep(options: str) -> None:
    # (time=1e308 and a billion iterations were taken: a decision that never answers)
    says = "at most 600 (seconds), iterations from 1 to 100,000"
    with pytest.raises(BotError, match=re.escape(says)):
        make_bot(f"ismcts:{options}")


def test_ismcts_takes_budgets_at_the_ends_of_their_ranges() -> None:
    assert budget_of(make_bot("ismcts-v1:time=600")) == Budget(seconds=600)
    assert budget_of(make_bot("ismcts-v1:iterations=100000")) == Budget(iterations=100_000)


@pytest.mark.parametrize(("options", "says"), [
    ("time=-1", "time=-1: give seconds"), ("time=0", "from 0.001 to 600"),
    ("time=nan", "time=nan"), ("time=inf", "time=inf"), ("time=1e308", "to 600"),
    ("iterations=0", "at least 1 world"), ("iterations=100001", "at most 100,000"),
    ("win=1.5", "win=1.5: give the win's weight"),
    ("win=-0.1", "from 0 to 1"), ("trust=-1", "trust=-1"), ("trust_near=nan", "trust_near"),
    ("scale=inf", "scale=inf"), ("shifts=nan", "shifts=nan"), ("shifts=-1/99", "-30 to 30"),
    ("shifts=soon", "separated by '/'")])
def test_search_refuses_options_out_of_their_range(options: str, says: str) -> None:
    with pytest.raises(BotError, match=re.escape(says)):
        make_bot(f"search:{options}")


def test_search_takes_options_at_the_ends_of_their_ranges() -> None:
    bot = make_bot("search:time=600,win=0,trust=0,scale=1000000,shifts=-30/30,iterations=1,"
                   "tie=10")
    assert isinstance(bot, SearchBot)
    assert (bot.seconds, bot.win_weight, bot.trust, bot.shifts) == (600, 0, 0, (-30, 30))
    assert bot.tie == 10 and make_bot("hard").tie == 0  # type: ignore[attr-defined]
    assert budget_of(make_bot("search:iterations=100000")) == Budget(iterations=100_000)


def test_the_tiebreak_tells_apart_margins_the_clip_makes_equal(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Far ahead, a margin of 40 and of 90 are worth the same clipped (both past 30); the
    tiebreak prefers the bigger by a thousandth of a win a point."""
    state = GameState(Rules(players=2), 0)
    values = {}
    for margin in (40, 90):
        monkeypatch.setattr(search, "outcome", lambda _s, _seat, m=margin: (m, 1.0))
        values[margin] = (reward(state, 0, 0.5), reward(state, 0, 0.5, tie=1))
    assert values[40][0] == values[90][0] == 1.0
    assert (values[40][1], values[90][1]) == pytest.approx((1.04, 1.09))
    with pytest.raises(BotError, match="tie=-1"):
        make_bot("search:tie=-1")


@pytest.mark.parametrize("level", ["easy", "medium", "hard", "expert"])
def test_a_level_takes_no_options_but_its_name(level: str) -> None:
    with pytest.raises(BotError, match=f"the level '{level}' takes no options but name="):
        make_bot(f"{level}:time=2")
    assert make_bot(f"{level}:name=Deep").name == "Deep"


def test_unknown_bot_names_the_choices() -> None:
    with pytest.raises(BotError, match=r"no bot named 'clever'.*heuristic"):
        make_bot("clever")


def test_a_bot_without_options_says_so() -> None:
    with pytest.raises(BotError, match="takes no options but name="):
        make_bot("greedy:x=1")
    assert make_bot("greedy:name=Gus").name == "Gus"


def test_bad_bot_options_say_what_is_accepted() -> None:
    with pytest.raises(BotError, match="time="):
        make_bot("ismcts:depth=3")
    with pytest.raises(BotError, match="'soon' is not a number"):
        make_bot("ismcts:time=soon")
    with pytest.raises(BotError, match=r"'2\.5' is not a whole number"):
        make_bot("search:iterations=2.5")


def test_ismcts_options_set_its_budget() -> None:
    bot = make_bot("ismcts:iterations=17,c=0.5")
    assert isinstance(bot, IsmctsBot)
    assert (bot.iterations, bot.c) == (17, 0.5)


# ------------------------------------------------------------------------ legal play
def _variant(rng: Random, players: int) -> Rules:
    while True:
        rules = random_rules(rng)
        if rules.players == players:
            return rules


def _lineup(rng: Random, players: int, pool: Sequence[str]) -> list[str]:
    return [pool[int(rng.random() * len(pool))] for _ in range(players)]


@pytest.mark.parametrize("players", [2, 3, 4])
def test_simple_bots_play_only_legal_actions_in_many_games(players: int) -> None:
    """Random, greedy (easy) and the frozen heuristic, mixed at every seat. The plan
    (``heuristic``, medium) has its own thousand games a size in test_bots_plan.py, with
    its sampled worlds near the switch: here it would only repeat that test's cost."""
    rng = Random(players)
    games = 0
    for deal in range(700):
        rules = Rules(players=players) if deal % 4 == 0 else _variant(rng, players)
        names = _lineup(rng, players, ("random", "greedy", "heuristic-v1"))
        result = play_game(rules, [make_bot(n) for n in names], Deck(rules, deal), seed=deal,
                           keep_record=deal % 25 == 0)
        assert result.forfeits == [], result.forfeits
        if result.record is not None:
            assert check_record(result.record).valid
        games += 1
    assert games == 700


@pytest.mark.parametrize("players", [2, 3, 4])
def test_ismcts_plays_only_legal_actions(players: int) -> None:
    rules = Rules(**{**SMALL.to_dict(), "players": players})
    for deal in range(6):
        bots = [make_bot("ismcts:iterations=12")] + [make_bot("heuristic")] * (players - 1)
        result = play_game(rules, bots, Deck(rules, deal), seed=deal, keep_record=True)
        assert result.forfeits == []
        assert result.record is not None and check_record(result.record).valid


def test_ismcts_respects_an_iteration_budget() -> None:
    state = _decision_state(Rules(), seed=3, decisions=12)
    bot = IsmctsBot(iterations=25)
    action = bot.act(view(state, state.to_move), legal_actions(state), Random(1))
    assert action in legal_actions(state)
    assert bot.last_iterations == 25


def test_ismcts_candidates_are_legal_distinct_and_lead_with_the_strategy() -> None:
    for state in _decision_states(Rules(), seeds=range(3)):
        found = candidates(state)
        legal = legal_actions(state)
        assert set(found) <= set(legal)
        assert len(found) == len(set(found))
        favourite = HeuristicBot().decide(view(state, state.to_move), legal)[0]
        assert found[0] == favourite
        exchanges = sum(isinstance(a, Exchange) for a in found)
        assert exchanges <= len(set(state.hands[state.to_move])) + 1


def test_greedy_plays_an_action_of_the_highest_plain_value() -> None:
    """``action_values`` (one pass) follows the formulas of ``evaluate``, and greedy picks
    among the best-valued actions, each of them sometimes."""
    for state in _decision_states(Rules(players=3), range(3))[::7]:
        seen = view(state, state.to_move)
        legal = legal_actions(state)
        values = action_values(seen, legal)
        rate = row_credit(seen) - 1.0
        for action, value in zip(legal, values, strict=True):
            if isinstance(action, Exchange):
                expected = -0.01 * tiles_value(action.tiles) - 0.001 * len(action.tiles)
            elif isinstance(action, Place):
                expected = rate * tiles_value(action.tiles)
            elif isinstance(action, Score):
                row = seen.rows[state.to_move][action.row]
                expected = 2.0 * sum(row[-action.count:]) - 0.1 * tiles_value(action.pay)
            elif isinstance(action, Mulligan):
                expected = -0.01 * len(action.tiles)
            else:
                expected = -0.001 if isinstance(action, Declare) else -1.0
            assert value == pytest.approx(expected) == action_value(seen, action)
        best = {a for a, v in zip(legal, values, strict=True) if v == max(values)}
        rng = Random(1)
        chosen = {make_bot("greedy").act(seen, legal, rng) for _ in range(40)}
        assert chosen <= best and (len(best) == 1 or len(chosen) > 1)


# ---------------------------------------------------------------- hidden information
def _decision_states(rules: Rules, seeds: range) -> list[GameState]:
    return [p for seed in seeds for p in game_positions(rules, seed, "builder")
            if not p.is_chance() and not p.is_over()]


def _decision_state(rules: Rules, seed: int, decisions: int) -> GameState:
    return _decision_states(rules, range(seed, seed + 1))[decisions]


@pytest.mark.parametrize("players", [2, 3, 4])
def test_determinization_agrees_with_the_view_and_conserves_every_tile(players: int) -> None:
    rng = Random(players)
    rules = Rules(players=players)
    for state in _decision_states(rules, range(4))[::5]:
        for seat in range(players):
            seen = view(state, seat)
            sample = sample_world(seen, rng)
            assert view(sample, seat) == seen
            assert tile_places(sample) == Counter(rules.all_tiles())
            assert sorted(hidden_from(sample, seat).elements()) == sorted(
                seen.unseen().elements())


def test_determinizations_vary_the_hidden_tiles_only() -> None:
    state = _decision_state(Rules(), seed=1, decisions=10)
    seat = state.to_move
    seen = view(state, seat)
    rng = Random(5)
    hands = {tuple(sorted(sample_world(seen, rng).hands[1 - seat])) for _ in range(20)}
    assert len(hands) > 1, "samples should differ in the other hand"
    assert all(sample_world(seen, rng).hands[seat] == list(seen.hand or ()) for _ in range(5))


def test_sample_world_refuses_a_spectator_view() -> None:
    state = _decision_state(Rules(), seed=2, decisions=4)
    with pytest.raises(RulesError, match="spectator"):
        sample_world(view(state, None), Random(0))


class _Spy:
    """Records what a bot is given, and plays the heuristic."""

    name = "spy"

    def __init__(self) -> None:
        self.seen: list[object] = []

    def act(self, seen: View, legal: Sequence[Action], rng: Random) -> Action:
        self.seen.append(seen)
        return HeuristicBot().act(seen, legal, rng)


def test_bots_receive_only_their_own_seats_view() -> None:
    spy = _Spy()
    result = play_game(Rules(), [spy, make_bot("heuristic")], Deck(Rules(), 9), seed=9)
    assert result.forfeits == []
    assert spy.seen and all(isinstance(v, View) and v.seat == 0 for v in spy.seen)
    assert not any(isinstance(getattr(v, f), GameState) for v in spy.seen
                   for f in View.__dataclass_fields__)


def test_heuristic_decision_does_not_depend_on_hidden_tiles() -> None:
    rng = Random(8)
    bot = HeuristicBot()
    for state in _decision_states(Rules(), range(2))[::4]:
        seat = state.to_move
        seen = view(state, seat)
        legal = legal_actions(state)
        first = bot.decide(seen, legal)
        other = sample_world(seen, rng)  # another world with the same view
        assert bot.decide(view(other, seat), legal_actions(other)) == first


# --------------------------------------------------------------------------- hints
def test_suggest_gives_a_legal_move_and_a_reason_on_every_turn() -> None:
    for state in _decision_states(Rules(players=3), range(2)):
        action, reason = suggest(view(state, state.to_move))
        assert action in legal_actions(state)
        assert len(reason) > 10
        named = str(action).split()[1:]  # the tiles (or row) the action names, if any
        assert all(word in reason for word in named if word[0] != "x" and word != "pay") or (
            reason.startswith(("keep the hand", "score")))


def test_the_mulligan_reason_says_why_middling_tiles_go() -> None:
    """With three and four players the plan also gives back the weak colours' middling
    tiles (``plan.set_aside``); the reason then says so, not that they are low."""
    said: set[bool] = set()
    for seed in range(12):
        state = _decision_state(Rules(players=4), seed=seed, decisions=0)
        action, reason = suggest(view(state, state.to_move))
        assert isinstance(action, Mulligan)
        middling = any(value_of(t) > plan.params_for(4).mulligan_max for t in action.tiles)
        assert ("weak colours" in reason) == middling, reason
        said.add(middling)
    assert said == {True, False}


def test_suggest_refuses_when_it_is_not_your_turn() -> None:
    state = _decision_state(Rules(), seed=4, decisions=6)
    with pytest.raises(BotError, match="whose turn"):
        suggest(view(state, 1 - state.to_move))


# ------------------------------------------------------------------ matches, forfeits
def test_paired_deals_share_the_deck_and_the_start_player() -> None:
    first, second = Deck(Rules(), "x"), Deck(Rules(), "x")
    assert first.order == second.order and first.start_player == second.start_player
    assert Deck(Rules(), "y").order != first.order


class _Cheat:
    name = "cheat"

    def act(self, seen: View, legal: Sequence[Action], rng: Random) -> Action:
        return Exchange(tuple(seen.hand or ())[:6])  # more tiles than an exchange allows


def test_an_illegal_answer_forfeits_to_the_fallback_and_the_record_says_so() -> None:
    result = play_game(SMALL, [_Cheat(), make_bot("greedy")], Deck(SMALL, 1), seed=1,
                       keep_record=True)
    assert len(result.forfeits) == 1
    assert "not legal" in result.forfeits[0].reason
    assert result.record is not None
    assert "forfeit" in result.record["players"][0]
    assert check_record(result.record).valid


def test_heuristic_beats_random_on_paired_deals() -> None:
    wins = 0
    for deal in range(10):
        for seats in (("heuristic", "random"), ("random", "heuristic")):
            result = play_game(Rules(), [make_bot(n) for n in seats], Deck(Rules(), deal),
                               seed=deal)
            wins += result.ranks[seats.index("heuristic")] == 1
    assert wins >= 19


def test_every_bot_module_registers_without_an_import_list() -> None:
    """Adding a bot is one new file: every ``@register`` in the package's sources is in the
    registry, without a list of modules to import."""
    import re  # noqa: PLC0415
    from pathlib import Path  # noqa: PLC0415

    import noreturn.bots  # noqa: PLC0415
    from noreturn.bots.base import bot_names  # noqa: PLC0415

    root = Path(noreturn.bots.__file__).parent
    written = {name for path in root.rglob("*.py")
               for name in re.findall(r'@register\(\s*"([^"]+)"', path.read_text())}
    assert written and written <= set(bot_names())
