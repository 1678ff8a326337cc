"""``GET /api/i18n``: the browser's words in the reader's language.

The pages write every sentence in English through ``_()`` of ``static/i18n.js``; this
sends the catalog that script looks them up in: the compiled German catalog of
``noreturn.text`` (read once per process with Babel), as ``{msgid: text}`` (a counted
phrase: ``{singular: [one, many]}``), only the words the pages use (``page_words``: 414
of the 746 messages, 32 kB of JSON instead of 77 kB). English needs none: its words are
the keys. The language is the one asked for (``?lang=de``: the page's switch), else the
one the browser's ``Accept-Language`` prefers, else English.

The same choice decides the language of every HTTP answer's words (``ReaderLanguage``): an
error's ``detail`` reads in it. The pages' ``api()`` sends the page's language as
``Accept-Language``, so the switch decides there too.
"""

from __future__ import annotations

from functools import cache
from typing import Any

from babel.messages.catalog import Message
from babel.messages.mofile import read_mo
from babel.messages.pofile import read_po
from fastapi import APIRouter, Header, Query
from fastapi.responses import JSONResponse
from starlette.datastructures import Headers, QueryParams
from starlette.types import ASGIApp, Receive, Scope, Send

from noreturn.text.lang import (
    DEFAULT,
    DOMAIN,
    LANGUAGES,
    LOCALE_DIR,
    from_accept_language,
    speaking,
)

PAGES = "server/static/"
"""Where the pages' scripts and HTML lie, as the catalog's source locations name them."""


@cache
def page_words(lang: str) -> frozenset[str]:
    """The msgids the pages use: those whose source locations in the catalog of ``lang``
    (its ``.po`` file, which ``pybabel update`` keeps) include a page. The rest of the
    catalog (the log, reasons, refusals, the command line) the server translates itself,
    so a page need not load it."""
    with (LOCALE_DIR / lang / "LC_MESSAGES" / f"{DOMAIN}.po").open("rb") as po:
        catalog = read_po(po)
    return frozenset(_msgid(message) for message in catalog
                     if message.id and any(PAGES in path for path, _line in message.locations))


def _msgid(message: Message) -> str:
    """A message's id (a counted phrase's singular)."""
    return str(message.id[0] if isinstance(message.id, (list, tuple)) else message.id)


@cache
def messages(lang: str) -> dict[str, str | list[str]]:
    """The translated messages of ``lang`` that the pages use (none for English)."""
    if lang == DEFAULT:
        return {}
    with (LOCALE_DIR / lang / "LC_MESSAGES" / f"{DOMAIN}.mo").open("rb") as mo:
        catalog = read_mo(mo)
    wanted = page_words(lang)
    found: dict[str, str | list[str]] = {}
    for message in catalog:
        if not message.id or message.context or _msgid(message) not in wanted:
            continue  # the header; colour names and words no page uses (the server
            #           translates those itself)
        counted = isinstance(message.id, (list, tuple))
        found[_msgid(message)] = ([str(form) for form in message.string or ()] if counted
                                  else str(message.string or ""))
    return found


def chosen(asked: str | None, accept_language: str | None) -> str:
    """The language to answer in: ``asked`` if it is offered, else the browser's."""
    if asked is not None and asked in LANGUAGES:
        return asked
    return from_accept_language(accept_language)


class ReaderLanguage:
    """ASGI middleware: an HTTP request is answered in its reader's language (``chosen``
    from its ``lang`` query and its ``Accept-Language``), so the words written for it, an
    error's above all, read in that language; the service's worker threads inherit it (the
    context is copied into them). A WebSocket's language is its hello's (channel.py)."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        asked = QueryParams(scope.get("query_string", b"")).get("lang")
        with speaking(chosen(asked, Headers(scope=scope).get("accept-language"))):
            await self.app(scope, receive, send)


def words_routes() -> APIRouter:
    """The one route of the browser's catalog."""
    router = APIRouter(prefix="/api")

    @router.get("/i18n", tags=["pages"], responses={200: {
        "description": "the chosen language, the languages on offer and the catalog",
        "content": {"application/json": {"schema": {"type": "object"}}}}})
    async def i18n(
        lang: str | None = Query(default=None, max_length=16,
                                 description="en or de; otherwise Accept-Language decides"),
        accept_language: str | None = Header(default=None),
    ) -> JSONResponse:
        """The words of the pages in one language (``static/i18n.js`` asks for them)."""
        answer = chosen(lang, accept_language)
        body: dict[str, Any] = {"lang": answer, "languages": dict(LANGUAGES),
                                "messages": messages(answer)}
        return JSONResponse(body, headers={"Cache-Control": "private, max-age=300",
                                           "Vary": "Accept-Language"})

    return router


__all__ = ["ReaderLanguage", "chosen", "messages", "words_routes"]
