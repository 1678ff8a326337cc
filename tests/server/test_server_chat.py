"""The table chat over the WebSocket: seats write, everyone of the table reads (a
reconnect and another process too), and what is refused is refused cheaply and changes
nothing (issue 18, "Online together")."""

from __future__ import annotations

import threading
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import func, select
from srvkit import Player, connect, create, pending, start, two_people_playing

from noreturn.server import create_app
from noreturn.server.chat import CHAT_LENGTH, TABLES, ChatLimiter, ChatPaces, clean_chat
from noreturn.server.db import ChatRow, make_engine, migrate
from noreturn.server.errors import BadRequestError, ConflictError
from noreturn.server.service import TableService, hash_token

PEOPLE = [{"kind": "human", "name": "Ada"}, {"kind": "human", "name": "Bo"}]
HOSTILE = '<img src=x onerror="alert(1)"> & <b>bold</b>'


def chat_of(player: Player) -> list[dict[str, Any]]:
    """Read up to the next chat message (states on the way are kept); its messages."""
    while True:
        message = player.next()
        if message["type"] == "chat":
            return list(message["messages"])
        assert message["type"] == "state", message


def error_of(player: Player, message: dict[str, Any]) -> dict[str, Any]:
    """Send ``message``; the first error that comes back (states and chats skipped)."""
    player.send(message)
    while True:
        answer = player.next()
        if answer["type"] == "error":
            return answer
        assert answer["type"] in ("state", "chat"), answer


def stored(client: TestClient) -> int:
    service = client.app.state.service  # type: ignore[attr-defined]
    with service.engine.connect() as conn:
        return int(conn.execute(select(func.count()).select_from(ChatRow)).scalar_one())


def test_a_message_reaches_every_connection_as_text(db_url: str) -> None:
    with TestClient(create_app(db_url)) as client:
        table_id, tokens = create(client, PEOPLE)
        with connect(client, table_id, 0, tokens[0]) as ada, \
                connect(client, table_id, 1, tokens[1]) as bo, \
                connect(client, table_id, None, None) as watcher:
            ada.send({"type": "chat", "text": f"  {HOSTILE}\n  "})
            for player in (ada, bo, watcher):
                (said,) = chat_of(player)
                assert said["text"] == HOSTILE  # as sent (trimmed): text, for textContent
                assert (said["seat"], said["name"]) == (0, "Ada")
            start(client, table_id, tokens)  # the chat goes on in play
            bo.send({"type": "chat", "text": "good luck!"})
            assert [m["text"] for m in chat_of(ada)] == ["good luck!"]
        # a reconnect (here: a new process on the same database) gets the history
        with TestClient(create_app(db_url)) as again, \
                connect(again, table_id, None, None) as late:
            history = chat_of(late)
            assert [(m["name"], m["text"]) for m in history] == [
                ("Ada", HOSTILE), ("Bo", "good luck!")]
            assert history[0]["id"] < history[1]["id"]


def test_refusals_change_nothing_and_say_how_to_fix(db_url: str) -> None:
    with TestClient(create_app(db_url)) as client:
        table_id, tokens = create(client, PEOPLE)
        with connect(client, table_id, 0, tokens[0]) as ada, \
                connect(client, table_id, None, None) as watcher:
            refused = error_of(watcher, {"type": "chat", "text": "hi"})
            assert refused["code"] == "spectator" and "read the chat" in refused["message"]
            long = error_of(ada, {"type": "chat", "text": "x" * (CHAT_LENGTH + 1)})
            assert long["code"] == "too_long" and "at most 300" in long["message"]
            huge = error_of(ada, {"type": "chat", "text": "x" * 4000})
            assert huge["code"] == "too_long"
            for bad, code in (({"type": "chat", "text": 3}, "malformed"),
                              ({"type": "chat"}, "malformed"),
                              ({"type": "chat", "text": "   "}, "malformed"),
                              ({"type": "chat", "text": "a\u202eb"}, "malformed"),
                              ({"type": "chat", "text": "a\x00b"}, "malformed")):
                assert error_of(ada, bad)["code"] == code
            assert stored(client) == 0
            assert not pending(watcher.ws)
            for _ in range(5):
                ada.send({"type": "chat", "text": "hello"})
            slow = error_of(ada, {"type": "chat", "text": "one too many"})
            assert slow["code"] == "rate_limited" and "wait" in slow["message"]
            assert stored(client) == 5


