"""Where ``noreturn serve`` listens: the address checked before anything starts."""

from __future__ import annotations

import socket

from noreturn.engine import shortened
from noreturn.files import reason


def listen_problem(host: str, port: int) -> str | None:
    """Why the server cannot listen on ``host``, or None if the address resolves.

    uvicorn resolves the host only when it binds, after the database is opened: a name
    that does not resolve ended the server with uvicorn's "[Errno -2] Name or service not
    known", and one of a thousand letters with a traceback (the idna codec's)."""
    try:
        socket.getaddrinfo(host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)
    except (OSError, UnicodeError) as exc:
        return (f"cannot listen on {shortened(host)!r}: {reason(exc)}; give an address of "
                "this machine (127.0.0.1: this machine only, 0.0.0.0: every network it is on)")
    return None


__all__ = ["listen_problem"]
