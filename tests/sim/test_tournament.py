"""Tournaments: paired deals, counts, results.json, the plot, records, determinism, the CLI."""

from __future__ import annotations

import contextlib
import importlib
import io
import json
import os
import socket
import threading
from collections import defaultdict
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from rich.console import Console
from typer.testing import CliRunner

from noreturn.bots import BotError, register
from noreturn.bots.base import split_specs
from noreturn.cli import app
from noreturn.engine import Rules, compiled
from noreturn.records import check_record, read_record
from noreturn.sim import backends
from noreturn.sim.backends import BackendError
from noreturn.sim.report import duration, log_lines, reason_kind, tournament_command
from noreturn.sim.seeds import DEFAULT_SEED, GUESSABLE_BELOW, base_seed, has_outside_bot
from noreturn.sim.tournament import (
    Settings,
    TournamentError,
    bot_stats,
    lineups,
    results_json,
    run_tournament,
    schedule,
    seatings,
    without_timings,
)

runner = CliRunner()
TOO_MANY = backends.PER_CORE * (os.cpu_count() or 1) + 1
"""One worker more than ``--workers`` allows on this machine."""

SMALL = "colors=3,max_value=6,hand_size=4"
"""A variant whose games last a millisecond or so."""

BOT_KEYS = {"name", "games", "wins", "win_rate", "ci_low", "ci_high", "mean_score",
            "mean_margin", "rating"}


def small(players: int = 2) -> Rules:
    return Rules.parse(SMALL, players=players)


def settings(bots: str = "random,greedy", players: int = 2, games: int = 8, seed: int = 3,
             **options: Any) -> Settings:
    return Settings(tuple(split_specs(bots)), small(players), games, seed, workers=1, **options)


def results(setup: Settings) -> dict[str, Any]:
    tournament = run_tournament(setup)
    return results_json(tournament, bot_stats(tournament))


def test_split_specs_keeps_bot_options_together() -> None:
    assert split_specs("random, greedy") == ["random", "greedy"]
    assert split_specs("ismcts:time=1,iterations=50,greedy") == [
        "ismcts:time=1,iterations=50", "greedy"]
    assert split_specs("greedy,time=1") == ["greedy", "time=1"]  # no options open: a new bot


def test_lineups_are_combinations_or_the_list_cycled() -> None:
    assert lineups(["a", "b", "c"], 2) == [("a", "b"), ("a", "c"), ("b", "c")]
    assert lineups(["a", "b", "c", "d"], 3) == [("a", "b", "c"), ("a", "b", "d"),
                                                ("a", "c", "d"), ("b", "c", "d")]
    assert lineups(["a", "b"], 4) == [("a", "b", "a", "b")]
    assert lineups(["a", "b"], 3) == [("a", "b", "a")]


def test_seatings_are_the_distinct_rotations() -> None:
    assert seatings(("a", "b", "c")) == [("a", "b", "c"), ("b", "c", "a"), ("c", "a", "b")]
    assert seatings(("a", "b", "a", "b")) == [("a", "b", "a", "b"), ("b", "a", "b", "a")]
    assert seatings(("a", "a")) == [("a", "a")]


@pytest.mark.parametrize(("bots", "players", "games", "played"), [
    ("random,greedy", 2, 5, 6),  # 3 deals x 2 seatings
    ("random,greedy,heuristic", 2, 6, 6),  # 1 deal x 3 lineups x 2 seatings
    ("random,greedy,heuristic", 2, 7, 12),
    ("random,greedy", 4, 3, 4),  # a,b,a,b has 2 distinct seatings
    ("random,greedy", 3, 1, 3),
])
def test_games_are_rounded_up_to_whole_paired_deals(bots: str, players: int, games: int,
                                                    played: int) -> None:
    plan = schedule(settings(bots, players, games))
    assert len(plan.tasks) == played == plan.deals * plan.per_deal
    assert [t.game for t in plan.tasks] == list(range(played))


