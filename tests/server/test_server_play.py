"""Playing over WebSockets: a whole game, reconnection, a restart, errors, leaving."""

from __future__ import annotations

import json
import time
from pathlib import Path
from random import Random
from typing import Any

import pytest
from fastapi.testclient import TestClient
from srvkit import (
    SMALL,
    Player,
    connect,
    create,
    pending,
    play,
    receive,
    scan,
    seated,
    start,
    states_by_version,
    turn,
)
from starlette.websockets import WebSocketDisconnect

from noreturn.engine import Rules, parse_action
from noreturn.records import check_record
from noreturn.server import create_app
from noreturn.server.schemas import CreateTable, RulesIn, SeatIn

TWO_AND_A_BOT = [{"kind": "human", "name": "Ada"}, {"kind": "human", "name": "Bo"},
                 {"kind": "bot", "level": "greedy"}]


def version_of(client: TestClient, table_id: str) -> int:
    answer = client.get(f"/api/tables/{table_id}")
    assert answer.status_code == 200
    return int(answer.json()["version"])


def test_a_whole_game_two_people_and_a_bot(db_url: str) -> None:
    with TestClient(create_app(db_url)) as client:
        table_id, tokens = create(client, TWO_AND_A_BOT)
        assert client.get(f"/api/tables/{table_id}/record").status_code == 409
        start(client, table_id, tokens)
        assert client.get(f"/api/tables/{table_id}/record").status_code == 409
        assert client.get(f"/api/tables/{table_id}/replay").status_code == 409
        with connect(client, table_id, 0, tokens[0]) as ada, \
                connect(client, table_id, 1, tokens[1]) as bo, \
                connect(client, table_id, None, None) as watcher:
            assert ada.welcome["table"]["status"] == "playing"
            final = play({0: ada, 1: bo}, Random(1))
            watcher.sync(final["version"])
            assert final["status"] == "finished"
            assert final["version"] > 30  # a real game: every action is a version
            for player in (ada, bo, watcher):
                assert player.state["version"] == final["version"]
                assert player.state["result"] == final["result"]
                assert player.state["legal"] == []
            assert final["view"]["stage"] == "over"
            assert len(final["result"]["lines"]) == 3
            assert any(line.startswith("Bea ") for line in final["log"])  # the bot played
            assert watcher.state["view"]["hand"] is None
        answer = client.get(f"/api/tables/{table_id}/record")
        assert answer.status_code == 200
        assert f"noreturn-{table_id}.json" in answer.headers["content-disposition"]
        record = answer.json()
        verdict = check_record(record)
        assert verdict.valid, verdict.reason
        assert verdict.over
        assert record["result"]["scores"] == final["result"]["scores"]
        assert [p["name"] for p in record["players"]] == ["Ada", "Bo", "Bea"]
        assert record["meta"]["table"] == table_id
        table = client.get(f"/api/tables/{table_id}").json()
        assert table["status"] == "finished" and table["result"] == record["result"]
        replay = client.get(f"/api/tables/{table_id}/replay").json()
        assert replay["names"] == ["Ada", "Bo", "Bea"]
        actions = [e for e in record["events"] if e["type"] not in ("deal", "draw")]
        assert len(replay["steps"]) == len(actions) + 1
        assert replay["steps"][-1]["view"] == watcher.state["view"]
        assert "game over" in replay["steps"][-1]["log"]
        assert all(step["view"]["hand"] is None for step in replay["steps"])
        # The game is over: every seat's hand at every step, as many tiles as it held.
        for step in replay["steps"]:
            assert [len(h) for h in step["hands"]] == [
                p["hand_count"] for p in step["view"]["players"]]
        dealt = [sorted(e["tiles"]) for e in sorted(
            (e for e in record["events"] if e["type"] == "deal"), key=lambda e: e["player"])]
        assert [sorted(h) for h in replay["steps"][0]["hands"]] == dealt  # the deal's step
        assert [step["event"] for step in replay["steps"]] == [0] + [
            i for i, e in enumerate(record["events"]) if e["type"] not in ("deal", "draw")]
        told = [line for step in replay["steps"] for line in step["log"].split("; ")]
        assert told == watcher.state["log"]  # the replay tells what spectators were told
        # Nothing any seat received names a tile it could not see.
        states = states_by_version(record)
        names = ["Ada", "Bo", "Bea"]
        for player in (ada, bo, watcher):
            assert scan(player, states, names, frozenset({table_id})) == []
        replay_built_once(client, table_id, replay)


