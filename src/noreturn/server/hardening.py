"""HTTP answers that stay well-formed and cheap whatever a client sends (found by the fuzzer
and an outside probe).

- A request body is at most ``MAX_BODY`` bytes (``BodyCap``): a longer declared
  ``Content-Length`` gets ``413`` before anything is read, a chunked body gets it as soon
  as it passes the cap. So JSON parsing and validation, which run on the event loop, only
  ever see a few KiB.
- A ``422`` says where (``loc``) and why (``msg``, ``type``), never the input: FastAPI's
  validation errors carry it, and building an answer from it was work in proportion to the
  request (a 50 MB name came back as a 50 MB answer). A key the client sent, in ``loc``, is
  shortened, and shown escaped if it holds a lone surrogate (``"\\ud800"``, not encodable
  in UTF-8), as is any number too large for a float (``1e400`` is infinity).
- A body FastAPI's JSON reader cannot take for another reason than bad JSON gets a 400
  that says why (bytes that are not UTF-8, a number of more than 4,300 digits), not only
  "There was an error parsing the body" (``unparsable_body``).
- Every answer carries a strict ``Content-Security-Policy`` (the pages load their scripts,
  styles and WebSocket from this server only, and no page may frame them) and the older
  ``X-Frame-Options: DENY``; see ``SafeHeaders``.
- A ``405`` on an API path names, in ``Allow``, every method the schema documents for the
  path, not only those of the first route that matched it (``/api/tables`` has a GET
  route and a POST route).
"""

from __future__ import annotations

import math
import re
import sys
from typing import Any

from fastapi import FastAPI, HTTPException, Request
from fastapi.exception_handlers import http_exception_handler
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from starlette.datastructures import MutableHeaders
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.responses import Response
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from noreturn.server.limits import MAX_BODY

CSP = ("default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
       "connect-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; "
       "frame-ancestors 'none'")
"""The Content-Security-Policy of every answer. The pages (static/) load their scripts and
style sheet from this server, have no inline script, style or event handler, and talk to
this server only (``fetch`` and the WebSocket: ``connect-src 'self'`` covers ``ws:`` and
``wss:`` to the same host); the icon is an empty ``data:`` URL. Scripts may still set
``element.style`` (that is not an inline style attribute in the markup)."""
LOC_KEY = 40
"""The longest key shown in a 422's ``loc`` (a client's unknown key is input too)."""
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


def _short(part: Any) -> Any:
    """One step of an error's ``loc``: a key the client sent is cut to ``LOC_KEY`` characters."""
    if isinstance(part, str) and len(part) > LOC_KEY:
        return part[:LOC_KEY] + "…"
    return part if isinstance(part, str | int) else str(part)[:LOC_KEY]


async def validation_error(_request: Request, exc: Exception) -> JSONResponse:
    """A 422 that says where and why, never what was sent:
    ``{"detail": [{"loc": [...], "msg": "...", "type": "..."}]}``."""
    errors = exc.errors() if isinstance(exc, RequestValidationError) else []
    detail = [{"loc": [_short(part) for part in error.get("loc", ())],
               "msg": str(error.get("msg", "")), "type": str(error.get("type", ""))}
              for error in errors]
    return JSONResponse({"detail": json_safe(detail)}, status_code=422)


def unreadable_reason(cause: BaseException | None) -> str | None:
    """What is wrong with a body FastAPI could not parse (``cause``: the error its JSON
    reader raised), or None when there is nothing more to say than its own answer."""
    if isinstance(cause, UnicodeDecodeError):
        return (f"the body is not UTF-8 text (byte 0x{cause.object[cause.start]:02x} at "
                f"position {cause.start}): send JSON encoded as UTF-8")
    if isinstance(cause, RecursionError):
        return ("the body's arrays and objects nest too deeply to be read (thousands of "
                "levels): this API's bodies nest a few levels at most")
    if isinstance(cause, ValueError) and "integer string conversion" in str(cause):
        return (f"the body holds a number of more than {sys.get_int_max_str_digits():,} "
                "digits: no field of this API takes one")
    return None


