"""People across tables: player keys, their histories, ratings and the leaderboard, and
rematches (issue 18: "Online together", "After a game"). The service on SQLite and, when
reachable, PostgreSQL; then the HTTP answers."""

from __future__ import annotations

import logging
import secrets
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from random import Random
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import select
from srvkit import SMALL, connect

from noreturn.server import create_app
from noreturn.server.db import PlayerRow, PlayerSeatRow, make_engine, migrate
from noreturn.server.schemas import CreateTable, RulesIn, SeatIn
from noreturn.server.service import ConflictError, ForbiddenError, TableService, hash_token


def new_key() -> str:
    """A player key as the browser makes one (player.js: 32 random bytes, base64url)."""
    return secrets.token_urlsafe(32)


@pytest.fixture
def service(db_url: str) -> Iterator[TableService]:
    engine = make_engine(db_url)
    migrate(engine)
    yield TableService(engine)
    engine.dispose()


def lobby(service: TableService, *seats: str) -> tuple[str, dict[int, str]]:
    """A table of ``seats`` (a person's name, or ``bot:LEVEL``); its id and tokens."""
    made = service.create(CreateTable(seats=[
        SeatIn(kind="bot", level=s[4:]) if s.startswith("bot:") else SeatIn(kind="human", name=s)
        for s in seats], rules=RulesIn(**SMALL)))
    return made["table"]["id"], {link["seat"]: link["token"] for link in made["seat_links"]}


def finish(service: TableService, table_id: str, tokens: dict[int, str], seed: int = 1) -> None:
    """Play the started table to its end: people at random, bots on the server."""
    rng = Random(seed)
    for _ in range(5000):
        public = service.state_message(table_id, None)
        if public["status"] == "finished":
            return
        if service.bot_step(table_id):
            continue
        seat = public["view"]["to_move"]
        mine = service.state_message(table_id, seat, hash_token(tokens[seat]))
        service.act(table_id, seat, rng.choice(mine["legal"]), mine["version"])
    raise AssertionError("the game did not end")


def played(service: TableService, keys: dict[int, str | None], *seats: str,
           seed: int = 1) -> tuple[str, dict[int, str]]:
    """A table of ``seats`` whose people join with ``keys`` (by seat; None: no key),
    started and played to the end."""
    table_id, tokens = lobby(service, *seats)
    for seat, token in tokens.items():
        service.join(table_id, token, None, keys.get(seat))
    service.start(table_id, tokens[min(tokens)])
    finish(service, table_id, tokens, seed)
    return table_id, tokens


def test_a_keyed_person_has_a_history_and_a_rating_once_per_table(
        service: TableService) -> None:
    ada, bo = new_key(), new_key()
    table_id, _tokens = played(service, {0: ada, 1: bo}, "Ada", "Bo", "bot:easy")
    result = service.get(table_id)["result"]
    mine = service.players.history(ada)
    assert [t["table"]["id"] for t in mine["tables"]] == [table_id]
    assert mine["tables"][0]["seat"] == 0
    rating = mine["rating"]
    assert rating is not None and rating["games"] == 1 and rating["name"] == "Ada"
    assert mine["tables"][0]["ordinal_after"] == rating["ordinal"]
    assert rating["ordinal"] == pytest.approx(rating["mu"] - 3 * rating["sigma"], abs=0.02)
    board = service.players.leaderboard(min_games=1)
    assert {(line["name"], line["kind"]) for line in board} == {
        ("Ada", "human"), ("Bo", "human"), ("easy", "bot")}
    assert [line["rank"] for line in board] == [1, 2, 3]
    assert [line["ordinal"] for line in board] == sorted(
        (line["ordinal"] for line in board), reverse=True)
    first = {line["name"]: line for line in board}
    winner = ["Ada", "Bo", "easy"][result["ranks"].index(1)]
    assert first[winner]["mu"] > 25  # the winner's skill estimate went up
    assert service.players.leaderboard() == []  # three games are the default minimum
    assert not service.players.rate(table_id)  # once only
    assert service.players.rate_pending() == 0
    assert service.players.history(ada)["rating"] == rating
    assert service.players.history(new_key()) == {"rating": None, "tables": []}


