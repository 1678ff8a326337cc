"""The HTTP and WebSocket transport under hostile input (docs/server-protocol.md, "Limits"):
request bodies are capped, errors never echo input, seat requests are limited per address,
every answer carries a strict Content-Security-Policy, malformed WebSocket frames get a clear
answer and no traceback, and one address cannot hold many sockets nor try many hellos.
"""

from __future__ import annotations

import asyncio
import json
import re
import socket
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from fastapi.testclient import TestClient
from srvkit import (
    FakeClock,
    connect,
    create,
    free_port,
    receive,
    spawn_serve,
    start,
    stop_process,
    wait_serving,
)
from starlette.types import Message
from starlette.websockets import WebSocketDisconnect

from noreturn.server import create_app
from noreturn.server.limits import MAX_BODY, MAX_DEPTH, nesting_depth
from noreturn.server.wsguard import SocketGate, SocketGuard

SEATS = [{"kind": "human", "name": "Ada"}, {"kind": "bot", "level": "random"}]
STATIC = Path(__file__).parents[2] / "src" / "noreturn" / "server" / "static"


@pytest.fixture
def client(tmp_path: Path) -> Iterator[TestClient]:
    """A TestClient on a fresh SQLite app with the default limits."""
    with TestClient(create_app(f"sqlite:///{tmp_path / 'transport.db'}")) as test_client:
        yield test_client


# ------------------------------------------------------------------ request bodies
def test_a_body_over_the_cap_is_refused_with_413_naming_the_limit(client: TestClient) -> None:
    table_id, tokens = create(client, SEATS)
    body = {"token": tokens[0], "padding": "x" * MAX_BODY}
    answer = client.post(f"/api/tables/{table_id}/join", json=body)
    assert answer.status_code == 413
    assert answer.json() == {"detail": f"request body too large: at most {MAX_BODY} bytes "
                                       "(nothing this API accepts is longer)"}
    assert "content-security-policy" in answer.headers
    assert client.get(f"/api/tables/{table_id}").json()["seats"][0]["joined"] is False


def test_the_largest_valid_body_is_far_under_the_cap(client: TestClient) -> None:
    """Four people with 40-character names, each character escaped as a surrogate pair
    (12 bytes), and every rule given: some 2.5 KiB."""
    seats = [{"kind": "human", "name": chr(0x1F600 + seat) * 40} for seat in range(4)]
    rules = {"colors": 6, "max_value": 11, "copies": 2, "hand_size": 6, "exchange_limit": 3}
    body = json.dumps({"seats": seats, "rules": rules}, indent=1).encode()
    assert len(body) < MAX_BODY / 2
    answer = client.post("/api/tables", content=body,
                         headers={"content-type": "application/json"})
    assert answer.status_code == 201, answer.text


def raw_request(port: int, head: str, parts: list[bytes], timeout: float = 5.0) -> bytes:
    """Send ``head`` then each of ``parts`` on a raw socket and read the answer's start.

    Raises:
        TimeoutError: no answer within ``timeout`` seconds after the last part.
    """
    with socket.create_connection(("127.0.0.1", port), timeout=timeout) as sock:
        sock.sendall(head.encode())
        for part in parts:
            sock.sendall(part)
        return sock.recv(4096)


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, Path]]:
    """One real ``noreturn serve`` for this module (default options): its URL and log."""
    folder = tmp_path_factory.mktemp("served")
    log_path = folder / "serve.log"
    port = free_port()
    with log_path.open("w") as log:
        process = spawn_serve(port, f"sqlite:///{folder / 'serve.db'}", output=log)
        base = f"http://127.0.0.1:{port}"
        try:
            wait_serving(base, process)
            yield base, log_path
        finally:
            stop_process(process)


def port_of(base: str) -> int:
    return int(base.rsplit(":", 1)[1])


def test_a_declared_length_over_the_cap_is_refused_before_the_body_is_read(
        served: tuple[str, Path]) -> None:
    base, _log = served
    head = ("POST /api/tables HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
            "Content-Length: 10000000\r\n\r\n")
    answer = raw_request(port_of(base), head, [b"{"])  # 10 MB announced, one byte sent
    assert answer.startswith(b"HTTP/1.1 413 "), answer


