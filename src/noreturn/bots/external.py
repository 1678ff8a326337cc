"""External bots: programs in any language that play over JSON lines (docs/bot-protocol.md).

``external:COMMAND`` runs COMMAND as a child process, one process per game, and speaks to
it through its standard input and output, in the spirit of UCI for chess engines: a
``hello`` with the rules and the seat, then for each decision the seat's view (the JSON of
``viewjson.view_to_json``, so only what the seat may see) and the legal actions in their
text form; the program answers with one of those texts.

The host never trusts the program. Its output is read by a thread into a queue, and input
is written by another thread, so a program that hangs or stops reading cannot block the
host: every wait has a deadline. Any failure (a crash, a hang, a line that is not a
protocol message, an action that is not legal) kills the process and raises ``BotError``
with a one-line reason, which ``play_game`` turns into a forfeit: a fallback bot plays on
for the seat, and the result and the record carry the reason. On POSIX the program runs in
its own process group, and the whole group is killed, so helpers it started die with it.

The program's standard error goes to the file named by the ``log=`` option, or nowhere: it
never mixes into the host's output, and never into a forfeit reason (which a server may
show to other players).
"""

from __future__ import annotations

import json
import logging
import queue
import shlex
import time
import weakref
from collections import deque
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import PurePath
from random import Random
from types import TracebackType
from typing import Any

from noreturn.bots.base import DISPLAY_NAME, BotError, BotSpecError, register
from noreturn.bots.process import MAX_LINE, Channel
from noreturn.bots.viewjson import view_to_json
from noreturn.engine import Action, NoReturnError, Rules, Stage, View, parse_action

PROTOCOL = "noreturn-bot"
VERSION = 1
DEFAULT_TIME = 5.0
"""Seconds a program has for one decision (option ``time=``)."""
DEFAULT_START = 10.0
"""Seconds a program has to answer ``hello`` with ``ready`` (option ``start=``)."""
CLOSE_GRACE = 1.0
"""Seconds a program has to exit by itself once its input is closed; then it is killed."""
USAGE = "external:[time=SECONDS] [start=SECONDS] [log=FILE] COMMAND"

MAX_SECONDS = 3600.0
"""The longest time limit an option may set: a bot that hangs must still forfeit some day
(``time=1e308`` would have waited for ever)."""

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class ExternalSpec:
    """What ``external:...`` asks for: the command and its limits."""

    command: tuple[str, ...]
    time_limit: float = DEFAULT_TIME
    start_limit: float = DEFAULT_START
    log_path: str | None = None


def parse_spec(text: str) -> ExternalSpec:
    """Read the text after ``external:``: leading ``KEY=VALUE`` words, then the command.

    The whole rest is the command, split like a shell would (``shlex``), so a command may
    hold ``:`` and ``,``. Only the words ``time=``, ``start=`` and ``log=`` in front are
    options; the first other word starts the command.

    Raises:
        BotSpecError: no command, unbalanced quotes, or a limit that is not a positive
            number.
    """
    try:
        words = shlex.split(text)
    except ValueError as exc:
        raise BotSpecError("external bot {spec}: {problem}; use {keys}",
                           {"spec": repr(text), "problem": str(exc), "keys": USAGE}) from exc
    options: dict[str, str] = {}
    while words and words[0].partition("=")[0] in ("time", "start", "log") and "=" in words[0]:
        key, _, value = words.pop(0).partition("=")
        options[key] = value
    if not words:
        raise BotSpecError("external bot {spec}: no command to run; use {keys}, e.g. "
                           "external:python examples/random_bot.py",
                           {"spec": repr(text), "keys": USAGE})
    return ExternalSpec(
        command=tuple(words),
        time_limit=_seconds(options, "time", DEFAULT_TIME),
        start_limit=_seconds(options, "start", DEFAULT_START),
        log_path=options.get("log") or None,
    )


def program_file(command: Sequence[str]) -> str:
    """The file name of the program ``command`` runs, to name its bot by (no directories).

    The first argument that is a path or a file name (``python bots/rex.py``, ``java -jar
    rex.jar``: a ``/`` or a ``.`` in it, no leading ``-``), else the command itself
    (``./rex --fast``). A ``name=`` in the spec names the bot when this guesses wrong.
    """
    chosen = next((w for w in command[1:] if not w.startswith("-")
                   and any(mark in w for mark in "/\\.")), command[0])
    return PurePath(chosen.replace("\\", "/")).name or chosen


def _seconds(options: dict[str, str], key: str, default: float) -> float:
    """A positive number of seconds from ``options[key]``, or ``default``."""
    if key not in options:
        return default
    try:
        value = float(options[key])
    except ValueError:
        value = float("nan")
    if not 0 < value <= MAX_SECONDS:
        raise BotSpecError("external bot option {key}={value}: give a positive number of "
                           "seconds up to {high}, such as time=2",
                           {"key": key, "value": repr(options[key]),
                            "high": format(MAX_SECONDS, "g")})
    return value


