"""The review of finished games on the server: made in the background, kept, and answered.

``GET /api/tables/{id}/review`` (docs/review.md, "In the browser"): 409 before the end, 404
for no table, 202 while the review is made, 200 with the JSON of ``noreturn review --json``
after; the stored review outlives the app. The reviewer works in a child process, so play
on other tables goes on while it works. Budgets are a few playouts a decision: quick.
"""

from __future__ import annotations

import inspect
import multiprocessing
import os
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from random import Random
from typing import Any, cast

import httpx
import pytest
from fastapi.testclient import TestClient
from sqlalchemy import insert
from srvkit import SMALL, connect, create, play, seated, serving, start

from noreturn.server import create_app
from noreturn.server.db import ReviewRow, now
from noreturn.server.reviewer import (
    BOTS_ONLY_QUEUED,
    REVIEW_PLAYOUTS,
    ChildLostError,
    Reviewer,
)
from noreturn.server.reviews import ReviewStore

BOTS = [{"kind": "bot", "level": "random"}, {"kind": "bot", "level": "greedy"}]
PLAYOUTS = 4
"""Playouts a decision in these tests: a small game's review in a second or two."""


def finished_game(client: TestClient) -> str:
    """A game of two bots, played to its end; its table id."""
    table_id, _tokens = create(client, BOTS, SMALL)
    with connect(client, table_id, None, None) as watcher:
        if watcher.state["status"] != "finished":
            watcher.next_state(lambda s: s["status"] == "finished")
    return table_id


def reviewer_of(client: TestClient) -> Reviewer:
    reviewer = client.app.state.reviewer  # type: ignore[attr-defined]
    assert isinstance(reviewer, Reviewer)
    return reviewer


def wait_for_review(client: TestClient, table_id: str, seconds: float = 60.0) -> Any:
    """Ask for the review until it is there (200); the answer."""
    deadline = time.monotonic() + seconds
    while True:
        answer = client.get(f"/api/tables/{table_id}/review")
        if answer.status_code != 202 or time.monotonic() > deadline:
            return answer
        time.sleep(0.2)


@pytest.fixture
def held() -> Iterator[threading.Event]:
    """Released at the end of the test, so a held review never outlives it."""
    event = threading.Event()
    yield event
    event.set()


def test_no_review_before_the_end_nor_of_an_unknown_table(db_url: str) -> None:
    seats = [{"kind": "human", "name": "Ada"}, {"kind": "bot", "level": "easy"}]
    with TestClient(create_app(db_url, review_playouts=PLAYOUTS)) as client:
        table_id, tokens = create(client, seats, SMALL)
        for stage in ("lobby", "playing"):
            if stage == "playing":
                start(client, table_id, tokens)
            answer = client.get(f"/api/tables/{table_id}/review")
            assert answer.status_code == 409, stage
            assert "once the game is over" in answer.json()["detail"]
        # Even a review stored for a game in progress (by hand, say) is not given.
        engine = client.app.state.service.engine  # type: ignore[attr-defined]
        with engine.begin() as conn:
            conn.execute(insert(ReviewRow).values(table_id=table_id, state="done",
                                                  claimed_at=now(), review={"seats": []}))
        assert client.get(f"/api/tables/{table_id}/review").status_code == 409
        closed = client.post("/api/tables", json={"seats": seats}).json()
        assert client.post(f"/api/tables/{closed['table']['id']}/close",
                           json={"token": closed["creator_token"]}).status_code == 200
        answer = client.get(f"/api/tables/{closed['table']['id']}/review")
        assert answer.status_code == 409
        assert "closed: its game was not played to the end" in answer.json()["detail"]
        for unknown in ("nope", "not a table!"):
            answer = client.get(f"/api/tables/{unknown}/review")
            assert answer.status_code == 404
            assert "no table" in answer.json()["detail"]
        assert reviewer_of(client).events == []  # nothing was reviewed, nothing claimed