def test_a_chunked_body_is_cut_off_as_it_streams_past_the_cap(served: tuple[str, Path]) -> None:
    """No length: the server answers 413 once the cap is passed, without waiting for the
    rest (the body is never finished here: a server that waited would time out)."""
    base, _log = served
    head = ("POST /api/tables HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
            "Transfer-Encoding: chunked\r\n\r\n")
    chunk = b"x" * 1024
    parts = [b"%x\r\n%s\r\n" % (len(chunk), chunk)] * (MAX_BODY // 1024 + 2)
    answer = raw_request(port_of(base), head, parts)
    assert answer.startswith(b"HTTP/1.1 413 "), answer


def test_a_422_says_which_field_and_why_but_never_echoes_the_input(client: TestClient) -> None:
    table_id, tokens = create(client, SEATS)
    marker = "ECHO-MARKER-" * 4  # over the name's 40 characters
    answer = client.post(f"/api/tables/{table_id}/join",
                         json={"token": tokens[0], "name": marker, "extra": "ECHO-EXTRA"})
    assert answer.status_code == 422
    assert "ECHO-MARKER" not in answer.text and "ECHO-EXTRA" not in answer.text
    problems = {tuple(item["loc"]): item["msg"] for item in answer.json()["detail"]}
    assert problems[("body", "name")] == "String should have at most 40 characters"
    assert problems[("body", "extra")] == "Extra inputs are not permitted"
    assert all(set(item) == {"loc", "msg", "type"} for item in answer.json()["detail"])


def test_a_long_unknown_key_is_named_shortened_in_a_422(client: TestClient) -> None:
    table_id, _tokens = create(client, SEATS)
    answer = client.post(f"/api/tables/{table_id}/join", json={"K" * 2000: 1})
    assert answer.status_code == 422
    (item,) = answer.json()["detail"]
    assert item["loc"] == ["body", "K" * 40 + "…"]


def test_deep_json_in_a_body_is_a_clear_400(client: TestClient) -> None:
    table_id, tokens = create(client, SEATS)
    deep = f'{{"token": "{tokens[0]}", "x": {"[" * 3000}{"]" * 3000}}}'
    answer = client.post(f"/api/tables/{table_id}/join", content=deep,
                         headers={"content-type": "application/json"})
    assert answer.status_code == 400
    assert answer.json() == {"detail": "the body's arrays and objects nest too deeply to be "
                                       "read (thousands of levels): this API's bodies nest a "
                                       "few levels at most"}
    assert client.get(f"/api/tables/{table_id}").json()["seats"][0]["joined"] is False


@pytest.mark.parametrize(("body", "said"), [
    (b'{"token": "\xff\xfe"}', "the body is not UTF-8 text (byte 0xff at position 11)"),
    (b'{"token": ' + b"9" * 5000 + b"}", "a number of more than 4,300 digits"),
])
def test_a_body_json_cannot_read_is_a_400_that_says_why(client: TestClient, body: bytes,
                                                        said: str) -> None:
    """FastAPI's own answer was "There was an error parsing the body", whatever the cause."""
    table_id, _tokens = create(client, SEATS)
    answer = client.post(f"/api/tables/{table_id}/join", content=body,
                         headers={"content-type": "application/json"})
    assert answer.status_code == 400
    assert said in answer.json()["detail"]
    assert client.get(f"/api/tables/{table_id}").json()["seats"][0]["joined"] is False


def test_other_http_errors_keep_their_answers(client: TestClient) -> None:
    """The handler that explains unreadable bodies leaves every other error as it was."""
    answer = client.get("/api/tables/no-such-table")
    assert answer.status_code == 404 and "no-such-table" in answer.json()["detail"]
    assert client.post("/api/tables/x/join", content=b"{",
                       headers={"content-type": "application/json"}).status_code in (404, 422)


# ------------------------------------------------------------------ seat requests
def test_seat_requests_are_capped_per_address_when_configured(tmp_path: Path) -> None:
    app = create_app(f"sqlite:///{tmp_path / 'seats.db'}", seat_limit_per_minute=3)
    with TestClient(app) as client, TestClient(app, client=("192.0.2.9", 4242)) as other:
        table_id, tokens = create(client, [{"kind": "human"}, {"kind": "human"}])
        paths = ["join", "join", "start"]
        codes = [client.post(f"/api/tables/{table_id}/{path}", json={"token": tokens[0]})
                 .status_code for path in paths]
        assert codes == [200, 200, 409]  # the second person has not joined: 409
        answer = client.post(f"/api/tables/{table_id}/leave", json={"token": tokens[0]})
        assert answer.status_code == 429
        wait = int(answer.headers["retry-after"])
        assert 1 <= wait <= 20
        assert answer.json()["detail"] == (
            "too many seat requests (join, start, leave, close) from your address: at most 3 "
            f"per minute; try again in {wait} s")
        assert client.get(f"/api/tables/{table_id}").json()["seats"][0]["joined"] is True
        assert other.post(f"/api/tables/{table_id}/join",
                          json={"token": tokens[1]}).status_code == 200
    for path in ("join", "start", "leave", "close"):
        documented = app.openapi()["paths"][f"/api/tables/{{table_id}}/{path}"]["post"]
        assert "Retry-After" in documented["responses"]["429"]["headers"]


def test_serve_has_options_for_every_per_address_limit() -> None:
    from typer.testing import CliRunner  # noqa: PLC0415

    from noreturn.cli import app  # noqa: PLC0415

    shown = CliRunner().invoke(app, ["serve", "--help"], env={"COLUMNS": "200"}).output
    for option in ("--create-limit", "--seat-limit", "--socket-limit", "--failed-hello-limit"):
        assert option in shown


# ------------------------------------------------------------------ headers and pages
CSP = ("default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
       "connect-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; "
       "frame-ancestors 'none'")


def test_every_answer_has_a_strict_csp_and_refuses_framing(client: TestClient) -> None:
    table_id, _tokens = create(client, SEATS)
    for path in ("/", f"/play/{table_id}", "/static/table.js", "/api/tables", "/openapi.json",
                 "/api/tables/nosuchtable", "/nowhere"):
        answer = client.get(path)
        assert answer.headers["content-security-policy"] == CSP, path
        assert answer.headers["x-frame-options"] == "DENY", path


def test_docs_with_outside_assets_are_gone_and_the_schema_stays(client: TestClient) -> None:
    assert client.get("/docs").status_code == 404
    assert client.get("/redoc").status_code == 404
    assert client.get("/openapi.json").json()["info"]["title"] == "noreturn"


@pytest.mark.parametrize("page", sorted(p.name for p in STATIC.glob("*.html")))
def test_the_pages_need_nothing_the_csp_forbids(page: str) -> None:
    """No inline script or style, no style attribute, no outside address: only 'self'."""
    html = (STATIC / page).read_text()
    assert re.findall(r"<script(?![^>]*\bsrc=)[^>]*>", html) == []
    assert "<style" not in html and " style=" not in html
    assert re.findall(r"""(?:src|href)=["']?(?:https?:)?//""", html) == []
    assert re.findall(r"\son[a-z]+=", html) == []


IMPORT = re.compile(r"""^import\b[^;]*?\bfrom\s+["']\./([\w.-]+)["'];""", re.MULTILINE)
"""A static module's import of another (``import { x } from "./tiles.js";``)."""


def test_every_module_the_pages_import_is_served(client: TestClient) -> None:
    """The pages' scripts are ES modules that import one another (the table page's in
    eight parts): every script a page names and every module those import, followed
    through, is a file of static/ served as JavaScript under the same strict CSP."""
    wanted = [name for page in STATIC.glob("*.html")
              for name in re.findall(r'<script[^>]*\bsrc="/static/([\w.-]+)"', page.read_text())]
    assert "table.js" in wanted
    seen: set[str] = set()
    while wanted:
        name = wanted.pop()
        if name in seen:
            continue
        seen.add(name)
        answer = client.get(f"/static/{name}")
        assert answer.status_code == 200, name
        assert "javascript" in answer.headers["content-type"], name
        assert answer.headers["content-security-policy"] == CSP, name
        wanted += IMPORT.findall(answer.text)
    assert {"tablesocket.js", "tablemoves.js", "chat.js", "tutorial.js"} <= seen
    assert seen >= {p.name for p in STATIC.glob("table*.js")}  # no part left unused


# ------------------------------------------------------------------ WebSocket input
def test_nesting_depth_ignores_brackets_inside_strings() -> None:
    assert nesting_depth('{"type": "ping"}') == 1
    assert nesting_depth('{"a": [[1], {"b": []}]}') == 4
    assert nesting_depth('{"action": "[[[[ \\" [[[["}') == 1
    assert nesting_depth("[" * 5000) == 5000


def ws_url(base: str, table_id: str) -> str:
    return base.replace("http://", "ws://") + f"/ws/tables/{table_id}"


def new_table(base: str) -> tuple[str, str]:
    """A table in the lobby on ``base``: its id and the person's token."""
    created = httpx.post(f"{base}/api/tables", json={"seats": SEATS}).json()
    return created["table"]["id"], created["seat_links"][0]["token"]


def messages_until_close(ws: Any) -> tuple[list[dict[str, Any]], int | None]:
    """Every message until the server closes (the close code; None if it just dropped)."""
    from websockets.exceptions import ConnectionClosed  # noqa: PLC0415

    got = []
    try:
        while True:
            got.append(json.loads(ws.recv(timeout=10)))
    except ConnectionClosed as exc:
        return got, exc.rcvd.code if exc.rcvd is not None else None


def answer_after_hello(ws: Any, token: str, frame: str | bytes) -> dict[str, Any]:
    """Say hello, send ``frame``, then a ping: the first answer that is not a state."""
    ws.send(json.dumps({"type": "hello", "token": token}))
    ws.send(frame)
    ws.send(json.dumps({"type": "ping"}))
    while (message := json.loads(ws.recv(timeout=10)))["type"] in ("welcome", "state"):
        pass
    return message  # type: ignore[no-any-return]


DEEP = '{"type": "ping", "x": ' + "[" * 2000 + "]" * 2000 + "}"


def log_text(log: Path) -> str:
    time.sleep(0.3)  # the server's last lines reach the file
    return log.read_text()


@pytest.mark.parametrize("frame", [DEEP, b"\x00binary\xff"], ids=["deep", "binary"])
def test_malformed_frames_after_hello_get_malformed_and_the_socket_stays(
        served: tuple[str, Path], frame: str | bytes) -> None:
    from websockets.sync.client import connect as ws_connect  # noqa: PLC0415

    base, log = served
    table_id, token = new_table(base)
    with ws_connect(ws_url(base, table_id)) as ws:
        error = answer_after_hello(ws, token, frame)
        assert error["type"] == "error" and error["code"] == "malformed", error
        expected = (f"nested {2001} levels deep (at most {MAX_DEPTH})" if isinstance(frame, str)
                    else "binary frames are not read: send each message as JSON text")
        assert error["message"].startswith(expected), error
        assert json.loads(ws.recv(timeout=10)) == {"type": "pong"}  # the socket stays
    assert "Traceback" not in log_text(log)


@pytest.mark.parametrize("frame", [DEEP, b"\x00binary\xff"], ids=["deep", "binary"])
def test_a_malformed_hello_gets_malformed_and_4400(served: tuple[str, Path],
                                                   frame: str | bytes) -> None:
    from websockets.sync.client import connect as ws_connect  # noqa: PLC0415

    base, log = served
    table_id, _token = new_table(base)
    with ws_connect(ws_url(base, table_id)) as ws:
        ws.send(frame)
        got, code = messages_until_close(ws)
    assert [m["code"] for m in got] == ["malformed"], got
    assert code == 4400
    assert "Traceback" not in log_text(log)


def test_invalid_utf8_is_closed_1007_without_a_traceback(served: tuple[str, Path]) -> None:
    base, log = served
    table_id, _token = new_table(base)
    with socket.create_connection(("127.0.0.1", port_of(base)), timeout=10) as sock:
        sock.sendall((f"GET /ws/tables/{table_id} HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\n"
                      "Connection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n"
                      "Sec-WebSocket-Version: 13\r\n\r\n").encode())
        assert sock.recv(4096).startswith(b"HTTP/1.1 101 ")
        payload = b"\xff\xfe\xfd"
        sock.sendall(bytes([0x81, 0x80 | len(payload)]) + b"\0\0\0\0" + payload)
        frame = sock.recv(4096)
    assert frame[0] == 0x88 and int.from_bytes(frame[2:4], "big") == 1007, frame
    assert "Traceback" not in log_text(log)


def masked_text(text: str) -> bytes:
    """One client text frame (masked with a zero key, as the protocol lets a client)."""
    data = text.encode()
    assert len(data) < 126
    return bytes([0x81, 0x80 | len(data)]) + b"\0\0\0\0" + data


def test_a_client_that_vanishes_while_answered_leaves_no_traceback(
        served: tuple[str, Path]) -> None:
    """A seat asks, then its connection is reset: the answers' sends fail. A client going
    away is no server error: nothing is logged (it once logged two tracebacks a socket)."""
    base, log = served
    table_id, token = new_table(base)
    before = len(log_text(log))
    for _ in range(5):
        with socket.create_connection(("127.0.0.1", port_of(base)), timeout=10) as sock:
            sock.sendall((f"GET /ws/tables/{table_id} HTTP/1.1\r\nHost: x\r\n"
                          "Upgrade: websocket\r\nConnection: Upgrade\r\n"
                          "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n"
                          "Sec-WebSocket-Version: 13\r\n\r\n").encode())
            assert sock.recv(4096).startswith(b"HTTP/1.1 101 ")
            sock.sendall(masked_text(json.dumps({"type": "hello", "token": token})))
            time.sleep(0.3)  # welcomed and seated
            check = masked_text('{"type": "check", "action": "pass"}')
            sock.sendall(check * 20)
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, b"\1\0\0\0\0\0\0\0")
    said = log_text(log)[before:]
    assert "Traceback" not in said and "failed" not in said, said