def test_every_seating_of_a_deal_plays_the_same_bag(tmp_path: Path) -> None:
    run_tournament(settings("random,greedy", 3, 9), records_dir=tmp_path)
    first_deals: dict[int, list[dict[str, Any]]] = defaultdict(list)
    seated: dict[int, set[tuple[str, ...]]] = defaultdict(set)
    for path in sorted(tmp_path.glob("*.json")):
        record = read_record(path)
        deal = record["meta"]["tournament"]["deal"]
        first_deals[deal].append(record["events"][0])
        seated[deal].add(tuple(p["name"] for p in record["players"]))
    assert len(first_deals) == 3
    for deal, events in first_deals.items():
        assert len(events) == 3 and len(seated[deal]) == 3
        assert all(event == events[0] for event in events), f"deal {deal} is not paired"
    assert first_deals[0][0] != first_deals[1][0], "different deals must differ"


@pytest.mark.parametrize(("bots", "players", "games"), [
    ("random,greedy,heuristic", 2, 12), ("random,greedy", 4, 8), ("random,greedy,heuristic", 3, 6),
])
def test_each_bots_games_add_up(bots: str, players: int, games: int) -> None:
    data = results(settings(bots, players, games))
    entries = data["bots"]
    assert sum(bot["games"] for bot in entries) == data["games"] * players
    assert data["games"] == len(data["per_game"]) == games
    for bot in entries:
        seats = sum(game["seats"].count(bot["name"]) for game in data["per_game"])
        wins = sum(1 for game in data["per_game"] for seat, name in enumerate(game["seats"])
                   if name == bot["name"] and game["ranks"][seat] == 1)
        assert (bot["games"], bot["wins"]) == (seats, wins)
        assert bot["ci_low"] <= bot["win_rate"] <= bot["ci_high"]
    if len(bots.split(",")) > players:  # every bot meets every other: equal shares of seats
        assert len({bot["games"] for bot in entries}) == 1


def test_stronger_bot_rates_higher_and_margins_mirror_in_two_player_games() -> None:
    data = results(settings("random,greedy", 2, 40))
    random_bot, greedy = data["bots"]
    assert greedy["rating"] > 1500 > random_bot["rating"]
    assert greedy["mean_margin"] == pytest.approx(-random_bot["mean_margin"])
    assert greedy["win_rate"] > random_bot["win_rate"]


def test_a_run_written_to_a_log_says_how_far_it_is_every_tenth_of_the_games() -> None:
    """No terminal, no bar: a line at every tenth of the games, with the time so far and
    about the time left at that pace."""
    out = io.StringIO()
    played = [0]  # each game takes 30 s on this clock
    advance = log_lines(Console(file=out, width=80), 25, clock=lambda: 30.0 * played[0])
    for _ in range(25):
        played[0] += 1
        advance(None)  # type: ignore[arg-type]  # the callback reads no field of the game
    lines = out.getvalue().splitlines()
    assert lines[0] == "played 2/25 games in 1 min 00 s, about 11 min 30 s left"
    assert len(lines) == 13 and lines[-1].startswith("played 25/25 games in 12 min 30 s")
    assert duration(42.4) == "42 s" and duration(5530) == "1 h 32 min"


def test_the_command_prints_progress_lines_where_no_bar_can_show() -> None:
    out = io.StringIO()
    assert tournament_command(settings("random,greedy", 2, 4), console=Console(
        file=out, width=80)) == 0
    assert "played 4/4 games in" in out.getvalue()


