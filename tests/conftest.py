"""What every test starts from: English words, whatever the machine's locale.

The language is one per process (``noreturn.text.lang.set_language``), and the command line
sets it from ``LANG`` when imported; a test that plays in German must not leave the next
test reading German, and a developer's German terminal must not turn the English
assertions red. Tests of the languages set them explicitly.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from noreturn.text.lang import set_language

LOCALE_VARIABLES = ("LANGUAGE", "LC_ALL", "LC_MESSAGES", "LANG")


@pytest.fixture(autouse=True)
def english(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """English in this process and in the processes a test starts."""
    for variable in LOCALE_VARIABLES:
        monkeypatch.delenv(variable, raising=False)
    set_language("en")
    yield
    set_language("en")
