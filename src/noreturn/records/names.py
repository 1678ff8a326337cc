"""Players' names: what a name may be, and how a record's name is shown.

A record's ``name`` is free text (docs/record-format.md), and a record may come from
anywhere. Printed as it stands, a name of escape sequences would drive the reader's
terminal (clear it, recolour it, retitle the window), and a name of a megabyte would bury
the account. So every front end that prints a record's names shows them through
``shown_name``, and the names this program gives a seat keep to the same two rules:
``noreturn play --seat-name`` and the server's seats, both through ``name_refusal``, said in
the player's language.
"""

from __future__ import annotations

import unicodedata

from noreturn.text.lang import N_

NAME_LENGTH = 40
"""The most characters of a player's name: what a table accepts, and what is shown."""


def _control(char: str) -> bool:
    """Whether ``char`` is a control, format or unassigned character (category C*)."""
    return unicodedata.category(char).startswith("C")


def has_control(text: str) -> bool:
    """Whether ``text`` holds a control, format or unassigned character: never shown."""
    return any(map(_control, text))


def name_refusal(name: str) -> tuple[str, dict[str, object]] | None:
    """Why ``name`` cannot be a seat's name (too long, or control characters), as an English
    template and its blanks for the reader's language; None for a good name."""
    if len(name) > NAME_LENGTH:
        return (N_("name {name}...: at most {most} characters"),
                {"name": repr(name[:NAME_LENGTH]), "most": NAME_LENGTH})
    if has_control(name):
        return N_("name {name}: no control characters, please"), {"name": repr(name)}
    return None


def shown_name(name: object, seat: int) -> str:
    """A record's ``name`` for seat ``seat`` as safe to print: white space collapsed,
    control characters as ``?``, at most ``NAME_LENGTH`` characters (``…`` after a cut),
    and ``P<seat>`` for a blank or missing name."""
    text = "".join("?" if _control(c) else c for c in " ".join(str(name or "").split()))
    if not text:
        return f"P{seat}"
    return text if len(text) <= NAME_LENGTH else text[: NAME_LENGTH - 1] + "…"


__all__ = ["NAME_LENGTH", "has_control", "name_refusal", "shown_name"]
