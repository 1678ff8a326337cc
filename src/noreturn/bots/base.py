"""The bot protocol and the registry of bots by name.

A bot is asked for a decision with one seat's ``View``, the legal actions and a random
generator of its own. It never receives the ``GameState``, so it cannot look at another
hand or the bag: it is honest by construction, not by promise.
"""

from __future__ import annotations

import importlib
import pkgutil
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from random import Random
from typing import NoReturn, Protocol, runtime_checkable

from noreturn.engine import Action, NoReturnError, View, WordedError


class BotError(NoReturnError):
    """A bot failed to decide (crashed, hung, answered garbage or an illegal action)."""


class BotSpecError(WordedError, BotError):
    """A bot spec that makes no bot (no such name, an option it does not take or a value
    out of range): worded, since a player meets it on ``play --bots`` in their language."""


@runtime_checkable
class Bot(Protocol):
    """Anything that picks one of the legal actions from a seat's view.

    A bot may also have ``start_game(seat, names)`` and ``end_game(final_view)``; the game
    runner calls them when present (an external program is started and told the result
    through them).

    A bot that names itself (an external program, in its ``ready``) has that name in
    ``program_name``; it is shown where the spec gives no ``name=`` (``name_after_game``).

    A bot with a start-up cost that is not thinking (an external program starting) keeps
    its total in ``startup_seconds``; the game runner counts that time apart, so a bot's
    time per decision is only its time deciding.

    A bot that thinks (a search taking a noticeable time per decision) also has a
    ``budget`` attribute, a ``Budget``; ``budget_of`` reads it. Front ends go by it alone:
    the server runs such a bot outside its table lock and caps its budget, and a user
    interface shows it thinking. A bot without one decides in well under a millisecond,
    except where it says otherwise by ``thinks_at(view) -> bool`` (medium weighs its
    switch over sampled worlds, some 35 ms at most, at a few decisions a game): ``thinks_now``
    reads both.
    """

    name: str

    def act(self, view: View, legal: Sequence[Action], rng: Random) -> Action:
        """The chosen action; it must be one of ``legal``."""
        ...


MAX_SECONDS = 600.0
"""The longest time budget a decision may have: ``time=inf`` (or a year) never answers."""

MAX_ITERATIONS = 100_000
"""The most iterations (sampled worlds, or tree iterations) a decision may have: at a
millisecond or more each, a billion would never answer either."""


@dataclass(frozen=True, slots=True)
class Budget:
    """What one decision of a thinking bot may cost: iterations, or seconds of wall clock.

    Attributes:
        seconds: the time per decision, when the search is budgeted by time.
        iterations: the search iterations per decision, when budgeted by count.
    """

    seconds: float | None = None
    iterations: int | None = None


def budget_of(bot: object) -> Budget | None:
    """The budget of a bot that thinks, ``None`` for a fast one (see ``Bot``)."""
    budget = getattr(bot, "budget", None)
    return budget if isinstance(budget, Budget) else None


def thinks_now(bot: object, view: View) -> bool:
    """Whether ``bot``'s decision at ``view`` takes a noticeable time: always for a bot
    with a ``Budget``, else where its ``thinks_at(view)`` says so. A server runs such a
    decision outside its table lock and one at a time, like a search's: a run of fast
    moves under the lock must stay fast, or other tables' requests wait for it."""
    if budget_of(bot) is not None:
        return True
    thinks_at = getattr(bot, "thinks_at", None)
    return bool(thinks_at(view)) if callable(thinks_at) else False


BotFactory = Callable[[str], Bot]
"""Makes a fresh bot from the text after ``name:`` in a spec (``""`` when there is none)."""

_REGISTRY: dict[str, BotFactory] = {}
_DESCRIPTIONS: dict[str, str] = {}

LEVELS = {"easy": "greedy", "medium": "heuristic", "hard": "search",
          "expert": "search:time=3,shifts=-1/-2"}
"""Player-facing levels and the bot spec each stands for. Expert thinks three times as long
as hard and also weighs plans for its own switch near it (``search.switch_options``): the
plan with its switch one and two turns later. Only later ones: an earlier switch is the
declaration, a candidate already, and two turns later is still a good whole-game plan,
where four is a poor one. With two players 50.0% of 100 games against hard (docs/bots.md):
not shown stronger."""

CURRENT = {"heuristic": "plan", "ismcts": "ismcts-v1"}
"""The general names and the registered bot each stands for now: a better bot takes over a
name here, while the frozen yardsticks keep their own names (``bots/yardsticks``)."""


def register(name: str, description: str) -> Callable[[BotFactory], BotFactory]:
    """Decorator: make ``factory`` available as ``make_bot(name)``."""

    def add(factory: BotFactory) -> BotFactory:
        _REGISTRY[name] = factory
        _DESCRIPTIONS[name] = description
        return factory

    return add


def bot_names() -> dict[str, str]:
    """Every registered bot name with its one-line description, levels included."""
    _load_builtin()
    names = dict(_DESCRIPTIONS)
    names.update({name: f"now {bot}: {_DESCRIPTIONS[bot]}" for name, bot in CURRENT.items()})
    names.update({level: f"level: {spec}" for level, spec in LEVELS.items()})
    return names


