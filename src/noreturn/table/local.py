"""A game at one local table: seats (people or bots), turns, the log, undo, hints, the record.

Both terminal front ends (the Textual app and ``--plain``) sit on this class, and it knows
nothing of either: it takes actions and answers with text, so the same table logic is
tested without a screen, and the server can follow the same shape for remote seats.

What it guarantees:

- The engine is the only judge: ``try_action`` asks ``why_illegal`` and plays only legal
  actions; a refused action changes nothing.
- Nothing hidden reaches a seat that may not see it: each person's log is written from
  their own point of view (other players' exchanges, set-aside tiles and draws are counts).
- Chance comes from a ``Deck`` seeded once, so a seed gives the same bag every time, until
  an undo (the person saw what the undone move drew): the bag and the bots' generators are
  then ordered afresh from a new secret, and ``meta.reshuffled_at_events`` lists where the
  ``seed`` stopped telling the draws (which are in the record, as always).
- The record is kept as the game goes, so it can be saved at any moment (quit included).
- The same seed and the same stored actions (``replay``, ``replace_by_bot``) rebuild the
  same game, logs and version: the web server keeps only those and resumes after a restart.
"""

from __future__ import annotations

import contextlib
import copy
import os
import secrets
from collections.abc import Callable, Sequence
from datetime import datetime
from functools import partial
from pathlib import Path
from random import Random
from typing import Any

from noreturn.bots import loop
from noreturn.bots.base import Bot, make_bot
from noreturn.bots.match import Deck
from noreturn.engine import (
    DEAL,
    Action,
    Declare,
    Draw,
    GameState,
    NoReturnError,
    Refusal,
    Rules,
    View,
    event_of,
    legal_actions,
    refusal,
    reshuffled,
    texts_of,
    view,
    why_illegal,
)
from noreturn.files import OutputDir, OutputError
from noreturn.records import RecordWriter, default_meta, write_record
from noreturn.table.help import PersonHelp
from noreturn.table.progress import BotMove, Progress, TurnNote
from noreturn.table.seats import DEFAULT_BOT, Seat, default_save_dir
from noreturn.text.lang import N_, Later, _, words
from noreturn.text.narrate import LAST_ROUND, narrate_game_over
from noreturn.text.refusals import refusal_text

SECRET_SEEDS = 2**53
"""A game dealt without a given seed draws one below this: far too many to try each
against the draws a saved game in progress shows (2**32 could be), and a whole number
that JSON readers keep exactly (``meta.seed`` of the finished record)."""