def test_results_json_png_and_records(tmp_path: Path) -> None:
    setup = settings("random,greedy", 2, 6)
    assert tournament_command(setup, tmp_path, records=True) == 0
    data = json.loads((tmp_path / "results.json").read_text(encoding="utf-8"))
    for key in ("players", "games", "seed", "rules", "backend", "workers", "bots", "per_game"):
        assert key in data
    assert data["compiled"] is compiled()  # the build that ran: twice the search's speed
    assert [bot["name"] for bot in data["bots"]] == ["random", "greedy"]
    assert all(set(bot) >= BOT_KEYS for bot in data["bots"])
    assert data["rules"] == small().to_dict() and data["seed"] == 3
    assert (tmp_path / "tournament.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    records = sorted((tmp_path / "records").glob("*.json"))
    assert len(records) == data["games"] == 6
    for path, game in zip(records, data["per_game"], strict=True):
        record = read_record(path)
        assert check_record(record).valid, path
        assert record["result"]["scores"] == game["scores"]


def test_same_seed_same_results_and_another_seed_differs() -> None:
    first = without_timings(results(settings(seed=11)))
    assert without_timings(results(settings(seed=11))) == first
    assert without_timings(results(settings(seed=12)))["per_game"] != first["per_game"]


def test_cli_runs_with_two_worker_processes(tmp_path: Path) -> None:
    out = tmp_path / "out"
    result = runner.invoke(app, ["tournament", "--bots", "random,greedy", "--games", "9",
                                 "--rules", SMALL, "--seed", "5", "--workers", "2",
                                 "--out", str(out)])
    assert result.exit_code == 0, result.output
    assert "10 games: 5 deals x 2 seatings" in result.output
    assert "9 asked for, rounded up" in result.output
    assert "greedy" in result.output and "95% CI" in result.output
    data = json.loads((out / "results.json").read_text(encoding="utf-8"))
    assert data["workers"] == 2 and data["games"] == 10
    in_process = results(Settings(("random", "greedy"), small(), 9, 5, workers=1))
    assert without_timings(data) == without_timings(in_process)


@pytest.mark.parametrize(("command", "left"), [
    (["tournament", "--bots", "random,greedy", "--games", "2", "--rules", SMALL, "--records"],
     "records/000000.json, records/000001.json ..."),
    (["simulate", "--games", "2", "--rules", SMALL], "game-1-00000.json, game-1-00001.json"),
    (["study", "switch", "--games", "1", "--rules", SMALL, "--bag", "10", "--turns", "none",
      "--points", "none", "--workers", "1"], "study.json, study.png"),
])
def test_an_out_folder_that_holds_an_earlier_run_is_refused_before_the_work(
        tmp_path: Path, command: list[str], left: str) -> None:
    """A second tournament into the same --out replaced its results and mixed its records
    with the first one's; simulate wrote over another run's records."""
    out = tmp_path / "out"
    first = runner.invoke(app, [*command, "--seed", "1", "--out", str(out)])
    assert first.exit_code == 0, first.output
    before = {path: path.read_bytes() for path in out.rglob("*") if path.is_file()}
    again = runner.invoke(app, [*command, "--seed", "2", "--out", str(out)],
                          env={"COLUMNS": "300"})
    assert again.exit_code == 2
    said = " ".join(again.output.split())
    assert f"{out} holds an earlier run's {left}: give a new folder, or move those files " \
           "away first" in said
    assert {path: path.read_bytes() for path in out.rglob("*") if path.is_file()} == before


def test_the_workers_reported_are_the_processes_that_ran(tmp_path: Path) -> None:
    """``--workers 3`` with two games starts two processes, and said "3 workers"."""
    out = tmp_path / "out"
    result = runner.invoke(app, ["tournament", "--bots", "random,greedy", "--games", "2",
                                 "--rules", SMALL, "--workers", "3", "--out", str(out)])
    assert result.exit_code == 0, result.output
    said = " ".join(result.output.split())
    assert "2 workers" in said and "3 workers" not in said
    assert json.loads((out / "results.json").read_text(encoding="utf-8"))["workers"] == 2
    assert [backends.processes(w, t) for w, t in ((1, 9), (4, 1), (4, 9), (8, 2))] == [
        1, 1, 4, 2]
    assert [backends.processes(w, t, "ray") for w, t in ((8, 2), (2, 9), (1, 1))] == [2, 2, 1]


def test_counts_of_one_are_said_in_the_singular() -> None:
    result = runner.invoke(app, ["tournament", "--bots", "random", "--games", "1",
                                 "--rules", SMALL])
    assert result.exit_code == 0, result.output
    said = " ".join(result.output.split())
    assert "1 game: 1 deal x 1 seating per deal (1 lineup of 2" in said
    assert "1 game in " in said and ", 1 worker," in said


@pytest.mark.parametrize(("args", "message"), [
    (["--bots", "random,nobody"], "no bot named 'nobody'"),
    (["--bots", "random,random"], "listed twice: results are counted per spec"),
    (["--bots", "random", "--records"], "--records needs --out"),
    (["--bots", "random", "--rules", "colors=0"], "colors"),
    (["--bots", "random", "--games", "1000000000"], "less than or equal to 1000000"),
    (["--bots", "random,greedy", "--games", "20", "--workers", str(TOO_MANY)],
     f"--workers {TOO_MANY}: at most {TOO_MANY - 1} on this machine"),
])
def test_cli_refuses_bad_settings(args: list[str], message: str) -> None:
    """A billion games used to build a schedule of a billion tasks, gigabytes in memory;
    ``--workers 100000`` started a process for each game."""
    result = runner.invoke(app, ["tournament", "--games", "2", *args])
    assert result.exit_code == 2, result.output
    assert message in result.output


class Failing:
    """A bot that fails at its ``at``-th decision, for the reason ``why(legal)`` gives: its
    seat is forfeited to the fallback."""

    def __init__(self, name: str, at: int, why: Callable[[Any], str]) -> None:
        self.name, self.at, self.why = name, at, why
        self.calls = 0

    def act(self, view: Any, legal: Any, rng: Any) -> Any:
        self.calls += 1
        if self.calls == self.at:
            raise BotError(self.why(legal))
        return legal[0]


def make_crashing(_options: str) -> Failing:
    """Fails at its third decision."""
    return Failing("test-crashing", 3, lambda _legal: "crashed on purpose")


def test_forfeits_and_thinking_time_are_counted_per_bot() -> None:
    register("test-crashing", "fails at its third decision (tests only)")(make_crashing)
    data = results(settings("test-crashing,greedy", 2, 4))
    crashing, greedy = data["bots"]
    assert crashing["forfeits"] == crashing["games"] == 4 and greedy["forfeits"] == 0
    assert all(game["forfeits"][0]["bot"] == "test-crashing" for game in data["per_game"])
    assert crashing["ms_per_move"] > 0 and greedy["ms_per_move"] > 0


class Mute:
    """A bot that fails at once, like an external program that does not start."""

    name = "test-mute"

    def act(self, view: Any, legal: Any, rng: Any) -> Any:
        raise BotError("its process ended (exit code 2) before the ready answer to hello")


def test_the_table_is_followed_by_why_bots_forfeited() -> None:
    register("test-crashing", "fails at its third decision (tests only)")(make_crashing)
    register("test-mute", "fails at its first decision (tests only)")(lambda _: Mute())
    out = io.StringIO()
    setup = settings("test-crashing,test-mute,greedy", 3, 6)
    # test-mute never played: the run measured the fallback in its seats, so it fails (1)
    assert tournament_command(setup, console=Console(file=out, width=200)) == 1
    lines = [line for line in out.getvalue().splitlines() if " forfeited " in line]
    crashing, mute = sorted(lines)
    assert crashing.startswith("test-crashing forfeited 6 of its 6 seats; 6 times: ")
    assert "crashed on purpose" in crashing and "first turn" not in crashing
    assert mute.startswith("test-mute forfeited 6 of its 6 seats")
    assert "before the ready answer" in mute and "greedy" not in mute
    assert "every one before the game's first turn was over: heuristic played them" in mute


def test_forfeits_of_one_cause_are_counted_together() -> None:
    """Reasons that differ only in a count ("... the 137 legal actions") were counted
    apart: "1 times: ... (and other reasons)" for two forfeits of one cause."""
    assert reason_kind("timed out: no answer to decision 3 within 0.5 s") == "timed out"
    register("test-garbling", "fails at its second decision, naming its count of moves "
                              "(tests only)")(lambda _: Failing(
        "test-garbling", 2, lambda legal: f"garbage: not one of the {len(legal)} legal actions"))
    out = io.StringIO()
    assert tournament_command(settings("test-garbling,greedy", 2, 8),
                              console=Console(file=out, width=300)) == 0
    (line,) = [line for line in out.getvalue().splitlines() if " forfeited " in line]
    assert line.startswith("test-garbling forfeited 8 of its 8 seats; 8 times: garbage: ")
    assert "other reasons" not in line


def test_settings_are_checked_before_any_game() -> None:
    with pytest.raises(TournamentError, match="backend"):
        schedule(settings(backend="slurm"))


def test_ray_missing_says_how_to_install(monkeypatch: pytest.MonkeyPatch) -> None:
    def no_ray(name: str) -> Any:
        raise ImportError(f"No module named {name!r}")

    monkeypatch.setattr(importlib, "import_module", no_ray)
    with pytest.raises(BackendError, match=r"pip install 'noreturn\[ray\]'"):
        backends.import_ray()


@pytest.mark.parametrize("command", [["tournament", "--bots", "random,greedy"],
                                     ["study", "switch"]])
def test_a_ray_address_without_ray_is_refused_not_dropped(command: list[str]) -> None:
    result = runner.invoke(app, [*command, "--games", "2", "--rules", SMALL,
                                 "--address", "10.0.0.5:6379"], env={"COLUMNS": "300"})
    assert result.exit_code == 2
    assert "--address 10.0.0.5:6379 names a Ray cluster, which only --backend ray joins: " \
           "add --backend ray, or leave --address out" in " ".join(result.output.split())


def test_every_command_with_workers_refuses_more_than_four_a_core(tmp_path: Path) -> None:
    assert backends.workers_problem(None) is None
    assert backends.workers_problem(TOO_MANY - 1) is None
    assert backends.workers_problem(TOO_MANY, "ray") is not None  # a local Ray's CPUs
    assert backends.workers_problem(TOO_MANY, "ray", "10.0.0.5:6379") is None  # its own
    said = f"--workers {TOO_MANY}: at most {TOO_MANY - 1} on this machine"
    study = runner.invoke(app, ["study", "switch", "--games", "2", "--workers", str(TOO_MANY)])
    assert study.exit_code == 2 and said in " ".join(study.output.split()), study.output
    record = tmp_path / "game.json"
    assert runner.invoke(app, ["simulate", "--games", "1", "--out", str(tmp_path)]).exit_code == 0
    next(tmp_path.glob("*.json")).rename(record)
    review = runner.invoke(app, ["review", str(record), "--workers", str(TOO_MANY)])
    assert review.exit_code == 2 and said in " ".join(review.output.split()), review.output


class _NoInit:
    """A stand-in for the ``ray`` module whose ``init`` must not be reached."""

    def init(self, **_options: Any) -> None:
        raise AssertionError("ray.init was called for an address that does not answer")


class _Refusing:
    """A stand-in for the ``ray`` module whose cluster answers and refuses the join, as a
    head of Ray 2.59 or later with a token set up refuses a client without it."""

    def init(self, **_options: Any) -> None:
        raise ConnectionError("Failed to connect to Ray cluster at 192.0.2.2:6390")


class _RayError(Exception):
    """A stand-in for ``ray.exceptions.RayError``."""


class _NoToken:
    """A stand-in for the ``ray`` module whose ``init`` raises a Ray error of its own, as
    Ray 2.60 raises ``AuthenticationError`` when told to send a token it does not have."""

    class exceptions:  # noqa: N801 - the module's attribute, as Ray names it
        RayError = _RayError

    def init(self, **_options: Any) -> None:
        raise _RayError("no authentication token found")


def test_a_refused_join_says_how_to_send_the_token(monkeypatch: pytest.MonkeyPatch) -> None:
    """Ray's own error named no cause (the token was only in its log warnings); its
    errors of its own kind ended the command in a traceback."""
    monkeypatch.setattr(backends, "GRPC_ANSWER_SECONDS", 0.2)  # silence: left to Ray
    with pytest.raises(BackendError, match="cannot reach a local Ray") as refused:
        backends._init_ray(_Refusing(), 2, None)
    assert "RAY_AUTH_MODE" not in str(refused.value)  # nothing was joined by address
    with pytest.raises(BackendError, match="cannot reach the Ray cluster at 'auto'") as refused:
        backends._init_ray(_Refusing(), 2, "auto")
    assert "RAY_AUTH_MODE" not in str(refused.value)  # auto finds the token itself
    with socket.socket() as listening:
        listening.bind(("127.0.0.1", 0))
        listening.listen()
        alive = f"127.0.0.1:{listening.getsockname()[1]}"
        monkeypatch.delenv("RAY_AUTH_MODE", raising=False)
        with pytest.raises(BackendError, match="Failed to connect") as refused:
            backends._init_ray(_Refusing(), 2, alive)
        assert "RAY_AUTH_MODE=token" in str(refused.value)
        assert "--address auto" in str(refused.value)
        monkeypatch.setenv("RAY_AUTH_MODE", "token")  # sent, and refused all the same
        with pytest.raises(BackendError) as refused:
            backends._init_ray(_Refusing(), 2, alive)
        assert "RAY_AUTH_MODE" not in str(refused.value)
        with pytest.raises(BackendError, match="no authentication token found"):
            backends._init_ray(_NoToken(), 2, alive)


def _answering(answer: bytes) -> tuple[socket.socket, str]:
    """A listening socket whose one connection is answered with ``answer`` once it has
    read the client's opening, and its address."""
    listening = socket.socket()
    listening.bind(("127.0.0.1", 0))
    listening.listen()

    def serve() -> None:
        link, _ = listening.accept()
        with link:
            link.recv(64)
            link.sendall(answer)
            with contextlib.suppress(OSError):  # a reset when the client hangs up
                link.recv(64)

    threading.Thread(target=serve, daemon=True).start()
    return listening, f"127.0.0.1:{listening.getsockname()[1]}"


@pytest.mark.parametrize(("answer", "said"), [
    (b"-ERR unknown command 'PRI'\r\n", "its answer begins \"-ERR unknown command 'PR\""),
    (b"HTTP/1.1 400 Bad Request\r\n", "its answer begins 'HTTP/1.1 400 Bad Request'"),
    (b"220 mail.example ESMTP\r\n", "its answer begins '220 mail.example ESMTP'"),
    (b'{"error": "bad request"}', "its answer begins '{\"error\": \"bad request\"}'"),
    (b"\x00\x00\x06\x04\x00\x00\x00\x00\x00", None),  # a gRPC server's SETTINGS frame
    (b"\x15\x03\x03\x00\x02\x02\x46", None),  # a TLS alert: Ray with TLS may be there
])
def test_a_ray_address_at_another_service_is_said_at_once(answer: bytes, said: str | None) -> None:
    """``--address 127.0.0.1:6379`` (Redis' port) left ``ray.init`` retrying for
    minutes (five, when it was stopped): a service that answers HTTP/2's opening in text
    is no Ray head."""
    listening, address = _answering(answer)
    with listening:
        problem = backends.unreachable(address)
    if said is None:
        assert problem is None
    else:
        assert problem is not None and said in problem and "not as a Ray head" in problem


def test_a_ray_address_that_does_not_answer_is_said_at_once(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """``ray.init`` retried a dead address for minutes; the connection is tried first."""
    monkeypatch.setattr(backends, "GRPC_ANSWER_SECONDS", 0.2)  # silence: left to Ray
    with socket.socket() as listening:
        listening.bind(("127.0.0.1", 0))
        listening.listen()
        alive = f"127.0.0.1:{listening.getsockname()[1]}"
        assert backends.unreachable(alive) is None
        assert backends.unreachable("ray://" + alive) is None
    refused = backends.unreachable(alive, timeout=2)  # closed now
    assert refused is not None and refused.startswith("nothing answers there")
    assert backends.unreachable("auto") is None
    for bad in ("x", "host:", ":6379", "host:99999", "host:port"):
        assert str(backends.unreachable(bad)).startswith("not HOST:PORT"), bad
    assert str(backends.unreachable("x" * 5000 + ":80")).startswith("nothing answers there")
    with pytest.raises(BackendError, match=r"cannot reach a Ray cluster at '127\.0\.0\.1:"):
        backends._init_ray(_NoInit(), 2, alive)


def test_deals_with_an_external_bot_come_from_a_seed_it_cannot_search() -> None:
    """An external bot sees its own hand: from a small seed it could deal every candidate
    itself and find the deck, and with it the other hands and the draws to come."""
    assert base_seed(None, ["greedy", "random"]) == (DEFAULT_SEED, None)  # reproducible
    assert base_seed(7, ["greedy"]) == (7, None)
    outside = ["greedy", "declare-at:turn=3,bot=external:python bot.py"]
    assert has_outside_bot(outside) and not has_outside_bot(["greedy", "search:time=1"])
    seeds = {base_seed(None, outside)[0] for _ in range(20)}
    assert len(seeds) == 20 and min(seeds) >= 0 and max(seeds) >= GUESSABLE_BELOW
    seed, note = base_seed(None, outside)
    assert note is not None and f"--seed {seed} plays them again" in note
    seed, note = base_seed(3, outside)  # asked for: played, with a warning
    assert seed == 3 and note is not None and "could rebuild every deal of --seed 3" in note
    assert base_seed(2**40, outside) == (2**40, None)
