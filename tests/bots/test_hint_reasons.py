"""The hints' reasons read right: the words match the move (a hint a player cannot trust is
worse than none). Found by following hints through whole games: "start a orange row",
a payment whose extra tiles looked like a blunder, and a phase-2 exchange with empty rows
said to "fish for one strong colour" when nothing was left to score."""

from __future__ import annotations

import re
import statistics
from itertools import pairwise

import pytest
from botgames import bot_game

from noreturn.bots import plan
from noreturn.bots.planner import PlanBot, reason, shown_need
from noreturn.engine import (
    COLOUR_NAMES,
    Exchange,
    GameState,
    Place,
    Rules,
    Score,
    colour_of,
    legal_actions,
    placed_values,
    tiles_text,
    value_of,
)
from noreturn.text.lang import speaking


def _states(players: int, seeds: range) -> list[GameState]:
    return [s for seed in seeds for s in bot_game(Rules(players=players), seed,
                                                   PlanBot(worlds=0))]


def test_a_new_row_is_started_with_an_article_that_fits_every_colour() -> None:
    seen = set()
    for state in _states(2, range(3)):
        for action in legal_actions(state):
            if isinstance(action, Place) and not state.rows[state.to_move][
                    colour_of(action.tiles[0])]:
                colour = COLOUR_NAMES[colour_of(action.tiles[0])]
                assert f"start a new {colour} row high" in reason(state, action)
                seen.add(colour)
    assert "orange" in seen, seen


def test_a_payment_names_the_tiles_it_throws_in_beyond_the_due() -> None:
    thrown = exact = 0
    for state in _states(2, range(3)):
        seat = state.to_move
        for action in legal_actions(state):
            if not isinstance(action, Score):
                continue
            due = sum(state.rows[seat][action.row][-action.count:])
            paid = sorted((value_of(t) for t in action.pay), reverse=True)
            why = reason(state, action)
            if sum(paid[:-1]) >= due and state.bag:  # the lowest tile was not needed
                assert "thrown in" in why, why
                assert tiles_text(action.pay[-1:]) in why.split("over:")[1], why
                thrown += 1
            else:
                assert "thrown in" not in why, why
                exact += 1
    assert thrown and exact, (thrown, exact)


def test_an_exchange_with_every_row_scored_says_so_instead_of_fishing() -> None:
    empty = fishing = 0
    for state in _states(3, range(4)):
        seat = state.to_move
        if state.phases[seat] != 2:
            continue
        exchange = next(a for a in legal_actions(state) if isinstance(a, Exchange))
        why = reason(state, exchange)
        if any(state.rows[seat]):
            assert "fish for one strong colour" in why, why
            fishing += 1
        else:
            assert "your rows are all scored" in why, why
            assert ("the fewer turns the others have" in why) == bool(state.bag), why
            empty += 1
    assert empty and fishing, (empty, fishing)


def test_the_turns_left_count_the_turn_under_way_and_the_last_is_named() -> None:
    """Once the bag is empty the round is completed, so the mover is on its last turn:
    the reason says so, where the estimate rounded to "about 0 turns left"."""
    last = 0
    for state in _states(3, range(3)):
        for action in legal_actions(state)[:3]:
            why = reason(state, action)
            assert "about 0 turns" not in why, why
            if state.ending and state.stage == 2:
                assert "this is your last turn" in why, why
                last += 1
    assert last, "no game reached its last turns"


def test_small_steps_are_claimed_only_where_the_steps_are_small() -> None:
    small = wide = 0
    for state in _states(3, range(2)):
        seat = state.to_move
        for action in legal_actions(state):
            if not isinstance(action, Place):
                continue
            row = state.rows[seat][colour_of(action.tiles[0])]
            if not row:
                continue
            values = [row[-1], *sorted((value_of(t) for t in action.tiles), reverse=True)]
            steps = [a - b for a, b in pairwise(values)]
            why = reason(state, action)
            assert ("small steps" in why) == (max(steps) <= 2), (values, why)
            small += max(steps) <= 2
            wide += max(steps) > 2
    assert small and wide, (small, wide)


