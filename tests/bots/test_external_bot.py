"""External bots (docs/bot-protocol.md): whole games, every forfeit case, no leaked process,
and no hidden tile in anything sent to a bot.

The misbehaving programs are ``tests/bots/misbehave.py MODE [AT] [EXTRA]``; they play the
first legal action until decision AT, then fail as MODE says.
"""

from __future__ import annotations

import gc
import io
import json
import os
import pickle
import re
import shlex
import sys
import time
from collections import Counter
from pathlib import Path
from random import Random
from typing import Any

import pytest
from rich.console import Console

from noreturn.bots import Deck, GameResult, make_bot, play_game
from noreturn.bots.base import BotError
from noreturn.bots.external import CLOSE_GRACE, ExternalBot, parse_spec
from noreturn.bots.viewjson import view_to_json
from noreturn.engine import (
    MULLIGAN,
    GameState,
    Rules,
    legal_actions,
    parse_tile,
    tile_code,
    value_of,
    view,
)
from noreturn.records import check_record
from noreturn.sim.report import tournament_command
from noreturn.sim.tournament import Settings

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "random_bot.py"
MISBEHAVE = ROOT / "tests" / "bots" / "misbehave.py"
PYTHON = shlex.quote(sys.executable)
SMALL = Rules(players=2, colors=4, max_value=8)
TILE = re.compile(r"[ROYGBP][0-9]+")
posix_only = pytest.mark.skipif(os.name != "posix", reason="process groups are POSIX")


def misbehaving(mode: str, at: int = 1, extra: str = "", options: str = "") -> ExternalBot:
    """An external bot running ``misbehave.py MODE AT EXTRA`` with spec ``options``."""
    command = f"{PYTHON} {shlex.quote(str(MISBEHAVE))} {mode} {at} {shlex.quote(extra)}"
    bot = make_bot(f"external:{options} {command}")
    assert isinstance(bot, ExternalBot)
    return bot


def play(bot: ExternalBot, seat: int = 0, rules: Rules = SMALL, seed: int = 3) -> GameResult:
    """One game of ``bot`` against ``greedy``, with its record; the bot is closed after."""
    bots = [make_bot("greedy") for _ in range(rules.players)]
    bots[seat] = bot
    with bot:
        return play_game(rules, bots, Deck(rules, seed), seed=seed, keep_record=True)


def alive(pid: int) -> bool:
    """Whether a bot's process exists (unreaped included) or, on POSIX, any living process
    of its group (a killed helper waiting for init to reap it counts as gone)."""
    if _pid_exists(pid):
        return True
    return os.name == "posix" and bool(_group_members(pid))


def _group_members(pgid: int) -> list[int]:
    """Living (not zombie) processes of group ``pgid``; from /proc on Linux."""
    proc = Path("/proc")
    if not (proc / "self" / "stat").exists():
        try:
            os.killpg(pgid, 0)
        except (ProcessLookupError, PermissionError):
            return []
        return [pgid]
    members = []
    for entry in proc.iterdir():
        try:
            fields = (entry / "stat").read_text().rpartition(")")[2].split()
        except (OSError, ValueError):
            continue  # not a process, or it ended while we looked
        if entry.name.isdigit() and int(fields[2]) == pgid and fields[0] != "Z":
            members.append(int(entry.name))
    return members


def assert_no_process_left(bot: ExternalBot) -> None:
    assert bot.pids, "the bot never started a process"
    assert not [pid for pid in bot.pids if alive(pid)]


# --- naming a bot ------------------------------------------------------------------------


def test_spec_options_come_before_a_command_that_may_hold_colons_and_commas() -> None:
    spec = parse_spec("time=0.5 start=2 log=bot.log java -cp a:b Bot --weights=x,y")
    assert spec.command == ("java", "-cp", "a:b", "Bot", "--weights=x,y")
    assert (spec.time_limit, spec.start_limit, spec.log_path) == (0.5, 2.0, "bot.log")
    plain = parse_spec("'my bot' --level=3")
    assert plain.command == ("my bot", "--level=3") and plain.time_limit == 5.0


