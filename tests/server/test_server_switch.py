"""The switch advice over the WebSocket: ``{"type": "switch"}`` (docs/server-protocol.md)."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager
from typing import Any

import pytest
from fastapi.testclient import TestClient
from srvkit import SMALL, Player, connect, create, newer_than, seated, settle, start

from noreturn.server import advice, channel, create_app
from noreturn.server.workers import think
from noreturn.table import LocalTable

Opener = Callable[[], AbstractContextManager[Player]]
"""Opens another socket of a seat."""
ADA_AND_A_BOT = [{"kind": "human", "name": "Ada"}, {"kind": "bot", "level": "greedy"}]


@pytest.fixture(autouse=True)
def _quick(monkeypatch: pytest.MonkeyPatch) -> None:
    """A short budget: the advisor still weighs its eight worlds at least."""
    monkeypatch.setattr(advice, "SWITCH_SECONDS", 0.01)


def act(ada: Player, action: str) -> dict[str, Any]:
    """Play ``action`` for Ada, then read until the game waits on her again."""
    version = ada.state["version"]
    ada.send({"type": "action", "action": action, "version": version})
    ada.next_state(newer_than(version))
    return settle(ada, {0})


@contextmanager
def ada_after_mulligan(db_url: str) -> Iterator[tuple[Player, Opener]]:
    """Ada at a table with a bot, her mulligan made: her first phase-1 turn is next; and
    how to open another socket of her seat (a reload, a second tab)."""
    with TestClient(create_app(db_url)) as client, \
            seated(client, ADA_AND_A_BOT, SMALL) as (table_id, tokens, players):
        ada = players[0]
        settle(ada, {0})
        act(ada, "mulligan")
        yield ada, lambda: connect(client, table_id, 0, tokens[0])


def test_a_seated_player_gets_the_switch_advice_in_phase_1_only(db_url: str) -> None:
    with TestClient(create_app(db_url)) as client, \
            seated(client, ADA_AND_A_BOT, SMALL) as (_table_id, _tokens, players):
        ada = players[0]
        settle(ada, {0})
        error = ada.answer({"type": "switch"})
        assert error == {"type": "error", "code": "nothing_to_weigh",
                         "message": "nothing to weigh: the mulligan comes first"}
        act(ada, "mulligan")
        reply = ada.answer({"type": "switch"})
        assert reply["type"] == "switch", reply
        assert set(reply) == {"type", "declare", "wait", "better", "gain", "worlds", "text",
                              "version"}
        assert reply["version"] == ada.state["version"]  # the state it was weighed for
        for line in ("declare", "wait"):
            assert set(reply[line]) == {"margin", "win", "value"}
            assert 0 <= reply[line]["win"] <= 1 and 0 <= reply[line]["value"] <= 1
        declare_worth, wait_worth = reply["declare"]["value"], reply["wait"]["value"]
        if abs(declare_worth - wait_worth) > 0.001:  # (rounded to three decimals)
            assert reply["better"] == ("declare" if declare_worth > wait_worth else "wait")
        assert reply["worlds"] >= 8 and reply["text"].endswith(f"({reply['worlds']} samples)")
        assert reply["gain"] == pytest.approx(
            reply["declare"]["margin"] - reply["wait"]["margin"], abs=0.11)
        act(ada, "declare")
        error = ada.answer({"type": "switch"})
        assert error["code"] == "nothing_to_weigh" and "declared phase 2" in error["message"]


def test_switch_off_turn_is_not_your_turn_and_spectators_are_refused(db_url: str) -> None:
    with TestClient(create_app(db_url)) as client:
        seats = [{"kind": "human", "name": "Ada"}, {"kind": "human", "name": "Bo"}]
        table_id, tokens = create(client, seats, SMALL)
        start(client, table_id, tokens)
        with connect(client, table_id, 0, tokens[0]) as ada, \
                connect(client, table_id, 1, tokens[1]) as bo, \
                connect(client, table_id, None, None) as watcher:
            waiting = bo if ada.state["view"]["to_move"] == 0 else ada
            assert waiting.answer({"type": "switch"})["code"] == "not_your_turn"
            assert watcher.answer({"type": "switch"}) == {
                "type": "error", "code": "spectator", "message":
                "spectators can't check actions or ask for hints: open your seat link to play"}


def test_asking_again_at_the_same_version_is_not_weighed_again(
        db_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """The advice is CPU work: a client repeating the question gets the same answer
    without the server weighing the turn again; after a move it is weighed anew."""
    weighed: list[int] = []
    original = LocalTable.switch_job

    def counting(self: LocalTable, *args: Any, **kwargs: Any) -> Any:
        job = original(self, *args, **kwargs)

        def weigh() -> Any:
            weighed.append(1)
            return job()
        return weigh

    monkeypatch.setattr(LocalTable, "switch_job", counting)
    with ada_after_mulligan(db_url) as (ada, another_socket):
        first = ada.answer({"type": "switch"})
        again = ada.answer({"type": "switch"})
        assert first["type"] == "switch" and again == first
        assert len(weighed) == 1
        with another_socket() as again_ada:
            # another socket of the same seat (a reload, a second tab): the same weighing
            assert again_ada.answer({"type": "switch"}) == first
        assert len(weighed) == 1
        exchange = next(a for a in ada.state["legal"] if a.startswith("exchange"))
        act(ada, exchange)
        assert ada.answer({"type": "switch"})["type"] == "switch"
        assert len(weighed) == 2


def test_the_weighing_runs_with_the_brief_decisions_not_behind_the_searches(
        db_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """A person waits for the advice: it queues with medium's brief weighings
    (``workers.think(brief=True)``), never behind a search's seconds."""
    asked: list[bool] = []
    real = think  # the function channel.py imported, replaced there below

    async def recording(call: Any, brief: bool = False) -> Any:
        asked.append(brief)
        return await real(call, brief=brief)

    monkeypatch.setattr(channel, "think", recording)
    with ada_after_mulligan(db_url) as (ada, _another):
        assert ada.answer({"type": "switch"})["type"] == "switch"
    assert asked == [True]


def test_one_weighing_a_seat_and_turn_however_many_ask_at_once() -> None:
    """Twenty sockets of one seat asking together once queued twenty weighings of 0.3 s
    in the queue every table's medium bots share."""
    weighings: list[int] = []

    async def weigh() -> Any:
        weighings.append(1)
        await asyncio.sleep(0.01)
        if len(weighings) == 3:
            raise RuntimeError("a weighing that failed")
        return f"advice {len(weighings)}"

    async def scene() -> None:
        held = advice.SeatAdvice(most=2)

        async def ask(table_id: str, seat: int, version: int) -> object:
            return await held.advice(table_id, seat, version, weigh)

        answers = await asyncio.gather(*(ask("t", 0, 5) for _ in range(20)))
        assert answers == ["advice 1"] * 20 and len(weighings) == 1
        assert await ask("t", 0, 6) == "advice 2"  # after a move: weighed anew
        with pytest.raises(RuntimeError):
            await ask("t", 1, 6)
        assert await ask("t", 1, 6) == "advice 4"  # a failure is not kept
        await ask("u", 0, 1)  # a third seat: the least recently asked one goes
        assert await ask("t", 0, 6) == "advice 6"

    asyncio.run(scene())