# ------------------------------------------------------------------ spectators
def test_spectators_can_neither_check_nor_hint_and_cost_no_service_call(
        client: TestClient) -> None:
    table_id, tokens = create(client, SEATS)
    start(client, table_id, tokens)

    def forbidden(*_args: object) -> Any:
        raise AssertionError("a spectator's check, hint or switch reached the service")

    service = client.app.state.service  # type: ignore[attr-defined]
    service.check = service.hint = service.switch_job = forbidden
    with connect(client, table_id, None, None) as watcher:
        for message in ({"type": "check", "action": "pass"}, {"type": "hint"},
                        {"type": "switch"}):
            error = watcher.answer(message)
            assert error == {"type": "error", "code": "spectator", "message":
                             "spectators can't check actions or ask for hints: open your "
                             "seat link to play"}
        assert watcher.answer({"type": "ping"}) == {"type": "pong"}


# ------------------------------------------------------------------ sockets per address
def refused(client: TestClient, table_id: str, token: str | None = None) -> tuple[str, int]:
    """Open a socket and say hello; the error code and close code it was refused with."""
    with client.websocket_connect(f"/ws/tables/{table_id}") as ws:
        ws.send_json({"type": "hello", "token": token} if token else {"type": "hello"})
        message = receive(ws, 10)
        with pytest.raises(WebSocketDisconnect) as closed:
            while True:
                receive(ws, 10)
    return f"{message.get('code')}: {message.get('message')}", closed.value.code


