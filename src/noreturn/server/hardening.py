"""HTTP answers that stay well-formed whatever a client sends (found by the fuzzer).

- A ``422`` echoes the offending input (FastAPI's validation errors carry it). JSON may
  hold what a JSON answer cannot: a lone surrogate (``"\\ud800"``, not encodable in UTF-8)
  or a number too large for a float (``1e400`` is infinity). FastAPI's own handler then
  fails while encoding its answer, a server error; here such values are shown escaped.
- A ``405`` on an API path names, in ``Allow``, every method the schema documents for the
  path, not only those of the first route that matched it (``/api/tables`` has a GET
  route and a POST route).
"""

from __future__ import annotations

import math
import re
from typing import Any

from fastapi import FastAPI, Request
from fastapi.encoders import jsonable_encoder
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from starlette.types import ASGIApp, Message, Receive, Scope, Send

METHODS = frozenset({"GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS", "TRACE"})


def json_safe(value: Any) -> Any:
    """``value`` (JSON-like) with every string encodable and every number finite."""
    if isinstance(value, str):
        try:
            value.encode("utf-8")
        except UnicodeEncodeError:
            return value.encode("utf-8", "backslashreplace").decode("utf-8")
        return value
    if isinstance(value, float) and not math.isfinite(value):
        return str(value)
    if isinstance(value, dict):
        return {json_safe(k): json_safe(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [json_safe(v) for v in value]
    return value


async def validation_error(_request: Request, exc: Exception) -> JSONResponse:
    """FastAPI's 422 answer (``{"detail": [{"loc", "msg", "input", ...}]}``), encodable."""
    errors = exc.errors() if isinstance(exc, RequestValidationError) else []
    return JSONResponse({"detail": json_safe(jsonable_encoder(errors))}, status_code=422)


class AllowHeader:
    """ASGI middleware: a 405's ``Allow`` lists the methods the schema documents for the
    path (other paths keep Starlette's answer)."""

    def __init__(self, app: ASGIApp, schema_of: FastAPI) -> None:
        self.app = app
        self.schema_of = schema_of
        self._paths: list[tuple[re.Pattern[str], list[str]]] | None = None

    def methods(self, path: str) -> list[str]:
        """The documented methods of ``path`` ([] if the schema has no such path)."""
        if self._paths is None:
            self._paths = [
                (re.compile(re.sub(r"\\\{[^/]*?\\\}", "[^/]+", re.escape(template))),
                 sorted(m.upper() for m in operations if m.upper() in METHODS))
                for template, operations in self.schema_of.openapi().get("paths", {}).items()]
        return next((methods for pattern, methods in self._paths if pattern.fullmatch(path)),
                    [])

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def send_fixed(message: Message) -> None:
            if message["type"] == "http.response.start" and message["status"] == 405:
                methods = self.methods(scope["path"])
                if methods:
                    headers = [(k, v) for k, v in message.get("headers", [])
                               if k.lower() != b"allow"]
                    headers.append((b"allow", ", ".join(methods).encode("latin-1")))
                    message = {**message, "headers": headers}
            await send(message)

        await self.app(scope, receive, send_fixed)


def harden(app: FastAPI) -> None:
    """Install both fixes on ``app``."""
    app.add_exception_handler(RequestValidationError, validation_error)
    app.add_middleware(AllowHeader, schema_of=app)


__all__ = ["AllowHeader", "harden", "json_safe", "validation_error"]