def test_a_finished_game_is_reviewed_in_a_child_and_the_review_outlives_the_app(
        db_url: str) -> None:
    with TestClient(create_app(db_url, review_playouts=PLAYOUTS)) as client:
        table_id = finished_game(client)
        answer = wait_for_review(client, table_id)
        assert answer.status_code == 200, answer.text
        review = answer.json()
        record = client.get(f"/api/tables/{table_id}/record").json()
        assert reviewer_of(client).events == [f"claimed {table_id}", f"reviewed {table_id}"]
    assert review["format"] == "noreturn-review"
    assert review["budget"] == {"playouts": PLAYOUTS}
    assert review["game"]["over"] is True
    assert review["game"]["scores"] == record["result"]["scores"]
    assert [seat["seat"] for seat in review["seats"]] == [0, 1]
    assert {d["seat"] for d in review["decisions"]} == {0, 1}
    assert all(0 <= seat["accuracy"] <= 100 for seat in review["seats"])
    # A new process on the same database: the stored review, not a second one.
    with TestClient(create_app(db_url, review_playouts=PLAYOUTS)) as client:
        again = client.get(f"/api/tables/{table_id}/review")
        assert again.status_code == 200 and again.json() == review
        assert reviewer_of(client).events == []
    with TestClient(create_app(db_url)) as client:  # a server that makes no reviews
        assert client.get(f"/api/tables/{table_id}/review").json() == review


def test_pending_then_done_and_asked_for_after_a_restart(db_url: str,
                                                          held: threading.Event) -> None:
    """While the review is made: 202 and a clear detail. A game that ended under a server
    without reviews is reviewed when its review is asked for."""
    with TestClient(create_app(db_url)) as client:
        table_id = finished_game(client)
        answer = client.get(f"/api/tables/{table_id}/review")
        assert answer.status_code == 404
        assert "--review-playouts 0" in answer.json()["detail"]
        assert f"/api/tables/{table_id}/record" in answer.json()["detail"]
    with TestClient(create_app(db_url, review_playouts=PLAYOUTS)) as client:
        reviewer = reviewer_of(client)
        calls: list[dict[str, Any]] = []

        def slow(record: dict[str, Any], playouts: int, stop: threading.Event) -> dict[str, Any]:
            calls.append(record)
            held.wait(30)
            return {"format": "noreturn-review", "budget": {"playouts": playouts}}

        reviewer.runner = slow
        answer = client.get(f"/api/tables/{table_id}/review")
        assert answer.status_code == 202
        assert answer.json()["detail"] == "the game is being reviewed: ask again in a few seconds"
        assert answer.headers["retry-after"] == "3"
        while not calls:
            time.sleep(0.01)
        assert client.get(f"/api/tables/{table_id}/review").status_code == 202  # claimed
        held.set()
        done = wait_for_review(client, table_id)
        assert done.status_code == 200
        assert done.json() == {"format": "noreturn-review", "budget": {"playouts": PLAYOUTS}}
        assert len(calls) == 1 and calls[0]["meta"]["table"] == table_id


def test_a_failed_review_says_why_and_is_not_made_again(db_url: str) -> None:
    with TestClient(create_app(db_url, review_playouts=PLAYOUTS)) as client:
        reviewer = reviewer_of(client)

        def broken(record: dict[str, Any], playouts: int,
                   stop: threading.Event) -> dict[str, Any]:
            raise RuntimeError("ReviewError: event 3 breaks a rule")

        reviewer.runner = broken
        table_id = finished_game(client)
        answer = wait_for_review(client, table_id)
        assert answer.status_code == 500
        assert "event 3 breaks a rule" in answer.json()["detail"]
        assert "noreturn review" in answer.json()["detail"]  # what to do instead
        assert client.get(f"/api/tables/{table_id}/review").status_code == 500
        assert reviewer.events == [f"claimed {table_id}", f"failed {table_id}"]


def test_a_lost_review_process_is_tried_again_when_asked(db_url: str) -> None:
    """A child that dies (killed, out of memory) is not the game's fault: the claim is
    released, no failure is stored, and the next request queues the review again."""
    with TestClient(create_app(db_url, review_playouts=PLAYOUTS)) as client:
        reviewer = reviewer_of(client)
        lost: list[str] = []

        def dies(record: dict[str, Any], playouts: int,
                 stop: threading.Event) -> dict[str, Any]:
            lost.append(record["meta"]["table"])
            raise ChildLostError("the review process ended with code -9 without an answer")

        reviewer.runner = dies
        table_id = finished_game(client)
        client.get(f"/api/tables/{table_id}/review")  # bots alone: reviewed when asked
        deadline = time.monotonic() + 20
        while (reviewer.busy_with(table_id) or f"lost {table_id}" not in reviewer.events
               ) and time.monotonic() < deadline:
            time.sleep(0.02)
        assert reviewer.events == [f"claimed {table_id}", f"lost {table_id}"]
        reviewer.runner = lambda record, playouts, stop: {"format": "noreturn-review"}
        answer = wait_for_review(client, table_id)
        assert answer.status_code == 200 and answer.json() == {"format": "noreturn-review"}
        assert lost == [table_id]


