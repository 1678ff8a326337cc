"""The server in the reader's language: the pages' catalog, and each connection's words."""

from __future__ import annotations

import json
import re
from pathlib import Path
from random import Random

from babel.messages.extract import extract_from_dir
from babel.messages.frontend import parse_mapping_cfg
from fastapi.testclient import TestClient
from srvkit import SMALL, Answer, connect, create, play, start

import noreturn
from noreturn.server import create_app

PEOPLE = [{"kind": "human", "name": "Ada"}, {"kind": "human", "name": "Bo"}]


def test_the_catalog_follows_the_switch_then_accept_language(db_url: str) -> None:
    with TestClient(create_app(db_url)) as client:
        german = client.get("/api/i18n", headers={"Accept-Language": "de-DE,de;q=0.9"})
        assert german.status_code == 200
        body = german.json()
        assert body["lang"] == "de"
        assert body["languages"] == {"en": "English", "de": "Deutsch"}
        assert body["messages"]["{n} tile"] == ["{n} Stein", "{n} Steine"]
        assert body["messages"]["phase 1 · placing"] == "Phase 1 · legen"
        assert german.headers["vary"] == "Accept-Language"
        asked = client.get("/api/i18n?lang=en", headers={"Accept-Language": "de"}).json()
        assert asked["lang"] == "en" and asked["messages"] == {}
        unknown = client.get("/api/i18n?lang=xx", headers={"Accept-Language": "de"}).json()
        assert unknown["lang"] == "de"
        assert client.get("/api/i18n").json()["lang"] == "en"
        hostile = client.get("/api/i18n", headers={"Accept-Language": "de;q=0.1," * 500})
        assert hostile.status_code == 200
        assert client.get("/api/i18n?lang=" + "d" * 100).status_code == 422


CALLED = re.compile(r'\b(?:_|ngettext)\("((?:[^"\\]|\\.)*)"')
"""A translated call's first words in the pages' scripts, found by a plain pattern."""


def unquoted(text: str) -> str:
    """A script's string literal without its escapes (``\\"`` is ``"``)."""
    said: str = json.loads(f'"{text}"')
    return said


def test_the_pages_catalog_holds_the_pages_words_and_only_those(db_url: str) -> None:
    """Every word of the pages' scripts and HTML, as ``pybabel extract`` finds them there,
    is sent; the log's, the reasons' and the command line's are not (the server translates
    those itself, and a page would load them for nothing)."""
    static = Path(noreturn.__file__).resolve().parent / "server" / "static"
    with (Path(__file__).resolve().parents[2] / "babel.cfg").open() as cfg:  # the checkout's
        # (babel's command-line front end carries no type annotations)
        method_map, options_map = parse_mapping_cfg(cfg)  # type: ignore[no-untyped-call]
    page_map = [(pattern.removeprefix("server/static/"), method)
                for pattern, method in method_map if pattern.startswith("server/static/")]
    found = {message if isinstance(message, str) else message[0]
             for _file, _line, message, _comments, context in extract_from_dir(
                 str(static), page_map, options_map) if not context}
    with TestClient(create_app(db_url)) as client:
        sent = client.get("/api/i18n?lang=de").json()["messages"]
    assert len(found) > 100 and found <= set(sent)
    # Babel's reader of scripts misses a call inside another's arguments or inside a
    # template literal's ${...}: "better" and " and " reached German pages in English.
    called = {match for script in static.glob("*.js") for line in script.read_text(
        encoding="utf-8").splitlines() if not line.lstrip().startswith(("//", "*"))
        for match in map(unquoted, CALLED.findall(line))}
    assert len(called) > 100 and called <= found, sorted(called - found)
    assert "{name} passed" not in sent  # the turn log: told by the server
    assert len(sent) < len(found) + 10  # nothing much beside the pages' own words


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
        # without ?lang the browser's Accept-Language decides, else English
        by_header = client.get(f"/api/tables/{table_id}/replay",
                               headers={"accept-language": "de-DE,de;q=0.9"}).json()
        assert "Spielende: " in " ".join(step["log"] for step in by_header["steps"])
        plain = client.get(f"/api/tables/{table_id}/replay").json()
        assert "game over: " in " ".join(step["log"] for step in plain["steps"])


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


