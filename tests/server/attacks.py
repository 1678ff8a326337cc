"""Hostile clients for the abuse tests and ``benchmarks/abuse.py``, each run as a process.

Each attack runs for a few seconds against a real ``noreturn serve`` from a loopback address
of its own (``127.0.0.2`` and up: the server's per-address limits are then the attacker's
alone, and the bystander's ``PingProbe`` on ``127.0.0.1`` is another address), and prints
what it got back as one JSON object of counts (HTTP statuses, error codes, close codes).

It runs in a child process (``run_attack``) so that its work never holds the interpreter
lock of the process whose thread measures the bystander's pings.

    python tests/server/attacks.py ATTACK BASE_URL SECONDS SOURCE_ADDRESS
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import subprocess
import sys
import time
from collections import Counter
from collections.abc import AsyncIterator, Awaitable, Callable, Coroutine
from typing import Any

import httpx

SEATS = [{"kind": "human", "name": "Target"}, {"kind": "bot", "level": "random"}]
RULES = {"colors": 3, "max_value": 6, "copies": 2, "hand_size": 5, "exchange_limit": 3}
DEEP = '{"type": "ping", "x": ' + "[" * 2000 + "]" * 2000 + "}"
"""2,001 levels in some 4 KiB: within the message size, far over the nesting limit."""


class Attack:
    """One attack's context: the server, the source address, the deadline, the counts."""

    def __init__(self, base: str, seconds: float, source: str) -> None:
        self.base = base
        self.ws_base = base.replace("http://", "ws://", 1)
        self.source = source
        self.deadline = time.monotonic() + seconds
        self.counts: Counter[str] = Counter()

    def running(self) -> bool:
        return time.monotonic() < self.deadline

    def http(self, timeout: float = 30.0) -> httpx.AsyncClient:
        """An HTTP client whose connections come from the attack's address."""
        transport = httpx.AsyncHTTPTransport(local_address=self.source)
        return httpx.AsyncClient(base_url=self.base, transport=transport, timeout=timeout)

    async def table(self, start: bool = True) -> tuple[str, str]:
        """A table of the attacker's own (started): its id and the person's token."""
        async with self.http() as client:
            created = (await client.post("/api/tables", json={"seats": SEATS, "rules": RULES}))
            data = created.json()
            table_id, token = data["table"]["id"], data["seat_links"][0]["token"]
            if start:
                await client.post(f"/api/tables/{table_id}/start", json={"token": token})
        return table_id, token

    def connect(self, table_id: str) -> Any:
        """A WebSocket to ``table_id`` from the attack's address (not yet said hello)."""
        from websockets.asyncio.client import connect  # noqa: PLC0415 - a test dependency

        return connect(f"{self.ws_base}/ws/tables/{table_id}", local_addr=(self.source, 0),
                       open_timeout=30, close_timeout=5, max_size=None)

    async def until_closed(self, ws: Any) -> None:
        """Read and count error codes until the server closes; count the close code."""
        from websockets.exceptions import ConnectionClosed  # noqa: PLC0415

        try:
            async for text in ws:
                message = json.loads(text)
                if message.get("type") == "error":
                    self.counts[message["code"]] += 1
        except ConnectionClosed:
            pass
        self.close_code(ws)

    async def say(self, ws: Any, *texts: str) -> asyncio.Future[None]:
        """Start reading ``ws`` (``until_closed``), then send ``texts`` (unless it closes
        first, as when the server refuses the socket); the reader, to await."""
        from websockets.exceptions import ConnectionClosed  # noqa: PLC0415

        reader = asyncio.ensure_future(self.until_closed(ws))
        with contextlib.suppress(ConnectionClosed):
            for text in texts:
                await ws.send(text)
        return reader

    def close_code(self, ws: Any) -> None:
        """Count how ``ws`` was closed (``dropped``: without a close frame)."""
        self.counts[f"close {ws.close_code}" if ws.close_code is not None else "dropped"] += 1


