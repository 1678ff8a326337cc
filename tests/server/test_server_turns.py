"""Turn timers and take-backs (issue 18, "Online together"): a person's turn whose time ran
out is played once by the table's timeout bot, in whichever process finds it, also after a
restart; a person alone with bots takes back their last turn, and every process (and a
restart) rebuilds the same game from the stored moves."""

from __future__ import annotations

import time
from datetime import timedelta
from random import Random

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import Engine, select, update
from sqlalchemy.orm import Session
from srvkit import SMALL, Weigher, connect, start

from noreturn.bots import base
from noreturn.records import check_record
from noreturn.server import create_app
from noreturn.server.db import MoveRow, TableRow, make_engine, migrate, now
from noreturn.server.rebuild import in_effect
from noreturn.server.schemas import CreateTable, RulesIn, SeatIn
from noreturn.server.service import (
    BadRequestError,
    ConflictError,
    TableService,
    hash_token,
)
from noreturn.server.timing import TURN_TIMES

ADA_AND_A_BOT = [SeatIn(kind="human", name="Ada"), SeatIn(kind="bot", level="greedy")]


def services(db_url: str, count: int = 2) -> tuple[Engine, list[TableService]]:
    """``count`` processes' worth of services on one new database."""
    engine = make_engine(db_url)
    migrate(engine)
    return engine, [TableService(engine, turn_times=(30, 60)) for _ in range(count)]


def started(service: TableService, seats: list[SeatIn], turn_seconds: int | None = None,
            timeout_level: str | None = None) -> tuple[str, dict[int, str]]:
    """A table made and started by its people (with its turn timer); its id and tokens."""
    created = service.create(CreateTable(seats=seats, rules=RulesIn(**SMALL),
                                         turn_seconds=turn_seconds,
                                         timeout_level=timeout_level))
    table_id = created["table"]["id"]
    tokens = {link["seat"]: link["token"] for link in created["seat_links"]}
    for token in tokens.values():
        service.join(table_id, token, None)
    service.start(table_id, tokens[min(tokens)])
    return table_id, tokens


def to_person(service: TableService, table_id: str) -> dict[str, object]:
    """Let the bots move until a person is to move (or the game is over); the public state."""
    while service.bot_step(table_id):
        pass
    return service.state_message(table_id, None)


def run_out(engine: Engine, table_id: str) -> None:
    """Make the turn under way overdue (as if its time had passed)."""
    with engine.begin() as conn:
        conn.execute(update(TableRow).where(TableRow.id == table_id).values(
            turn_deadline=now() - timedelta(seconds=1)))


def moves_of(engine: Engine, table_id: str, kind: str) -> list[MoveRow]:
    """The stored moves of ``kind`` at a table."""
    with Session(engine) as session:
        return list(session.scalars(select(MoveRow).where(MoveRow.table_id == table_id,
                                                          MoveRow.kind == kind)))


def test_a_timer_must_be_one_the_server_offers(db_url: str) -> None:
    engine, (service, _other) = services(db_url)
    with pytest.raises(BadRequestError, match="choose one of 30, 60"):
        service.create(CreateTable(seats=ADA_AND_A_BOT, turn_seconds=45))
    with pytest.raises(BadRequestError, match="no bot level"):
        service.create(CreateTable(seats=ADA_AND_A_BOT, turn_seconds=30,
                                   timeout_level="nobody"))
    table = service.create(CreateTable(seats=ADA_AND_A_BOT, turn_seconds=60))["table"]
    assert table["timer"] == {"seconds": 60, "level": "medium"}
    assert service.list_tables()[0]["timer"] == table["timer"]
    assert service.create(CreateTable(seats=ADA_AND_A_BOT))["table"]["timer"] is None
    engine.dispose()


def test_the_server_lists_the_timers_it_offers(db_url: str) -> None:
    """``GET /api/turn-times``: what ``turn_seconds`` may be here, its own extra ones
    included, shortest first (the lobby offers exactly these)."""
    with TestClient(create_app(db_url)) as client:
        assert client.get("/api/turn-times").json() == {"turn_times": list(TURN_TIMES)}
    with TestClient(create_app(db_url, turn_times=(*TURN_TIMES, 5))) as client:
        assert client.get("/api/turn-times").json() == {"turn_times": [5, *TURN_TIMES]}