def test_play_errors_come_in_the_readers_language(db_url: str) -> None:
    """The same refusals to a German and an English reader: the same codes, the German
    reader's words in German, the English ones exactly as ever."""
    with TestClient(create_app(db_url)) as client:
        table_id, tokens = create(client, PEOPLE, SMALL)
        early_words = {}
        for lang in ("de", "en"):
            with connect(client, table_id, 0, tokens[0], lang=lang) as early:
                error = early.answer({"type": "action", "action": "pass", "version": 0})
                assert error["code"] == "not_started"
                early_words[lang] = error["message"]
        assert early_words == {
            "de": "das Spiel hat noch nicht begonnen: warte auf den Start",
            "en": "the game has not started yet: wait for the start"}
        start(client, table_id, tokens)
        with connect(client, table_id, 0, tokens[0], lang="de") as ada, \
                connect(client, table_id, 1, tokens[1]) as bo, \
                connect(client, table_id, None, None, lang="de") as fan:
            to_move = ada.state["view"]["to_move"]
            mover, waiter = (ada, bo) if to_move == 0 else (bo, ada)
            name = ("Ada", "Bo")[to_move]
            version = mover.state["version"]
            action = {"type": "action", "action": "mulligan", "version": version}
            off_turn = waiter.answer(action)
            stale = mover.answer({**action, "version": version + 7})
            watching = fan.answer(action)
            checking = fan.answer({"type": "check", "action": "pass"})
        assert [off_turn["code"], stale["code"], watching["code"], checking["code"]] == [
            "not_your_turn", "stale", "spectator", "spectator"]
        words = {
            "not_your_turn": (f"du bist nicht am Zug: {name} ist am Zug",
                              f"it is not your turn: {name} is to move"),
            "stale": (f"das Spiel ist weitergegangen (es steht bei Version {version}, du hast "
                      f"{version + 7} geschickt): sieh dir den neuen Stand an und versuche "
                      "es noch einmal",
                      f"the game has moved on (it is at version {version}, you sent "
                      f"{version + 7}): look at the new state and try again")}
        waiter_reads = 0 if waiter is ada else 1  # (German, English): Ada's, Bo's
        assert off_turn["message"] == words["not_your_turn"][waiter_reads]
        assert stale["message"] == words["stale"][1 - waiter_reads]
        assert watching["message"] == (
            "Zuschauer schauen nur zu: öffne deinen Platz-Link, um mitzuspielen")
        assert checking["message"] == (
            "Zuschauer können keine Züge prüfen und um keinen Tipp bitten: öffne deinen "
            "Platz-Link, um mitzuspielen")


def test_http_errors_follow_the_lang_query_then_accept_language(db_url: str) -> None:
    """An HTTP refusal's detail in the language asked for (``?lang``, else
    ``Accept-Language``), its status the same; without either, the English as ever."""
    german = {"Accept-Language": "de-DE,de;q=0.9"}
    three = [*PEOPLE, {"kind": "human", "name": "Cy"}]
    with TestClient(create_app(db_url)) as client:
        table_id, tokens = create(client, three, SMALL)

        def starting(headers: dict[str, str] | None = None, query: str = "") -> Answer:
            return client.post(f"/api/tables/{table_id}/start{query}", json={
                "token": tokens[0]}, headers=headers)

        waiting = starting(german)
        assert waiting.status_code == 409
        assert waiting.json()["detail"] == (
            "Bo, Cy haben noch nicht Platz genommen: schick ihnen ihre Platz-Links und "
            "starte dann")
        assert starting().json()["detail"] == (
            "Bo, Cy have not joined yet: send them their seat link, then start")
        assert starting(german, "?lang=en").json()["detail"].startswith("Bo, Cy have")
        assert client.post(f"/api/tables/{table_id}/join",
                           json={"token": tokens[1]}).status_code == 200
        one = starting({"Accept-Language": "de"})
        assert one.json()["detail"] == (
            "Cy hat noch nicht Platz genommen: schick den Platz-Link und starte dann")
        assert starting(query="?lang=de").json()["detail"] == one.json()["detail"]
        assert starting().json()["detail"] == (
            "Cy has not joined yet: send them their seat link, then start")

        clash = client.post(f"/api/tables/{table_id}/join", headers=german,
                            json={"token": tokens[1], "name": "Ada"})
        assert clash.status_code == 400
        assert clash.json()["detail"] == (
            "ein anderer Platz heißt schon 'Ada': wähle einen anderen Namen")
        record = client.get(f"/api/tables/{table_id}/record", headers=german)
        assert record.status_code == 409
        assert record.json()["detail"] == "die Aufzeichnung gibt es, sobald das Spiel vorbei ist"
        assert client.get(f"/api/tables/{table_id}/record").json()["detail"] == (
            "the record is available once the game is over")
        review = client.get(f"/api/tables/{table_id}/review", headers=german)
        assert (review.status_code, review.json()["detail"]) == (
            409, "die Analyse gibt es, sobald das Spiel vorbei ist: sie zeigt jede Hand")
        nowhere = client.get("/api/tables/nosuch", headers=german)
        assert nowhere.status_code == 404
        assert nowhere.json()["detail"] == (
            "kein Tisch 'nosuch': prüfe den Link oder lege einen Tisch an")
        assert client.get("/api/tables/nosuch").json()["detail"] == (
            "no table 'nosuch': check the link, or create a table")
        wrong = client.post(f"/api/tables/{table_id}/join", headers=german,
                            json={"token": "not-a-token"})
        assert wrong.status_code == 403
        assert wrong.json()["detail"].startswith("dieses Token gehört zu keinem Platz")