@pytest.mark.parametrize("spec", ["external:", "external:time=2", "external:time=0 bot",
                                  "external:time=soon bot", "external:start=-1 bot",
                                  "external:'unbalanced bot", "external:time=1e308 bot",
                                  "external:start=inf bot", "external:time=3601 bot"])
def test_bad_specs_are_refused_with_the_usage(spec: str) -> None:
    with pytest.raises(BotError, match="external"):
        make_bot(spec)


def test_the_bot_is_named_after_its_program_and_pickles_without_its_process() -> None:
    spec = f"external:time=2 {PYTHON} {EXAMPLE}"
    bot = make_bot(spec)
    assert bot.name == f"external:{EXAMPLE.name}"
    copy = pickle.loads(pickle.dumps(bot))
    assert copy.name == bot.name and copy.spec == parse_spec(spec.removeprefix("external:"))
    assert copy.pids == []
    named = pickle.loads(pickle.dumps(make_bot(spec + ",name=Rex")))
    assert named.name == "Rex"


# --- the view as JSON --------------------------------------------------------------------


def test_view_json_holds_the_seat_view_in_tile_codes() -> None:
    rules = Rules(players=3, colors=5)
    state = _midgame(rules, seed=11)
    data = json.loads(json.dumps(view_to_json(view(state, 1))))
    assert data["hand"] == [tile_code(t) for t in sorted(state.hands[1])]
    assert data["seat"] == 1 and data["bag_count"] == len(state.bag)
    assert data["rules"] == rules.to_dict()
    assert [p["hand_count"] for p in data["players"]] == [len(h) for h in state.hands]
    assert [p["score"] for p in data["players"]] == state.scores()
    for seat, player in enumerate(data["players"]):
        assert list(player["rows"]) == list("ROYGB")
        for letter, row in player["rows"].items():
            colour = "ROYGB".index(letter)
            assert [value_of(parse_tile(code)) for code in row] == state.rows[seat][colour]
    spectator = view_to_json(view(state, None))
    assert spectator["hand"] is None and spectator["seat"] is None
    assert spectator["own_exchanged"] == [] and spectator["own_mulligan"] is None


# --- whole games --------------------------------------------------------------------------


@pytest.mark.parametrize("opponent", ["greedy", "heuristic"])
def test_example_bot_plays_a_whole_legal_game(opponent: str) -> None:
    rules = Rules(players=2)
    bot = make_bot(f"external:{PYTHON} {EXAMPLE}")
    assert isinstance(bot, ExternalBot)
    with bot:
        result = play_game(rules, [make_bot(opponent), bot], Deck(rules, 7), seed=7,
                           keep_record=True)
    assert result.forfeits == []  # an illegal answer would have been a forfeit
    assert result.decisions[1] > 5 and bot.program_name == "random_bot.py"
    assert result.record is not None and check_record(result.record).valid
    assert result.record["result"]["scores"] == result.scores
    assert_no_process_left(bot)


def test_chatty_bot_info_blank_lines_and_stderr_are_tolerated(
        capfd: pytest.CaptureFixture[str]) -> None:
    bot = misbehaving("chatty")
    result = play(bot)
    assert result.forfeits == []
    assert "thinking about decision 1" in bot.infos
    out, err = capfd.readouterr()
    assert "stderr noise" not in out + err
    assert_no_process_left(bot)


def test_an_action_in_another_spelling_is_the_same_action() -> None:
    bot = misbehaving("respell")
    result = play(bot, rules=Rules(players=2))
    assert result.forfeits == []
    assert_no_process_left(bot)


