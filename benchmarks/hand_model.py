"""Measure the hand model's weights (``noreturn.bots.inference.PHASE1_WEIGHTS``).

    python benchmarks/hand_model.py --players 4 --games 150 --seed 1

Plays the plan against itself (medium at every seat). At about a third of the decisions of
play, for each other seat, it counts the tiles of that seat's true hand by class (where
the tile stands to the seat's row of its colour: fits it, lies above it, or no such row;
and its value band: low, mid, high), and the same for the hand a uniform world of the
mover's view deals it (``sample_world``). A class's weight is the ratio of the two counts:
how many times more (or less) likely its tiles are in such a hand than a uniform deal says.
It prints the counts by phase, and the phase-1 weights in the form of ``PHASE1_WEIGHTS``.
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter
from random import Random

from noreturn.bots import make_bot
from noreturn.bots.inference import ABOVE, FITS, NO_ROW, tile_class, value_band
from noreturn.engine import PLAY, TILE_VALUE, GameState, Rules, legal_actions, new_game, view
from noreturn.engine import sample_world as deal

Key = tuple[int, int, int]
"""A count's key: the other seat's phase, the tile's class, its value band."""
CLASS_NAMES = {FITS: "fits its row", ABOVE: "above its row", NO_ROW: "no row of its colour"}
BANDS = ("low", "mid", "high")


def count_hand(counts: Counter[Key], hand: list[int], state: GameState, rival: int) -> None:
    """Add ``hand``'s tiles to ``counts`` by class, as ``rival``'s hand in ``state``."""
    rows, top = state.rows[rival], state.rules.max_value
    for tile in hand:
        counts[state.phases[rival], tile_class(tile, rows), value_band(TILE_VALUE[tile], top)] += 1


def measure(players: int, games: int, seed: int) -> tuple[Counter[Key], Counter[Key]]:
    """The true hands' counts and the uniform deals' counts, over ``games`` games."""
    rng = Random(seed)
    true: Counter[Key] = Counter()
    uniform: Counter[Key] = Counter()
    for game in range(games):
        bots = [make_bot("medium") for _ in range(players)]
        state = new_game(Rules(players=players), rng)
        while not state.is_over():
            if state.is_chance():
                state.apply(state.sample_draw(rng))
                continue
            seen = view(state, state.to_move)
            if state.stage == PLAY and rng.random() < 0.3:
                world = deal(seen, rng)
                for rival in range(players):
                    if rival != state.to_move:
                        count_hand(true, state.hands[rival], state, rival)
                        count_hand(uniform, world.hands[rival], state, rival)
            state.play(bots[state.to_move].act(seen, legal_actions(state), rng))
        print(f"\rgame {game + 1}/{games}", end="", file=sys.stderr, flush=True)
    print(file=sys.stderr)
    return true, uniform


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--games", type=int, default=150)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    true, uniform = measure(args.players, args.games, args.seed)
    print(f"{args.players} players, {args.games} games (seed {args.seed}): tiles in the "
          "other hands, true against a uniform deal")
    for key in sorted(set(true) | set(uniform)):
        phase, cls, band = key
        print(f"  phase {phase}, {CLASS_NAMES[cls]:20s} {BANDS[band]:4s}: true {true[key]:5d}, "
              f"uniform {uniform[key]:5d}, ratio {true[key] / max(uniform[key], 1):.2f}")
    rows = ", ".join(
        "(" + ", ".join(f"{true[1, cls, band] / max(uniform[1, cls, band], 1):.2f}"
                        for band in range(3)) + ")"
        for cls in (FITS, ABOVE, NO_ROW))
    print(f"PHASE1_WEIGHTS[{args.players}] = ({rows})")


if __name__ == "__main__":
    main()
