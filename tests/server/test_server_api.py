"""The HTTP API: lobby, seats and tokens, errors, records, the OpenAPI schema, the pages."""

from __future__ import annotations

import hashlib
import json
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import select
from srvkit import SMALL, connect, create, start

from noreturn.server import create_app
from noreturn.server.app import encode
from noreturn.server.db import TableRow
from noreturn.server.interpreter import (
    FULL_COLLECTION_EVERY,
    SWITCH_SECONDS,
    YOUNG_COLLECTION_AFTER,
)

SEATS = [{"kind": "human", "name": "Ada"}, {"kind": "human", "name": "Bo"},
         {"kind": "bot", "level": "easy"}]


@pytest.fixture
def client(db_url: str) -> Any:
    with TestClient(create_app(db_url)) as client:
        yield client


def secrets_of(client: TestClient, table_id: str, tokens: dict[int, str]) -> list[str]:
    """Everything that must never be shown: tokens, their digests, the seed."""
    service = client.app.state.service  # type: ignore[attr-defined]
    with service.sessions() as session:
        seed = session.scalar(select(TableRow.seed).where(TableRow.id == table_id))
    digests = [hashlib.sha256(t.encode()).hexdigest() for t in tokens.values()]
    return [*tokens.values(), *digests, seed]


def test_create_answers_links_once_and_the_lobby_shows_public_data_only(
        client: TestClient) -> None:
    answer = client.post("/api/tables", json={"seats": SEATS})
    assert answer.status_code == 201
    data = answer.json()
    table_id = data["table"]["id"]
    assert len(table_id) >= 12
    links = data["seat_links"]
    assert [link["seat"] for link in links] == [0, 1]
    for link in links:
        assert len(link["token"]) >= 32
        assert link["link"] == f"/play/{table_id}#token={link['token']}"
    assert data["spectator_link"] == f"/watch/{table_id}"
    assert data["table"] == {
        "id": table_id, "status": "lobby", "created_at": data["table"]["created_at"],
        "rules": {"players": 3, "colors": 6, "max_value": 11, "copies": 2, "hand_size": 8,
                  "exchange_limit": 4},
        "seats": [
            {"seat": 0, "kind": "human", "name": "Ada", "level": None, "joined": False},
            {"seat": 1, "kind": "human", "name": "Bo", "level": None, "joined": False},
            {"seat": 2, "kind": "bot", "name": "Bea", "level": "easy", "joined": True},
        ],
        "version": 0, "result": None, "timer": None, "rematch": None,
    }
    tokens = {link["seat"]: link["token"] for link in links}
    hidden = secrets_of(client, table_id, tokens)
    second, _ = create(client, SEATS, SMALL)
    lobby = client.get("/api/tables")
    assert lobby.status_code == 200
    assert [t["id"] for t in lobby.json()][:2] == [second, table_id]  # newest first
    start(client, table_id, tokens)
    texts = [client.get("/api/tables").text, client.get(f"/api/tables/{table_id}").text,
             client.get("/api/tables?status=playing").text]
    with connect(client, table_id, None, None) as watcher:
        texts += [str(m) for m in watcher.messages]
    with connect(client, table_id, 0, tokens[0]) as ada:
        texts += [str(m) for m in ada.messages]
    for text in texts:
        for secret in hidden:
            assert secret not in text
    assert [t["id"] for t in client.get("/api/tables?status=playing").json()] == [table_id]
    assert [t["id"] for t in client.get("/api/tables?limit=1").json()] == [second]
    assert client.get("/api/tables/nope").status_code == 404


