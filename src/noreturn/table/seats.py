"""The seats of a local game, and where its record is saved by default.

Kept apart from the table logic (``noreturn.table`` re-exports all of it): who sits where
is decided before a game exists, by the command line and the server alike.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from noreturn.bots.base import BotSpecError, split_name
from noreturn.engine import WordedError
from noreturn.files import data_dir
from noreturn.records.names import name_refusal

BOT_NAMES = ("Bea", "Cy", "Dot", "Eve")
PERSON_NAMES = ("Ada", "Bo", "Cleo", "Dan")
"""Hot-seat players not named on the command line: names like the first one's."""
DEFAULT_BOT = "medium"


def default_save_dir() -> Path:
    """Where games are saved: ``$XDG_DATA_HOME/noreturn/games``."""
    return data_dir() / "games"


@dataclass(frozen=True)
class Seat:
    """One seat: a person (``bot`` is None) or a bot given by its spec (``medium``, ...)."""

    name: str
    bot: str | None = None

    @property
    def human(self) -> bool:
        """Whether a person plays this seat."""
        return self.bot is None

    def record_entry(self) -> dict[str, str]:
        """The seat as a record's ``players`` entry, the bot spec as an extra key.

        The entry is described in docs/record-format.md, "Players".
        """
        if self.bot is None:
            return {"name": self.name, "kind": "human"}
        return {"name": self.name, "kind": "bot", "policy": self.bot}


class SeatsError(WordedError):
    """Seats that cannot be made as asked; ``option`` is the command-line option to change.
    Worded: ``play`` says it in the player's language."""

    def __init__(self, template: str, params: Mapping[str, object] | None = None,
                 option: str = "--seat-name") -> None:
        super().__init__(template, params)
        self.option = option


def make_seats(players: int, names: Sequence[str] = ("Ada",), bots: Sequence[str] = (),
               hotseat: bool = False) -> list[Seat]:
    """The seats of a local game: people first, then bots.

    Without ``hotseat`` seat 0 is the one person and the others are bots, their specs
    cycled from ``bots`` (default ``medium``). With ``hotseat`` every seat is a person;
    missing names come from ``PERSON_NAMES``. More names than people is an error (a name
    dropped without a word is a player left out), as are two people of one name, and more
    bots than bot seats (``--bots medium,hard`` at two players played medium alone).

    Raises:
        SeatsError: too many names or bots, a name twice (a bot's ``name=`` too), or a
            name too long or with control characters; the message says what to change.
    """
    people = players if hotseat else 1
    refused = next(filter(None, map(name_refusal, names)), None)
    if refused:
        raise SeatsError(*refused)
    if len(names) > people and hotseat:
        raise SeatsError("{count} names for {players} players: give at most {players}",
                         {"count": len(names), "players": players})
    if len(names) > people:
        raise SeatsError("{count} names for one person against bots (or --hotseat): give "
                         "at most 1", {"count": len(names)})
    if len(set(names)) < len(names):
        raise SeatsError("a name is given twice in {names}: give each its own",
                         {"names": ", ".join(names)})
    if not hotseat and len(bots) > players - 1 and players == 2:
        raise SeatsError("{count} bots for one bot seat at 2 players: give at most 1, or "
                         "more players (--players, up to 4)", {"count": len(bots)}, "--bots")
    if not hotseat and len(bots) > players - 1:
        raise SeatsError("{count} bots for {seats} bot seats at {players} players: give at "
                         "most {seats}, or more players (--players, up to 4)",
                         {"count": len(bots), "seats": players - 1, "players": players},
                         "--bots")
    if hotseat:
        spare = [n for n in PERSON_NAMES if n not in names]
        return [Seat(names[i] if i < len(names) else spare[i - len(names)])
                for i in range(players)]
    specs = list(bots) or [DEFAULT_BOT]
    try:  # a spec's name= names its seat (greedy:name=Gus)
        asked = [split_name(spec)[1] for spec in specs]
    except BotSpecError as exc:
        raise SeatsError(exc.template, exc.params, "--bots") from exc
    made = [Seat(names[0] if names else "Ada")]
    for i in range(players - 1):
        own, taken = asked[i % len(specs)], {seat.name for seat in made}
        if own is not None and own in taken:  # a bot named as another seat: refused
            raise SeatsError("name={name} would name two seats (a person's name, or one "
                             "spec cycled over two bot seats): give each seat its own name",
                             {"name": own}, "--bots")
        name = own if own is not None else next(
            (n for n in BOT_NAMES if n not in taken and n not in asked), f"Bot {i + 1}")
        made.append(Seat(name, specs[i % len(specs)]))
    return made


__all__ = ["BOT_NAMES", "DEFAULT_BOT", "PERSON_NAMES", "Seat", "SeatsError", "default_save_dir",
           "make_seats"]