class ExternalBot:
    """A bot played by another program over the protocol of docs/bot-protocol.md.

    A process is started at a game's first decision and ended by ``end_game`` (which sends
    the result), by ``close``, by a failure, or when a new game starts (a view in the
    mulligan stage, another seat, other rules or fewer turns than before). Usable as a
    context manager; at interpreter exit any process still running is killed.

    Attributes:
        name: what tables, plots, records and ``hello`` call it: the ``name=`` of its spec
            when given, else the name the program gave in ``ready`` (once it has), else
            ``external:`` and the program's file name; never the command line.
        program_name: the name the program gave in its ``ready`` message, if it is a
            short plain name (``base.DISPLAY_NAME``); a longer one is ignored.
        infos: the latest ``info`` texts the program sent (also logged at INFO level).
        pids: the id of every process started, so callers can check none is left.
        startup_seconds: the time spent starting programs (from the start of the process
            to its ``ready``), all games together; the game runner counts it apart from
            the decisions' time (``Bot``).
    """

    def __init__(self, spec: ExternalSpec, name: str | None = None) -> None:
        """A bot for ``spec``, called ``name`` if given; no process runs until the first
        decision."""
        self.spec = spec
        self._name = name
        self.program_name: str | None = None
        self.infos: deque[str] = deque(maxlen=100)
        self.pids: list[int] = []
        self.startup_seconds = 0.0
        self.names: list[str] | None = None
        self._channel: Channel | None = None
        self._finalizer: weakref.finalize[Any, Any] | None = None
        self._game: tuple[int | None, Rules, int] | None = None  # seat, rules, turns seen
        self._id = 0

    @classmethod
    def from_spec(cls, text: str) -> ExternalBot:
        """The bot of ``external:TEXT`` (named as ``name`` says)."""
        return cls(parse_spec(text))

    @property
    def name(self) -> str:
        """The name given, else the program's own, else ``external:`` and its file name."""
        return self._name or self.program_name or f"external:{program_file(self.spec.command)}"

    @name.setter
    def name(self, value: str) -> None:
        self._name = value

    def start_game(self, seat: int, names: Sequence[str]) -> None:
        """Hook before a game: the players' names for ``hello``; ends any game still running.

        ``seat`` is the seat it will play; the views say so too, so it needs no keeping.
        """
        self.close()
        self.names = list(names)

    def act(self, view: View, legal: Sequence[Action], rng: Random) -> Action:
        """Ask the program; kills it and raises ``BotError`` on any failure."""
        try:
            if self._new_game(view):
                self._start(view, rng)
            action = self._decide(view, legal)
        except BotError:
            self._shut(grace=0.0)
            raise
        self._game = (view.seat, view.rules, view.turns)
        return action

    def end_game(self, view: View) -> None:
        """Hook after a game: send ``game_over`` with the result, then end the process."""
        if self._channel is not None and view.is_over:
            scores = list(view.scores)
            ranks = [1 + sum(other > score for other in scores) for score in scores]
            self._channel.send({"type": "game_over", "scores": scores, "ranks": ranks,
                                "view": view_to_json(view)})
        self.close()

    def close(self) -> None:
        """End the process if one runs: input closed, a short grace, then killed."""
        self._shut(grace=CLOSE_GRACE)

    def __enter__(self) -> ExternalBot:
        return self

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None,
                 trace: TracebackType | None) -> None:
        self.close()

    def __getstate__(self) -> dict[str, Any]:
        """Pickle the configuration only: a copy starts its own process when it plays."""
        return {"spec": self.spec, "name": self._name}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__init__(state["spec"], state["name"])  # type: ignore[misc]

    def _new_game(self, view: View) -> bool:
        """Whether ``view`` starts a game: no process yet, or it cannot follow the last one."""
        if self._channel is None or self._game is None:
            return True
        seat, rules, turns = self._game
        if view.stage is Stage.MULLIGAN or (view.seat, view.rules) != (seat, rules):
            return True  # each seat decides its mulligan once, at the start of a game
        return view.turns < turns

    def _start(self, view: View, rng: Random) -> None:
        """Start a process for a new game and wait for its ``ready``."""
        self.close()
        begin = time.perf_counter()
        try:
            self._start_and_greet(view, rng)
        finally:
            self.startup_seconds += time.perf_counter() - begin

    def _start_and_greet(self, view: View, rng: Random) -> None:
        """Start the program, send ``hello`` and read its ``ready``."""
        self._channel = channel = Channel(self.spec.command, self.spec.log_path)
        self._finalizer = weakref.finalize(self, channel.close, 0.0)
        self.pids.append(channel.proc.pid)
        self._id = 0
        channel.send({
            "type": "hello", "protocol": PROTOCOL, "version": VERSION,
            "rules": view.rules.to_dict(), "seat": view.seat, "names": self.names,
            "start_player": view.start_player, "seed": rng.getrandbits(32),
            "time_limit_ms": round(self.spec.time_limit * 1000),
        })
        ready = self._receive("ready", self.spec.start_limit, "ready answer to hello")
        version = ready.get("version", VERSION)
        if version != VERSION:
            raise BotError(f"protocol: it speaks version {_short(version)}, "
                           f"this host speaks {PROTOCOL} version {VERSION}")
        name = ready.get("name")
        if name is not None and not isinstance(name, str):
            raise BotError(f"garbage: the name in ready is not text: {_short(name)}")
        if name is not None and DISPLAY_NAME.fullmatch(name.strip()):
            self.program_name = name.strip()
        elif name is not None:
            log.info("%s: ignored the name in ready, not a short plain name: %s", self.name,
                     _short(name))

    def _decide(self, view: View, legal: Sequence[Action]) -> Action:
        """Send one ``decide`` and read the answer to it."""
        assert self._channel is not None  # act started one
        self._id += 1
        texts = {str(action): action for action in legal}
        self._channel.send({
            "type": "decide", "id": self._id, "view": view_to_json(view),
            "legal": list(texts), "time_limit_ms": round(self.spec.time_limit * 1000),
        })
        what = f"answer to decision {self._id}"
        answer = self._receive("action", self.spec.time_limit, what)
        if answer.get("id") != self._id:
            raise BotError(f"garbage: answered decision {self._id} with id "
                           f"{_short(answer.get('id'))}")
        text = answer.get("action")
        if not isinstance(text, str):
            raise BotError(f"garbage: the action in its answer is not text: {_short(text)}")
        return _legal_action(text, texts)

    def _receive(self, kind: str, limit: float, what: str) -> dict[str, Any]:
        """The next message of type ``kind``, skipping ``info`` and blank lines, in ``limit`` s.

        Raises:
            BotError: a timeout, the end of the output, or any other line.
        """
        assert self._channel is not None  # act started one
        deadline = time.monotonic() + limit
        while True:
            try:
                line = self._channel.lines.get(timeout=max(0.0, deadline - time.monotonic()))
            except queue.Empty:
                raise BotError(f"timed out: no {what} within {limit:g} s") from None
            if line is None:
                raise BotError(self._ended(what))
            message = _message(line)
            if message is None:
                pass
            elif message["type"] == "info":
                self._info(message)
            elif message["type"] == kind:
                return message
            else:
                raise BotError(f"garbage: a {_short(message['type'])} message where the {what} "
                               "was due")
            if time.monotonic() > deadline:
                raise BotError(f"timed out: no {what} within {limit:g} s")

    def _ended(self, what: str) -> str:
        """The reason for a program whose output ended before ``what``."""
        assert self._channel is not None  # called while one runs
        status = self._channel.exit_status(0.5)
        if status is None:
            return f"crashed: it closed its output before the {what}"
        how = f"exit code {status}" if status >= 0 else f"killed by signal {-status}"
        return f"crashed: its process ended ({how}) before the {what}"

    def _info(self, message: dict[str, Any]) -> None:
        """Keep and log an ``info`` message; it changes nothing."""
        text = str(message.get("text", ""))[:1000]
        self.infos.append(text)
        log.info("%s: %s", self.name, text)

    def _shut(self, grace: float) -> None:
        """End the running process, if any, giving it ``grace`` s to exit by itself."""
        channel, self._channel, self._game = self._channel, None, None
        if self._finalizer is not None:
            self._finalizer.detach()
            self._finalizer = None
        if channel is not None:
            channel.close(grace)