async def unparsable_body(request: Request, exc: Exception) -> Response:
    """A 400 that says what is wrong with a body FastAPI's JSON reader could not take
    (bytes that are not UTF-8, a number too long to convert), where FastAPI says only
    "There was an error parsing the body"; every other HTTP error as FastAPI answers it."""
    assert isinstance(exc, StarletteHTTPException)
    reason = unreadable_reason(exc.__cause__) if exc.status_code == 400 else None
    if reason is None:
        return await http_exception_handler(request, exc)
    return JSONResponse({"detail": reason}, status_code=400)


class BodyTooLargeError(HTTPException):
    """A request body over the cap (raised while it is read; answered by ``body_too_large``)."""

    def __init__(self) -> None:
        super().__init__(413, "request body too large")


async def body_too_large(_request: Request | None = None, _exc: Exception | None = None,
                         ) -> JSONResponse:
    """The 413 of a body over the cap, saying the cap."""
    return JSONResponse({"detail": f"request body too large: at most {MAX_BODY} bytes "
                                   "(nothing this API accepts is longer)"}, status_code=413)


def declared_length(scope: Scope) -> int | None:
    """The request's ``Content-Length`` (None: none, as with a chunked body)."""
    for name, value in scope.get("headers", ()):
        if name.lower() == b"content-length":
            return int(value) if value.isdigit() else None
    return None


class BodyCap:
    """ASGI middleware: a request body is at most ``max_bytes``, else ``413``.

    A longer ``Content-Length`` is answered at once, unread. Otherwise each chunk is
    counted as the app reads it; the one that passes the cap raises ``BodyTooLargeError``
    in the reader (FastAPI answers it with ``body_too_large``; if it reaches this middleware
    first, the answer is sent here), and nothing more is read.
    """

    def __init__(self, app: ASGIApp, max_bytes: int = MAX_BODY) -> None:
        self.app = app
        self.max_bytes = max_bytes

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        length = declared_length(scope) if scope["type"] == "http" else None
        if scope["type"] != "http" or (length is not None and length <= self.max_bytes):
            await self.app(scope, receive, send)
            return
        if length is not None:
            await (await body_too_large())(scope, receive, send)
            return
        seen = 0
        started = False

        async def capped() -> Message:
            nonlocal seen
            message = await receive()
            seen += len(message.get("body", b""))
            if seen > self.max_bytes:
                raise BodyTooLargeError
            return message

        async def watched(message: Message) -> None:
            nonlocal started
            started = started or message["type"] == "http.response.start"
            await send(message)

        try:
            await self.app(scope, capped, watched)
        except BodyTooLargeError:
            if started:
                raise
            await (await body_too_large())(scope, receive, send)


class SafeHeaders:
    """ASGI middleware: every HTTP answer carries ``CSP`` and ``X-Frame-Options: DENY``,
    says not to send the page address on (``Referrer-Policy``: a seat link's path names the
    table) nor to guess content types; API answers are never cached (they hold seat tokens).

    Plain ASGI rather than ``@app.middleware("http")``, whose per-request task and
    streams cost more than the rest of a small request.
    """

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        api = str(scope["path"]).startswith("/api/")

        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = MutableHeaders(raw=list(message.get("headers", [])))
                headers.setdefault("Content-Security-Policy", CSP)
                headers.setdefault("X-Frame-Options", "DENY")
                headers.setdefault("Referrer-Policy", "no-referrer")
                headers.setdefault("X-Content-Type-Options", "nosniff")
                if api:
                    headers.setdefault("Cache-Control", "no-store")
                message = {**message, "headers": headers.raw}
            await send(message)

        await self.app(scope, receive, send_with_headers)


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
    """Install every fix on ``app``: the handlers, then the middleware (the last added is
    the outermost: the headers go on every answer, a 413 included)."""
    app.add_exception_handler(RequestValidationError, validation_error)
    app.add_exception_handler(StarletteHTTPException, unparsable_body)
    app.add_exception_handler(413, body_too_large)
    app.add_middleware(AllowHeader, schema_of=app)
    app.add_middleware(BodyCap)
    app.add_middleware(SafeHeaders)


__all__ = ["CSP", "AllowHeader", "BodyCap", "BodyTooLargeError", "SafeHeaders",
           "body_too_large", "harden", "json_safe", "unparsable_body", "unreadable_reason",
           "validation_error"]