def test_the_deadline_runs_on_a_persons_turn_only(db_url: str) -> None:
    engine, (service, _other) = services(db_url)
    table_id, tokens = started(service, ADA_AND_A_BOT, turn_seconds=60)
    state = to_person(service, table_id)
    timer = state["timer"]
    assert isinstance(timer, dict) and timer["seconds"] == 60 and timer["seat"] == 0
    with engine.connect() as conn:
        deadline = conn.execute(select(TableRow.turn_deadline)).scalar_one()
    assert deadline is not None
    assert service.expired_turns() == []
    assert service.timeout_job(table_id) is None  # not overdue: nothing to play
    mine = service.state_message(table_id, 0, hash_token(tokens[0]))
    service.act(table_id, 0, mine["legal"][0], mine["version"])
    if service.state_message(table_id, None)["view"]["to_move"] == 1:  # the bot's turn
        with engine.connect() as conn:
            assert conn.execute(select(TableRow.turn_deadline)).scalar_one() is None
        assert service.state_message(table_id, None)["timer"]["deadline"] is None
    engine.dispose()


def test_a_turn_whose_time_ran_out_is_played_once_by_the_timeout_bot(db_url: str) -> None:
    """Two processes find the same overdue turn: one stores it, the other is stale; the
    logs say who played for whom; the person's next turn has a fresh deadline."""
    engine, (one, two) = services(db_url)
    table_id, tokens = started(one, [SeatIn(kind="human", name="Ada"),
                                     SeatIn(kind="human", name="Bo")],
                               turn_seconds=30, timeout_level="greedy")
    before = one.state_message(table_id, None)
    mover = before["view"]["to_move"]
    name = before["names"][mover]
    run_out(engine, table_id)
    assert one.expired_turns() == [table_id] == two.expired_turns()
    jobs = [one.timeout_job(table_id), two.timeout_job(table_id)]
    assert all(job is not None and job.seat == mover for job in jobs)
    first, second = jobs
    assert first is not None and second is not None
    acted = one.timeout_apply(table_id, first, first.decide())
    with pytest.raises(ConflictError) as refused:
        two.timeout_apply(table_id, second, second.decide())
    assert refused.value.code == "stale"
    assert len(moves_of(engine, table_id, "timeout")) == 1
    assert acted.version == before["version"] + 1
    for service in (one, two):
        log = service.state_message(table_id, None)["log"]
        assert f"time ran out: greedy played for {name}" in log
    assert one.expired_turns() == [] and two.timeout_job(table_id) is None
    after = two.state_message(table_id, None)
    assert after["timer"]["deadline"] is not None
    # the seat's own person still plays it: their token and their log are theirs
    theirs = two.state_message(table_id, mover, hash_token(tokens[mover]))
    assert f"time ran out: greedy played for {name}" in theirs["log"]
    engine.dispose()


def test_a_restart_finds_the_overdue_turn_and_the_timed_out_one(db_url: str) -> None:
    engine, (service,) = services(db_url, 1)
    table_id, _tokens = started(service, ADA_AND_A_BOT, turn_seconds=30)
    to_person(service, table_id)
    run_out(engine, table_id)
    engine.dispose()
    engine, (restarted,) = services(db_url, 1)  # nothing held: all from the database
    assert restarted.expired_turns() == [table_id]
    job = restarted.timeout_job(table_id)
    assert job is not None
    restarted.timeout_apply(table_id, job, job.decide())
    engine.dispose()
    engine, (again,) = services(db_url, 1)
    assert "time ran out: medium played for Ada" in again.state_message(table_id, None)["log"]
    engine.dispose()