class LocalTable(PersonHelp):
    """One game at a local table; see the module docstring for what it guarantees.

    The help for the person to move (a hint, the tile tracker, the switch advice) is
    ``PersonHelp``'s, in ``noreturn.table.help``.
    """

    def __init__(self, seats: Sequence[Seat], rules: Rules | None = None,
                 seed: int | str | None = None, save_dir: Path | None = None,
                 undo: bool = True, deck: Deck | None = None) -> None:
        """Seat everyone, shuffle the bag from ``seed`` and deal (stopping at a decision).

        ``undo=False`` turns undo off, and with it the copy of the game kept before each
        move (a server with many tables must not pay for it). ``deck`` deals instead of the
        seed's (a resumed game's recorded draws).

        Raises:
            NoReturnError: the rules are for another number of players, or a bot spec is
                unknown (``BotError``).
        """
        self.seats = list(seats)
        self.rules = rules or Rules(players=len(self.seats))
        if self.rules.players != len(self.seats):
            raise NoReturnError(f"{len(self.seats)} seats for a {self.rules.players}-player game")
        self.seed = seed if seed is not None else secrets.randbelow(SECRET_SEEDS)
        self.bots: list[Bot | None] = [None if s.human else make_bot(s.bot or "") for s in seats]
        self.save_dir = save_dir
        self.path: Path | None = None
        self._output: OutputDir | None = None
        self._file = ""
        self._undo = undo
        deck = deck or Deck(self.rules, self.seed)
        state = GameState(self.rules, deck.start_player)
        meta = {**default_meta(), "seed": self.seed}
        writer = RecordWriter(state, [s.record_entry() for s in self.seats], meta)
        readers: list[int | None] = [i for i, s in enumerate(self.seats) if s.human]
        self._now = Progress(
            state, deck, writer,
            [Random(f"bot:{self.seed}:{i}") for i in range(len(self.seats))],
            {r: [] for r in [*readers, None]},
        )
        self._checkpoints: list[Progress] = []
        self._legal_texts: tuple[int, list[str]] = (-1, [])
        self._declared_since = False
        self._draw_all()

    # ------------------------------------------------------------------ questions
    @property
    def state(self) -> GameState:
        """The full state: for the table's own use and tests; show people only views."""
        return self._now.state

    @property
    def names(self) -> list[str]:
        """Each seat's name."""
        return [s.name for s in self.seats]

    @property
    def version(self) -> int:
        """Changes whenever the game changes (an undo included): a stale answer is refused."""
        return self._now.version

    @property
    def humans(self) -> list[int]:
        """The seats played by people."""
        return [i for i, s in enumerate(self.seats) if s.human]

    def is_over(self) -> bool:
        """Whether the game has ended."""
        return self.state.is_over()

    def to_move(self) -> int | None:
        """The seat to decide now, or None when the game is over."""
        return None if self.is_over() else self.state.to_move

    def human_to_move(self) -> bool:
        """Whether a person is to decide now."""
        seat = self.to_move()
        return seat is not None and self.seats[seat].human

    def bot_to_move(self) -> bool:
        """Whether a bot is to decide now."""
        seat = self.to_move()
        return seat is not None and not self.seats[seat].human

    def view_for(self, seat: int | None) -> View:
        """What ``seat`` may see now (None: a spectator)."""
        return view(self.state, seat)

    def legal_actions(self) -> list[Action]:
        """The legal actions of the person to move, in canonical order ([] on a bot's turn)."""
        return legal_actions(self.state) if self.human_to_move() else []

    def legal_texts(self) -> list[str]:
        """``legal_actions`` as text: kept per version, since a server sends them with
        every state message of the seat to move and they cost more than the message."""
        if self._legal_texts[0] != self.version:
            self._legal_texts = (self.version, texts_of(self.legal_actions()))
        return list(self._legal_texts[1])

    def log(self, seat: int | None) -> list[str]:
        """The turn log as ``seat`` may read it (a person's seat, or None for spectators)."""
        return [str(line) for line in self._now.logs.get(seat, self._now.logs[None])]

    def why_not(self, action: Action) -> str | None:
        """Why the person to move may not play ``action`` now, or None if they may."""
        refused = self.refusal(action)
        return None if refused is None else refusal_text(refused)

    def refusal(self, action: Action) -> Refusal | None:
        """Why the person to move may not play ``action`` now, with the rule's code (the
        engine's, ``RULE_CODES``), or None if they may."""
        if self.is_over():
            return Refusal("game_over", "the game is over")
        if not self.human_to_move():
            return Refusal("not_your_turn", "it is {name}'s turn",
                           {"name": self.names[self.state.to_move]})
        if isinstance(action, Draw):
            return Refusal("no_draw_due", "draws are made for you")
        return refusal(self.state, action)

    # -------------------------------------------------------------------- people
    def try_action(self, action: Action) -> str | None:
        """Play ``action`` for the person to move if the rules allow it.

        Returns:
            None when played; otherwise the reason in a player's words, and nothing changed.
        """
        problem = self.why_not(action)
        if problem is not None:
            return problem
        self._person_plays(action)
        return None

    def undo_allowed(self) -> bool:
        """Undo is for one person against bots: taking back a move never wrongs another."""
        return self._undo and len(self.humans) == 1

    def why_no_undo(self) -> str | None:
        """Why ``undo`` would be refused now, or None if it would work."""
        if not self.undo_allowed():
            return _("undo is only for games against bots")
        if self.is_over():
            return _("the game is over")
        if not self._checkpoints:
            if self._declared_since:
                return _("a declaration cannot be undone: there is no return")
            return _("nothing to undo yet")
        return None

    def undo(self) -> str | None:
        """Go back to the person's previous decision: state, record and log as then.

        The bag holds the same tiles as then, in a fresh secret order (see ``_reshuffle``).

        Returns:
            None when done; otherwise why not, and nothing changed.
        """
        problem = self.why_no_undo()
        if problem is not None:
            return problem
        version = self._now.version
        self._now = self._checkpoints.pop()
        self._now.version = version + 1
        self._reshuffle()
        return None

    def _reshuffle(self, secret: int | None = None) -> None:
        """Order the bag afresh from a new secret seed (``secret``: a given one, which a
        server stores to rebuild the game), the bots' generators too.

        The person has seen what the undone move drew (and how the bots answered): with the
        old order the same move would draw the same tiles again. The record's ``meta``
        notes the event from which the table's ``seed`` no longer tells the draws.
        """
        now, secret = self._now, secrets.randbits(64) if secret is None else secret
        now.deck = reshuffled(now.state, secret)
        now.rngs = [Random(f"bot:{secret}:{i}") for i in range(len(self.seats))]
        meta = now.writer.meta if now.writer.meta is not None else {}
        now.writer.meta = {**meta, "reshuffled_at_events": [
            *meta.get("reshuffled_at_events", []), len(now.writer.events)]}

    # ---------------------------------------------------------------------- bots
    def decide_bot(self) -> BotMove:
        """The decision of the bot to move; changes nothing, so it may run in a thread.

        A bot that fails (or answers an illegal action) is replaced by the fallback bot,
        and the move's ``note`` says so: the game loop's ``decide_safely``, as everywhere.
        """
        return self.bot_job()()

    def bot_job(self) -> Callable[[], BotMove]:
        """The bot's decision to make later, on what it may see now.

        The view and the legal actions are taken now, so the returned function reads
        nothing of the table: it may run in another thread while the table changes (a
        stale move is then refused by ``apply_bot``).

        Raises:
            NoReturnError: no bot is to move.
        """
        seat = self.state.to_move
        if not self.bot_to_move():
            raise NoReturnError("no bot is to move")
        seen, legal = self.view_for(seat), legal_actions(self.state)
        rng, bot, version, name = self._now.rngs[seat], self._bot(seat), self.version, \
            self.names[seat]

        def decide() -> BotMove:
            action, fault = loop.decide_safely(bot, seen, legal, rng)
            return BotMove(version, seat, action, "" if fault is None else
                           loop.fallback_note(name, fault))

        return decide

    def apply_bot(self, move: BotMove) -> bool:
        """Play a bot's decision, unless the game changed since it was asked (then False)."""
        if move.version != self.version or not self.bot_to_move():
            return False
        self._apply(move.action, move.note)
        return True

    # ------------------------------------------------------------ stored games
    def continue_file(self, path: Path, meta: dict[str, Any]) -> None:
        """Save to ``path`` from now on (a resumed game finishes its own record), with the
        record's ``meta`` as it was, noting where the bag was shuffled afresh (a file saved
        before games in progress were saved without their seed still names one, which
        tells the draws only up to there)."""
        self._output, self._file = OutputDir(path.parent, "games"), path.name
        at = [*meta.get("reshuffled_at_events", []), len(self._now.writer.events)]
        self._now.writer.meta = {**meta, "reshuffled_at_events": at}

    def replay(self, action: Action, note: str = "") -> None:
        """Play a stored action of whoever is to move, person or bot, as the engine allows.

        This is how a game is rebuilt from its seed and its stored actions (a server
        after a restart); ``note`` is a bot move's note (its bot failed), said again.

        Raises:
            NoReturnError: the action is not legal now (the stored game is not this one).
        """
        if self.is_over():
            raise NoReturnError(f"cannot replay {action}: the game is over")
        if isinstance(action, Draw):
            raise NoReturnError("draws are not stored: the deck makes them")
        problem = why_illegal(self.state, action)
        if problem is not None:
            raise NoReturnError(f"cannot replay {action}: {problem}")
        if self.human_to_move():
            self._person_plays(action)
        else:
            self._apply(action, note)

    def replace_by_bot(self, seat: int, spec: str = DEFAULT_BOT) -> None:
        """A person leaves during the game: the bot ``spec`` plays their seat from now on.

        The log says so, the record's player entry notes ``replaced_by``, the person's own
        log is dropped (nobody may read that seat's hidden tiles any more), undo is
        cleared and the version moves on.

        Raises:
            NoReturnError: no such seat, a bot's seat already, the game is over, or an
                unknown bot ``spec`` (``BotError``).
        """
        if type(seat) is not int or not 0 <= seat < len(self.seats):
            raise NoReturnError(f"seat must be 0..{len(self.seats) - 1}, not {seat!r}")
        if not self.seats[seat].human:
            raise NoReturnError(f"seat {seat} is already played by a bot")
        if self.is_over():
            raise NoReturnError("the game is over")
        bot = make_bot(spec)
        name = self.seats[seat].name
        self.seats[seat] = Seat(name, spec)
        self.bots[seat] = bot
        self._checkpoints.clear()
        self._now.logs.pop(seat, None)
        self._now.writer.players[seat] = {**self._now.writer.players[seat], "replaced_by": spec}
        self._say(Later(words, N_("{name} left the table; a {spec} bot plays on"),
                        {"name": name, "spec": spec}))
        self._now.version += 1

    def run_bots(self) -> None:
        """Let the bots play until a person must decide or the game ends."""
        while self.bot_to_move():
            self.apply_bot(self.decide_bot())

    def _bot(self, seat: int) -> Bot:
        bot = self.bots[seat]
        if bot is None:
            raise NoReturnError(f"seat {seat} is a person's")
        return bot

    # -------------------------------------------------------------------- result
    def result_lines(self) -> list[str]:
        """The end: each score with its arithmetic (pile minus rows), best first."""
        state = self.state
        ranked = sorted(zip(state.ranks(), range(state.n), state.scores(), strict=True))
        return [_("{rank}. {name}: {score} = pile {pile} - rows {rows}").format(
            rank=rank, name=self.names[seat], score=score, pile=state.pile_sums[seat],
            rows=state.row_sum(seat)) for rank, seat, score in ranked]

    def record(self) -> dict[str, Any]:
        """The game's record as it stands (with the result once the game is over).

        Before the end its ``meta`` leaves the deck's seed out: the game is saved at each of
        the person's turns to a file they can open, and the seed tells the draws to come.
        Resuming needs no seed (``resume``: the bag is shuffled afresh)."""
        record = self._now.writer.record(self.state)
        if not self.is_over():
            record.get("meta", {}).pop("seed", None)  # (the record's meta is a copy)
        return record

    def save(self) -> Path:
        """Write the record (again to the same file on later calls); returns its path.

        When the save folder fails, the record goes to a fallback folder and
        ``save_note`` says so (see ``noreturn.files``).

        Raises:
            OutputError: no folder at all could take the record.
        """
        if self._output is None:
            self._output = OutputDir(self.save_dir or default_save_dir(), "games")
            self._file = self._output.free_name(
                f"game-{datetime.now():%Y%m%d-%H%M%S}-{os.getpid()}", ".json")
        record = self.record()
        self.path = self._output.write(self._file, partial(write_record, record))
        return self.path

    def save_progress(self) -> None:
        """Save the game so far, quietly: the front ends call it at each person's turn, so
        a closed terminal or a killed process loses at most the turn under way (``noreturn
        play --resume`` goes on from there). A server's tables never call it (their moves
        are in the database). A folder that fails is said by the next ``save``."""
        with contextlib.suppress(OutputError):
            self.save()

    @property
    def save_note(self) -> str | None:
        """Why the record went to a fallback folder, or None if it went where asked."""
        return None if self._output is None else self._output.problem

    # ------------------------------------------------------------------- changes
    def _person_plays(self, action: Action) -> None:
        """Play a person's legal action, keeping the undo checkpoint when undo is on."""
        if self.undo_allowed():
            self._checkpoints.append(copy.deepcopy(self._now))
        if isinstance(action, Declare):  # no return: nothing before it can be taken back
            self._checkpoints.clear()
            self._declared_since = True
        self._play(action)

    def _apply(self, action: Action, note: str) -> None:
        """Play a bot's legal action; a failed bot's ``note`` goes first (its fallback on),
        and its fault into the record, as in every game (``noreturn.bots.loop``)."""
        if note:
            seat = self.state.to_move
            self.bots[seat] = make_bot(loop.FALLBACK)
            loop.record_fault(self._now.writer, seat, loop.fault_in_note(self.names[seat], note))
            self._say(Later(str, note))
        self._play(action)

    def _play(self, action: Action) -> None:
        """Apply a legal action, then every draw it causes, and tell it in the logs."""
        now = self._now
        seat = now.state.to_move
        event = event_of(now.state, action)
        now.writer.observe(now.state, action)
        now.state.play(action)
        now.version += 1
        now.turn = TurnNote(seat, event)
        if isinstance(action, Declare):
            self._flush()
        self._draw_all()
        if now.state.is_over():
            self._say(Later(narrate_game_over, self.names, now.state.scores(),
                            not now.state.ending))

    def _draw_all(self) -> None:
        """Make every draw due now from the deck (the game loop's ``draw_due``), noting
        them for the log."""
        now = self._now
        ending = now.state.ending
        loop.draw_due(now.state, now.deck, now.writer, self._drawn)
        self._flush()
        if now.state.ending and not ending:
            self._say(Later(_, LAST_ROUND))

    def _drawn(self, state: GameState, draw: Draw) -> None:
        """Note a draw, about to be made in ``state``, in the turn it belongs to."""
        now = self._now
        seat = state.to_move
        if now.turn is None or now.turn.seat != seat:
            self._flush()
            now.turn = TurnNote(seat, None, dealt=state.stage == DEAL)
        now.turn.drawn.append(draw.tile)

    def _flush(self) -> None:
        """Write the pending turn into every reader's log, each from their point of view."""
        turn = self._now.turn
        self._now.turn = None
        if turn is None:
            return
        for reader, lines in self._now.logs.items():
            lines.append(Later(turn.line, self.names[turn.seat], reader))

    def _say(self, line: Later) -> None:
        """A public line in every log."""
        for lines in self._now.logs.values():
            lines.append(line)


__all__ = ["BotMove", "LocalTable"]