def test_open_sockets_per_address_are_capped(tmp_path: Path) -> None:
    app = create_app(f"sqlite:///{tmp_path / 'sockets.db'}", sockets_per_address=2)
    with TestClient(app) as client, TestClient(app, client=("192.0.2.9", 4242)) as other:
        table_id, _tokens = create(client, SEATS)
        with connect(client, table_id, None, None), connect(client, table_id, None, None):
            message, code = refused(client, table_id)
            assert code == 1013
            assert message == ("too_many_connections: too many open connections from your "
                               "address (at most 2): close one, then connect again")
            with connect(other, table_id, None, None) as watcher:  # another address
                assert watcher.answer({"type": "ping"}) == {"type": "pong"}
        with connect(client, table_id, None, None) as again:  # closed ones are counted out
            assert again.answer({"type": "ping"}) == {"type": "pong"}


def test_failed_hellos_per_address_are_capped(tmp_path: Path) -> None:
    app = create_app(f"sqlite:///{tmp_path / 'hellos.db'}", failed_hellos_per_minute=3)
    with TestClient(app) as client, TestClient(app, client=("192.0.2.9", 4242)) as other:
        table_id, tokens = create(client, SEATS)
        for _ in range(3):
            assert refused(client, table_id, "wrong")[1] == 4403
        message, code = refused(client, table_id, tokens[0])  # even a good token, for now
        assert code == 1013
        assert re.fullmatch(r"too_many_failed_hellos: too many failed hellos from your address "
                            r"\(at most 3 per minute\): try again in (\d+) s", message), message
        with connect(other, table_id, 0, tokens[0]) as ada:  # another address
            assert ada.answer({"type": "ping"}) == {"type": "pong"}