def test_a_rating_that_fails_is_made_at_a_later_read(
        service: TableService, monkeypatch: pytest.MonkeyPatch) -> None:
    """The game is stored whatever happens to its rating; the board still answers, and
    rates the table once it can."""
    ada = new_key()

    def broken(*_args: Any) -> Any:
        raise RuntimeError("the rating failed")

    monkeypatch.setattr("noreturn.server.players.rate_game", broken)
    table_id, _tokens = played(service, {0: ada}, "Ada", "bot:easy")
    assert service.get(table_id)["status"] == "finished"
    assert service.players.leaderboard(min_games=1) == []
    monkeypatch.undo()
    assert [line["name"] for line in service.players.leaderboard(min_games=1)
            if line["kind"] == "human"] == ["Ada"]


def test_the_board_shows_the_name_last_used_and_never_a_key(service: TableService) -> None:
    ada = new_key()
    played(service, {0: ada}, "Ada", "bot:easy")
    table_id, tokens = lobby(service, "Ada Lovelace", "bot:easy")
    service.join(table_id, tokens[0], None, ada)  # not played: the name changes all the same
    (line,) = [x for x in service.players.leaderboard(min_games=1) if x["kind"] == "human"]
    assert line["name"] == "Ada Lovelace"
    text = str(service.players.leaderboard(min_games=1)) + str(service.players.history(ada))
    assert ada not in text and hash_token(ada) not in text


def test_who_is_not_rated(service: TableService) -> None:
    """A key at two seats, people without a key, and bots alone are not rated; a person
    who leaves during the game is (with the seat's final rank)."""
    ada, bo = new_key(), new_key()
    played(service, {0: ada, 1: ada}, "Ada", "Ada 2", "bot:easy")
    assert service.players.history(ada)["rating"] is None
    assert len(service.players.history(ada)["tables"]) == 2  # both seats are hers
    played(service, {}, "Cy", "Dot")
    made = service.create(CreateTable(seats=[SeatIn(kind="bot", level="easy"),
                                             SeatIn(kind="bot", level="greedy")],
                                      rules=RulesIn(**SMALL)))
    finish(service, made["table"]["id"], {})
    assert service.players.leaderboard(min_games=1) == []
    table_id, tokens = lobby(service, "Bo", "bot:easy")
    service.join(table_id, tokens[0], None, bo)
    service.start(table_id, tokens[0])
    service.leave(table_id, tokens[0])
    finish(service, table_id, {})
    rating = service.players.history(bo)["rating"]
    assert rating is not None and rating["games"] == 1


def test_a_key_is_tied_in_the_lobby_and_untied_by_leaving_it(service: TableService) -> None:
    ada, bea = new_key(), new_key()
    table_id, tokens = lobby(service, "Ada", "Bo")
    service.join(table_id, tokens[0], None, ada)
    assert [t["table"]["id"] for t in service.players.history(ada)["tables"]] == [table_id]
    service.leave(table_id, tokens[0])
    assert service.players.history(ada)["tables"] == []
    service.join(table_id, tokens[0], "Bea", bea)  # the link handed on: the new holder's key
    service.join(table_id, tokens[1], None)
    service.start(table_id, tokens[1], None)
    service.join(table_id, tokens[0], None, ada)  # once started, the seat's key is fixed
    assert service.players.history(ada)["tables"] == []
    assert len(service.players.history(bea)["tables"]) == 1


