"""A finished game, turn by turn, as a spectator saw it: the replay page's data.

Built from the stored record (docs/record-format.md) alone, so a replay needs neither the
seed nor this version's deck. Every line and view is the public one: draws, exchanged and
set-aside tiles are counts. Beside each view, ``hands`` holds every seat's hand at that
step, each through the engine's gate for its own seat (``view(state, seat)``): the game is
over, so nothing is hidden any more (the record itself, downloadable now, holds them all),
and the replay page shows what each player held.
"""

from __future__ import annotations

from typing import Any

from noreturn.bots.viewjson import view_to_json
from noreturn.engine import EventKind, EventView, GameState, observe, tile_code, view
from noreturn.records import Record, replay_states
from noreturn.text.lang import _
from noreturn.text.narrate import LAST_ROUND, narrate_game_over, narrate_turn


def public_replay(record: Record) -> dict[str, Any]:
    """``{"names": [...], "steps": [{"log": line, "view": public view, "hands": [[tile
    codes of seat 0's hand], ...], "event": index}, ...]}``. Only for a finished game's
    record: the hands are hidden information while a game runs. ``event`` is the index in
    the record's events of the step's first event (a review's decisions name theirs).

    The first step is the deal; then one step per action (a declaration is its own step),
    its refill included. Every event is what a spectator observes through the engine's
    gate (``observe(event, None)``), told as the live log tells it. Raises ``RecordError``
    for a record that is not a record.
    """
    names = [str(p.get("name", f"P{i}")) for i, p in enumerate(record["players"])]
    steps: list[dict[str, Any]] = []
    lines: list[str] = []
    current: dict[str, Any] | None = None
    action: EventView | None = None  # the step's action, until its refill is told with it
    ending = False
    for step in replay_states(record):
        state, name = step.state, names[step.move.player]
        seen = observe(step.happened, None)
        if seen.kind is EventKind.DEAL or (seen.kind is EventKind.DRAW and action is None):
            lines.append(narrate_turn(name, None, seen))
        elif seen.kind is EventKind.DRAW:
            lines[-1] = narrate_turn(name, action, seen)
        else:
            action, lines, current = seen, [narrate_turn(name, seen, None)], None
        if current is None:
            current = {"log": "", "view": None, "hands": [], "event": step.index}
            steps.append(current)
        if state.ending and not ending:
            lines.append(_(LAST_ROUND))
        ending = state.ending
        if state.is_over():
            lines.append(narrate_game_over(names, state.scores(), not state.ending))
        current["view"] = view_to_json(view(state, None))
        current["hands"] = hands(state)
        current["log"] = "; ".join(lines)
    return {"names": names, "steps": steps}


def hands(state: GameState) -> list[list[str]]:
    """Every seat's hand as its own seat sees it (ascending tile codes)."""
    return [[tile_code(t) for t in view(state, seat).hand or ()]
            for seat in range(state.rules.players)]


__all__ = ["hands", "public_replay"]
