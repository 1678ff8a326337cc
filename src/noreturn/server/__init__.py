"""Online tables: ``noreturn serve`` (HTTP API, WebSocket play, browser front end).

``create_app(db_url)`` builds the ASGI app; docs/server-protocol.md is its contract.
"""

from noreturn.server.app import create_app
from noreturn.server.db import default_db_url
from noreturn.server.listen import ListenError, listen_address, listening_socket

__all__ = ["ListenError", "create_app", "default_db_url", "listen_address",
           "listening_socket"]