@pytest.mark.parametrize(("body", "status", "words"), [
    ({"seats": [{"kind": "human"}]}, 422, "at least 2"),
    ({"seats": [{"kind": "human"}] * 5}, 422, "at most 4"),
    ({"seats": [{"kind": "human"}, {"kind": "robot"}]}, 422, "human"),
    ({"seats": [{"kind": "human"}, {"kind": "bot"}], "colour": 3}, 422, "extra"),
    ({"seats": [{"kind": "human"}, {"kind": "bot", "level": "external:rm -rf /"}]}, 400,
     "no bot level 'external'"),
    ({"seats": [{"kind": "human"}, {"kind": "bot", "level": "ismcts:time=60"}]}, 400,
     "at most time=3"),
    # a count of iterations or worlds that holds a queue every table shares for seconds
    ({"seats": [{"kind": "bot", "level": "search:iterations=20000"}] * 4}, 400,
     "iterations=500 per move"),
    ({"seats": [{"kind": "human"}, {"kind": "bot", "level": "ismcts:iterations=501"}]}, 400,
     "iterations=500 per move"),
    ({"seats": [{"kind": "human"}, {"kind": "bot", "level": "plan:worlds=1000"}]}, 400,
     "at most worlds=24"),
    ({"seats": [{"kind": "human"}, {"kind": "bot", "level": "genius"}]}, 400, "choose one of"),
    ({"seats": [{"kind": "human", "level": "hard"}, {"kind": "bot"}]}, 400, "for bots"),
    ({"seats": [{"kind": "human", "name": "Al"}, {"kind": "human", "name": " Al "}]}, 400,
     "different name"),
    ({"seats": [{"kind": "human", "name": "A\u0007l"}, {"kind": "bot"}]}, 400, "control"),
    # names that read as one: another spelling of the same letters, or only case apart
    ({"seats": [{"kind": "human", "name": "Zo\u00eb"}, {"kind": "human", "name": "Zoe\u0308"}]},
     400, "different name"),
    ({"seats": [{"kind": "human", "name": "Al"}, {"kind": "human", "name": "AL"}]}, 400,
     "different name"),
    ({"seats": [{"kind": "human", "name": "\ufb01sh"}, {"kind": "human", "name": "fish"}]}, 400,
     "different name"),
    ({"seats": [{"kind": "human"}, {"kind": "bot"}], "rules": {"colors": 9}}, 422, "colors"),
    ({"seats": [{"kind": "human"}, {"kind": "bot"}], "rules": {"players": 3}}, 400, "seats"),
    ({"seats": [{"kind": "human"}, {"kind": "bot"}], "rules": {"speed": 3}}, 422, "speed"),
    # a server table is at most the published game in every parameter (issue 14)
    ({"seats": [{"kind": "human"}, {"kind": "bot"}], "rules": {"max_value": 31}}, 422,
     "less than or equal to 11"),
    ({"seats": [{"kind": "human"}, {"kind": "bot"}], "rules": {"copies": 99}}, 422, "copies"),
    # strict whole numbers: a string or a float is a client's bug, not a number
    ({"seats": [{"kind": "human"}, {"kind": "bot"}], "rules": {"colors": "3"}}, 422,
     "valid integer"),
    ({"seats": [{"kind": "human"}, {"kind": "bot"}], "rules": {"hand_size": 8.0}}, 422,
     "hand_size"),
    ({"seats": [{"kind": "bot"}] * 4, "rules": {"colors": 1, "max_value": 8, "copies": 2}},
     400, "more tiles"),
])
def test_bad_tables_are_refused_with_a_reason(client: TestClient, body: dict[str, Any],
                                              status: int, words: str) -> None:
    before = client.get("/api/tables").json()
    answer = client.post("/api/tables", json=body)
    assert answer.status_code == status, answer.text
    assert words in answer.text
    assert client.get("/api/tables").json() == before


def test_bot_levels_and_names_have_defaults(client: TestClient) -> None:
    answer = client.post("/api/tables", json={"seats": [
        {"kind": "human", "name": "  Bea  "}, {"kind": "bot"},
        {"kind": "bot", "level": "ismcts:iterations=50"}]})
    assert answer.status_code == 201, answer.text
    seats = answer.json()["table"]["seats"]
    assert [s["name"] for s in seats] == ["Bea", "Cy", "Dot"]
    assert [s["level"] for s in seats] == [None, "medium", "ismcts:iterations=50"]


def test_tokens_are_checked_on_every_seat_request(client: TestClient) -> None:
    table_id, tokens = create(client, SEATS, SMALL)
    other_id, other_tokens = create(client, SEATS, SMALL)
    for what in ("join", "start", "leave"):
        url = f"/api/tables/{table_id}/{what}"
        for body in ({}, {"token": ""}, {"token": "x" * 32}, {"token": other_tokens[0]},
                     {"token": tokens[0][:-1]}):
            answer = client.post(url, json=body)
            assert answer.status_code == 403, (what, body, answer.text)
            assert "token" in answer.json()["detail"]
        assert client.post(f"/api/tables/nope/{what}",
                           json={"token": tokens[0]}).status_code == 404
    assert client.get(f"/api/tables/{table_id}").json()["seats"][0]["joined"] is False
    assert other_id != table_id


