"""Where ``noreturn serve`` listens: the address resolved and bound before anything starts.

uvicorn resolves and binds only after the app has started (the database opened, the
banner printed): a name that does not resolve ended the server with uvicorn's "[Errno -2]
Name or service not known", one of a thousand letters with a traceback (the idna codec's),
and a port in use with "[Errno 98] address already in use" after a banner that told the
person to open the page of whatever held the port. So the command binds the socket first
and hands it to uvicorn.
"""

from __future__ import annotations

import errno
import socket
from typing import Any

from noreturn.engine import shortened
from noreturn.files import reason

WHERE = "(127.0.0.1: this machine only, 0.0.0.0: every network it is on)"


class ListenError(ValueError):
    """The address cannot be listened on; the message names the option to change."""

    def __init__(self, message: str, option: str) -> None:
        super().__init__(message)
        self.option = option


Address = tuple[socket.AddressFamily, tuple[Any, ...]]
"""A resolved address to listen on: its family and the socket address."""


def listening_socket(host: str, port: int, resolved: Address | None = None) -> socket.socket:
    """A socket bound to ``host`` and ``port`` (``resolved`` already: ``listen_address``),
    for uvicorn to listen on.

    Raises:
        ListenError: the host does not resolve, or the port is taken or not allowed.
    """
    family, address = resolved or listen_address(host, port)
    sock = socket.socket(family, socket.SOCK_STREAM)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as uvicorn does
        sock.bind(address)
    except OSError as exc:
        sock.close()
        if exc.errno == errno.EADDRINUSE:
            raise ListenError(f"port {port} is in use on {shortened(host)} (another noreturn "
                              f"serve?): stop that program or give another, e.g. --port "
                              f"{port + 1 if port < 65535 else 8000}", "--port") from None
        if exc.errno == errno.EACCES:
            raise ListenError(f"port {port} is reserved for the system administrator on this "
                              "machine: give one from 1024, e.g. --port 8000", "--port") from None
        raise ListenError(f"cannot listen on {shortened(host)!r} port {port}: {reason(exc)}; "
                          f"give an address of this machine {WHERE}", "--host") from None
    sock.set_inheritable(True)
    return sock


def listen_address(host: str, port: int) -> Address:
    """The first address ``host`` resolves to, for listening (checked before anything is
    opened: a name that does not resolve opens no database).

    Raises:
        ListenError: it does not resolve."""
    # As uvicorn binds: IPv6 only for an address written with colons, else IPv4 (a name
    # such as localhost may list ::1 first, and 127.0.0.1 would then be refused).
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    try:
        found = socket.getaddrinfo(host, port, family, socket.SOCK_STREAM,
                                   flags=socket.AI_PASSIVE)
    except (OSError, UnicodeError) as exc:
        raise ListenError(f"cannot listen on {shortened(host)!r}: {reason(exc)}; give an "
                          f"address of this machine {WHERE}", "--host") from None
    family, _kind, _proto, _name, address = found[0]
    return family, tuple(address)  # (IPv6: with its flow and scope)


__all__ = ["Address", "ListenError", "listen_address", "listening_socket"]
