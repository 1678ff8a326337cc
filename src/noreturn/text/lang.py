"""The language words are written in: English or German, through gettext catalogs.

Every sentence a player reads is written in English inside ``_()`` or ``ngettext()``, with
named blanks filled after translation (``_("{name} passed").format(name=name)``), so a
translator can reorder them. ``pybabel extract`` finds those calls (babel.cfg); the German
catalog lives in ``noreturn/text/locale/de/LC_MESSAGES`` and its compiled ``.mo`` file ships in
the package (docs/translating.md says how to update both).

A process has one language (``set_language``: the terminal game, the command line); a
server speaks to each reader in theirs for the span of a ``with speaking(lang):`` block,
which rests on a context variable, so concurrent readers never mix languages.
"""

from __future__ import annotations

import gettext
import os
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from functools import cache
from pathlib import Path
from typing import Literal

LOCALE_DIR = Path(__file__).resolve().parent / "locale"
"""Where the compiled catalogs lie: ``<lang>/LC_MESSAGES/<domain>.mo``."""

DOMAIN = "noreturn"
"""The one catalog: the Python code's words and the browser pages' (``/api/i18n``)."""

LanguageCode = Literal["en", "de"]
"""The codes of the languages on offer, as a type: the server's request fields and the
command line's ``--lang`` are checked against it (a test keeps them and ``LANGUAGES`` one
list: a language is added here, with its catalog)."""

LANGUAGES: Mapping[LanguageCode, str] = {"en": "English", "de": "Deutsch"}
"""The languages on offer, each with its own name (what a language switch shows)."""

DEFAULT = "en"


@cache
def translations(lang: str, domain: str = DOMAIN) -> gettext.NullTranslations:
    """The catalog of ``lang`` (English: the words as written, no catalog needed)."""
    if lang == DEFAULT:
        return gettext.NullTranslations()
    return gettext.translation(domain, LOCALE_DIR, languages=[lang])


def known(lang: str) -> str:
    """``lang`` if it is offered; else a ``ValueError`` that names the choices."""
    if lang not in LANGUAGES:
        raise ValueError(f"no language {lang!r}: choose one of {', '.join(LANGUAGES)}")
    return lang


def from_command_line(argv: Sequence[str], environ: Mapping[str, str] | None = None) -> str:
    """The language of a command's run, read before its help is written: ``--lang X``
    anywhere on the command line, else the terminal's (``from_environment``)."""
    for arg, following in zip(argv, [*argv[1:], ""], strict=False):  # (argv may be empty)
        wanted = following if arg == "--lang" else arg.removeprefix("--lang=")
        if arg.startswith("--lang") and wanted in LANGUAGES:
            return wanted
    return from_environment(environ)


def from_environment(environ: Mapping[str, str] | None = None) -> str:
    """The terminal's language, as gettext reads it (LANGUAGE, LC_ALL, LC_MESSAGES, LANG):
    the first offered one named there, else English. ``de_DE.UTF-8`` means German."""
    env = os.environ if environ is None else environ
    for variable in ("LANGUAGE", "LC_ALL", "LC_MESSAGES", "LANG"):
        value = env.get(variable, "")
        if not value:
            continue
        for item in value.split(":"):
            code = item.split(".")[0].split("_")[0].lower()
            if code in LANGUAGES:
                return code
        if variable != "LANGUAGE":
            return DEFAULT  # the first locale variable set decides, as in C's setlocale
    return DEFAULT


def from_accept_language(header: str | None) -> str:
    """The offered language a browser's ``Accept-Language`` prefers most (q-values
    honoured, ``de-AT`` counts as ``de``), else English."""
    best, best_q = DEFAULT, -1.0
    for position, part in enumerate((header or "")[:1000].split(",")[:32]):
        tag, _sep, params = part.strip().partition(";")
        code = tag.strip().split("-")[0].lower()
        if code not in LANGUAGES:
            continue
        q = 1.0
        if params.strip().startswith("q="):
            try:
                q = float(params.strip()[2:])
            except ValueError:
                continue
        if q <= 0:
            continue  # q=0: "not this one"
        q -= position * 1e-6  # equal weights: the earlier one wins
        if q > best_q:
            best, best_q = code, q
    return best


_process_language = DEFAULT
_reader: ContextVar[str | None] = ContextVar("noreturn_reader_language", default=None)


def set_language(lang: str) -> None:
    """The language of this process (the terminal game, the command line's words)."""
    global _process_language  # noqa: PLW0603 - one language per process, by design
    _process_language = known(lang)


def language() -> str:
    """The language words are written in now: the reader's inside ``speaking``, else the
    process's."""
    return _reader.get() or _process_language


@contextmanager
def speaking(lang: str) -> Iterator[None]:
    """Write in ``lang`` inside this block only (a server's answer to one reader)."""
    token = _reader.set(known(lang))
    try:
        yield
    finally:
        _reader.reset(token)


def _(message: str) -> str:
    """``message`` in the current language."""
    return translations(language()).gettext(message)


def ngettext(singular: str, plural: str, count: int) -> str:
    """The form of a counted phrase for ``count`` in the current language."""
    return translations(language()).ngettext(singular, plural, count)


def pgettext(context: str, message: str) -> str:
    """``message`` in the current language, told apart by ``context`` from the same
    English words meaning something else ("red" as a colour's name)."""
    return translations(language()).pgettext(context, message)


def N_(message: str) -> str:  # noqa: N802 - gettext's conventional name for "mark only"
    """Mark ``message`` for the catalog without translating it yet (a constant that is
    translated where it is shown)."""
    return message


def words(message: str, params: Mapping[str, object]) -> str:
    """``message`` in the current language with its blanks filled from ``params``."""
    return _(message).format_map(params)


class Later:
    """A sentence written when it is read, in the reader's language: a log keeps these, so
    a server tells one game to a German and an English reader alike. Each language's text
    is written once and kept. ``write(*args)`` must be picklable (a module function or a
    method), as the log it sits in is.
    """

    __slots__ = ("_args", "_done", "_write")

    def __init__(self, write: Callable[..., str], *args: object) -> None:
        self._write, self._args = write, args
        self._done: dict[str, str] = {}

    def __str__(self) -> str:
        lang = language()
        text = self._done.get(lang)
        if text is None:
            text = self._done[lang] = self._write(*self._args)
        return text
