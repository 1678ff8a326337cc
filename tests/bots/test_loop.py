"""The one game loop (``noreturn.bots.loop``): one fallback for a failing bot, the same in
tournaments (``play_game``) and at tables (``LocalTable``, which the server runs bots
through), and the same game whichever runs it.

A table of bots only, seeded ``s``, deals from ``Deck(rules, s)`` and gives seat ``i`` the
generator ``bot:s:i``, exactly as ``play_game(..., Deck(rules, s), seed=s)`` does: so the two
paths play the very same game, and a failing bot must fail there the same way.
"""

from __future__ import annotations

import re
import shlex
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from random import Random
from typing import Any

import pytest

from noreturn.bots import Deck, make_bot, play_game
from noreturn.bots.base import Bot, BotError
from noreturn.bots.loop import (
    FALLBACK,
    HIDDEN_HAND,
    SampledDraws,
    decide_safely,
    draw_due,
    fallback_note,
    fault_in_note,
    why_not,
)
from noreturn.engine import (
    Action,
    Declare,
    Draw,
    Exchange,
    GameState,
    Mulligan,
    Pass,
    Rules,
    View,
    legal_actions,
    new_game,
    refusal,
    rollout_action,
    view,
)
from noreturn.records import RecordWriter, check_record, default_meta
from noreturn.sim.simulate import POLICIES, game_rng, play_random_game
from noreturn.table import LocalTable, Seat

SMALL = Rules(players=2, colors=3, max_value=6, copies=2, hand_size=5, exchange_limit=3)
MISBEHAVE = Path(__file__).resolve().parent / "misbehave.py"


class _Raises:
    """Raises a ``BotError`` at its third decision."""

    name = "raises"

    def __init__(self) -> None:
        self.calls = 0

    def act(self, seen: View, legal: Sequence[Action], rng: Random) -> Action:
        self.calls += 1
        if self.calls == 3:
            raise BotError("crashed on purpose")
        return legal[-1]


class _Illegal:
    """Answers an exchange of more tiles than an exchange allows (and, first, than the
    mulligan wants)."""

    name = "illegal"

    def act(self, seen: View, legal: Sequence[Action], rng: Random) -> Action:
        return Exchange(tuple(seen.hand or ())[:6])


class _NotHeld:
    """Sets aside three copies of its first tile, of which the game has only two."""

    name = "not held"

    def act(self, seen: View, legal: Sequence[Action], rng: Random) -> Action:
        return Mulligan((min(seen.hand or ()),) * 3)


class _Garbage:
    """Answers something that is no action at all."""

    name = "garbage"

    def act(self, seen: View, legal: Sequence[Action], rng: Random) -> Action:
        return "place it somewhere"  # type: ignore[return-value]


def _slow() -> Bot:
    """An outside program that answers two decisions, then hangs past its 0.5 s limit."""
    command = f"{shlex.quote(sys.executable)} {shlex.quote(str(MISBEHAVE))} hang 3"
    return make_bot(f"external:time=0.5 {command}")


FAILING: dict[str, tuple[Callable[[], Bot], str]] = {
    # kind: (a fresh failing bot, how its fault reads: a pattern)
    "raises": (_Raises, r"crashed on purpose"),
    "illegal": (_Illegal, r"answered exchange( [ROY]\d){5}, which is not legal: first comes "
                          r"the mulligan: choose the tiles to set aside \(none is a choice "
                          r"too\)"),
    "not held": (_NotHeld, r"answered mulligan ([ROY]\d) \1 \1, which is not legal: "
                           rf"{re.escape(HIDDEN_HAND)}"),
    "garbage": (_Garbage, r"answered place it somewhere, which is not legal: 'place it "
                          r"somewhere' is not an action"),
    "slow": (_slow, r"timed out: no answer to decision 3 within 0\.5 s"),
}

SEED = 0


def _tournament_game(bot: Bot, seat: int) -> dict[str, Any]:
    """``bot`` in ``seat`` against greedy, as a tournament plays it: the forfeits and record."""
    bots = [make_bot("greedy") for _ in range(SMALL.players)]
    bots[seat] = bot
    result = play_game(SMALL, bots, Deck(SMALL, SEED), seed=SEED, names=["Ada", "Bo"],
                       keep_record=True)
    assert result.record is not None
    return {"forfeits": [(f.seat, f.bot, f.reason) for f in result.forfeits],
            "record": result.record}


def _table_game(bot: Bot, seat: int) -> dict[str, Any]:
    """The same game at a table of bots, moved as the server moves them (``bot_job``)."""
    table = LocalTable([Seat("Ada", "greedy"), Seat("Bo", "greedy")], SMALL, seed=SEED)
    table.bots[seat] = bot
    notes: list[str] = []
    while table.bot_to_move():
        move = table.bot_job()()
        notes.append(move.note)
        assert table.apply_bot(move)
    return {"notes": [n for n in notes if n], "record": table.record(), "log": table.log(None),
            "fallback": type(table.bots[seat]) is type(make_bot(FALLBACK))}