def test_the_server_plays_an_absent_persons_turn_on_its_own(db_url: str) -> None:
    """The app's timer runner: a short timer runs out, a state with the log line comes."""
    app = create_app(db_url, turn_times=(1,), timer_every=0.1)
    with TestClient(app) as client:
        answer = client.post("/api/tables", json={
            "seats": [{"kind": "human", "name": "Ada"}, {"kind": "bot", "level": "greedy"}],
            "rules": SMALL, "turn_seconds": 1})
        assert answer.status_code == 201, answer.text
        table_id = answer.json()["table"]["id"]
        tokens = {link["seat"]: link["token"] for link in answer.json()["seat_links"]}
        start(client, table_id, tokens)
        with connect(client, table_id, None, None) as watcher:
            started_at = time.monotonic()
            state = watcher.next_state(lambda s: any(
                "time ran out: medium played for Ada" in line for line in s["log"]))
            assert time.monotonic() - started_at < 20
            assert state["timer"]["seconds"] == 1
        refused = client.post("/api/tables", json={
            "seats": [{"kind": "human"}, {"kind": "bot"}], "turn_seconds": 7})
        assert refused.status_code == 400 and "choose one of 1" in refused.json()["detail"]


def legal_of(service: TableService, table_id: str, token: str) -> tuple[list[str], int]:
    mine = service.state_message(table_id, 0, hash_token(token))
    return mine["legal"], mine["version"]


def test_a_person_alone_with_bots_takes_back_their_last_turn(db_url: str) -> None:
    engine, (one, two) = services(db_url)
    table_id, tokens = started(one, ADA_AND_A_BOT)
    to_person(one, table_id)
    digest = hash_token(tokens[0])
    first = one.state_message(table_id, 0, digest)
    assert first["can_undo"] is False
    with pytest.raises(ConflictError, match="nothing to take back yet") as refused:
        one.take_back(table_id, 0, first["version"])
    assert refused.value.code == "cannot_undo"
    rng = Random(5)
    for _turn in range(3):  # a few turns, so there are turns before the last one
        legal, version = legal_of(one, table_id, tokens[0])
        if not legal:
            break
        one.act(table_id, 0, rng.choice(legal), version)
        to_person(one, table_id)
    before = one.state_message(table_id, 0, digest)
    legal, version = legal_of(one, table_id, tokens[0])
    one.act(table_id, 0, next(a for a in legal if not a.startswith("declare")), version)
    after = to_person(one, table_id)
    assert one.state_message(table_id, 0, digest)["can_undo"] is True
    with pytest.raises(ConflictError) as stale:
        one.take_back(table_id, 0, version)  # an old version: refused
    assert stale.value.code == "stale"
    assert isinstance(after["version"], int)
    acted = one.take_back(table_id, 0, after["version"])
    assert acted.version == after["version"] + 1
    back = one.state_message(table_id, 0, digest)
    assert back["view"] == before["view"]  # the table as before Ada's last turn
    assert back["legal"] == before["legal"]
    assert back["log"] == [*before["log"], "Ada took back their last turn"]
    # another process, and a restart, rebuild the same game from the stored moves
    assert two.state_message(table_id, 0, digest) == back
    engine.dispose()
    engine, (restarted,) = services(db_url, 1)
    assert restarted.state_message(table_id, 0, digest) == back
    # and the game goes on to its end, its record valid and saying so
    while True:
        state = to_person(restarted, table_id)
        if state["status"] == "finished":
            break
        legal, version = legal_of(restarted, table_id, tokens[0])
        restarted.act(table_id, 0, rng.choice(legal), version)
    record = restarted.record(table_id)
    assert check_record(record).valid
    assert record["meta"]["taken_back"][0]["seat"] == 0
    assert record["meta"]["reshuffled_at_events"]
    engine.dispose()


def test_no_take_back_beside_another_person_nor_past_a_declaration(db_url: str) -> None:
    engine, (service, _other) = services(db_url)
    table_id, tokens = started(service, [SeatIn(kind="human", name="Ada"),
                                         SeatIn(kind="human", name="Bo")])
    state = service.state_message(table_id, None)
    mover = state["view"]["to_move"]
    mine = service.state_message(table_id, mover, hash_token(tokens[mover]))
    service.act(table_id, mover, mine["legal"][0], mine["version"])
    with pytest.raises(ConflictError, match="every other seat is a bot") as refused:
        service.take_back(table_id, mover, mine["version"] + 1)
    assert refused.value.code == "cannot_undo"
    with pytest.raises(ConflictError) as spectator:
        service.take_back(table_id, None, mine["version"] + 1)
    assert spectator.value.code == "spectator"
    # alone with a bot: a declaration is never taken back
    solo, solo_tokens = started(service, ADA_AND_A_BOT)
    while True:
        to_person(service, solo)
        legal, version = legal_of(service, solo, solo_tokens[0])
        if "declare" in legal:
            service.act(solo, 0, "declare", version)
            break
        service.act(solo, 0, next(a for a in legal if a != "declare"), version)
    mine = service.state_message(solo, 0, hash_token(solo_tokens[0]))
    if mine["view"]["to_move"] == 0:
        assert mine["can_undo"] is False
        with pytest.raises(ConflictError, match="declaration cannot be taken back"):
            service.take_back(solo, 0, mine["version"])
    engine.dispose()


