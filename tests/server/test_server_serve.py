"""``noreturn serve`` for real: uvicorn on a free port, HTTP and WebSocket over TCP."""

from __future__ import annotations

import json
import socket
import subprocess
from collections.abc import Iterator
from pathlib import Path
from random import Random

import httpx
import pytest
from srvkit import free_port, spawn_serve, stop_process, wait_serving
from typer.testing import CliRunner

from noreturn.cli import app
from noreturn.records import check_record

websockets_client = pytest.importorskip("websockets.sync.client",
                                        reason="the websockets package is not installed")


@pytest.fixture
def server(tmp_path: Path) -> Iterator[str]:
    """A ``noreturn serve`` process on SQLite in ``tmp_path``; its base URL."""
    port = free_port()
    process = spawn_serve(port, f"sqlite:///{tmp_path / 'serve.db'}", output=subprocess.PIPE)
    base = f"http://127.0.0.1:{port}"
    try:
        assert process.stdout is not None
        first = process.stdout.readline()
        assert f"http://localhost:{port}/" in first, first
        wait_serving(base, process, seconds=20)
        yield base
    finally:
        stop_process(process)


def test_serve_help_names_its_options() -> None:
    result = CliRunner().invoke(app, ["serve", "--help"])
    assert result.exit_code == 0
    for option in ("--host", "--port", "--db", "--lobby-hours", "--idle-hours"):
        assert option in result.output


def test_serve_refuses_a_database_it_cannot_use() -> None:
    result = CliRunner().invoke(app, ["serve", "--db", "mysql://u@h/db"])
    assert result.exit_code != 0
    assert "sqlite" in result.output


@pytest.mark.parametrize("host", ["x" * 5000, "a..b", ""])  # refused with no DNS asked
def test_serve_refuses_a_host_it_cannot_listen_on_before_opening_anything(
        host: str, tmp_path: Path) -> None:
    """uvicorn resolved the host only at its bind, after the database was made: a name of
    5,000 letters ended the server with a traceback, others with uvicorn's errno line."""
    result = CliRunner().invoke(app, ["serve", "--host", host,
                                      "--db", f"sqlite:///{tmp_path / 'never.db'}"])
    assert result.exit_code == 2
    said = " ".join(result.output.split())
    assert "Invalid value for --host: cannot listen on" in said and "127.0.0.1" in said
    assert len(said) < 600 and not list(tmp_path.iterdir())


def test_serve_on_a_port_in_use_says_so_before_its_banner(tmp_path: Path) -> None:
    """uvicorn bound only after the banner, which told the person to open the page of
    whatever held the port, then ended with its "[Errno 98] address already in use"; then
    the port was bound after the database was made, which left a new database file."""
    with socket.socket() as holder:
        holder.bind(("127.0.0.1", 0))
        holder.listen()
        port = holder.getsockname()[1]
        result = CliRunner().invoke(app, ["serve", "--port", str(port),
                                          "--db", f"sqlite:///{tmp_path / 'never.db'}"])
    assert result.exit_code == 2
    said = " ".join(result.output.replace("│", " ").split())  # (the error's box)
    assert f"Invalid value for --port: port {port} is in use on 127.0.0.1 (another " \
           f"noreturn serve?): stop that program or give another, e.g. --port {port + 1}" \
           in said, said
    assert "open http" not in said and "Errno" not in said
    assert not list(tmp_path.iterdir())


@pytest.mark.parametrize("option", [
    ["--idle-hours", "1e308"], ["--lobby-hours", "87601"], ["--takeover-after", "inf"],
    ["--extra-turn-seconds", "1000000000000"]])
def test_serve_refuses_spans_its_clock_cannot_hold(option: list[str]) -> None:
    """Such spans overflowed the date arithmetic of every sweep (and of every turn timer),
    which then failed for ever in the log instead of abandoning idle tables."""
    result = CliRunner().invoke(app, ["serve", *option])
    assert result.exit_code == 2
    assert f"Invalid value for '{option[0]}'" in result.output


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