def replay_built_once(client: TestClient, table_id: str, replay: dict[str, Any]) -> None:
    """A finished game never changes: its replay is built once a language, not per ask."""
    service = client.app.state.service  # type: ignore[attr-defined]
    assert len(service.replays) == 1
    assert client.get(f"/api/tables/{table_id}/replay").json() == replay
    assert len(service.replays) == 1
    german = client.get(f"/api/tables/{table_id}/replay",
                        headers={"accept-language": "de"}).json()
    assert len(service.replays) == 2
    assert german["steps"][-1]["log"] != replay["steps"][-1]["log"]


def test_reconnecting_resumes_where_the_game_is(db_url: str) -> None:
    with TestClient(create_app(db_url)) as client:
        with seated(client, TWO_AND_A_BOT, SMALL) as (table_id, tokens, players):
            play(players, Random(2), moves=4)
            bo = players[1]
            before = bo.state
            bo.ws.close()
        with connect(client, table_id, 1, tokens[1]) as bo_again:
            assert bo_again.state == before
            assert bo_again.state["view"]["hand"] == before["view"]["hand"]
        # Twice at once is fine too: both connections of a seat get its states.
        with connect(client, table_id, 0, tokens[0]) as one, \
                connect(client, table_id, 0, tokens[0]) as two:
            assert one.state == two.state
            assert one.state["view"]["seat"] == 0


def test_a_restart_in_the_middle_of_a_game_resumes_it(db_url: str) -> None:
    with TestClient(create_app(db_url)) as client, \
            seated(client, TWO_AND_A_BOT, SMALL) as (table_id, tokens, players), \
            connect(client, table_id, None, None) as watcher:
        middle = play(players, Random(3), moves=6)
        watcher.sync(middle["version"])
        assert middle["status"] == "playing" and middle["version"] > 6
        seen = {0: players[0].state, 1: players[1].state, None: watcher.state}
    # A new server process: a new app on the same database, nothing kept in memory.
    with TestClient(create_app(db_url)) as client:
        with connect(client, table_id, 0, tokens[0]) as ada, \
                connect(client, table_id, 1, tokens[1]) as bo, \
                connect(client, table_id, None, None) as watcher:
            assert ada.state == seen[0]
            assert bo.state == seen[1]
            assert watcher.state == seen[None]
            final = play({0: ada, 1: bo}, Random(4))
        assert final["status"] == "finished"
        record = client.get(f"/api/tables/{table_id}/record").json()
        verdict = check_record(record)
        assert verdict.valid and verdict.over, verdict.reason


def test_a_restart_while_a_bot_is_to_move_lets_it_move(db_url: str) -> None:
    # A game of bots stored, as a server leaves it when it stops before the bots moved.
    service = create_app(db_url).state.service
    seats = [SeatIn(kind="bot", level="random"), SeatIn(kind="bot", level="greedy")]
    table_id = service.create(CreateTable(seats=seats, rules=RulesIn(**SMALL)))["table"]["id"]
    assert service.get(table_id)["status"] == "playing"
    service.engine.dispose()
    with TestClient(create_app(db_url)) as client:  # its startup lets the bots move
        with connect(client, table_id, None, None) as watcher:
            if watcher.state["status"] != "finished":
                watcher.next_state(lambda s: s["status"] == "finished")
            # played to the end from version 0 (a small deal may end within ten moves)
            assert watcher.state["status"] == "finished" and watcher.state["version"] > 2
        record = client.get(f"/api/tables/{table_id}/record").json()
        assert check_record(record).valid


def errors_only_to_sender(client: TestClient, table_id: str, sender: Player, other: Player,
                          message: dict[str, object] | str, code: str) -> dict[str, object]:
    """Send a bad message: the sender gets one error, the other seat nothing, no change."""
    version = version_of(client, table_id)
    if isinstance(message, str):
        sender.ws.send_text(message)
        answer = sender.next()
    else:
        answer = sender.answer(message)
    assert answer["type"] == "error", answer
    assert answer["code"] == code, answer
    assert answer["message"]
    assert ("rule" in answer) == (code == "illegal"), answer  # the rule code: illegal only
    assert sender.answer({"type": "ping"}) == {"type": "pong"}  # the connection lives on
    assert not pending(other.ws)
    assert version_of(client, table_id) == version
    return answer


