"""Abuse: tables of bots at the largest rules the server takes must not starve another table.

The issue's attack (30 tables of bots with 18,414 tiles each) is refused at the door now;
what is left is the strongest load a client may still make: tables of four ``expert``
bots (ISMCTS at the longest thinking time allowed) and tables of fast bots playing flat
out, at the published game's size. During it a bystander pings its own table (p99 under
100 ms) and plays against a medium bot, whose every answer must come within a second.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from pingprobe import PingProbe
from srvkit import serving

HUGE = {"colors": 6, "max_value": 31, "copies": 99, "hand_size": 12, "exchange_limit": 99}
EXPERTS = [{"kind": "bot", "level": "expert"}] * 4
FAST = [{"kind": "bot", "level": "medium"}] * 4
REPLY_LIMIT = 1.0
"""Seconds a bystander's medium bot may take to answer a move during the attack."""


@pytest.fixture
def server(tmp_path: Path) -> Iterator[str]:
    """``noreturn serve`` on SQLite, no bot delay; its URL."""
    with serving(f"sqlite:///{tmp_path / 'fair.db'}") as base:
        yield base


def bot_replies(base: str, seconds: float) -> list[float]:
    """Play a person's moves against a medium bot for ``seconds``: how long each bot answer
    took (from the person's action to the state where the person is to move again)."""
    from websockets.sync.client import connect  # noqa: PLC0415 - a test dependency

    made = httpx.post(f"{base}/api/tables", json={"seats": [
        {"kind": "human", "name": "Bystander"}, {"kind": "bot", "level": "medium"}]}).json()
    table_id, token = made["table"]["id"], made["seat_links"][0]["token"]
    httpx.post(f"{base}/api/tables/{table_id}/start", json={"token": token}).raise_for_status()
    replies: list[float] = []
    with connect(base.replace("http", "ws", 1) + f"/ws/tables/{table_id}") as ws:
        ws.send(json.dumps({"type": "hello", "token": token}))
        state = my_turn(ws)
        ends = time.monotonic() + seconds
        while state["status"] == "playing" and time.monotonic() < ends:
            sent, began = state["version"], time.monotonic()
            ws.send(json.dumps({"type": "action", "action": state["legal"][-1],
                                "version": sent}))
            state = my_turn(ws)
            if state["version"] > sent + 1:  # the bot moved in between
                replies.append(time.monotonic() - began)
    return replies


def my_turn(ws: Any) -> dict[str, Any]:
    """Read up to a state where the person may act (or the game has ended)."""
    while True:
        message = json.loads(ws.recv(timeout=30))
        assert message["type"] != "error", message
        if message["type"] == "state" and (message["legal"] or message["status"] != "playing"):
            return message  # type: ignore[no-any-return]


@pytest.mark.timing
def test_bot_tables_at_the_largest_rules_leave_another_table_its_share(server: str) -> None:
    huge = httpx.post(f"{server}/api/tables", json={"seats": FAST, "rules": HUGE})
    assert huge.status_code == 422, "the issue's 18,414-tile table must be refused"
    with PingProbe(server, every=0.05) as probe:  # a long run: within the rate limit
        for seats in [EXPERTS] * 12 + [FAST] * 30:
            httpx.post(f"{server}/api/tables", json={"seats": seats}).raise_for_status()
        replies = bot_replies(server, 4.0)
    print(probe.report(), f"; bot replies: {len(replies)}, slowest {max(replies):.3f} s")
    probe.check()
    assert len(replies) >= 3, replies
    assert max(replies) < REPLY_LIMIT, replies