def test_join_start_and_leave_in_the_lobby(client: TestClient) -> None:
    table_id, tokens = create(client, SEATS, SMALL)
    joined = client.post(f"/api/tables/{table_id}/join", json={"token": tokens[0],
                                                               "name": "Ada L."})
    assert joined.status_code == 200
    assert joined.json()["seats"][0] == {"seat": 0, "kind": "human", "name": "Ada L.",
                                         "level": None, "joined": True}
    for same in ("Ada L.", "ada l.", "\uff21da L."):  # also in another case or form
        clash = client.post(f"/api/tables/{table_id}/join", json={"token": tokens[1],
                                                                  "name": same})
        assert clash.status_code == 400 and "another seat is named" in clash.json()["detail"]
    early = client.post(f"/api/tables/{table_id}/start", json={"token": tokens[0]})
    assert early.status_code == 409 and "Bo has not joined" in early.json()["detail"]
    assert client.get(f"/api/tables/{table_id}").json()["status"] == "lobby"
    left = client.post(f"/api/tables/{table_id}/leave", json={"token": tokens[0]})
    assert left.status_code == 200 and left.json()["seats"][0]["joined"] is False
    # The seat is free again: its link joins it again.
    assert client.post(f"/api/tables/{table_id}/join", json={"token": tokens[1]}).status_code \
        == 200
    started = client.post(f"/api/tables/{table_id}/start", json={"token": tokens[1]})
    assert started.status_code == 409 and "Ada L. has not joined" in started.text
    assert client.post(f"/api/tables/{table_id}/join", json={"token": tokens[0]}).status_code \
        == 200
    started = client.post(f"/api/tables/{table_id}/start", json={"token": tokens[1]})
    assert started.status_code == 200 and started.json()["status"] == "playing"
    again = client.post(f"/api/tables/{table_id}/start", json={"token": tokens[1]})
    assert again.status_code == 409 and "started already" in again.text
    rename = client.post(f"/api/tables/{table_id}/join", json={"token": tokens[0],
                                                               "name": "Zed"})
    assert rename.status_code == 409


def test_record_and_replay_wait_for_the_end(client: TestClient) -> None:
    table_id, tokens = create(client, SEATS, SMALL)
    for stage in ("lobby", "playing"):
        if stage == "playing":
            start(client, table_id, tokens)
        for what in ("record", "replay"):
            answer = client.get(f"/api/tables/{table_id}/{what}")
            assert answer.status_code == 409, (stage, what)
            assert "over" in answer.json()["detail"]
    assert client.get("/api/tables/nope/record").status_code == 404
    assert client.get("/api/tables/nope/replay").status_code == 404


def test_openapi_schema_is_valid_and_lists_the_api(client: TestClient) -> None:
    schema = client.get("/openapi.json").json()
    assert schema["openapi"].startswith("3.")
    paths = schema["paths"]
    assert set(paths) == {
        "/api/tables", "/api/tables/{table_id}", "/api/tables/{table_id}/join",
        "/api/tables/{table_id}/start", "/api/tables/{table_id}/leave",
        "/api/tables/{table_id}/record", "/api/tables/{table_id}/replay",
        "/api/tables/{table_id}/close", "/api/tables/{table_id}/review", "/api/i18n",
        "/api/tables/{table_id}/rematch", "/api/me", "/api/leaderboard",
        "/api/tutorial", "/api/turn-times",
    }
    assert set(paths["/api/tables"]) == {"get", "post"}
    assert "201" in paths["/api/tables"]["post"]["responses"]
    assert "403" in paths["/api/tables/{table_id}/join"]["post"]["responses"]
    assert "409" in paths["/api/tables/{table_id}/record"]["get"]["responses"]
    assert {"200", "202", "404", "409"} <= set(paths["/api/tables/{table_id}/review"]["get"][
        "responses"])
    components = schema["components"]["schemas"]
    assert {"Table", "Created", "CreateTable", "SeatIn", "Replay", "ErrorOut"} <= set(components)
    assert "token" not in components["Table"]["properties"]
    rules = components["RulesIn"]  # the known keys, their bounds, nothing else (ST202)
    assert rules["additionalProperties"] is False
    assert set(rules["properties"]) == {"colors", "max_value", "copies", "hand_size",
                                        "exchange_limit", "players"}
    bounds = {key: max(option.get("maximum", 0) for option in value["anyOf"])
              for key, value in rules["properties"].items()}
    assert bounds == {"colors": 6, "max_value": 11, "copies": 2, "hand_size": 8,
                      "exchange_limit": 4, "players": 4}
    assert "closed" in components["Table"]["properties"]["status"]["enum"]
    validator = pytest.importorskip("openapi_spec_validator",
                                    reason="openapi-spec-validator is not installed")
    validator.validate(schema)