def test_a_closed_table_takes_no_chat(db_url: str) -> None:
    with TestClient(create_app(db_url)) as client:
        answer = client.post("/api/tables", json={"seats": PEOPLE})
        table_id = answer.json()["table"]["id"]
        tokens = {link["seat"]: link["token"] for link in answer.json()["seat_links"]}
        with connect(client, table_id, 0, tokens[0]) as ada:
            closed = client.post(f"/api/tables/{table_id}/close",
                                 json={"token": answer.json()["creator_token"]})
            assert closed.status_code == 200
            ada.next_state(lambda s: s["status"] == "closed")
            assert error_of(ada, {"type": "chat", "text": "hi"})["code"] == "closed"
            assert stored(client) == 0


def test_clean_chat_and_the_pace() -> None:
    assert clean_chat(" a \t b\n c ") == "a b c"
    assert clean_chat("👩\u200d💻 ok") == "👩\u200d💻 ok"  # a joiner inside an emoji is text
    for hidden in ("\u2066x", "a\u200bb", "a\u200fb", "a\u061cb", "a\ufeffb"):
        with pytest.raises(BadRequestError, match="plain text"):
            clean_chat(hidden)  # direction overrides and marks, zero-width spaces
    clock = [0.0]
    pace = ChatLimiter(lambda: clock[0])
    for moment in (0.0, 1.0, 2.0, 3.0, 4.0):
        clock[0] = moment
        pace.admit()
    clock[0] = 8.0
    with pytest.raises(ConflictError, match="wait 2 s"):  # the first leaves the window at 10
        pace.admit()
    clock[0] = 10.0
    pace.admit()  # as the stored messages are counted: the same window, the same wait


def test_a_seat_talks_no_faster_over_many_sockets() -> None:
    """The pace is the seat's: a second (or sixty-fourth) socket of the same seat shares
    it, while another seat, or the same seat at another table, has its own."""
    clock = [0.0]
    paces = ChatPaces(most=3, clock=lambda: clock[0])
    for _ in range(5):
        paces.admit("t1", "seat-0-hash", 0)
    with pytest.raises(ConflictError, match="too many chat messages"):
        paces.admit("t1", "seat-0-hash", 0)  # as if from another socket of the seat
    paces.admit("t1", "seat-1-hash", 1)
    paces.admit("t2", "seat-0-hash", 0)
    paces.admit("t3", "x", 0)
    paces.admit("t4", "y", 0)  # the oldest pace is forgotten: memory stays bounded
    assert len(paces._paces) == 3


def _two_processes(db_url: str) -> tuple[TableService, TableService, str, dict[int, str]]:
    """Two services on one database (two server processes) and a started table of two
    people: its id and the seats' token hashes."""
    first, second = (TableService(make_engine(db_url)) for _ in range(2))
    migrate(first.engine)
    table_id, tokens, _creator = two_people_playing(first)
    return first, second, table_id, {seat: hash_token(t) for seat, t in tokens.items()}


def test_the_pace_holds_across_processes(db_url: str) -> None:
    """The same seat on three processes stored 15 messages in a second, five a process:
    the messages stored in the last seconds count, whichever process took them."""
    first, second, table_id, hashes = _two_processes(db_url)
    for n in range(5):
        (first if n % 2 else second).post_chat(table_id, 0, hashes[0], f"hello {n}")
    with pytest.raises(ConflictError, match="too many chat messages: at most 5 in 10 s"):
        second.post_chat(table_id, 0, hashes[0], "one too many")
    second.post_chat(table_id, 1, hashes[1], "the other seat has its own pace")
    assert [m["text"] for m in first.chat_since(table_id)][-1] == \
        "the other seat has its own pace"
    assert len(first.chat_since(table_id)) == 6
    for service in (first, second):
        service.engine.dispose()


@pytest.mark.parametrize("db_url", ["postgresql"], indirect=True)
def test_a_message_is_stored_under_its_tables_lock(db_url: str) -> None:
    """Posted at once from several processes, a table's chat passed its size bound (2,005
    of 2,000), and a reader skipped a lower id committed after a higher one: a message is
    stored under its table's row lock (here it waits for it), one at a time a table, so
    its ids are given in the order they commit."""
    first, second, table_id, hashes = _two_processes(db_url)
    with second.engine.connect() as holder, holder.begin():
        # the lock a move's update of the table takes: the key share an insert of a chat
        # row takes for its foreign key does not wait for it, the table's lock does
        holder.execute(select(TABLES.c.id).where(TABLES.c.id == table_id)
                       .with_for_update(key_share=True))
        poster = threading.Thread(target=first.post_chat,
                                  args=(table_id, 0, hashes[0], "after the lock"))
        poster.start()
        poster.join(0.5)
        assert poster.is_alive()  # waits for the lock
        assert first.chat_since(table_id) == []
    poster.join(10)
    assert not poster.is_alive()
    assert [m["text"] for m in first.chat_since(table_id)] == ["after the lock"]
    for service in (first, second):
        service.engine.dispose()