def test_hellos_under_way_when_the_limit_is_reached_still_count() -> None:
    """Five sockets let in at once, all failing against a limit of 3 a minute: the two
    over it put the address in debt, so it waits for three tokens, not one."""
    clock = FakeClock()
    guard = SocketGuard(max_sockets=10, failed_hellos_per_minute=3, clock=clock)
    assert [guard.admit("a") for _ in range(5)] == [None] * 5
    assert guard.open_sockets("a") == 5
    for _ in range(5):
        guard.failed("a")
        guard.release("a")
    refusal = guard.admit("a")
    assert refusal is not None and refusal.code == "too_many_failed_hellos"
    assert refusal.message.endswith("try again in 60 s")  # 3 tokens at one each 20 s
    assert len(refusal.reason.encode()) <= 123  # a close frame's reason
    assert guard.admit("b") is None  # another address
    clock.now += 60
    assert guard.admit("a") is None


def test_a_refused_socket_never_reaches_the_app() -> None:
    """The gate refuses before the middleware stack and the router (cheap under a flood),
    with the channel's own messages; a socket it lets through is not counted by it."""
    guard = SocketGuard(max_sockets=1)
    reached: list[str] = []

    async def app(scope: Any, _receive: Any, _send: Any) -> None:
        reached.append(scope["type"])

    gate = SocketGate(app, guard)
    sent: list[dict[str, Any]] = []

    async def receive() -> Message:
        return {"type": "websocket.connect"}

    async def send(message: Message) -> None:
        sent.append(dict(message))

    scope = {"type": "websocket", "client": ("192.0.2.7", 5000)}
    asyncio.run(gate(scope, receive, send))
    assert reached == ["websocket"] and sent == [] and guard.open_sockets("192.0.2.7") == 0
    assert guard.admit("192.0.2.7") is None  # the channel counts it
    asyncio.run(gate(scope, receive, send))
    assert reached == ["websocket"]
    assert [m["type"] for m in sent] == ["websocket.accept", "websocket.send", "websocket.close"]
    assert json.loads(sent[1]["text"])["code"] == "too_many_connections"
    assert sent[2]["code"] == 1013 and "at most 1" in sent[2]["reason"]
    asyncio.run(gate({"type": "http", "client": ("192.0.2.7", 5000)}, receive, send))
    assert reached == ["websocket", "http"]  # HTTP requests are not its business