def test_a_game_with_a_person_is_queued_as_it_ends_one_of_bots_when_asked(
        db_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """Forty tables of bots ending at once filled the review queue, so that nobody's
    review was made for tens of minutes: only a game a person played is reviewed
    unasked. A full queue answers 503 with the time to wait."""
    with TestClient(create_app(db_url, review_playouts=PLAYOUTS)) as client:
        reviewer = reviewer_of(client)
        queued: list[str] = []
        service = client.app.state.service  # type: ignore[attr-defined]
        monkeypatch.setattr(service, "after_game", queued.append)  # (reviewer.offer)
        bots_only = finished_game(client)
        assert queued == []
        people = [{"kind": "human", "name": "Ada"}, {"kind": "bot", "level": "greedy"}]
        with seated(client, people, SMALL) as (with_ada, _tokens, players):
            play(players, Random(3), moves=10_000)
        assert queued == [with_ada]
        store = ReviewStore(service.engine)
        assert not store.find(bots_only).people and store.find(with_ada).people
        monkeypatch.setattr(reviewer, "offer",
                            lambda table_id, people=True: False)  # the queue is full
        answer = client.get(f"/api/tables/{bots_only}/review")
        assert answer.status_code == 503 and answer.headers["retry-after"] == "60"
        assert "busy reviewing other games" in answer.json()["detail"]


class SkippingStore:
    """A review store whose every claim finds the review made already: it notes the order
    in which the reviewer took the tables."""

    def __init__(self) -> None:
        self.claimed: list[str] = []

    def claim(self, table_id: str) -> None:
        self.claimed.append(table_id)


def test_games_of_bots_alone_get_a_small_share_of_the_queue_and_wait_behind_people() -> None:
    """One client asking for the reviews of bot tables it made, one GET at a time, filled
    the queue that the games people played need."""
    store = SkippingStore()
    reviewer = Reviewer(cast(ReviewStore, store), PLAYOUTS, queue_size=12)
    bots = [f"bots{n}" for n in range(BOTS_ONLY_QUEUED + 3)]
    assert [reviewer.offer(table, people=False) for table in bots] == \
        [True] * BOTS_ONLY_QUEUED + [False] * 3
    people = [f"people{n}" for n in range(12 - BOTS_ONLY_QUEUED)]
    assert all(reviewer.offer(table) for table in people)
    assert not reviewer.offer("one-too-many")  # the queue itself is full
    reviewer.start()
    try:
        deadline = time.monotonic() + 20
        while any(map(reviewer.busy_with, bots + people)) and time.monotonic() < deadline:
            time.sleep(0.02)
        assert store.claimed == people + bots[:BOTS_ONLY_QUEUED]  # people's games first
        assert reviewer.offer(bots[-1], people=False)  # the share is free again
    finally:
        reviewer.stop()


def test_one_process_claims_a_review_and_a_dead_claim_is_taken_over(db_url: str) -> None:
    """Two processes on one database: only one claims (the other finds it claimed); a
    claim older than the claim time is taken over; a stored review is never claimed."""
    with TestClient(create_app(db_url)) as client:
        table_id = finished_game(client)
        engine = client.app.state.service.engine  # type: ignore[attr-defined]
        first, second = ReviewStore(engine), ReviewStore(engine)
        record = first.claim(table_id)
        assert record is not None and record["meta"]["table"] == table_id
        assert second.claim(table_id) is None
        assert first.find(table_id).state == "pending"
        time.sleep(0.05)
        taker = ReviewStore(engine, claim_seconds=0.01)  # the first one died
        assert taker.claim(table_id) is not None
        assert ReviewStore(engine, claim_seconds=0.01).claim("nope") is None
        taker.finish(table_id, {"format": "noreturn-review"})
        time.sleep(0.05)
        assert taker.claim(table_id) is None
        assert first.find(table_id).review == {"format": "noreturn-review"}


def test_a_claim_that_fails_leaves_another_process_claim_alone(
        db_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """The database fails while this process claims: it logs, and never drops the claim
    of the process that is reviewing the game."""
    with TestClient(create_app(db_url)) as client:
        table_id = finished_game(client)
    with TestClient(create_app(db_url, review_playouts=PLAYOUTS)) as client:
        other = ReviewStore(client.app.state.service.engine)  # type: ignore[attr-defined]
        assert other.claim(table_id) is not None  # another process reviews it
        reviewer = reviewer_of(client)

        def broken(_table_id: str) -> None:
            raise OSError("the database went away")

        monkeypatch.setattr(reviewer.store, "claim", broken)
        assert reviewer.offer(table_id)
        deadline = time.monotonic() + 10
        while reviewer.busy_with(table_id) and time.monotonic() < deadline:
            time.sleep(0.02)
        assert not reviewer.busy_with(table_id)
        assert other.find(table_id).state == "pending"  # still the other process's


def test_play_goes_on_while_a_review_runs(db_url: str) -> None:
    """A review far too big to end during the test runs in its child; a person's move on
    another table is answered meanwhile; stopping the app ends the child and releases
    the claim, so the next server reviews the game afresh."""
    order: list[str] = []
    people = [{"kind": "human", "name": "Ada"}, {"kind": "bot", "level": "easy"}]
    with TestClient(create_app(db_url, review_playouts=1_000_000)) as client:
        reviewer = reviewer_of(client)
        reviewer.listeners.append(order.append)
        table_id = finished_game(client)
        assert client.get(f"/api/tables/{table_id}/review").status_code == 202  # asked
        deadline = time.monotonic() + 20
        while f"claimed {table_id}" not in order and time.monotonic() < deadline:
            time.sleep(0.02)
        assert reviewer.busy_with(table_id)
        with seated(client, people, SMALL) as (_other, _tokens, players):
            before = players[0].state["version"]
            after = play(players, Random(5), moves=2)
            assert after["version"] > before
            order.append("moves answered")
        assert client.get(f"/api/tables/{table_id}/review").status_code == 202
        order.append("still reviewing")
    assert order == [f"claimed {table_id}", "moves answered", "still reviewing"]
    assert not any(p.name == "noreturn-review" for p in multiprocessing.active_children())
    engine = create_app(db_url).state.service.engine
    assert ReviewStore(engine).find(table_id).state is None  # released, not stuck pending
    engine.dispose()


ORPHAN = """
import multiprocessing, threading, time
from noreturn.bots import Deck, make_bot, play_game
from noreturn.engine import Rules
from noreturn.server.reviewer import review_in_child

rules = Rules(players=2, colors=3, max_value=6, hand_size=5)
game = play_game(rules, [make_bot("random"), make_bot("greedy")], Deck(rules, 1),
                 keep_record=True)
threading.Thread(target=review_in_child, args=(game.record, 1_000_000, threading.Event()),
                 daemon=True).start()
while not multiprocessing.active_children():
    time.sleep(0.01)
print(multiprocessing.active_children()[0].pid, flush=True)
time.sleep(60)
"""


def ended(pid: int) -> bool:
    """Whether process ``pid`` is gone (or a zombie nobody reaped yet)."""
    try:
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().rsplit(")", 1)[1].split()[0] in ("Z", "X")
    except FileNotFoundError:
        return True


@pytest.mark.skipif(not os.path.isdir("/proc"), reason="reads /proc")
def test_a_review_child_ends_when_its_server_is_killed() -> None:
    """A server killed with SIGKILL cannot end its review's child: the child notices and
    ends itself, instead of spending its CPU on a review nobody will store."""
    server = subprocess.Popen([sys.executable, "-c", ORPHAN], stdout=subprocess.PIPE, text=True,
                              env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)})
    try:
        assert server.stdout is not None
        child = int(server.stdout.readline())
        assert not ended(child)
    finally:
        server.kill()
        server.wait(10)
    deadline = time.monotonic() + 10
    while not ended(child) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert ended(child)


def test_noreturn_serve_reviews_a_finished_game(tmp_path: Path) -> None:
    """The real command (``python -m noreturn serve``): its reviewer's child starts from
    that main module, reviews, and the answer is the review."""
    with serving(f"sqlite:///{tmp_path / 'serve.db'}", "--review-playouts",
                 str(PLAYOUTS)) as base, httpx.Client(base_url=base, timeout=10) as http:
        created = http.post("/api/tables", json={"seats": BOTS, "rules": SMALL})
        table_id = created.json()["table"]["id"]
        deadline = time.monotonic() + 60
        answer = http.get(f"/api/tables/{table_id}/review")
        while answer.status_code in (202, 409) and time.monotonic() < deadline:
            time.sleep(0.2)
            answer = http.get(f"/api/tables/{table_id}/review")
        assert answer.status_code == 200, answer.text
        assert answer.json()["budget"] == {"playouts": PLAYOUTS}
        assert len(answer.json()["seats"]) == 2


def test_serve_reviews_at_the_documented_default() -> None:
    from noreturn.cli import serve  # noqa: PLC0415

    assert inspect.signature(serve).parameters["review_playouts"].default == REVIEW_PLAYOUTS