def test_paired_games_in_a_loop_each_with_its_own_process() -> None:
    rules = Rules(players=2)
    bot = make_bot(f"external:{PYTHON} {EXAMPLE}")
    assert isinstance(bot, ExternalBot)
    results = []
    with bot:
        for seed in range(3):
            for seat in (0, 1):  # the same deal, the bot in each seat
                bots = [make_bot("greedy"), make_bot("greedy")]
                bots[seat] = bot
                results.append(play_game(rules, bots, Deck(rules, seed), seed=seed))
                if len(bot.pids) > 1:  # a new game ended the previous game's process
                    assert not alive(bot.pids[-2])
    assert all(r.forfeits == [] for r in results)
    assert len(bot.pids) == len(set(bot.pids)) == 6
    assert_no_process_left(bot)


def test_tournament_command_runs_an_external_bot(tmp_path: Path) -> None:
    from typer.testing import CliRunner  # noqa: PLC0415 - only this test needs it

    from noreturn.cli import app  # noqa: PLC0415 - only this test needs it

    spec = f"external:{PYTHON} {EXAMPLE}"
    outcome = CliRunner().invoke(app, ["tournament", "--bots", f"greedy,{spec}",
                                       "--players", "2", "--games", "4", "--workers", "1",
                                       "--out", str(tmp_path)])
    assert outcome.exit_code == 0, outcome.output
    results = json.loads((tmp_path / "results.json").read_text())
    assert {bot["name"]: (bot["spec"], bot["games"], bot["forfeits"])
            for bot in results["bots"]} == {
        "greedy": ("greedy", 4, 0), "random_bot.py": (spec, 4, 0)}  # the name from ready
    assert str(EXAMPLE.parent) not in outcome.output  # the table shows no command line
    # no --seed: the deals come from a fresh seed no bot can search through, said to the
    # person (stderr) and kept in results.json so that --seed plays them again
    assert results["seed"] >= 2**32  # 63 random bits: below at a chance of one in 2**31
    assert f"--seed {results['seed']} plays them again" in outcome.stderr


# --- forfeits -----------------------------------------------------------------------------

FAILURES = [
    # mode, at, extra, options, the reason's start
    ("crash", 0, "", "", "crashed: its process ended (exit code 3) before the ready"),
    ("crash", 5, "", "", "crashed: its process ended (exit code 3) before the answer to "
                         "decision 5"),
    ("hang", 0, "", "start=0.3", "timed out: no ready answer to hello within 0.3 s"),
    ("slow_start", 0, "30", "start=0.3", "timed out: no ready answer"),
    ("hang", 3, "", "time=0.5", "timed out: no answer to decision 3 within 0.5 s"),
    ("close_output", 2, "", "time=3", "crashed: it closed its output before the answer"),
    ("illegal", 2, "", "", "illegal action: 'pass' is not one of the"),
    ("unreadable", 1, "", "", "illegal action: 'fly away' does not read as an action"),
    ("garbage", 4, "", "", "garbage: a line that is not JSON: 'thinking about it...'"),
    ("wrong_id", 1, "", "", "garbage: answered decision 1 with id 2"),
    ("wrong_type", 1, "", "", "garbage: a 'move' message where the answer to decision 1"),
    ("not_object", 1, "", "", "garbage: not a message"),
    ("huge", 1, "", "", "garbage: a line longer than"),
    ("deep", 2, "", "", "garbage: a line of JSON nested too deeply"),
    ("version", 0, "", "", "protocol: it speaks version 2"),
]


@pytest.mark.parametrize(("mode", "at", "extra", "options", "reason"), FAILURES,
                         ids=[f"{f[0]}-{f[1]}" for f in FAILURES])