async def _bodies(attack: Attack, size: int, chunked: bool) -> None:
    """POST a ``size``-byte JSON body to ``join`` again and again (one at a time)."""
    table_id, token = await attack.table(start=False)
    prefix, suffix = f'{{"token": "{token}", "x": ['.encode(), b"0]}"
    filler = b"1," * ((size - len(prefix) - len(suffix)) // 2)
    body = prefix + filler + suffix

    async def streamed() -> AsyncIterator[bytes]:
        for at in range(0, len(body), 1 << 16):
            yield body[at:at + (1 << 16)]
            await asyncio.sleep(0)

    async with attack.http() as client:
        while attack.running():
            try:
                answer = await client.post(
                    f"/api/tables/{table_id}/join", content=streamed() if chunked else body,
                    headers={"content-type": "application/json"})
                attack.counts[str(answer.status_code)] += 1
            except httpx.TransportError as exc:  # the server stopped reading: it may close
                attack.counts[type(exc).__name__] += 1


async def _deep(attack: Attack, watchers: int = 10, per_second: float = 14.0) -> None:
    """Spectators sending 2,001-level messages within their rate, and sockets whose hello is
    that deep (these count as failed hellos: soon refused, ``1013``)."""
    from websockets.exceptions import ConnectionClosed  # noqa: PLC0415

    table_id, _token = await attack.table()

    async def deep_messages() -> None:
        async with attack.connect(table_id) as ws:
            await ws.send(json.dumps({"type": "hello"}))
            while attack.running():
                await ws.send(DEEP)
                await asyncio.sleep(1 / per_second)
            await ws.send(json.dumps({"type": "ping"}))
            try:
                async for text in ws:
                    message = json.loads(text)
                    attack.counts[message.get("code", message["type"])] += 1
                    if message["type"] == "pong":
                        break
            except ConnectionClosed:
                attack.close_code(ws)

    async def deep_hello() -> None:
        async with attack.connect(table_id) as ws:
            await (await attack.say(ws, DEEP))

    watching = [asyncio.ensure_future(deep_messages()) for _ in range(watchers)]
    await asyncio.sleep(0.5)  # the spectators are in before the failed hellos add up
    await _workers(attack, 10, deep_hello)
    await asyncio.gather(*watching)


async def _workers(attack: Attack, count: int, job: Callable[[], Awaitable[None]]) -> None:
    """``count`` loops of ``job`` until the attack's time is up."""

    async def loop() -> None:
        while attack.running():
            await job()

    await asyncio.gather(*(loop() for _ in range(count)))


async def _sockets(attack: Attack, count: int = 300) -> None:
    """Open ``count`` spectator sockets at once and hold them until the time is up."""
    table_id, _token = await attack.table()

    async def hold() -> None:
        async with attack.connect(table_id) as ws:
            reader = await attack.say(ws, json.dumps({"type": "hello"}))
            await asyncio.wait([reader], timeout=max(0.0, attack.deadline - time.monotonic()))
            if not reader.done():
                attack.counts["held"] += 1
                await ws.close()
            await reader

    await asyncio.gather(*(hold() for _ in range(count)))


async def _spectator_checks(attack: Attack, count: int = 100, per_second: float = 15.0) -> None:
    """``count`` spectators each sending ``check`` at ``per_second`` (within their limit)."""
    from websockets.exceptions import ConnectionClosed  # noqa: PLC0415

    table_id, _token = await attack.table()
    check = json.dumps({"type": "check", "action": "pass"})

    async def watch() -> None:
        async with attack.connect(table_id) as ws:
            reader = await attack.say(ws, json.dumps({"type": "hello"}))
            try:
                while attack.running() and not reader.done():
                    await ws.send(check)
                    attack.counts["checks sent"] += 1
                    await asyncio.sleep(1 / per_second)
            except ConnectionClosed:
                pass
            await ws.close()
            await reader

    await asyncio.gather(*(watch() for _ in range(count)))


async def _failed_hellos(attack: Attack, parallel: int = 10) -> None:
    """Wrong tokens, as fast as ``parallel`` sockets at a time are answered."""
    table_id, _token = await attack.table()

    async def wrong() -> None:
        async with attack.connect(table_id) as ws:
            await (await attack.say(ws, json.dumps({"type": "hello", "token": "wrong"})))

    await _workers(attack, parallel, wrong)


ATTACKS: dict[str, Callable[[Attack], Coroutine[Any, Any, None]]] = {
    "body-1mb": lambda attack: _bodies(attack, 1 << 20, chunked=False),
    "body-10mb": lambda attack: _bodies(attack, 10 << 20, chunked=False),
    "body-10mb-chunked": lambda attack: _bodies(attack, 10 << 20, chunked=True),
    "deep-nesting": _deep,
    "many-sockets": _sockets,
    "spectator-checks": _spectator_checks,
    "failed-hellos": _failed_hellos,
}
"""Every attack, by name (the order ``benchmarks/abuse.py`` runs them in)."""


def run_attack(name: str, base: str, seconds: float, source: str) -> dict[str, int]:
    """Run attack ``name`` in a child process; what it got back, as counts.

    Raises:
        RuntimeError: the attack process failed (with its output).
    """
    done = subprocess.run([sys.executable, __file__, name, base, str(seconds), source],
                          capture_output=True, text=True, timeout=seconds + 120, check=False)
    if done.returncode != 0:
        raise RuntimeError(f"attack {name} failed:\n{done.stdout}\n{done.stderr}")
    counts: dict[str, int] = json.loads(done.stdout.splitlines()[-1])
    return counts


def main(argv: list[str]) -> None:
    """``attacks.py ATTACK BASE SECONDS SOURCE``: run it, print its counts as JSON."""
    name, base, seconds, source = argv
    attack = Attack(base, float(seconds), source)
    asyncio.run(ATTACKS[name](attack))
    print(json.dumps(dict(attack.counts), sort_keys=True))


if __name__ == "__main__":
    main(sys.argv[1:])
