"""``POST /api/tutorial``: a started table of the prepared deal, hostile input refused
cheaply, and the same per-address limit as creating a table."""

from __future__ import annotations

from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import func, select
from srvkit import connect, newer_than

from noreturn.bots.viewjson import view_to_json
from noreturn.engine import Rules
from noreturn.server import create_app
from noreturn.server.db import TableRow
from noreturn.table import TUTORIAL_SEED, LocalTable, make_seats

MAX_MOVES = 200


@pytest.fixture
def client(db_url: str) -> Any:
    with TestClient(create_app(db_url)) as client:
        yield client


def stored(client: TestClient) -> int:
    """The tables in the database, listed or not (the lobby leaves tutorials out)."""
    service = client.app.state.service  # type: ignore[attr-defined]
    with service.engine.connect() as conn:
        return int(conn.execute(select(func.count()).select_from(TableRow)).scalar_one())


def prepared_hand() -> list[Any]:
    """The newcomer's first hand in the prepared deal, as the terminal's tutorial deals it."""
    table = LocalTable(make_seats(2, ["You"], ["easy"]), Rules(players=2), TUTORIAL_SEED)
    return list(view_to_json(table.view_for(0))["hand"])


def test_a_tutorial_is_a_started_table_of_the_prepared_deal(client: TestClient) -> None:
    answer = client.post("/api/tutorial", json={"name": "Ada"})
    assert answer.status_code == 201, answer.text
    data = answer.json()
    table = data["table"]
    assert table["status"] == "playing"
    assert [(s["kind"], s["name"], s["level"], s["joined"]) for s in table["seats"]] == [
        ("human", "Ada", None, True), ("bot", "Bea", "easy", True)]
    (seat,) = data["seat_links"]
    assert seat["link"] == f"/play/{table['id']}#token={seat['token']}&tutorial=1"
    with connect(client, table["id"], 0, seat["token"]) as player:
        assert player.state["view"]["hand"] == prepared_hand()
    default = client.post("/api/tutorial").json()  # no body: the newcomer is Ada
    assert default["table"]["seats"][0]["name"] == "Ada"
    assert default["table"]["id"] != table["id"]


def test_the_lobby_leaves_tutorials_out_but_their_links_work(client: TestClient) -> None:
    """A newcomer's guided game is nobody else's business: not in the lobby's list (with
    or without a status), while a table made in the lobby is; the tutorial's own table,
    state, record and replay still answer by its id."""
    made = client.post("/api/tables", json={"seats": [{"kind": "human"},
                                                      {"kind": "bot", "level": "easy"}]})
    assert made.status_code == 201, made.text
    normal_id = made.json()["table"]["id"]
    tutorial = client.post("/api/tutorial").json()  # the newest: limit=1 still finds the other
    tutorial_id, token = tutorial["table"]["id"], tutorial["seat_links"][0]["token"]
    for query in ("", "?status=playing", "?status=lobby", "?limit=1"):
        listed = [t["id"] for t in client.get(f"/api/tables{query}").json()]
        assert tutorial_id not in listed, query
        assert (normal_id in listed) == (query != "?status=playing"), query
    assert stored(client) == 2
    assert client.get(f"/api/tables/{tutorial_id}").json()["status"] == "playing"
    with connect(client, tutorial_id, 0, token) as player:
        assert player.state["view"]["hand"] == prepared_hand()
    assert client.get(f"/api/tables/{tutorial_id}/record").status_code == 409  # not over yet


def test_following_the_hints_meets_every_lesson_and_wins(client: TestClient) -> None:
    """Over the WebSocket, as the page plays it: the hints set tiles aside, place,
    exchange in phase 1, declare and score, and the newcomer who follows them wins."""
    data = client.post("/api/tutorial").json()
    table_id, token = data["table"]["id"], data["seat_links"][0]["token"]
    hinted: list[str] = []
    with connect(client, table_id, 0, token) as player:
        state = player.state
        while state["status"] != "finished":
            assert len(hinted) < MAX_MOVES, hinted[-5:]
            if not state["legal"]:  # the bot's turn: its move comes as a new state
                state = player.next_state()
                continue
            hint = player.answer({"type": "hint"})
            assert hint["type"] == "hint", hint
            me = state["view"]["players"][0]
            hinted.append(f"{me['phase']}:{hint['action']}")
            player.send({"type": "action", "action": hint["action"],
                         "version": state["version"]})
            state = player.next_state(newer_than(state["version"]))
        scores = state["result"]["scores"]
    kinds = [(h.split(":")[0], h.split(":")[1].split()[0]) for h in hinted]
    assert kinds[0] == ("1", "mulligan")
    assert {("1", "place"), ("1", "exchange"), ("1", "declare"), ("2", "score")} <= set(kinds)
    assert scores[0] > scores[1]


@pytest.mark.parametrize(("body", "status"), [
    ({"name": "x" * 41}, 422),  # over the name's length
    ({"name": "Ada", "seed": 1}, 422),  # no other key: the deal is not the client's to choose
    ({"name": 7}, 422),
    ([1, 2], 422),
    ({"name": "A\u0007da"}, 400),  # a control character
])
def test_hostile_bodies_are_refused_and_nothing_is_created(client: TestClient, body: Any,
                                                           status: int) -> None:
    before = stored(client)
    answer = client.post("/api/tutorial", json=body)
    assert answer.status_code == status, answer.text
    assert "x" * 41 not in answer.text  # the value is never echoed
    assert stored(client) == before


@pytest.mark.parametrize(("raw", "status"), [
    (b"not json", 422),
    (b"[" * 5000, 400),  # nested deep: refused by the parser, nothing built
    (b'{"name": "Ada"} trailing', 422),
])
def test_bodies_that_are_no_json_object_are_refused(client: TestClient, raw: bytes,
                                                     status: int) -> None:
    answer = client.post("/api/tutorial", content=raw,
                         headers={"content-type": "application/json"})
    assert answer.status_code == status, answer.text
    assert stored(client) == 0


def test_a_huge_body_is_refused_unread(client: TestClient) -> None:
    answer = client.post("/api/tutorial", content=b'{"name": "' + b"x" * 100_000 + b'"}',
                         headers={"content-type": "application/json"})
    assert answer.status_code == 413
    assert stored(client) == 0


def test_tutorials_count_against_the_limit_of_new_tables(tmp_path: Any) -> None:
    """A tutorial is a table: it shares the bucket of ``POST /api/tables``."""
    app = create_app(f"sqlite:///{tmp_path / 'limited.db'}", create_limit_per_minute=2)
    with TestClient(app) as client:
        assert client.post("/api/tutorial").status_code == 201
        made = client.post("/api/tables", json={"seats": [{"kind": "human"},
                                                          {"kind": "bot", "level": "easy"}]})
        assert made.status_code == 201
        refused = client.post("/api/tutorial")
        assert refused.status_code == 429
        assert int(refused.headers["retry-after"]) >= 1
        assert "too many new tables" in refused.json()["detail"]
        assert stored(client) == 2
