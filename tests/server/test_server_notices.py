"""Bots with no delay play a run of moves in one write; notices carry a move's version.

A move is decided on the game as this process holds it and stored without a read first;
a copy that fell behind another writer's moves can store nothing (``stale``).

A connection skips a move notice for a version it has sent already, and builds a state from
this process's cache when it knows the table at that version: these tests pin the pieces
that make that safe (a change other than a move carries no version, and wins when notices
coalesce).
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable, Sequence
from random import Random

import pytest
from sqlalchemy import Engine, func, select
from srvkit import SMALL, Weigher

from noreturn.bots import base
from noreturn.bots.base import Budget
from noreturn.engine import Action, View
from noreturn.server import workers
from noreturn.server.botturns import Thinking
from noreturn.server.broadcast import CHAT, LocalBroadcaster
from noreturn.server.db import MoveRow, make_engine, migrate
from noreturn.server.schemas import CreateTable, RulesIn, SeatIn
from noreturn.server.service import (
    FAST_RUN,
    BadRequestError,
    ConflictError,
    ForbiddenError,
    TableService,
    check_level,
    hash_token,
)
from noreturn.table.local import LocalTable
from noreturn.text.lang import speaking


def _moves(service: TableService, table_id: str) -> int:
    with service.engine.connect() as conn:
        count = conn.execute(select(func.count()).select_from(MoveRow)
                             .where(MoveRow.table_id == table_id)).scalar_one()
    return int(count)


def test_a_run_of_fast_bot_moves_is_stored_in_one_turn(db_url: str) -> None:
    engine = make_engine(db_url)
    migrate(engine)
    service = TableService(engine)
    bots = [SeatIn(kind="bot", level="greedy"), SeatIn(kind="bot", level="random")]
    table_id = service.create(CreateTable(seats=bots, rules=RulesIn(**SMALL)))["table"]["id"]
    one = service.bot_turn(table_id)
    assert one == 1 and _moves(service, table_id) == 1  # without run_on: one move
    version = service.bot_turn(table_id, run_on=True)
    assert isinstance(version, int) and 2 < version <= 1 + FAST_RUN
    assert _moves(service, table_id) == version  # every move stored, one row each
    over = service.get(table_id)["status"] == "finished"
    assert over or version == 1 + FAST_RUN  # it stops at the bound or at the end
    fresh = TableService(engine)  # another process: the stored moves replay to that state
    assert fresh.state_message(table_id, None)["version"] == version
    assert service.state_message(table_id, None, moved_to=version) == fresh.state_message(
        table_id, None)
    engine.dispose()


def _ada_to_move(db_url: str) -> tuple[Engine, TableService, str]:
    """A service on a migrated database and a started table of Ada and a greedy bot,
    the bot's moves made: Ada (seat 0) is to move. The engine, the service, the table."""
    engine = make_engine(db_url)
    migrate(engine)
    service = TableService(engine)
    table_id, _token = _started(service, [SeatIn(kind="human", name="Ada"),
                                          SeatIn(kind="bot", level="greedy")])
    while (turn := service.bot_turn(table_id)) is not None:
        if callable(turn):
            service.bot_apply(table_id, turn())
    return engine, service, table_id


def _started(service: TableService, seats: list[SeatIn]) -> tuple[str, str]:
    """A started table of ``seats`` (one person first); its id and the person's token."""
    created = service.create(CreateTable(seats=seats, rules=RulesIn(**SMALL)))
    table_id = created["table"]["id"]
    token = created["seat_links"][0]["token"]
    service.join(table_id, token, None)
    service.start(table_id, token)
    return table_id, token