def _message(line: bytes) -> dict[str, Any] | None:
    """One protocol message from a line; None for a blank line.

    Raises:
        BotError: the line is too long, not JSON, or not an object with a text ``type``.
    """
    if len(line) > MAX_LINE:
        raise BotError(f"garbage: a line longer than {MAX_LINE} bytes")
    text = line.decode("utf-8", "replace").strip()
    if not text:
        return None
    try:
        message = json.loads(text)
    except ValueError:
        raise BotError(f"garbage: a line that is not JSON: {_short(text)}") from None
    except RecursionError:  # the parser recurses per level: a hostile line must not crash us
        raise BotError("garbage: a line of JSON nested too deeply") from None
    if not isinstance(message, dict) or not isinstance(message.get("type"), str):
        raise BotError(f"garbage: not a message (an object with a \"type\"): {_short(text)}")
    return message


def _legal_action(text: str, legal: dict[str, Action]) -> Action:
    """The legal action ``text`` names: verbatim, or in another spelling of the same action.

    Raises:
        BotError: the text is not an action, or not a legal one.
    """
    if text in legal:
        return legal[text]
    try:
        action = parse_action(text)
    except NoReturnError:
        raise BotError(f"illegal action: {_short(text)} does not read as an action") from None
    for candidate in legal.values():
        if candidate == action:
            return candidate
    raise BotError(f"illegal action: {_short(text)} is not one of the {len(legal)} legal "
                   "actions")


def _short(value: object, limit: int = 80) -> str:
    """``repr`` of a program's value, cut to ``limit`` characters for a one-line reason."""
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."


@register("external", f"a program speaking docs/bot-protocol.md: {USAGE}")
def _external(options: str) -> ExternalBot:
    return ExternalBot.from_spec(options)