def test_illegal_and_malformed_messages_change_nothing(db_url: str) -> None:
    with TestClient(create_app(db_url)) as client, \
            seated(client, TWO_AND_A_BOT, SMALL) as (table_id, tokens, players):
        state = play(players, Random(5), moves=3)
        mover, other = turn(players, state)
        version = state["version"]
        hand = mover.state["view"]["hand"]
        not_mine = next(f"{c}{v}" for c in "ROY" for v in range(1, 7)
                        if f"{c}{v}" not in hand)
        bad: list[tuple[dict[str, object] | str, str]] = [
            ("{not json", "malformed"),
            ("[1, 2]", "malformed"),
            ({"type": "dance"}, "malformed"),
            ({"type": "action", "version": version}, "malformed"),
            ({"type": "action", "action": "place R5"}, "malformed"),
            ({"type": "action", "action": "place R5", "version": "7"}, "malformed"),
            ({"type": "action", "action": 5, "version": version}, "malformed"),
            ({"type": "action", "action": "fly away", "version": version}, "malformed"),
            ({"type": "action", "action": "place Q5", "version": version}, "malformed"),
            ({"type": "check"}, "malformed"),
            ({"type": "hello", "token": tokens[0]}, "malformed"),
            ({"type": "action", "action": f"exchange {not_mine}", "version": version},
             "illegal"),
            ({"type": "action", "action": mover.state["legal"][0], "version": version - 1},
             "stale"),
        ]
        for message, code in bad:
            errors_only_to_sender(client, table_id, mover, other, message, code)
        reply = errors_only_to_sender(
            client, table_id, other, mover,
            {"type": "action", "action": mover.state["legal"][0], "version": version},
            "not_your_turn")
        assert "not your turn" in str(reply["message"])
        errors_only_to_sender(client, table_id, other, mover, {"type": "hint"}, "not_your_turn")
        # The same legal action at the current version is then played.
        mover.send({"type": "action", "action": mover.state["legal"][0],
                    "version": version})
        assert mover.next_state()["version"] == version + 1


def test_an_illegal_action_is_refused_with_the_code_of_its_rule(db_url: str) -> None:
    with TestClient(create_app(db_url)) as client, \
            seated(client, TWO_AND_A_BOT, SMALL) as (table_id, _tokens, players):
        rng = Random(5)
        state = play(players, rng, moves=3)
        # The deal is the server's own: play on until the mover holds two colours, which
        # the mixed-colours case needs (a hand of one colour came up once in CI).
        for _ in range(40):
            mover, other = turn(players, state)
            hand = mover.state["view"]["hand"]
            if len({tile[0] for tile in hand}) > 1:
                break
            state = play(players, rng, moves=1)
        else:
            pytest.fail(f"no hand of two colours in 40 moves: {hand}")
        not_mine = next(f"{c}{v}" for c in "ROY" for v in range(1, 7)
                        if f"{c}{v}" not in hand)
        two_colours = next((a, b) for a in hand for b in hand if a[0] != b[0])
        for action, rule, words in [
                (f"exchange {not_mine}", "not_in_hand", f"you do not hold {not_mine}"),
                (f"exchange {' '.join(hand[:1] * 9)}", "exchange_count", "exchange 1 to 3"),
                ("place R9", "not_a_tile", "R9 is not a tile of this game"),
                (f"place {two_colours[0]} {two_colours[1]}", "mixed_colours", "one colour"),
        ]:
            answer = errors_only_to_sender(
                client, table_id, mover, other,
                {"type": "action", "action": action, "version": state["version"]}, "illegal")
            assert answer["rule"] == rule, answer
            said = str(answer["message"])  # as ever: "<the action> is not allowed: <why>"
            assert said.startswith(f"{parse_action(action)} is not allowed: ") and words in said
            assert set(answer) == {"type", "code", "message", "rule"}


def test_check_and_hint_on_your_turn_and_nothing_about_others_off_turn(db_url: str) -> None:
    with TestClient(create_app(db_url)) as client, \
            seated(client, TWO_AND_A_BOT, SMALL) as (_table_id, _tokens, players):
        state = play(players, Random(6), moves=2)
        mover, other = turn(players, state)
        legal = mover.state["legal"][0]
        assert mover.answer({"type": "check", "action": legal}) == {
            "type": "check", "action": legal, "legal": True, "reason": None}
        answer = mover.answer({"type": "check", "action": "place R1 R1 R1"})
        assert answer["legal"] is False and answer["reason"]
        hint = mover.answer({"type": "hint"})
        assert hint["type"] == "hint" and hint["action"] in mover.state["legal"]
        assert hint["version"] == mover.state["version"]  # the state it is for
        # Off turn, a check is never judged against the mover's hand: the answer is
        # the same whether the mover holds the tile or not.
        hand = mover.state["view"]["hand"]
        held = f"exchange {hand[0]}"
        absent = next(f"exchange {c}{v}" for c in "ROY" for v in range(1, 7)
                      if f"{c}{v}" not in hand)
        one = other.answer({"type": "check", "action": held})
        two = other.answer({"type": "check", "action": absent})
        assert one["legal"] is two["legal"] is False
        assert one["reason"] == two["reason"] and "not your turn" in one["reason"]
        assert not pending(mover.ws)


