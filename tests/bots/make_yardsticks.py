"""Write ``yardsticks-v1.json``: the decisions of the frozen yardstick bots on fixed positions.

``heuristic-v1`` and ``ismcts-v1`` are the yardsticks every new bot is measured against, so
their play must never move. This script plays a few seeded games, picks positions from their
records and stores what each yardstick chose there; ``test_yardsticks.py`` asks the bots
again and fails on any difference. Run it only to add positions, never to "fix" the test:

    python tests/bots/make_yardsticks.py
"""

from __future__ import annotations

import json
from pathlib import Path
from random import Random

from noreturn.bots import Deck, make_bot, play_game
from noreturn.engine import Rules, legal_actions, view
from noreturn.records import replay_states

HERE = Path(__file__).parent
FIXTURE = HERE / "yardsticks-v1.json"
GAMES = (  # (players, bots, deck seed)
    (2, ("greedy", "heuristic-v1"), 11),
    (2, ("heuristic-v1", "random"), 12),
    (3, ("heuristic-v1", "greedy", "random"), 13),
    (4, ("greedy", "heuristic-v1", "greedy", "heuristic-v1"), 14),
)
ISMCTS = "ismcts:iterations=60"
EVERY = 3
"""Every third decision of a game is kept: spread over both phases, small enough to run."""


def decision_points(record: dict[str, object]) -> list[int]:
    """Indexes of the events after which a player (not chance) is to decide."""
    points = []
    for step in replay_states(record):
        if not step.state.is_over() and not step.state.is_chance():
            points.append(step.index)
    return points[::EVERY]


def decisions(record: dict[str, object], index: int, seed: int) -> dict[str, object]:
    """What each yardstick chooses after event ``index`` of ``record``."""
    state = next(s.state for s in replay_states(record) if s.index == index)
    seat = state.to_move
    seen, legal = view(state, seat), legal_actions(state)
    return {
        "after_event": index,
        "seed": seed,
        "seat": seat,
        "heuristic-v1": str(make_bot("heuristic-v1").act(seen, legal, Random(seed))),
        "ismcts-v1": str(make_bot(f"{ISMCTS.replace('ismcts', 'ismcts-v1')}").act(
            seen, legal, Random(seed))),
    }


def main() -> None:
    games = []
    for players, bots, seed in GAMES:
        rules = Rules(players=players)
        result = play_game(rules, [make_bot(b) for b in bots], Deck(rules, seed), seed,
                           keep_record=True)
        record = result.record
        assert record is not None
        points = [decisions(record, i, seed * 1000 + i) for i in decision_points(record)]
        games.append({"record": record, "decisions": points})
    FIXTURE.write_text(json.dumps({"ismcts_spec": ISMCTS.replace("ismcts", "ismcts-v1"),
                                   "games": games}, indent=1) + "\n")
    print(f"wrote {FIXTURE}: {sum(len(g['decisions']) for g in games)} decisions")


if __name__ == "__main__":
    main()