def test_a_failing_bot_forfeits_and_the_fallback_finishes_the_game(
        mode: str, at: int, extra: str, options: str, reason: str) -> None:
    bot = misbehaving(mode, at, extra, options)
    begin = time.monotonic()
    result = play(bot, seat=1)
    assert time.monotonic() - begin < 5  # a hang costs its limit, not more
    assert len(result.forfeits) == 1
    forfeit = result.forfeits[0]
    assert forfeit.seat == 1 and forfeit.bot == result.bots[1] == "external:misbehave.py"
    assert forfeit.reason.startswith(reason), forfeit.reason
    assert result.record is not None and check_record(result.record).valid
    assert result.record["players"][1]["forfeit"] == forfeit.reason
    assert "forfeit" not in result.record["players"][0]
    assert_no_process_left(bot)


def test_a_command_that_does_not_exist_forfeits() -> None:
    """The reason is shown to every player and kept in the record: it names the program's
    file and the system's reason, never the command line with its paths and options."""
    bot = make_bot("external:/nonexistent/secret/noreturn-bot --token=abc")
    assert isinstance(bot, ExternalBot)
    result = play(bot)
    assert [f.reason for f in result.forfeits] == [
        "could not start 'noreturn-bot': No such file or directory"]
    assert bot.pids == []


def test_a_bad_external_spec_is_said_with_its_usage_in_the_tournament_table() -> None:
    """Rich read the usage's [time=SECONDS] as markup and dropped it."""
    out = io.StringIO()
    setup = Settings(("greedy", "external:"), Rules(players=2), 2, 0, workers=1)
    assert tournament_command(setup, console=Console(file=out, width=300)) == 2
    assert "use external:[time=SECONDS] [start=SECONDS] [log=FILE] COMMAND" in out.getvalue()


@posix_only
def test_a_hanging_bot_is_killed_with_the_processes_it_started(tmp_path: Path) -> None:
    log_file = tmp_path / "bot.log"
    bot = misbehaving("spawn", 2, options=f"time=0.5 log={shlex.quote(str(log_file))}")
    result = play(bot)
    assert result.forfeits[0].reason.startswith("timed out")
    match = re.search(r"child (\d+)", log_file.read_text())
    assert match, "the bot's stderr goes to the log file"
    child = int(match.group(1))
    assert child not in _group_members(bot.pids[0])  # killed (maybe not yet reaped by init)
    assert_no_process_left(bot)


def test_a_bot_that_ignores_the_end_is_killed_after_the_grace() -> None:
    bot = misbehaving("linger")
    rules = SMALL
    state, seat_views = _run(bot, rules, seed=5)
    assert bot.pids and alive(bot.pids[0])
    begin = time.monotonic()
    bot.end_game(view(state, 0))
    assert time.monotonic() - begin < CLOSE_GRACE + 1
    assert_no_process_left(bot)
    assert seat_views  # it played before it lingered


def test_a_forgotten_bot_is_killed_when_collected() -> None:
    bot = misbehaving("good")
    state = _midgame(SMALL, seed=2, until_seat=0)
    bot.act(view(state, 0), legal_actions(state), Random(0))
    pid = bot.pids[0]
    assert alive(pid)
    del bot
    gc.collect()
    assert not alive(pid)


# --- hidden information -------------------------------------------------------------------


@pytest.mark.parametrize("seed", [1, 2])
def test_the_messages_hold_no_tile_the_seat_may_not_see(tmp_path: Path, seed: int) -> None:
    transcript = tmp_path / "messages.jsonl"
    bot = misbehaving("record", 0, str(transcript))
    rules = Rules(players=3)
    bot.start_game(0, ["Ada", "Bea", "Cy"])  # the hooks a host calls around a game
    state, expected = _run(bot, rules, seed=seed)
    bot.end_game(view(state, 0))
    assert_no_process_left(bot)
    messages = [json.loads(line) for line in transcript.read_text().splitlines()]
    assert messages[0]["type"] == "hello" and messages[0]["seat"] == 0
    assert messages[0]["names"] == ["Ada", "Bea", "Cy"]
    assert not _tiles(messages[0])
    decides = [m for m in messages if m["type"] == "decide"]
    assert len(decides) == len(expected) > 10
    for message, (json_view, visible, hand, own_mulligan) in zip(decides, expected,
                                                                strict=True):
        assert message["view"] == json_view
        shown = _tiles({**message["view"], "own_mulligan": None})
        assert not shown - visible, f"hidden tiles sent: {sorted(shown - visible)}"
        for text in message["legal"]:
            assert not _tiles(text) - hand, text
        assert message["view"]["own_mulligan"] == own_mulligan
    assert messages[-1]["type"] == "game_over"
    assert messages[-1]["scores"] == state.scores() and messages[-1]["ranks"] == state.ranks()


