"""``noreturn serve`` for real: uvicorn on a free port, HTTP and WebSocket over TCP."""

from __future__ import annotations

import json
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from random import Random

import httpx
import pytest
from typer.testing import CliRunner

from noreturn.cli import app
from noreturn.records import check_record

websockets_client = pytest.importorskip("websockets.sync.client",
                                        reason="the websockets package is not installed")


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@pytest.fixture
def server(tmp_path: Path) -> Iterator[str]:
    """A ``noreturn serve`` process on SQLite in ``tmp_path``; its base URL."""
    port = free_port()
    process = subprocess.Popen(
        [sys.executable, "-m", "noreturn", "serve", "--port", str(port), "--bot-delay", "0",
         "--db", f"sqlite:///{tmp_path / 'serve.db'}"],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    base = f"http://127.0.0.1:{port}"
    try:
        assert process.stdout is not None
        first = process.stdout.readline()
        assert f"http://localhost:{port}/" in first, first
        deadline = time.monotonic() + 20
        while True:
            try:
                httpx.get(f"{base}/api/tables", timeout=2)
                break
            except httpx.TransportError:
                if time.monotonic() > deadline or process.poll() is not None:
                    raise
                time.sleep(0.1)
        yield base
    finally:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def test_serve_help_names_its_options() -> None:
    result = CliRunner().invoke(app, ["serve", "--help"])
    assert result.exit_code == 0
    for option in ("--host", "--port", "--db"):
        assert option in result.output


def test_serve_refuses_a_database_it_cannot_use() -> None:
    result = CliRunner().invoke(app, ["serve", "--db", "mysql://u@h/db"])
    assert result.exit_code != 0
    assert "sqlite" in result.output


def test_a_game_over_real_sockets(server: str) -> None:
    created = httpx.post(f"{server}/api/tables", json={
        "seats": [{"kind": "human", "name": "Ada"}, {"kind": "bot", "level": "random"}],
        "rules": {"colors": 3, "max_value": 6, "copies": 2, "hand_size": 5}}).json()
    table_id, token = created["table"]["id"], created["seat_links"][0]["token"]
    assert httpx.post(f"{server}/api/tables/{table_id}/start",
                      json={"token": token}).status_code == 200
    ws_url = server.replace("http://", "ws://") + f"/ws/tables/{table_id}"
    with websockets_client.connect(ws_url) as ws:
        ws.send(json.dumps({"type": "hello", "token": "wrong"}))
        assert json.loads(ws.recv(timeout=10))["code"] == "bad_token"
        with pytest.raises(Exception) as closed:
            ws.recv(timeout=10)
        assert getattr(closed.value, "rcvd", None) is not None
        assert closed.value.rcvd.code == 4403  # type: ignore[attr-defined]
    rng = Random(1)
    with websockets_client.connect(ws_url) as ws:
        ws.send(json.dumps({"type": "hello", "token": token}))
        assert json.loads(ws.recv(timeout=10))["seat"] == 0
        while True:
            state = json.loads(ws.recv(timeout=20))
            assert state["type"] == "state", state
            if state["status"] == "finished":
                break
            if state["legal"]:
                ws.send(json.dumps({"type": "action", "action": rng.choice(state["legal"]),
                                    "version": state["version"]}))
    record = httpx.get(f"{server}/api/tables/{table_id}/record").json()
    assert check_record(record).valid
    assert httpx.get(f"{server}/openapi.json").status_code == 200