def make_bot(spec: str) -> Bot:
    """A fresh bot from a spec: ``heuristic``, ``ismcts:time=1``, ``hard``, ``external:CMD``,
    any of them with a display name: ``hard:name=Deep``, ``external:python bot.py,name=Rex``.

    Raises:
        BotError: no bot has that name (the message lists the names there are), bad
            options, or a display name that is not short plain text.
    """
    _load_builtin()
    spec, display = split_name(spec)
    level, colon, _ = spec.partition(":")
    if level in LEVELS and colon:
        raise BotSpecError("the level {name} takes no options but name=: it stands for "
                           "{spec}; write that spec with the options you want instead "
                           "(docs/bots.md lists each bot's options)",
                           {"name": repr(level), "spec": repr(LEVELS[level])})
    spec = LEVELS.get(spec, spec)
    name, _, options = spec.partition(":")
    name = CURRENT.get(name, name)
    if name not in _REGISTRY:
        known = ", ".join(sorted(bot_names()))
        raise BotSpecError("no bot named {name}: choose one of {keys}",
                           {"name": repr(name), "keys": known})
    bot = _REGISTRY[name](options)
    if display is not None:
        bot.name = display
    return bot


NAME_OPTION = "name="
DISPLAY_NAME = re.compile(r"[\w .+#()'-]{0,23}[\w.+#()'-]")
"""A display name: 1 to 24 letters, digits, spaces or ``. + # ( ) ' - _``, not ending in
a space; short enough for a table column, a plot's axis and a ``hello`` message."""


def split_name(spec: str) -> tuple[str, str | None]:
    """``spec`` without its ``name=`` option, and that display name (None without one).

    ``name=NAME`` is one of the comma-separated options after the bot's name and ``:``,
    written alike for every bot: ``greedy:name=Gus``, ``ismcts:time=1,name=Deep``,
    ``external:python bot.py,name=Rex``.

    Raises:
        BotError: more than one name, or a name that ``DISPLAY_NAME`` refuses.
    """
    spec = spec.strip()
    bot, colon, options = spec.partition(":")
    parts = options.split(",") if colon else []
    named = [p.strip()[len(NAME_OPTION):].strip() for p in parts
             if p.strip().startswith(NAME_OPTION)]
    if not named:
        return spec, None
    if len(named) > 1:
        raise BotSpecError("bot {spec}: give one name=, not {count}",
                           {"spec": repr(spec), "count": len(named)})
    if not DISPLAY_NAME.fullmatch(named[0]):
        raise BotSpecError("bot {spec}: name={name} must be 1 to 24 letters, digits, "
                           "spaces or . + # ( ) ' - _",
                           {"spec": repr(spec), "name": repr(named[0])})
    rest = ",".join(p for p in parts if not p.strip().startswith(NAME_OPTION)).strip()
    return (f"{bot}:{rest}" if rest else bot), named[0]


def split_specs(text: str) -> list[str]:
    """Bot specs from ``--bots`` (``tournament``, ``play``): commas separate bots, but
    ``key=value`` parts continue one.

    ``ismcts:time=1,iterations=50,greedy`` is two bots: ``ismcts:time=1,iterations=50`` and
    ``greedy``.
    """
    specs: list[str] = []
    for part in filter(None, (p.strip() for p in text.split(","))):
        name = part.partition(":")[0]
        if specs and ":" in specs[-1] and "=" in name:
            specs[-1] += "," + part
        else:
            specs.append(part)
    return specs


def display_name(spec: str) -> str:
    """The short name a bot of ``spec`` goes by in tables, plots, records and ``hello``:
    its ``name=``, else the spec itself, except that an external bot is named after its
    program's file (``external:rex.py``), never by its command line.

    Raises:
        BotError: as ``make_bot``.
    """
    spec, name = split_name(spec)
    if name is not None:
        return name
    if spec.partition(":")[0] == "external":
        return make_bot(spec).name  # starts no program: that waits for the first decision
    return spec


def name_after_game(spec: str, bot: Bot) -> str:
    """The name a bot of ``spec`` goes by once it has played: its ``name=``, else the
    name it gave itself (an external program's ``ready``: ``program_name``), else
    ``display_name(spec)``."""
    own = getattr(bot, "program_name", None)
    if split_name(spec)[1] is None and isinstance(own, str) and DISPLAY_NAME.fullmatch(own):
        return own
    return display_name(spec)


def parse_options(text: str, allowed: dict[str, type]) -> dict[str, float | int | str]:
    """Options ``key=value,key=value`` of a bot spec, converted to the allowed types."""
    options: dict[str, float | int | str] = {}
    for part in filter(None, (p.strip() for p in text.split(","))):
        key, sep, raw = part.partition("=")
        if not sep or key not in allowed:
            _refuse_option(part, allowed)
        try:
            options[key] = allowed[key](raw)
        except ValueError as exc:
            said = {"part": repr(part), "value": repr(raw)}
            if allowed[key] is int:
                raise BotSpecError("bot option {part}: {value} is not a whole number",
                                   said) from exc
            raise BotSpecError("bot option {part}: {value} is not a number", said) from exc
    return options


def _refuse_option(part: str, allowed: dict[str, type]) -> NoReturn:
    """Refuse an option ``part`` that is none of ``allowed``, naming those there are."""
    if not allowed:
        raise BotSpecError("bot option {part}: this bot takes no options but name=",
                           {"part": repr(part)})
    raise BotSpecError("bot option {part}: use {keys}",
                       {"part": repr(part), "keys": ", ".join(f"{k}=..." for k in allowed)})


def _load_builtin() -> None:
    """Import every module of the bots package once, so that each bot's ``@register`` has
    run: a new bot is one new file in ``noreturn/bots/`` (or ``bots/yardsticks/``)."""
    package = importlib.import_module("noreturn.bots")
    for module in pkgutil.walk_packages(package.__path__, "noreturn.bots."):
        importlib.import_module(module.name)
