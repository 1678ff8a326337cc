"""``noreturn play --plain``: the game as plain line prompts, against random bots.

For terminals without full-screen support and for scripts: it reads moves as text lines
(the shared action text, or a number from the ``?`` list) and writes plain lines. Every
rule comes from the engine; this module only asks, shows and records.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from datetime import datetime
from pathlib import Path
from random import Random
from typing import TextIO

from noreturn.engine import (
    Action,
    Declare,
    Draw,
    GameState,
    Mulligan,
    NoReturnError,
    Rules,
    Score,
    legal_actions,
    new_game,
    parse_action,
    parse_tile,
    rollout_action,
    view,
    why_illegal,
)
from noreturn.engine.state import DEAL, MULLIGAN
from noreturn.narrate import narrate_action, narrate_draw, render_table
from noreturn.records import RecordWriter, default_meta, write_record

BOT_NAMES = ("Bea", "Cy", "Dot")
LIST_LIMIT = 40
HELP = """\
Type a move, or a number from the list that ? shows:
  place R11 R9          put tiles of one colour on your row of that colour (phase 1)
  exchange B3 G7        remove 1-4 tiles from the game and draw as many
  declare               switch to phase 2 for good; then score or exchange this turn
  score R x2 pay B7 B5  score the 2 lowest tiles of your R row, paying with blue tiles
  ? [word]              list your legal moves (optionally only those containing word)
  rules                 the rules in brief;  quit  stop (the game so far is saved)
