"""A finished game, turn by turn, as a spectator saw it: the replay page's data.

Built from the stored record (docs/record-format.md) alone, so a replay needs neither the
seed nor this version's deck. Every line and view is the public one: hands, draws, exchanged
and set-aside tiles are counts, even though the record itself (downloadable once the game is
over) holds them all.
"""

from __future__ import annotations

from typing import Any

from noreturn.bots.viewjson import view_to_json
from noreturn.engine import Score, view
from noreturn.narrate import narrate_action, narrate_draw
from noreturn.records import Record, replay_states


def public_replay(record: Record) -> dict[str, Any]:
    """``{"names": [...], "steps": [{"log": line, "view": public view}, ...]}``.

    The first step is the deal; then one step per action (a declaration is its own step),
    its refill included. Raises ``RecordError`` for a record that is not a record.
    """
    names = [str(p.get("name", f"P{i}")) for i, p in enumerate(record["players"])]
    steps: list[dict[str, Any]] = []
    lines: list[str] = []
    current: dict[str, Any] | None = None
    rows_before: list[list[list[int]]] = []
    ending = False
    for step in replay_states(record):
        event, state, player = step.event, step.state, step.move.player
        name = names[player]
        if event["type"] in ("deal", "draw"):
            tiles = list(step.move.tiles)
            if event["type"] == "deal" or not lines:
                lines.append(narrate_draw(name, tiles, visible=False, dealt=True))
            else:
                lines[-1] += f" and drew {len(tiles)}"  # as the live log tells it
        else:
            lines = []
            action = step.move.actions[0]
            row: tuple[int, ...] = ()
            if isinstance(action, Score):
                row = tuple(rows_before[player][action.row])
            lines.append(narrate_action(name, action, visible=False, row=row))
            current = None
        if current is None:
            current = {"log": "", "view": None}
            steps.append(current)
        if state.ending and not ending:
            lines.append("the bag is empty: this is the last round")
        ending = state.ending
        if state.is_over():
            lines.append("game over: " + ", ".join(
                f"{n} {s}" for n, s in zip(names, state.scores(), strict=True)))
        current["view"] = view_to_json(view(state, None))
        current["log"] = "; ".join(lines)
        rows_before = [[list(r) for r in seat_rows] for seat_rows in state.rows]
    return {"names": names, "steps": steps}


__all__ = ["public_replay"]