@pytest.mark.parametrize(("lang", "words"), [
    ("en", ("score {tiles} of your ", "tile", "tiles", " for {points} ", "point", "points")),
    ("de", ("werte {tiles} deiner Reihe ", "Stein", "Steine", " für {points} ", "Punkt",
            "Punkte")),
])
def test_a_score_counts_its_tiles_and_points_in_words(lang: str, words: tuple[str, ...]
                                                      ) -> None:
    """"score 1 of your red row for 1 points" read wrong, and "werte 1 Steine" in German:
    a count of one takes the singular in both."""
    start, tile, tiles, middle, point, points = words
    counts = set()
    with speaking(lang):
        for state in _states(2, range(2)):
            seat = state.to_move
            for action in legal_actions(state):
                if isinstance(action, Score):
                    due = sum(state.rows[seat][action.row][-action.count:])
                    why = reason(state, action)
                    counted = f"{action.count} {tile if action.count == 1 else tiles}"
                    scored = f"{due} {point if due == 1 else points},"
                    assert why.startswith(start.format(tiles=counted)), why
                    assert middle.format(points=scored) in why, why
                    counts.add(min(action.count, 2))
    assert counts == {1, 2}


@pytest.mark.parametrize(("lang", "then"), [
    ("en", r"\(then your rows need (\d+) scoring turns?\)$"),
    ("de", r"\(danach brauchen deine Reihen (\d+) Wertungsz(?:ug|üge)\)$"),
])
def test_a_placement_says_what_the_rows_need_after_it(lang: str, then: str) -> None:
    """Issue 15: "keep building: 16 turns left, your rows need 13" and on the next turn
    "switch now: 15 turns left, your rows need 16" read as a contradiction, since the
    placement between them was not said to fill the budget. A placement's reason now
    names the scoring turns the rows need once it is played: the count for the rows with
    the tiles added (the engine's ``placed_values``) and the hand without them."""
    grew = 0
    with speaking(lang):
        for state in _states(2, range(2)):
            seat = state.to_move
            for action in legal_actions(state):
                if not isinstance(action, Place):
                    continue
                rows = [row[:] for row in state.rows[seat]]
                rows[colour_of(action.tiles[0])] += placed_values(action.tiles)
                hand = list(state.hands[seat])
                for tile in action.tiles:
                    hand.remove(tile)
                expected = shown_need(rows, hand, 2)
                found = re.search(then, reason(state, action))
                assert found and int(found.group(1)) == expected, reason(state, action)
                grew += expected > shown_need(state.rows[seat], state.hands[seat], 2)
    assert grew, "no placement added a scoring turn"


@pytest.mark.parametrize("players", [2, 3, 4])
def test_the_scoring_turns_a_hint_names_are_about_the_turns_the_rows_take(players: int
                                                                          ) -> None:
    """At a seat's first phase-2 turn, the scoring turns a hint says its rows need against
    the phase-2 turns it then spends before they are empty (seats whose rows were emptied,
    in games of the plan against itself): within a turn on average, and nearer than the
    plan's own cautious count, which ran 1.0 and 3.0 turns long with four and two players
    (measured: SHOWN_PAYMENT) and made a hint say "15 turns left, your rows need 16" of
    rows then scored in 13."""
    shown, cautious = [], []
    typical = plan.params_for(players).typical
    for seed in range(12):
        states = [s for s in _states(players, range(seed, seed + 1)) if s.stage == 2]
        for seat in range(players):
            mine = [s for s in states if s.to_move == seat and s.phases[seat] == 2
                    and any(s.rows[seat])]
            if not mine or any(states[-1].rows[seat]) or mine[0].ending:
                continue  # never declared, rows left at the end (cut short), or the last turn
            first, spent = mine[0], len(mine)
            rows, hand = first.rows[seat], first.hands[seat]
            shown.append(shown_need(rows, hand, players) - spent)
            cautious.append(plan.scoring_turns(rows, plan.paying_power(hand), typical) - spent)
    assert len(shown) >= 12, len(shown)
    assert abs(statistics.mean(shown)) < 1.0, statistics.mean(shown)
    assert abs(statistics.mean(shown)) <= abs(statistics.mean(cautious)), cautious
    if players != 3:  # with three players the plan's own count was right (the same)
        assert statistics.mean(cautious) > 0.5 + statistics.mean(shown), cautious