def test_the_leak_check_sees_a_tile_of_another_hand() -> None:
    state = _midgame(Rules(players=3), seed=4)
    honest = view_to_json(view(state, 0))
    assert not _tiles({**honest, "own_mulligan": None}) - _visible(state, 0)
    leaky = {**honest, "own_mulligan": None, "spy": [tile_code(t) for t in state.hands[1]]}
    assert _tiles(leaky) - _visible(state, 0)


def _run(bot: ExternalBot, rules: Rules, seed: int) -> tuple[GameState, list[Any]]:
    """Play a game with ``bot`` in seat 0 and random bots elsewhere, as ``play_game`` does.

    For each of seat 0's decisions keep: the expected JSON view, the tiles the seat may see
    where they lie (every tile not in the bag, another hand, another seat's exchanged or
    set-aside tiles), its hand, and its own set-aside tiles.
    """
    deck = Deck(rules, seed)
    state = GameState(rules, deck.start_player)
    others, rng, expected = make_bot("random"), Random(seed), []
    while not state.is_over():
        if state.is_chance():
            state.play(deck.next_draw(state))
            continue
        seat, legal = state.to_move, legal_actions(state)
        if seat == 0:
            mine = state.mulligan_tiles[0]
            expected.append((view_to_json(view(state, 0)), _visible(state, 0),
                             Counter(tile_code(t) for t in state.hands[0]),
                             None if mine is None else [tile_code(t) for t in sorted(mine)]))
            state.play(bot.act(view(state, 0), legal, rng))
        else:
            state.play(others.act(view(state, seat), legal, rng))
    return state, expected


def _visible(state: GameState, seat: int) -> Counter[str]:
    """Every tile ``seat`` may see where it lies: all tiles minus those hidden from it."""
    hidden = Counter(state.bag)
    for other in range(state.n):
        if other != seat:
            hidden.update(state.hands[other])
            hidden.update(state.exchanged[other])
    aside = Counter(state.aside)
    if state.stage == MULLIGAN and state.mulligan_tiles[seat]:
        aside.subtract(state.mulligan_tiles[seat] or ())
    hidden.update(+aside)
    visible = Counter(state.rules.all_tiles())
    visible.subtract(hidden)
    return Counter({tile_code(t): n for t, n in visible.items() if n > 0})


def _tiles(data: object) -> Counter[str]:
    """Every tile code in the values of a JSON value, counted."""
    if isinstance(data, str):
        return Counter(word for word in data.split() if TILE.fullmatch(word))
    found: Counter[str] = Counter()
    values = data.values() if isinstance(data, dict) else data if isinstance(data, list) else []
    for value in values:
        found.update(_tiles(value))
    return found


def _midgame(rules: Rules, seed: int, until_seat: int | None = None) -> GameState:
    """A state some turns into a game of random bots (at a decision of ``until_seat``)."""
    deck, rng, bot = Deck(rules, seed), Random(seed), make_bot("random")
    state = GameState(rules, deck.start_player)
    while not state.is_over():
        if state.is_chance():
            state.play(deck.next_draw(state))
        elif state.turns >= 6 and until_seat in (None, state.to_move):
            break
        else:
            state.play(bot.act(view(state, state.to_move), legal_actions(state), rng))
    return state


def _pid_exists(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True