def test_spectators_cannot_play(db_url: str) -> None:
    with TestClient(create_app(db_url)) as client:
        table_id, tokens = create(client, TWO_AND_A_BOT, SMALL)
        start(client, table_id, tokens)
        with connect(client, table_id, None, None) as watcher:
            assert watcher.welcome["seat"] is None
            assert watcher.state["view"]["hand"] is None
            for message in ({"type": "action", "action": "pass", "version": 0},
                            {"type": "hint"}, {"type": "check", "action": "pass"}):
                answer = watcher.answer(message)
                assert answer["type"] == "error" and answer["code"] == "spectator"


def test_actions_before_the_start_are_refused(db_url: str) -> None:
    with TestClient(create_app(db_url)) as client:
        table_id, tokens = create(client, TWO_AND_A_BOT, SMALL)
        with connect(client, table_id, 0, tokens[0]) as ada:
            assert ada.state["status"] == "lobby" and ada.state["view"] is None
            answer = ada.answer({"type": "action", "action": "mulligan", "version": 0})
            assert answer["code"] == "not_started"
            # Joining is seen by the connections of the table.
            client.post(f"/api/tables/{table_id}/join", json={"token": tokens[1], "name": "Bob"})
            state = ada.next_state()
            assert state["names"][1] == "Bob" and state["table"]["seats"][1]["joined"]


def test_wrong_or_missing_token_on_the_websocket(db_url: str) -> None:
    with TestClient(create_app(db_url)) as client:
        table_id, _tokens = create(client, TWO_AND_A_BOT, SMALL)
        _other_id, other_tokens = create(client, TWO_AND_A_BOT, SMALL)
        for hello in ({"type": "hello", "token": "x" * 32}, {"type": "hello", "token": ""},
                      {"type": "hello", "token": other_tokens[0]}):
            with client.websocket_connect(f"/ws/tables/{table_id}") as ws:
                ws.send_json(hello)
                error = receive(ws)
                assert error["type"] == "error" and error["code"] == "bad_token"
                with pytest.raises(WebSocketDisconnect) as closed:
                    receive(ws)
                assert closed.value.code == 4403
        with client.websocket_connect("/ws/tables/no-such-table") as ws:
            ws.send_json({"type": "hello"})
            with pytest.raises(WebSocketDisconnect) as closed:
                receive(ws)
            assert closed.value.code == 4404
        for first in ('{"type": "ping"}', "nonsense", json.dumps({"type": "hello", "token": 5})):
            with client.websocket_connect(f"/ws/tables/{table_id}") as ws:
                ws.send_text(first)
                assert receive(ws)["code"] == "malformed"
                with pytest.raises(WebSocketDisconnect) as closed:
                    receive(ws)
                assert closed.value.code == 4400


def test_leaving_during_the_game_hands_the_seat_to_a_bot(db_url: str) -> None:
    with TestClient(create_app(db_url)) as client:
        with seated(client, TWO_AND_A_BOT, SMALL) as (table_id, tokens, players):
            ada, bo = players[0], players[1]
            state = play(players, Random(7), moves=2)
            answer = client.post(f"/api/tables/{table_id}/leave", json={"token": tokens[1]})
            assert answer.status_code == 200
            seat = answer.json()["seats"][1]
            assert seat["kind"] == "bot" and seat["level"] == "medium"
            assert answer.json()["version"] == state["version"] + 1  # the log says so
            ada.sync(state["version"] + 1)
            # Bo's connection is told its token no longer holds the seat, and closed.
            while True:
                message = bo.next()
                if message["type"] == "error":
                    break
            assert message["code"] == "bad_token"
            with pytest.raises(WebSocketDisconnect) as closed:
                receive(bo.ws)
            assert closed.value.code == 4403
            final = play({0: ada}, Random(8))
            assert final["status"] == "finished" and final["version"] > state["version"]
            assert any("Bo left the table; a medium bot plays on" in line
                       for line in final["log"])
        assert client.post(f"/api/tables/{table_id}/join",
                           json={"token": tokens[1]}).status_code == 403
        record = client.get(f"/api/tables/{table_id}/record").json()
        assert check_record(record).valid
        assert record["players"][1]["replaced_by"] == "medium"
        assert Rules.from_dict(record["rules"]).players == 3



def test_a_thinking_bot_does_not_hold_up_the_server(tmp_path: Path) -> None:
    with TestClient(create_app(f"sqlite:///{tmp_path / 'think.db'}")) as client:
        table_id, _ = create(client, [{"kind": "bot", "level": "ismcts:time=0.5"},
                                      {"kind": "bot", "level": "ismcts:time=0.5"}], SMALL)
        with connect(client, table_id, None, None) as watcher:
            time.sleep(0.1)
            assert client.app.state.bots.busy()  # type: ignore[attr-defined]
            for _ in range(3):
                began = time.perf_counter()
                assert watcher.answer({"type": "ping"}) == {"type": "pong"}
                assert client.get(f"/api/tables/{table_id}").status_code == 200
                assert time.perf_counter() - began < 0.3
