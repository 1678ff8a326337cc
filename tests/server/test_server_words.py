"""The server in the reader's language: the pages' catalog, and each connection's words."""

from __future__ import annotations

from random import Random

from fastapi.testclient import TestClient
from srvkit import connect, create, play, start

from noreturn.server import create_app

PEOPLE = [{"kind": "human", "name": "Ada"}, {"kind": "human", "name": "Bo"}]
SMALL = {"colors": 3, "max_value": 6, "copies": 2, "hand_size": 5, "exchange_limit": 3}


def test_the_catalog_follows_the_switch_then_accept_language(db_url: str) -> None:
    with TestClient(create_app(db_url)) as client:
        german = client.get("/api/i18n", headers={"Accept-Language": "de-DE,de;q=0.9"})
        assert german.status_code == 200
        body = german.json()
        assert body["lang"] == "de"
        assert body["languages"] == {"en": "English", "de": "Deutsch"}
        assert body["messages"]["{name} passed"] == "{name} passte"
        assert body["messages"]["{n} tile"] == ["{n} Stein", "{n} Steine"]
        assert german.headers["vary"] == "Accept-Language"
        asked = client.get("/api/i18n?lang=en", headers={"Accept-Language": "de"}).json()
        assert asked["lang"] == "en" and asked["messages"] == {}
        unknown = client.get("/api/i18n?lang=xx", headers={"Accept-Language": "de"}).json()
        assert unknown["lang"] == "de"
        assert client.get("/api/i18n").json()["lang"] == "en"
        hostile = client.get("/api/i18n", headers={"Accept-Language": "de;q=0.1," * 500})
        assert hostile.status_code == 200
        assert client.get("/api/i18n?lang=" + "d" * 100).status_code == 422


def test_each_connection_reads_the_game_in_its_own_language(db_url: str) -> None:
    """Ada's page says hello in German, Bo's in English: the same game, told twice."""
    with TestClient(create_app(db_url)) as client:
        table_id, tokens = create(client, PEOPLE, SMALL)
        start(client, table_id, tokens)
        with connect(client, table_id, 0, tokens[0], lang="de") as ada, \
                connect(client, table_id, 1, tokens[1]) as bo:
            mover = ada if ada.state["view"]["to_move"] == 0 else bo
            refused = mover.answer({"type": "check", "action": "score R x1 pay R1"})
            assert refused["legal"] is False
            assert refused["reason"].startswith(  # the game opens with the mulligan
                "zuerst kommt der Mulligan" if mover is ada else "first comes the mulligan")
            final = play({0: ada, 1: bo}, Random(2))
            bo.sync(final["version"])
        german, english = "\n".join(ada.state["log"]), "\n".join(bo.state["log"])
        assert "Spielende: " in german and "game over: " in english
        assert " zog " in german and " drew " in english
        assert "game over" not in german and "Spielende" not in english
        assert ada.state["result"]["lines"][0].count("Stapel") == 1
        assert "pile" in bo.state["result"]["lines"][0]
        replays = {lang: client.get(f"/api/tables/{table_id}/replay?lang={lang}")
                   for lang in ("de", "en")}
        assert all(answer.status_code == 200 for answer in replays.values())
        told = {lang: " ".join(step["log"] for step in answer.json()["steps"])
                for lang, answer in replays.items()}
        assert "Spielende: " in told["de"] and "game over: " in told["en"]
        assert client.get(f"/api/tables/{table_id}/replay?lang=fr").status_code == 422


def test_an_illegal_move_is_refused_in_the_readers_language(db_url: str) -> None:
    with TestClient(create_app(db_url)) as client:
        table_id, tokens = create(client, PEOPLE, SMALL)
        start(client, table_id, tokens)
        with connect(client, table_id, 0, tokens[0], lang="de") as ada, \
                connect(client, table_id, 1, tokens[1], lang="de") as bo:
            mover = ada if ada.state["view"]["to_move"] == 0 else bo
            error = mover.answer({"type": "action", "action": "exchange R1 R1 R1 R1 R1",
                                  "version": mover.state["version"]})
            assert error["type"] == "error" and error["code"] == "illegal"
            assert "ist nicht erlaubt" in error["message"], error
            hint = mover.answer({"type": "hint"})
            assert hint["type"] == "hint"
            assert any(word in hint["reason"] for word in ("Hand", "Steine", "beiseite"))