At the mulligan, type the tiles to set aside (R3 B5) or press Enter to keep your hand."""
RULES_BRIEF = """\
No Return in brief: 132 tiles, 6 colours, values 1-11, two of each. Phase 1: each turn
EXCHANGE up to 4 tiles or PLACE tiles of one colour on your row of that colour, each no
higher than the row's lowest tile. When you like, DECLARE phase 2 (there is no return):
then each turn EXCHANGE or SCORE the lowest tiles of a row, paying with hand tiles of one
colour worth at least their sum. Refill to 8 after each turn. When the bag runs empty the
round is finished. Score = your score pile minus the tiles still in your rows."""


def default_save_dir() -> Path:
    """Where finished games are saved: ``$XDG_DATA_HOME/noreturn/games``."""
    base = os.environ.get("XDG_DATA_HOME") or Path.home() / ".local" / "share"
    return Path(base) / "noreturn" / "games"


class QuitError(Exception):
    """The human stopped the game (``quit`` or end of input)."""


class PlainGame:
    """One game: a human at seat 0, random bots at the other seats."""

    def __init__(self, players: int, name: str, seed: int | None,
                 read: Callable[[str], str], write: Callable[[str], None]) -> None:
        self.rng = Random(seed)
        self.state = new_game(Rules(players=players), self.rng)
        self.names = [name, *BOT_NAMES[: players - 1]]
        seats = [{"name": name, "kind": "human"}]
        seats += [{"name": n, "kind": "bot", "policy": "random"} for n in self.names[1:]]
        self.writer = RecordWriter(self.state, players=seats, meta=default_meta())
        self.read, self.write = read, write
        self._drawn: list[int] = []

    def run(self) -> GameState:
        """Play to the end (or until ``QuitError``); returns the final state."""
        state = self.state
        self.write(f"No Return: you are {self.names[0]}, seat 0. Type help for the moves.")
        while not state.is_over():
            if state.is_chance():
                self._draw()
                continue
            seat = state.to_move
            action = self._ask() if seat == 0 else rollout_action(state, self.rng)
            row = state.rows[seat][action.row] if isinstance(action, Score) else []
            self.writer.observe(state, action)
            state.play(action)
            self.write(narrate_action(self.names[seat], action, seat == 0, tuple(row)))
        return state

    def _draw(self) -> None:
        state = self.state
        seat, dealt = state.to_move, state.stage == DEAL
        draw = state.sample_draw(self.rng)
        self.writer.observe(state, draw)
        state.play(draw)
        self._drawn.append(draw.tile)
        if not state.draws_due or state.to_move != seat:
            self.write(narrate_draw(self.names[seat], self._drawn, seat == 0, dealt))
            self._drawn = []

    def _ask(self) -> Action:
        state = self.state
        self.write("")
        self.write(render_table(view(state, 0), self.names))
        while True:
            line = self.read("mulligan> " if state.stage == MULLIGAN else "your move> ").strip()
            try:
                action = self._interpret(line)
            except NoReturnError as exc:
                self.write(f"  {exc}")
                continue
            if action is None:
                continue
            problem = _why_not(state, action)
            if problem is None:
                return action
            self.write(f"  not allowed: {problem}")

    def _interpret(self, line: str) -> Action | None:
        """The action a line asks for, or ``None`` after answering a question."""
        word = line.split(maxsplit=1)[0].lower() if line.split() else ""
        if word in ("quit", "exit"):
            raise QuitError
        if word in ("help", "h"):
            self.write(HELP)
            return None
        if word == "rules":
            self.write(RULES_BRIEF)
            return None
        if word == "?" or line.startswith("?"):
            self._list(line[1:].strip())
            return None
        if line.isdigit():
            return self._numbered(int(line))
        if self.state.stage == MULLIGAN and (not line or word in ("keep", "none")):
            return Mulligan(())
        if self.state.stage == MULLIGAN and word != "mulligan":
            return Mulligan(tuple(parse_tile(w) for w in line.split()))
        action = parse_action(line)
        if isinstance(action, Declare) and not self._confirm():
            return None
        return action

    def _confirm(self) -> bool:
        answer = self.read("declare phase 2? You can never place again. [y/N] ")
        return answer.strip().lower() in ("y", "yes")

    def _list(self, word: str) -> None:
        actions = legal_actions(self.state)
        shown = [(i, a) for i, a in enumerate(actions) if word.lower() in str(a)]
        for i, action in shown[:LIST_LIMIT]:
            self.write(f"  {i:4d}  {action}")
        if len(shown) > LIST_LIMIT:
            self.write(f"  ... {len(shown) - LIST_LIMIT} more: narrow the list, e.g. ? score R")

    def _numbered(self, number: int) -> Action:
        actions = legal_actions(self.state)
        if not 0 <= number < len(actions):
            raise NoReturnError(f"there is no move {number}: type ? to list them")
        return actions[number]


def _why_not(state: GameState, action: Action) -> str | None:
    if isinstance(action, Draw):
        return "draws are made for you"
    return why_illegal(state, action)


def run_plain(players: int = 2, name: str = "Ada", seed: int | None = None,
              stdin: TextIO | None = None, save_dir: Path | None = None,
              write: Callable[[str], None] = print) -> int:
    """Play one plain game on standard input and output; returns the exit code."""
    def read(prompt: str) -> str:
        if stdin is None:
            return input(prompt)
        write(prompt)
        line = stdin.readline()
        if not line:
            raise QuitError
        return line

    game = PlainGame(players, name, seed, read, write)
    try:
        state = game.run()
    except (QuitError, EOFError, KeyboardInterrupt):
        write("game stopped.")
        state = game.state
    target = (save_dir or default_save_dir())
    target.mkdir(parents=True, exist_ok=True)
    path = write_record(game.writer.record(state),
                        target / f"game-{datetime.now():%Y%m%d-%H%M%S}-{os.getpid()}.json")
    if state.is_over():
        write(final_scores(state, game.names))
    write(f"record saved: {path}  (see it again: noreturn replay {path})")
    return 0


def final_scores(state: GameState, names: list[str]) -> str:
    """The end: each score with its arithmetic, and the ranks."""
    lines = ["final scores:"]
    ranked = sorted(zip(state.ranks(), range(state.n), state.scores(), strict=True))
    for rank, seat, score in ranked:
        lines.append(f"  {rank}. {names[seat]}: {score} = pile {state.pile_sums[seat]} "
                     f"- rows {state.row_sum(seat)}")
    return "\n".join(lines)
