"""The words for events (``noreturn.text.narrate``), told from the engine's gate: they name
hidden tiles only for the actor (docs/rules.md, "What each player may see").

The gate itself is tested in tests/engine/test_observe.py; here every kind of event of
several random games is told to every seat and a spectator, from what ``observe`` gave each.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

import pytest

from noreturn.bots import Deck, make_bot, play_game
from noreturn.engine import HIDING_KINDS, MULLIGAN, EventKind, GameState, Rules, observe
from noreturn.server.replay import public_replay
from noreturn.text.narrate import narrate_event, narrate_game_over, narrate_turn
from strategies import Played, played_events

SEEDS = range(4)
PLAYERS = (2, 3, 4)
TILE_CODE = re.compile(r"\b[ROYGBP]\d+\b")


def games(players: int) -> Iterator[Played]:
    """Every event of several random games of the published size and of a small variant."""
    for seed in SEEDS:
        yield from played_events(Rules(players=players), seed)
        small = Rules(players=players, colors=3, max_value=6, hand_size=4, exchange_limit=3)
        yield from played_events(small, 100 + seed)


def observers(state: GameState) -> list[int | None]:
    """Every seat, and None for a spectator."""
    return [*range(state.n), None]


@pytest.mark.parametrize("players", PLAYERS)
def test_the_words_name_hidden_tiles_for_the_actor_alone(players: int) -> None:
    """Told from the gate's views, a hiding event names no tile for the others and names
    each of its hidden tiles for the actor; every other event reads the same for all."""
    for played in games(players):
        event = played.event
        names = {seat: narrate_event("X", observe(event, seat))
                 for seat in observers(played.before)}
        if event.kind not in HIDING_KINDS or not event.hidden:
            assert len(set(names.values())) == 1, names
            continue
        for seat, line in names.items():
            codes = TILE_CODE.findall(line)
            if seat == event.actor:
                assert len(codes) == len(event.hidden), line
            else:
                assert not codes and str(event.public.count) in line, line


def test_a_turn_line_tells_the_refill_as_a_count_to_others() -> None:
    played = played_events(Rules(), 3)
    turn = next(i for i, p in enumerate(played)
                if p.event.kind is EventKind.EXCHANGE and i + 1 < len(played)
                and played[i + 1].event.kind is EventKind.DRAW
                and played[i + 1].event.actor == p.event.actor
                and played[i + 1].before.stage != MULLIGAN)
    action, drawn = played[turn].event, played[turn + 1].event
    actor = action.actor
    mine = narrate_turn("Ada", observe(action, actor), observe(drawn, actor))
    theirs = narrate_turn("Ada", observe(action, None), observe(drawn, None))
    count = drawn.public.count
    assert re.fullmatch(rf"Ada exchanged( [ROYGBP]\d+)+ and drew( [ROYGBP]\d+){{{count}}}", mine)
    assert theirs == f"Ada exchanged {action.public.count} tile" + (
        "s" if action.public.count != 1 else "") + f" and drew {count}"


def test_an_early_end_says_why_the_bag_is_not_empty() -> None:
    """A game that ends with tiles in the bag (everyone in phase 2, every row empty:
    docs/rules.md, "End of the game") said only "game over", which a newcomer took for a fault;
    a game whose bag ran dry says no more than that."""
    rules = Rules(players=2)
    bots = [make_bot("declare-at:turns=99,bot=random") for _ in range(2)]
    record = play_game(rules, bots, Deck(rules, 3), seed=3, keep_record=True).record
    assert record is not None
    lines = [step["log"] for step in public_replay(record)["steps"]]
    assert "; game over before the bag is empty: every player is in phase 2" in lines[-1]
    assert narrate_game_over(["Ada", "Bo"], [3, 1]) == "game over: Ada 3, Bo 1"