def test_a_persons_move_and_the_fast_bots_after_it_are_stored_in_one_write(
        db_url: str) -> None:
    engine = make_engine(db_url)
    migrate(engine)
    service = TableService(engine)
    table_id, token = _started(service, [SeatIn(kind="human", name="Ada"),
                                         SeatIn(kind="bot", level="greedy"),
                                         SeatIn(kind="bot", level="random")])
    while service.bot_turn(table_id, run_on=True) is not None:
        pass
    state = service.state_message(table_id, 0, hash_token(token))
    assert state["legal"], "the person is to move"
    acted = service.act(table_id, 0, state["legal"][-1], state["version"], bots_after=True)
    version = acted.version
    assert version > state["version"] + 1  # the person's move and at least one bot's
    assert not acted.bot_due  # fast bots only: they have all played
    assert _moves(service, table_id) == version
    after = service.state_message(table_id, 0, hash_token(token), moved_to=version)
    assert after["version"] == version
    assert after["legal"] or after["status"] == "finished"  # no bot is left to move
    assert service.bot_turn(table_id, run_on=True) is None
    fresh = TableService(engine)  # the stored moves replay to the same state
    assert fresh.state_message(table_id, 0, hash_token(token)) == after
    engine.dispose()


def test_a_slow_bot_or_a_bot_delay_leaves_the_bot_due_after_a_persons_move(
        db_url: str) -> None:
    """The app kicks the bot runner only when ``act`` says a bot is due: an ISMCTS bot
    thinks outside the table's lock, and with a bot delay no bot plays in ``act``."""
    engine = make_engine(db_url)
    migrate(engine)
    service = TableService(engine)
    for level, bots_after in (("ismcts:iterations=20", True), ("greedy", False)):
        table_id, token = _started(service, [SeatIn(kind="human", name="Ada"),
                                             SeatIn(kind="bot", level=level)])
        while (turn := service.bot_turn(table_id)) is not None:
            if isinstance(turn, Thinking):
                service.bot_apply(table_id, turn.decide())
        state = service.state_message(table_id, 0, hash_token(token))
        acted = service.act(table_id, 0, state["legal"][-1], state["version"], bots_after)
        assert acted.version == state["version"] + 1, level  # the person's move only
        assert acted.bot_due, level
    engine.dispose()


class _Thinker:
    """A new search bot: it says its budget, and the server needs no edit to know it."""

    name = "thinker"

    def __init__(self, seconds: float) -> None:
        self.budget = Budget(seconds=seconds)

    def act(self, view: View, legal: Sequence[Action], rng: Random) -> Action:
        return legal[-1]