def test_api_answers_are_never_cached_and_say_no_referrer_errors_too(
        client: TestClient) -> None:
    """Seat tokens travel in API answers: no cache may keep them (``no-store``), and no
    answer, a refusal included, sends the address (a seat link) on."""
    for answer in (client.get("/api/tables"), client.get("/api/tables/nosuch"),
                   client.delete("/api/tables"),
                   client.post("/api/tables", json={"seats": [{"kind": "human"}] * 2})):
        assert answer.headers["cache-control"] == "no-store", answer.status_code
        assert answer.headers["referrer-policy"] == "no-referrer"
        assert answer.headers["x-content-type-options"] == "nosniff"
    assert [client.get("/api/tables/nosuch").status_code,
            client.delete("/api/tables").status_code] == [404, 405]


def test_the_front_end_pages_are_served(client: TestClient) -> None:
    for path, page in (("/", "index.html"), ("/play/abc", "table.html"),
                       ("/watch/abc", "table.html"), ("/replay/abc", "replay.html")):
        answer = client.get(path)
        if answer.status_code == 404:
            pytest.skip(f"the front end's {page} is not there yet")
        assert answer.status_code == 200
        assert answer.headers["content-type"].startswith("text/html")
        assert answer.headers["referrer-policy"] == "no-referrer"
        assert answer.headers["x-content-type-options"] == "nosniff"
        assert "cache-control" not in answer.headers
    assert client.get("/static/table.js").status_code == 200
    assert client.get("/static/%2e%2e/service.py").status_code == 404


def test_a_running_server_keeps_its_startup_objects_out_of_the_collectors_sight(
        tmp_path: Any) -> None:
    """gc.freeze at startup: full collections under load then skip the libraries' objects
    (they took 100-200 ms each before); unfrozen at shutdown, so apps started one after
    another in one process (tests) do not pile up uncollectable objects."""
    import gc  # noqa: PLC0415

    gc.unfreeze()
    before = gc.get_threshold()
    with TestClient(create_app(f"sqlite:///{tmp_path / 'gc.db'}")):
        assert gc.get_freeze_count() > 10_000
        # full collections (every live connection's objects scanned) 10x rarer
        assert gc.get_threshold() == (YOUNG_COLLECTION_AFTER, before[1], FULL_COLLECTION_EVERY)
        assert 10 * before[0] < YOUNG_COLLECTION_AFTER
        assert 10 * before[2] <= FULL_COLLECTION_EVERY
    assert gc.get_freeze_count() == 0 and gc.get_threshold() == before


def test_a_running_server_hands_the_interpreter_lock_over_often_and_puts_it_back_after(
        tmp_path: Any) -> None:
    """While the app runs, a thread waiting for the interpreter lock (the event loop, beside
    a bot searching in a worker thread) waits at most ``SWITCH_SECONDS``, a fifth of the
    default; after, the interpreter switches as before."""
    import sys  # noqa: PLC0415

    before = sys.getswitchinterval()
    with TestClient(create_app(f"sqlite:///{tmp_path / 'switch.db'}")):
        assert sys.getswitchinterval() == SWITCH_SECONDS
        assert before >= 5 * SWITCH_SECONDS
    assert sys.getswitchinterval() == before


def test_messages_are_written_as_the_standard_library_reads_them_lone_surrogates_too() -> None:
    """``encode`` (orjson) writes what ``json`` reads back unchanged; what orjson refuses,
    a lone surrogate a client sent (echoed in an answer) or a key that is no string, is
    still written, escaped by the standard library."""
    state = {"type": "state", "version": 7, "legal": ["place R11 R9", "score R x2 pay B7"],
             "unseen": {"R1": 2}, "view": {"hand": [1, 2], "score": None, "ok": True},
             "name": "Zoë 🎲", "ratio": 0.5}
    text = encode(state)
    assert isinstance(text, str) and json.loads(text) == state
    echoed = {"type": "check", "action": "place \ud800", "legal": False}
    assert json.loads(encode(echoed)) == echoed
    assert "\\ud800" in encode(echoed)
    keyed_by_number: dict[Any, Any] = {1: "a"}
    assert json.loads(encode(keyed_by_number)) == {"1": "a"}
