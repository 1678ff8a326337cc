"""No message a seat receives names a tile it may not see.

That is docs/rules.md, "What each player may see", through the server.

The game uses one copy of each tile, so a tile code names one physical tile: every code in
every message (views, logs, legal actions, hints, check answers, errors, results) must be a
tile the receiving seat had seen by then, or one it sent itself. The true game at each
version comes from the finished game's record, independently of the server's views. The
people also probe: checks and illegal actions with tiles they do not hold, hints, and checks
out of turn. Control tests show the scan catches a planted leak of each kind.
"""

from __future__ import annotations

import copy
from random import Random

from fastapi.testclient import TestClient
from srvkit import (
    Player,
    connect,
    knowledge,
    play,
    scan,
    seated,
    states_by_version,
)

from noreturn.engine import Rules, tile_code
from noreturn.records import check_record
from noreturn.server import create_app

RULES = {"colors": 6, "max_value": 11, "copies": 1, "hand_size": 6, "exchange_limit": 3}
SEATS = [{"kind": "human", "name": "Ada"}, {"kind": "human", "name": "Bo"},
         {"kind": "bot", "level": "greedy", "name": "Cy"}]
NAMES = ["Ada", "Bo", "Cy"]
ALL_CODES = [tile_code(t) for t in Rules.from_dict({**RULES, "players": 3}).kinds()]


def probe(rng: Random) -> object:
    """On each turn: a check of any tile, sometimes a hint or an illegal action by the
    mover, and a check and an action out of turn by the other person."""

    def before(mover: Player, players: dict[int, Player]) -> None:
        other = next(p for p in players.values() if p is not mover)
        tile = rng.choice(ALL_CODES)
        assert mover.answer({"type": "check", "action": f"exchange {tile}"})["type"] == "check"
        if rng.random() < 0.3:
            assert mover.answer({"type": "hint"})["type"] == "hint"
        if rng.random() < 0.3:
            hand = mover.state["view"]["hand"]
            absent = rng.choice([c for c in ALL_CODES if c not in hand])
            answer = mover.answer({"type": "action", "action": f"exchange {absent}",
                                   "version": mover.state["version"]})
            assert answer["code"] == "illegal"
        other_tile = rng.choice(ALL_CODES)
        assert other.answer({"type": "check", "action": f"place {other_tile}"})["legal"] is False
        answer = other.answer({"type": "action", "action": f"exchange {other_tile}",
                               "version": mover.state["version"]})
        assert answer["code"] in ("not_your_turn", "stale")

    return before


def test_no_message_names_a_tile_its_seat_may_not_see(db_url: str) -> None:
    with TestClient(create_app(db_url)) as client:
        with seated(client, SEATS, RULES) as (table_id, _tokens, players), \
                connect(client, table_id, None, None) as watcher:
            ada, bo = players[0], players[1]
            rng = Random(11)
            final = play(players, rng, before=probe(rng))  # type: ignore[arg-type]
            watcher.sync(final["version"])
        record = client.get(f"/api/tables/{table_id}/record").json()
    assert check_record(record).valid
    states = states_by_version(record)
    assert max(states) == final["version"]
    skip = frozenset({table_id})
    for player in (ada, bo, watcher):
        assert scan(player, states, NAMES, skip) == []
    # The people probed on every turn, so their scans covered many messages. The watcher
    # only receives states, and states may skip versions (several quick bot moves arrive
    # as one), so its count depends on timing: it must still have seen many versions.
    assert len(ada.messages) > 20 and len(bo.messages) > 20
    watched = {m[2]["version"] for m in watcher.messages if m[2]["type"] == "state"}
    assert final["version"] in watched and len(watched) >= 10
    # The scan is not vacuous: at every version the others' hands and the bag held tiles
    # Ada had never seen, and the probes did ask about such tiles.
    known = knowledge(states, 0)
    for version, state in states.items():
        if not state.is_over():
            assert set(ALL_CODES) - known[version]
    assert any(code.split()[-1] not in known[version]
               for version, code, message in ada.messages if message["type"] == "check")


def test_the_scan_catches_planted_leaks(db_url: str) -> None:
    with TestClient(create_app(db_url)) as client:
        with seated(client, SEATS, RULES) as (table_id, _tokens, players):
            ada = players[0]
            play(players, Random(12))
        record = client.get(f"/api/tables/{table_id}/record").json()
    states = states_by_version(record)
    skip = frozenset({table_id})
    assert scan(ada, states, NAMES, skip) == []
    state_message = next(m for _v, _sent, m in ada.messages if m["type"] == "state"
                         and m["status"] == "playing" and m["version"] > 3)
    version = state_message["version"]
    secret = tile_code(states[version].hands[1][0])  # in Bo's hand: Ada has not seen it
    assert secret not in knowledge(states, 0)[version]

    def planted(message: dict[str, object]) -> list[str]:
        spy = copy.copy(ada)
        spy.messages = [(version, "", message)]
        return scan(spy, states, NAMES, skip)

    error: dict[str, object] = {"type": "error", "code": "illegal",
                                "message": f"{secret} is Bo's"}
    assert planted(error)
    log = copy.deepcopy(state_message)
    log["log"] = [*log["log"], "Bo drew 1 tile"]
    assert planted(log) == []  # a count is fine
    log["log"][-1] = f"Bo drew {secret}"
    assert planted(log)
    view = copy.deepcopy(state_message)
    view["view"]["players"][1]["hand_count"] += 1
    assert planted(view)
    hint: dict[str, object] = {"type": "hint", "action": f"exchange {secret}",
                               "reason": "why not"}
    assert planted(hint)
    tracker = copy.deepcopy(state_message)
    tracker["unseen"][secret] -= 1  # as if Ada knew where the secret tile is
    assert planted(tracker)