@pytest.mark.parametrize("kind", list(FAILING))
@pytest.mark.parametrize("seat", [0, 1])
def test_a_failing_bot_gets_the_same_fallback_in_tournaments_and_at_tables(
        kind: str, seat: int) -> None:
    make_failing, pattern = FAILING[kind]
    tournament = _tournament_game(make_failing(), seat)
    table = _table_game(make_failing(), seat)
    name = ["Ada", "Bo"][seat]
    fault = tournament["forfeits"][0][2]
    assert re.fullmatch(pattern, fault), fault

    assert tournament["forfeits"] == [(seat, name, fault)]
    assert table["notes"] == [fallback_note(name, fault)]
    assert fallback_note(name, fault) in table["log"]
    assert table["fallback"]
    for record in (tournament["record"], table["record"]):
        assert record["players"][seat]["forfeit"] == fault
        assert "forfeit" not in record["players"][1 - seat]
        assert check_record(record).valid
    # the same fallback made the same decisions: the very same game
    assert table["record"]["events"] == tournament["record"]["events"]
    assert table["record"]["result"] == tournament["record"]["result"]


def test_the_fallback_decides_on_the_failed_bots_view_legal_actions_and_generator() -> None:
    state = new_game(SMALL, Random(1))
    while state.is_chance():
        state.play(state.sample_draw(Random(2)))
    seen, legal = view(state, state.to_move), legal_actions(state)
    action, fault = decide_safely(_Illegal(), seen, legal, Random(5))
    assert fault is not None and "which is not legal: first comes the mulligan" in fault
    assert action == make_bot(FALLBACK).act(seen, legal, Random(5))
    good = make_bot("random")
    assert decide_safely(good, seen, legal, Random(5)) == (good.act(seen, legal, Random(5)),
                                                          None)


def test_a_bug_that_is_no_bot_error_is_not_hidden_by_the_fallback() -> None:
    class Buggy:
        name = "buggy"

        def act(self, seen: View, legal: Sequence[Action], rng: Random) -> Action:
            raise ZeroDivisionError("a bug")

    state = new_game(SMALL, Random(1))
    while state.is_chance():
        state.play(state.sample_draw(Random(2)))
    with pytest.raises(ZeroDivisionError):
        decide_safely(Buggy(), view(state, state.to_move), legal_actions(state), Random(0))


def test_a_note_gives_back_its_fault() -> None:
    fault = "answered pass (a bot's words; with parentheses), which is not legal"
    assert fault_in_note("Bo's", fallback_note("Bo's", fault)) == fault
    assert fault_in_note("Ada", "something else entirely") == "something else entirely"


def test_a_table_rebuilt_from_its_stored_moves_records_the_fault_again() -> None:
    """The server keeps a game as its seed and its moves with their notes, and rebuilds it
    after a restart: the forfeit in the record must come back too."""
    seats = [Seat("Ada", "greedy"), Seat("Bo", "greedy")]
    table = LocalTable(seats, SMALL, seed=SEED)
    table.bots[1] = _Raises()
    stored: list[tuple[Action, str]] = []
    while table.bot_to_move():
        move = table.bot_job()()
        stored.append((move.action, move.note))
        table.apply_bot(move)
    again = LocalTable(seats, SMALL, seed=SEED)
    for action, note in stored:
        again.replay(action, note)
    assert again.record()["players"][1]["forfeit"] == "crashed on purpose"
    assert (again.record()["events"], again.log(None)) == (table.record()["events"],
                                                           table.log(None))


def test_play_out_plays_the_game_a_table_plays_step_by_step() -> None:
    """``play_random_game`` (``play_out`` with sampled draws) and the table's way, a
    decision and then ``draw_due``, give the same game from the same generator."""
    for index in range(3):
        state, record = play_random_game(SMALL, POLICIES["rollout"], game_rng(4, index))
        rng = game_rng(4, index)
        mine = new_game(SMALL, rng)
        writer = RecordWriter(mine, meta=default_meta())
        draws: list[int] = []
        chance = SampledDraws(rng)

        def seen(_state: GameState, draw: Draw, drawn: list[int] = draws) -> None:
            drawn.append(draw.tile)

        draw_due(mine, chance, writer, seen)
        while not mine.is_over():
            action = rollout_action(mine, rng)
            writer.observe(mine, action)
            mine.play(action)
            draw_due(mine, chance, writer, seen)
        assert mine.scores() == state.scores()
        assert writer.record(mine)["events"] == record["events"]
        assert len(draws) == sum(len(event["tiles"]) for event in record["events"]
                                 if event["type"] in ("deal", "draw"))


def test_why_not_from_the_view_is_the_engines_reason_from_the_state() -> None:
    """The fault's reason is worked out on a world sampled from the failing bot's view; it
    is the engine's reason on the true state, tile counts of the hand left out."""
    rng = Random(3)
    answers: list[Action] = [Pass(), Declare(), Mulligan(())]
    compared = 0
    for game in range(4):
        state = new_game(Rules(players=2 + game % 3), rng)
        while not state.is_over():
            if state.is_chance():
                state.play(state.sample_draw(rng))
                continue
            legal = legal_actions(state)
            answers.extend(rng.sample(legal, min(2, len(legal))))
            for action in rng.sample(answers, min(6, len(answers))):
                refused = refusal(state, action)
                if refused is None:
                    continue
                expected = HIDDEN_HAND if refused.code == "not_in_hand" else refused.reason
                assert why_not(view(state, state.to_move), action) == expected
                compared += 1
            state.play(rollout_action(state, rng))
    assert compared > 500