def test_a_bot_with_a_budget_is_capped_and_thinks_outside_the_lock(
        db_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(base._REGISTRY, "thinker", lambda options: _Thinker(float(options)))
    monkeypatch.setitem(base.CURRENT, "ismcts", "thinker")
    with pytest.raises(BadRequestError, match="at most time=3"):
        check_level("ismcts:4")
    assert check_level("ismcts:0.01") == "ismcts:0.01"
    _bot_thinks(db_url, "ismcts:0.01", brief=False)  # a budget's seconds: the searches' queue


def _bot_thinks(db_url: str, level: str, brief: bool) -> None:
    """At a table of a person and a ``level`` bot, the bot's first turn is a ``Thinking``
    decision (made outside the lock, then stored by ``bot_apply``), ``brief`` or not."""
    engine = make_engine(db_url)
    migrate(engine)
    service = TableService(engine)
    table_id, token = _started(service, [SeatIn(kind="human", name="Ada"),
                                         SeatIn(kind="bot", level=level)])
    turn = service.bot_turn(table_id, run_on=True)
    if turn is None:  # the person is to move first
        state = service.state_message(table_id, 0, hash_token(token))
        acted = service.act(table_id, 0, state["legal"][-1], state["version"], True)
        assert acted.bot_due  # the bot did not move inside the person's write
        turn = service.bot_turn(table_id, run_on=True)
    assert isinstance(turn, Thinking) and turn.brief == brief
    assert service.bot_apply(table_id, turn.decide()) is not None
    engine.dispose()


def test_a_move_decided_on_an_outdated_copy_stores_nothing_and_is_stale(db_url: str) -> None:
    """Two processes' worth of memory: one holds the game, the other moves it on; the
    first's next move, decided on its outdated copy without a read, is refused."""
    engine = make_engine(db_url)
    migrate(engine)
    one, two = TableService(engine), TableService(engine)
    table_id, token = _started(one, [SeatIn(kind="human", name="Ada"),
                                     SeatIn(kind="bot", level="greedy")])
    while one.bot_turn(table_id, run_on=True) is not None:
        pass
    digest = hash_token(token)
    state = one.state_message(table_id, 0, digest)
    moved = two.act(table_id, 0, state["legal"][0], state["version"], bots_after=True).version
    stored = _moves(one, table_id)
    assert stored == moved
    with pytest.raises(ConflictError) as refused:  # one still holds the old version
        one.act(table_id, 0, state["legal"][-1], state["version"], bots_after=True)
    assert refused.value.code == "stale"
    assert _moves(one, table_id) == stored  # nothing stored, not even the bots' moves
    now = one.state_message(table_id, 0, digest)  # it reads again ...
    assert now == two.state_message(table_id, 0, digest) and now["version"] == moved
    if now["legal"]:  # ... and plays on from there
        assert one.act(table_id, 0, now["legal"][0], moved).version > moved
    engine.dispose()


def test_a_withdrawn_seat_is_refused_after_a_move_notice_too(db_url: str) -> None:
    engine = make_engine(db_url)
    migrate(engine)
    service = TableService(engine)
    seats = [SeatIn(kind="human", name="Ada"), SeatIn(kind="bot", level="greedy")]
    created = service.create(CreateTable(seats=seats, rules=RulesIn(**SMALL)))
    table_id = created["table"]["id"]
    token = next(link["token"] for link in created["seat_links"] if link["seat"] == 0)
    service.join(table_id, token, None)
    service.start(table_id, token)
    while service.bot_turn(table_id, run_on=True) is not None:
        pass
    state = service.state_message(table_id, 0, hash_token(token))
    version = state["version"]
    service.leave(table_id, token)  # a bot takes the seat over; the version moves on
    moved = service.bot_turn(table_id, run_on=True)  # the notice of a move after the leave
    assert isinstance(moved, int) and moved > version
    for notice in (version, moved):
        with pytest.raises(ForbiddenError):
            service.state_message(table_id, 0, hash_token(token), moved_to=notice)
    engine.dispose()


def test_coalesced_notices_keep_the_highest_version_and_a_plain_change_wins() -> None:
    async def main() -> list[int | None]:
        hub = LocalBroadcaster()
        seen: list[int | None] = []
        async with hub.subscribe("t") as sub:
            await hub.publish("t", 3)
            await hub.publish("t", 5)
            await hub.publish("t", 4)
            seen.append(await sub.wait())
            await hub.publish("t", 6)
            await hub.publish("t")  # a join, a leave, the start: no version
            await hub.publish("t", 7)
            seen.append(await sub.wait())
            await hub.publish("t", 8)
            seen.append(await sub.wait())
        return seen

    assert asyncio.run(main()) == [5, None, 8]


def test_a_state_from_memory_never_waits_for_the_tables_lock(db_url: str) -> None:
    """``held_state`` runs on the event loop: it answers from memory when it can, and
    never blocks (None while a worker thread holds the table, or after another change)."""
    import threading  # noqa: PLC0415

    engine = make_engine(db_url)
    migrate(engine)
    service = TableService(engine)
    table_id, token = _started(service, [SeatIn(kind="human", name="Ada"),
                                         SeatIn(kind="bot", level="greedy")])
    version = service.bot_turn(table_id, run_on=True) or 0
    assert isinstance(version, int)  # (a fast bot: its move is stored at once)
    digest = hash_token(token)
    assert service.held_state(table_id, 0, digest, version) == service.state_message(
        table_id, 0, digest)
    assert service.held_state(table_id, 0, digest, version + 1) is None  # not held yet
    busy, release = threading.Event(), threading.Event()

    def worker() -> None:
        with service.games.locked(table_id):
            busy.set()
            release.wait(10)

    thread = threading.Thread(target=worker)
    thread.start()
    busy.wait(10)
    try:
        assert service.held_state(table_id, 0, digest, version) is None
    finally:
        release.set()
        thread.join()
    assert service.held_state(table_id, 0, digest, version) is not None
    with pytest.raises(ForbiddenError):  # the token is checked from memory too
        service.held_state(table_id, 0, hash_token("not the token"), version)
    engine.dispose()


def test_a_refused_request_keeps_the_game_in_memory(db_url: str) -> None:
    """A wrong token or a second start changes nothing, so it must not cost the next move
    a rebuild of the whole game from its seed (a cheap request, a dear answer)."""
    engine = make_engine(db_url)
    migrate(engine)
    service = TableService(engine)
    table_id, token = _started(service, [SeatIn(kind="human", name="Ada"),
                                         SeatIn(kind="bot", level="greedy")])
    service.bot_turn(table_id, run_on=True)
    held = service.games.cached(table_id)
    assert held is not None
    refusals: list[Callable[[], object]] = [
        lambda: service.join(table_id, "not a token", None),
        lambda: service.start(table_id, token),
        lambda: service.leave(table_id, "")]
    for refused in refusals:
        with pytest.raises((ForbiddenError, ConflictError)):
            refused()
        assert service.games.cached(table_id) == held
    engine.dispose()


def test_a_bot_that_breaks_after_a_persons_move_does_not_undo_it(db_url: str) -> None:
    engine = make_engine(db_url)
    migrate(engine)
    service = TableService(engine)
    table_id, token = _started(service, [SeatIn(kind="human", name="Ada"),
                                         SeatIn(kind="bot", level="greedy")])
    while service.bot_turn(table_id, run_on=True) is not None:
        pass
    state = service.state_message(table_id, 0, hash_token(token))
    held = service.games.cached(table_id)
    assert held is not None

    class Broken:
        name = "broken"

        def act(self, view: View, legal: Sequence[Action], rng: Random) -> Action:
            raise RuntimeError("a bug in a bot")

    held[1].bots[1] = Broken()
    acted = service.act(table_id, 0, state["legal"][0], state["version"], bots_after=True)
    # stored; the runner is to try the bot
    assert (acted.version, acted.bot_due) == (state["version"] + 1, True)
    assert _moves(service, table_id) == acted.version
    with pytest.raises(RuntimeError):  # the runner's own try: the failure is raised
        service.bot_turn(table_id, run_on=True)
    assert _moves(service, table_id) == acted.version
    fresh = TableService(engine)  # the stored moves replay; the bot is whole again
    assert fresh.bot_turn(table_id, run_on=True) is not None
    engine.dispose()


def test_two_writers_waiting_on_each_other_is_a_lost_race_not_a_server_error() -> None:
    """PostgreSQL may answer a deadlock (or a serialization failure) when two processes
    store at one index at once: that writer lost, like a refused insert (``stale``)."""
    psycopg_errors = pytest.importorskip("psycopg.errors")
    from sqlalchemy.exc import OperationalError  # noqa: PLC0415

    from noreturn.server.games import Games, StaleError  # noqa: PLC0415

    games = Games(make_engine("sqlite://"))
    for orig, lost in ((psycopg_errors.DeadlockDetected("deadlock"), True),
                       (psycopg_errors.SerializationFailure("serialization"), True),
                       (psycopg_errors.AdminShutdown("shutting down"), False)):
        error = OperationalError("update ...", {}, orig)
        with pytest.raises(StaleError if lost else OperationalError), \
                games._forgotten_on_failure("t"):
            raise error


def test_chat_notices_coalesce_apart_from_moves() -> None:
    """A chat line wakes a connection to read the chat only; a chat line and a move
    together, or any change of no version, make it read everything (the chat too)."""
    async def waits(*batches: Sequence[int | None]) -> list[int | None]:
        hub = LocalBroadcaster()
        got: list[int | None] = []
        async with hub.subscribe("t") as sub:
            for batch in batches:
                for version in batch:
                    await hub.publish("t", version)
                got.append(await sub.wait())
        return got

    assert asyncio.run(waits([CHAT], [CHAT, CHAT], [4, 7], [CHAT, 5], [5, CHAT], [None, CHAT],
                             [CHAT, None])) == [CHAT, CHAT, 7, None, None, None, None]


def test_a_hint_is_worked_out_outside_the_table_lock(
        db_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """Near the switch a hint weighs sampled worlds (medium's move): the table's moves
    must not wait for it, so only the view is taken under the lock."""
    engine, service, table_id = _ada_to_move(db_url)
    free: list[bool] = []
    original = LocalTable.hint_job

    def probing(self: LocalTable) -> Callable[[], tuple[Action, str]]:
        job = original(self)

        def work() -> tuple[Action, str]:
            def probe() -> None:  # another thread: the stripes are re-entrant locks
                with service.store.locked_if_free(table_id) as held:
                    free.append(held)
            other = threading.Thread(target=probe)
            other.start()
            other.join()
            return job()
        return work

    monkeypatch.setattr(LocalTable, "hint_job", probing)
    action, reason, _version = service.hint(table_id, 0)
    assert free == [True] and action and reason
    engine.dispose()


def test_repeated_hints_and_checks_cost_no_second_weighing_nor_read(
        db_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """A flood of hints weighed the turn each time (24 worlds near the switch) and each
    check read the table from the database: now a hint is weighed once a seat, version and
    language, and a check uses the game this process holds. (A finished game's replay,
    built once a language: test_server_play.py.)"""
    engine, service, table_id = _ada_to_move(db_url)
    weighed: list[int] = []
    original = LocalTable.hint_job

    def counting(self: LocalTable) -> Callable[[], tuple[Action, str]]:
        job = original(self)

        def work() -> tuple[Action, str]:
            weighed.append(1)
            return job()
        return work

    monkeypatch.setattr(LocalTable, "hint_job", counting)
    reads: list[str] = []
    monkeypatch.setattr(service.store, "read", reads.append)
    first = service.hint(table_id, 0)
    assert [service.hint(table_id, 0) for _ in range(5)] == [first] * 5
    assert weighed == [1]
    assert all(service.check(table_id, 0, first[0])[0] for _ in range(5))
    assert reads == []  # neither hints nor checks read the table again
    with speaking("de"):
        service.hint(table_id, 0)  # its reason in German: weighed for it
    assert weighed == [1, 1]
    engine.dispose()


def test_a_bot_that_thinks_at_some_views_only_queues_as_brief(
        db_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """Medium weighing its switch is a thinking decision (outside the lock) of some
    milliseconds: it is marked brief, so it does not wait behind the searches."""
    monkeypatch.setitem(base._REGISTRY, "weigher", lambda options: Weigher())
    monkeypatch.setitem(base.CURRENT, "heuristic", "weigher")
    _bot_thinks(db_url, "heuristic", brief=True)


def test_a_brief_decision_does_not_wait_for_a_search() -> None:
    """The thinkers' queue holds one search at a time; a brief decision has a queue of
    its own and is made while the search still thinks."""
    started, release = threading.Event(), threading.Event()

    def search() -> str:
        started.set()
        release.wait(10)
        return "searched"

    async def scenario() -> list[str]:
        done: list[str] = []

        async def long() -> None:
            done.append(await workers.think(search))

        task = asyncio.ensure_future(long())
        while not started.is_set():  # until the search holds the thinkers' queue
            await asyncio.sleep(0.01)
        done.append(await asyncio.wait_for(workers.think(lambda: "brief", brief=True), 5))
        release.set()
        await task
        return done

    assert asyncio.run(scenario()) == ["brief", "searched"]