def test_a_rematch_keeps_the_seats_links_and_keys_and_is_made_once(
        service: TableService, db_url: str) -> None:
    ada, bo = new_key(), new_key()
    table_id, tokens = lobby(service, "Ada", "Bo", "bot:easy")
    with pytest.raises(ForbiddenError):
        service.rematch(table_id, "not-a-token")
    with pytest.raises(ConflictError, match="finish this one first"):
        service.rematch(table_id, tokens[0])
    service.join(table_id, tokens[0], None, ada)
    service.join(table_id, tokens[1], None, bo)
    service.start(table_id, tokens[0])
    finish(service, table_id, tokens)
    old = service.get(table_id)
    assert old["rematch"] is None
    made = service.rematch(table_id, tokens[1])
    assert made["id"] != table_id and made["status"] == "lobby" and made["version"] == 0
    assert made["rules"] == old["rules"]
    assert [(s["kind"], s["name"], s["level"]) for s in made["seats"]] == [
        (s["kind"], s["name"], s["level"]) for s in old["seats"]]
    assert [s["joined"] for s in made["seats"]] == [False, True, True]  # Bo asked
    assert service.get(table_id)["rematch"] == made["id"]
    assert service.rematch(table_id, tokens[0]) == made  # asking twice: the same rematch
    other = TableService(make_engine(db_url))  # another process: the same rematch too
    assert other.rematch(table_id, tokens[0])["id"] == made["id"]
    other.engine.dispose()
    with pytest.raises(ForbiddenError):
        service.rematch(table_id, None)
    # the same tokens hold the same seats at the rematch, with the same keys
    service.join(made["id"], tokens[0], None)
    service.start(made["id"], tokens[1])
    assert service.state_message(made["id"], 0, hash_token(tokens[0]))["status"] == "playing"
    assert [t["table"]["id"] for t in service.players.history(ada)["tables"]] == [
        made["id"], table_id]
    with pytest.raises(ConflictError, match="finish this one first"):
        service.rematch(made["id"], tokens[0])


def test_rematches_asked_at_once_by_two_processes_are_one(
        service: TableService, db_url: str) -> None:
    table_id, tokens = played(service, {}, "Ada", "Bo")
    other = TableService(make_engine(db_url))
    before = len(service.list_tables(200))
    with ThreadPoolExecutor(4) as pool:
        made = list(pool.map(lambda i: (service, other)[i % 2].rematch(table_id, tokens[i % 2]),
                             range(4)))
    assert len({m["id"] for m in made}) == 1
    assert len(service.list_tables(200)) == before + 1
    other.engine.dispose()


def test_a_rematch_against_bots_starts_at_once_and_a_leaver_is_a_bot(
        service: TableService) -> None:
    table_id, tokens = lobby(service, "Ada", "Bo", "bot:easy")
    service.join(table_id, tokens[1], None)
    service.start(table_id, tokens[0])
    service.leave(table_id, tokens[1])  # Bo leaves: a medium bot finishes for him
    finish(service, table_id, tokens)
    with pytest.raises(ForbiddenError):
        service.rematch(table_id, tokens[1])  # his token holds nothing any more
    made = service.rematch(table_id, tokens[0])
    assert made["status"] == "playing"
    assert [(s["kind"], s["level"]) for s in made["seats"]] == [
        ("human", None), ("bot", "medium"), ("bot", "easy")]
    with service.sessions() as session:  # the leaver's seat kept no key, hash or link
        assert session.scalars(select(PlayerSeatRow).where(
            PlayerSeatRow.table_id == made["id"])).all() == []


# --------------------------------------------------------------------------- HTTP
@pytest.fixture
def client(db_url: str) -> Iterator[TestClient]:
    with TestClient(create_app(db_url)) as client:
        yield client


def test_http_rematch_reaches_every_page_of_the_old_table(client: TestClient) -> None:
    service: TableService = client.app.state.service  # type: ignore[attr-defined]
    key = new_key()
    answer = client.post("/api/tables", json={"seats": [
        {"kind": "human", "name": "Ada"}, {"kind": "bot", "level": "random"}], "rules": SMALL})
    table_id = answer.json()["table"]["id"]
    token = answer.json()["seat_links"][0]["token"]
    assert client.post(f"/api/tables/{table_id}/start",
                       json={"token": token, "player_key": key}).status_code == 200
    finish(service, table_id, {0: token})
    with connect(client, table_id, None, None) as watcher, \
            connect(client, table_id, 0, token) as ada:
        refused = client.post(f"/api/tables/{table_id}/rematch", json={"token": "x" * 30})
        assert refused.status_code == 403 and "seat" in refused.json()["detail"]
        made = client.post(f"/api/tables/{table_id}/rematch", json={"token": token})
        assert made.status_code == 200, made.text
        new_id = made.json()["id"]
        for page in (watcher, ada):
            state = page.next_state(lambda s: s["table"]["rematch"] is not None)
            assert state["table"]["rematch"] == new_id
    again = client.post(f"/api/tables/{table_id}/rematch", json={"token": token})
    assert again.json()["id"] == new_id
    mine = client.post("/api/me", json={"player_key": key})
    assert mine.status_code == 200
    assert {t["table"]["id"] for t in mine.json()["tables"]} == {table_id, new_id}
    assert client.get("/api/leaderboard?min_games=1").status_code == 200
    assert client.get("/leaderboard").status_code == 200
    assert client.get("/me").status_code == 200