def test_many_take_backs_rebuild_once_each_and_the_same(db_url: str) -> None:
    """Twenty take-backs, some in a row: every process rebuilds the same game, in one
    replay along the moves still in effect (not one replay per undo and its past)."""
    engine, (one, two) = services(db_url)
    table_id, tokens = started(one, ADA_AND_A_BOT)
    digest = hash_token(tokens[0])
    rng = Random(8)
    undos = 0
    while undos < 20:
        state = to_person(one, table_id)
        if state["status"] == "finished":
            break
        mine = one.state_message(table_id, 0, digest)
        # taken back more often than not: each take-back reshuffles the bag from a fresh
        # secret, so the game's length varies, and at one half a short game ended with 8
        if mine["can_undo"] and rng.random() < 0.7:
            one.take_back(table_id, 0, mine["version"])
            undos += 1
            continue
        legal = [a for a in mine["legal"] if a != "declare"] or mine["legal"]
        one.act(table_id, 0, rng.choice(legal), mine["version"])
    assert undos >= 10
    with engine.connect() as conn:
        moves = list(conn.execute(select(MoveRow).where(MoveRow.table_id == table_id)
                                  .order_by(MoveRow.index)))
    line = in_effect(table_id, moves)
    assert len(line) < len(moves)  # the moves taken back drop out
    assert [m.index for m in line] == sorted(m.index for m in line)
    assert two.state_message(table_id, 0, digest) == one.state_message(table_id, 0, digest)
    engine.dispose()


def test_a_leave_keeps_the_movers_time_and_a_bot_has_none(db_url: str) -> None:
    engine, (service, _other) = services(db_url)
    table_id, tokens = started(service, [SeatIn(kind="human", name="Ada"),
                                         SeatIn(kind="human", name="Bo")], turn_seconds=60)
    mover = service.state_message(table_id, None)["view"]["to_move"]
    deadline = service.state_message(table_id, None)["timer"]["deadline"]
    assert deadline is not None
    service.leave(table_id, tokens[1 - mover])  # the other one leaves: a bot plays on
    assert service.state_message(table_id, None)["timer"]["deadline"] == deadline
    with engine.connect() as conn:
        assert conn.execute(select(TableRow.turn_deadline)).scalar_one() is not None
    service.leave(table_id, tokens[mover])  # the one to move leaves: no person's time runs
    assert service.state_message(table_id, None)["timer"]["deadline"] is None
    assert service.expired_turns() == []
    engine.dispose()


def test_a_timed_out_turn_thinks_where_the_bot_would_at_a_table(
        db_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """The timeout bot's decision goes where the same bot's would at a table: a fast
    one's in the service pool, one that weighs (medium near its switch) in the queue of
    brief thinking, not in the service pool nor behind the searches."""
    monkeypatch.setitem(base._REGISTRY, "weigher", lambda options: Weigher())
    monkeypatch.setitem(base.CURRENT, "heuristic", "weigher")
    engine, (service, _other) = services(db_url)
    for level, thinks in (("greedy", False), ("heuristic", True)):
        table_id, _tokens = started(service, [SeatIn(kind="human", name="Ada"),
                                              SeatIn(kind="human", name="Bo")],
                                    turn_seconds=30, timeout_level=level)
        run_out(engine, table_id)
        job = service.timeout_job(table_id)
        assert job is not None and job.thinks == thinks and job.brief, level
        service.timeout_apply(table_id, job, job.decide())
    engine.dispose()
