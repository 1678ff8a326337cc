"""Several table services on one PostgreSQL database, as several processes have them:
eight threads on two services applying one action once, processes that start at once
migrating one after the other, the sweep that moves the bots of a game nobody drives, and
a bot move made stale by another process refused quietly. Skipped, with the reason,
without a reachable PostgreSQL.
"""

from __future__ import annotations

import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from random import Random
from typing import Any

import pytest
from pgkit import fresh_schema, need_postgres, pg
from srvkit import SMALL

from conftest import PG_URL
from noreturn.records import check_record
from noreturn.server.db import Base, make_engine, migrate
from noreturn.server.schemas import CreateTable, RulesIn, SeatIn
from noreturn.server.service import ConflictError, TableService, hash_token


@pytest.fixture
def two_services() -> Iterator[tuple[TableService, TableService]]:
    """Two services (as two processes would have) on one fresh PostgreSQL schema."""
    need_postgres()
    with fresh_schema() as (_schema, url):
        engines = [make_engine(url), make_engine(url)]
        migrate(engines[0])
        try:
            yield TableService(engines[0]), TableService(engines[1])
        finally:
            for engine in engines:
                engine.dispose()


def test_eight_threads_on_two_services_apply_one_action(
        two_services: tuple[TableService, TableService]) -> None:
    first, second = two_services
    created = first.create(CreateTable(seats=[SeatIn(kind="human", name="Ada"),
                                              SeatIn(kind="human", name="Bo")],
                                       rules=RulesIn(**SMALL)))
    table_id = created["table"]["id"]
    tokens = {link["seat"]: link["token"] for link in created["seat_links"]}
    for token in tokens.values():
        first.join(table_id, token, None)
    first.start(table_id, tokens[0])
    rng = Random(2)
    for _round in range(6):
        state = second.state_message(table_id, None)
        if state["status"] == "finished":
            break
        seat = state["view"]["to_move"]
        mine = first.state_message(table_id, seat, hash_token(tokens[seat]))
        version, action = mine["version"], rng.choice(mine["legal"])
        barrier = threading.Barrier(8)
        outcomes: list[int | str] = []
        guard = threading.Lock()

        def act(service: TableService, action: str = action, version: int = version,
                seat: int = seat, barrier: threading.Barrier = barrier,
                outcomes: list[int | str] = outcomes, guard: threading.Lock = guard) -> None:
            barrier.wait()
            try:
                outcome: int | str = service.act(table_id, seat, action, version).version
            except ConflictError as exc:
                outcome = exc.code
            with guard:
                outcomes.append(outcome)

        threads = [threading.Thread(target=act, args=(first if i % 2 else second,))
                   for i in range(8)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(timeout=30)
        assert sorted(outcomes, key=str) == sorted([version + 1] + ["stale"] * 7, key=str)
        for service in (first, second):
            assert service.get(table_id)["version"] == version + 1
            assert service.state_message(table_id, None)["version"] == version + 1


def test_processes_starting_at_once_migrate_one_after_the_other() -> None:
    need_postgres()
    # Each process imports and connects, says so, then migrates when told: all at once
    # (without the advisory lock, all but one fail on the duplicate CREATE TABLE).
    script = ("import sys; from noreturn.server.db import make_engine, migrate; "
              "engine = make_engine(sys.argv[1]); engine.connect().close(); "
              "print('ready', flush=True); sys.stdin.readline(); migrate(engine)")
    with fresh_schema() as (schema, url):
        processes = [subprocess.Popen([sys.executable, "-c", script, url],
                                      stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                      stderr=subprocess.STDOUT, text=True) for _ in range(3)]
        for process in processes:
            assert process.stdout is not None and process.stdin is not None
            assert process.stdout.readline().strip() == "ready"
        for process in processes:
            assert process.stdin is not None
            process.stdin.write("go\n")
            process.stdin.flush()
        outputs = [process.communicate(timeout=60)[0] for process in processes]
        assert [p.returncode for p in processes] == [0] * 3, outputs
        with pg().connect(PG_URL, autocommit=True) as conn:
            rows = conn.execute(f"select version_num from {schema}.alembic_version").fetchall()
            tables = conn.execute("select count(*) from information_schema.tables where "
                                  "table_schema = %s", (schema,)).fetchone()
        assert len(rows) == 1
        # every table of the models, and alembic_version
        assert tables is not None and tables[0] == len(Base.metadata.tables) + 1


# ------------------------------------------------------------- taking a table over
def test_the_sweep_moves_the_bots_of_a_game_nobody_drives(tmp_path: Path) -> None:
    from fastapi.testclient import TestClient  # noqa: PLC0415

    from noreturn.server import create_app  # noqa: PLC0415

    server_app = create_app(f"sqlite:///{tmp_path / 'sweep.db'}", takeover_after=0.5)
    with TestClient(server_app) as client:
        service: TableService = client.app.state.service  # type: ignore[attr-defined]
        # Made behind the app's back: no runner was kicked, as if its process had died.
        created = service.create(CreateTable(seats=[SeatIn(kind="bot", level="random"),
                                                    SeatIn(kind="bot", level="random")],
                                             rules=RulesIn(**SMALL)))
        waiting = service.create(CreateTable(seats=[SeatIn(kind="human"),
                                                    SeatIn(kind="bot", level="random")],
                                             rules=RulesIn(**SMALL)))
        token = waiting["seat_links"][0]["token"]
        service.start(waiting["table"]["id"], token)
        table_id = created["table"]["id"]
        deadline = time.monotonic() + 30
        while service.get(table_id)["status"] != "finished":
            assert time.monotonic() < deadline, "the sweep did not take the game over"
            time.sleep(0.1)
        assert check_record(service.record(table_id)).valid
        # A game that waits on a person (once its bot moved, if it was first) is left alone.
        while not (state := service.state_message(waiting["table"]["id"], 0,
                                                  hash_token(token)))["legal"]:
            assert time.monotonic() < deadline, "the sweep did not move the bot"
            time.sleep(0.1)
        time.sleep(0.6)
        assert service.stalled_games(0.5) == []
        assert service.get(waiting["table"]["id"])["version"] == state["version"]


def test_a_bot_move_made_stale_by_another_process_is_refused_quietly(
        two_services: tuple[TableService, TableService],
        monkeypatch: pytest.MonkeyPatch) -> None:
    from noreturn.table import LocalTable  # noqa: PLC0415

    first, second = two_services
    created = first.create(CreateTable(seats=[SeatIn(kind="bot", level="random"),
                                              SeatIn(kind="bot", level="random")],
                                       rules=RulesIn(**SMALL)))
    table_id = created["table"]["id"]
    original = LocalTable.bot_job
    raced: list[bool] = []

    def job_with_a_race(game: LocalTable) -> Callable[[], Any]:
        decide = original(game)

        def slow_decision() -> Any:
            move = decide()
            if not raced:  # the other process moves while this bot thinks
                raced.append(False)
                raced[0] = second.bot_step(table_id)
            return move

        return slow_decision

    monkeypatch.setattr(LocalTable, "bot_job", job_with_a_race)
    with pytest.raises(ConflictError) as stale:
        first.bot_step(table_id)
    assert stale.value.code == "stale" and raced == [True]
    assert first.get(table_id)["version"] == 1  # the other process's move only
    assert first.bot_step(table_id)  # looking again, it plays on
    assert second.get(table_id)["version"] == 2