@pytest.mark.parametrize("body", [
    {}, {"player_key": "tiny-key"}, {"player_key": "x" * 129}, {"player_key": 12345678901234567890},
    {"player_key": ["a" * 40]}, {"player_key": "a" * 39 + "/"}, {"player_key": "a" * 40, "x": 1},
    {"player_key": "a" * 40, "limit": "5"}, {"player_key": "a" * 40, "limit": 10_000}])
def test_hostile_keys_are_refused_cheaply_and_never_echoed(client: TestClient,
                                                           body: dict[str, Any]) -> None:
    answer = client.post("/api/me", json=body)
    assert answer.status_code == 422
    if isinstance(body.get("player_key"), str):
        assert body["player_key"] not in answer.text


def test_keys_and_their_hashes_are_never_logged_nor_shown(
        client: TestClient, caplog: pytest.LogCaptureFixture) -> None:
    key = new_key()
    caplog.set_level(logging.DEBUG)
    answer = client.post("/api/tables", json={"seats": [
        {"kind": "human", "name": "Ada"}, {"kind": "bot", "level": "random"}], "rules": SMALL})
    table_id = answer.json()["table"]["id"]
    token = answer.json()["seat_links"][0]["token"]
    texts = [client.post(f"/api/tables/{table_id}/join",
                         json={"token": token, "player_key": key}).text,
             client.post("/api/me", json={"player_key": key}).text,
             client.get(f"/api/tables/{table_id}").text, client.get("/api/tables").text,
             client.get("/api/leaderboard?min_games=1").text]
    bad = client.post(f"/api/tables/{table_id}/join", json={"token": token,
                                                            "player_key": key + "!"})
    assert bad.status_code == 422
    texts.append(bad.text)
    service: TableService = client.app.state.service  # type: ignore[attr-defined]
    with service.sessions() as session:
        assert session.scalar(select(PlayerRow.id)) == hash_token(key)  # only the hash kept
    for text in [*texts, caplog.text]:
        assert key not in text and hash_token(key) not in text


def test_a_game_with_a_take_back_is_not_rated(service: TableService) -> None:
    """Against bots a person may take a turn back, which shuffles the bag afresh after the
    bots' replies were seen: a result made so could be farmed, so the game is not rated
    (it still counts in the person's tables)."""
    cy = new_key()
    table_id, tokens = lobby(service, "Cy", "bot:easy")
    service.join(table_id, tokens[0], None, cy)
    service.start(table_id, tokens[0])
    rng = Random(3)
    taken = False
    for _ in range(5000):
        public = service.state_message(table_id, None)
        if public["status"] == "finished":
            break
        if service.bot_step(table_id):
            continue
        mine = service.state_message(table_id, 0, hash_token(tokens[0]))
        if not taken and mine.get("can_undo"):
            service.take_back(table_id, 0, mine["version"])
            taken = True
            continue
        service.act(table_id, 0, rng.choice(mine["legal"]), mine["version"])
    assert taken and service.state_message(table_id, None)["status"] == "finished"
    assert not service.players.rate(table_id)
    assert service.players.rate_pending() == 0  # claimed: never rated later either
    mine = service.players.history(cy)
    assert mine["rating"] is None and [t["table"]["id"] for t in mine["tables"]] == [table_id]


def test_a_rematch_keeps_the_turn_timer(service: TableService) -> None:
    made = service.create(CreateTable(seats=[SeatIn(kind="human", name="Ada"),
                                             SeatIn(kind="human", name="Bo")],
                                      rules=RulesIn(**SMALL),
                                      turn_seconds=60, timeout_level="easy"))
    table_id = made["table"]["id"]
    tokens = {link["seat"]: link["token"] for link in made["seat_links"]}
    for token in tokens.values():
        service.join(table_id, token, None, None)
    service.start(table_id, tokens[0])
    finish(service, table_id, tokens)
    again = service.rematch(table_id, tokens[1])
    assert again["timer"] == {"seconds": 60, "level": "easy"} == service.get(table_id)["timer"]
