"""Random games written as records, read back and replayed: the same game, every time.

The games are played with the engine's unchecked ``apply`` (the moves come from the rollout
policy or from ``legal_actions``), written with ``RecordWriter``, turned into JSON text, read
back and checked with the validator, which replays them through the checked ``play``. So each
game also cross-checks the policy and the legal action list against the rule checks.

The games come from ``recordkit`` (``recorded_game``, ``VARIANTS``), which the other record
tests share.
"""

from __future__ import annotations

import gc
import json
from pathlib import Path
from random import Random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from recordkit import SMALL_VARIANTS, VARIANTS, Game, recorded_game, snapshot_game

from noreturn.engine import GameState, Rules, RulesError, rollout_action
from noreturn.records import (
    RecordWriter,
    check_record,
    dumps,
    read_record,
    replay_states,
    write_record,
)


def _check_round_trip(game: Game) -> None:
    text = dumps(game.record)
    record = read_record(text)
    assert record == game.record
    verdict = check_record(record)
    assert verdict.valid, verdict.reason
    assert verdict.code == "ok" and verdict.event is None
    assert verdict.over
    assert verdict.scores == tuple(game.state.scores()) == tuple(record["result"]["scores"])
    assert verdict.state == game.state


def test_variants_cover_the_ranges() -> None:
    assert {r.players for r in VARIANTS} == {2, 3, 4}
    assert {r.colors for r in VARIANTS} >= {1, 2, 6}
    assert {r.copies for r in VARIANTS} == {1, 2, 3}
    assert min(r.hand_size for r in VARIANTS) == 2 and max(r.hand_size for r in VARIANTS) == 8
    assert {r.exchange_limit for r in VARIANTS} >= {1, 4}


@pytest.mark.parametrize("rules", VARIANTS, ids=str)
def test_rollout_games_replay_to_the_same_end(rules: Rules) -> None:
    """150 games per variant (2,850 in all) with the fast rollout policy."""
    for seed in range(150):
        _check_round_trip(recorded_game(rules, seed))


@pytest.mark.parametrize("rules", VARIANTS, ids=str)
def test_uniform_games_replay_to_the_same_end(rules: Rules) -> None:
    """Uniform choices over ``legal_actions``: rarer moves (big exchanges, passes, pays)."""
    games = 40 if rules in SMALL_VARIANTS else 6
    for seed in range(games):
        _check_round_trip(recorded_game(rules, 10_000 + seed, "uniform"))


@settings(max_examples=60, deadline=None)
@given(
    players=st.integers(2, 4), colors=st.integers(1, 6), max_value=st.integers(2, 11),
    copies=st.integers(1, 3), hand_size=st.integers(1, 8), exchange_limit=st.integers(1, 4),
    seed=st.integers(0, 2**32), policy=st.sampled_from(["rollout", "uniform"]),
)
def test_written_read_and_replayed_gives_the_same_game(
    players: int, colors: int, max_value: int, copies: int, hand_size: int,
    exchange_limit: int, seed: int, policy: str,
) -> None:
    try:
        rules = Rules(players, colors, max_value, copies, hand_size, exchange_limit)
    except RulesError:
        return
    _check_round_trip(recorded_game(rules, seed, policy))


def test_replay_passes_through_every_state_of_the_game() -> None:
    for rules in VARIANTS[:6]:
        game = snapshot_game(rules, 3)
        steps = replay_states(game.record)
        count = 0
        for step in steps:
            assert step.index == count and step.event is game.record["events"][count]
            assert step.state == game.after(step.index), f"after event {step.index}"
            count += 1
        assert count == len(game.record["events"]) == len(game.befores)


def test_same_seed_gives_the_same_record_text() -> None:
    for rules in VARIANTS[:5]:
        first = dumps(recorded_game(rules, 77).record)
        assert first == dumps(recorded_game(rules, 77).record)
        assert first != dumps(recorded_game(rules, 78).record)


def test_record_text_is_one_event_per_line_and_json() -> None:
    game = recorded_game(Rules(), 5)
    text = dumps(game.record)
    assert json.loads(text) == game.record
    assert text.count('"type":') == len(game.record["events"])
    assert all(line.count('"type":') <= 1 for line in text.splitlines())


def test_written_file_reads_back(tmp_path: Path) -> None:
    game = recorded_game(Rules(players=3), 11, players=[
        {"name": "Ada", "kind": "human"}, {"name": "Bea", "kind": "bot"},
        {"name": "Cy", "kind": "bot", "level": "hard"},
    ])
    path = write_record(game.record, tmp_path / "game.json")
    assert read_record(path) == game.record == read_record(str(path))
    assert check_record(read_record(path)).scores == tuple(game.state.scores())


def test_unfinished_game_is_valid_in_progress_at_every_event_boundary() -> None:
    game = snapshot_game(VARIANTS[4], 8)
    events = game.record["events"]
    for cut in range(len(events) + 1):
        record = {**game.record, "events": events[:cut]}
        del record["result"]
        verdict = check_record(record)
        assert verdict.valid and verdict.code == "ok", (cut, verdict.reason)
        expected = game.befores[cut] if cut < len(events) else game.state
        assert verdict.state == expected
        assert (verdict.scores is None) == (not expected.is_over())
        if not expected.is_over():
            assert verdict.reason.startswith("in progress: player ")


def test_the_writer_holds_events_the_collector_need_not_scan() -> None:
    """A server keeps hundreds of games in memory: their events are no work for full
    garbage collections, and the record given out is plain JSON data, a copy."""
    rng = Random(5)
    state = GameState(Rules(players=3), 0)
    writer = RecordWriter(state)
    while not state.is_over():
        action = state.sample_draw(rng) if state.is_chance() else rollout_action(state, rng)
        writer.observe(state, action)
        state.apply(action)
    gc.collect()
    assert writer.events and not any(gc.is_tracked(event) for event in writer.events)
    record = writer.record(state)
    assert json.loads(dumps(record)) == record  # lists, as JSON reads them back
    assert check_record(record).scores == tuple(state.scores())
    dealt = len(record["events"][0]["tiles"])
    record["events"][0]["tiles"].append("R1")
    assert len(writer.record(state)["events"][0]["tiles"]) == dealt
