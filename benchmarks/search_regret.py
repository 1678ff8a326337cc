"""How much a search bot's decisions gain over the plan's, judged by an oracle.

    python benchmarks/search_regret.py --players 3 --positions 120 --bots search:time=0.3,...
    python benchmarks/search_regret.py --players 4 --positions 40 --beyond 40

A tournament measures a bot by whole games, whose luck drowns a change in a few of its
decisions: a hundred games cannot tell 47% from 50%. This measures the decisions instead.
Positions come from the plan playing itself (``--seed``); at each, an oracle that sees
the true hands plays every candidate move (``candidates.candidates``) ``--playouts`` times to
the end with the plan for every seat, on the same draws for every move (common random
numbers), and scores each move by the share of first place it wins (what a tournament
counts) and by its margin over the best other seat. A bot is then asked for its move from
the seat's view alone, and gains what the oracle says its move is worth more than the
plan's. The mean gain over the positions, with its standard error, compares ways of
searching (budgets, candidates, values) on the same positions; the oracle's values are
cached (``--cache``), since they cost most of the time. The gains are also split by the
kind of the plan's move (a placement, a score, the declaration, ...), to show where a
search finds its edge; ``--mulligan`` judges the mulligans instead, ``--near-switch``
the phase-1 decisions near the switch.

A spec's prefix gives the search part of the truth, to measure what hiding it costs:
``cheat+`` the true hands, ``hands+`` the other hands alone, ``bag+`` the bag's contents
alone, ``power+`` each other seat's paying power, ``fixed+`` one random world for the
whole decision (the control: a consistent world that is not the truth), ``model+`` the
rivals' policy (its playouts play them as they really play, not as the plan). ``ownv1+``
gives it a worse model instead: its playouts play its own seat by the frozen v1, to show
how much the search's values depend on how well its playouts foresee its own later play.

``--rivals v1`` asks how the search fares against a rival it does not model: the positions
come from games of the plan in one seat (in turn) against the frozen ``heuristic-v1`` in
the others, at the plan's decisions, and the oracle plays those rivals as v1.

``--beyond SCREEN`` asks instead whether a move outside the candidates is worth more
(``beyond``).

The oracle knows the hands but not the bag's order; the rivals are the plan, as in a
tournament against medium (or v1, with ``--rivals v1``). So this judges a search against
those, not against people.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import math
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from random import Random
from unittest import mock

from noreturn.bots import Deck, make_bot, plan, search
from noreturn.bots.candidates import candidates
from noreturn.bots.search import Policy, outcome
from noreturn.bots.yardsticks import policy_v1
from noreturn.engine import (
    MULLIGAN,
    PLAY,
    Action,
    Decision,
    Declare,
    GameState,
    Rules,
    View,
    legal_actions,
    playout,
    sample_world,
    to_action,
    view,
)


def true_world(state: GameState) -> Callable[..., GameState]:
    """A stand-in for ``sample_world`` that deals the true hands: the cheat's worlds (the
    stand-ins take and ignore ``sample_world``'s leaning weights, ``search:infer=1``'s)."""

    def world(_view: View, _rng: Random, _weights: object = None) -> GameState:
        return state.clone()

    return world


def partial_world(state: GameState, keep: str) -> Callable[..., GameState]:
    """A stand-in that knows part of the truth: the other hands (``keep="hands"``) or the
    bag's contents (``"bag"``); the rest of the hidden tiles (the others' exchanged tiles
    always among them) are dealt again at random among their places."""
    me = state.to_move
    others = [s for s in range(state.n) if s != me]

    def world(_view: View, rng: Random, _weights: object = None) -> GameState:
        truth = state.clone()
        places = [truth.exchanged[s] for s in others]
        places += [truth.bag] if keep == "hands" else [truth.hands[s] for s in others]
        pool = [t for place in places for t in place]
        rng.shuffle(pool)
        for place in places:
            place[:], pool = pool[: len(place)], pool[len(place):]
        return truth

    return world


def power_world(state: GameState, within: int = 2,
                tries: int = 300) -> Callable[..., GameState]:
    """A stand-in that knows each other seat's paying power (its strongest colour's sum)
    to within ``within``: uniform worlds, rejected until every other hand's power is that
    close (after ``tries``, the closest drawn). The rejections cost the search's time."""
    me = state.to_move
    truth = [plan.paying_power(hand) for hand in state.hands]

    def off(world: GameState) -> int:
        return sum(max(0, abs(plan.paying_power(world.hands[s]) - truth[s]) - within)
                   for s in range(state.n) if s != me)

    def world(seat_view: View, rng: Random, _weights: object = None) -> GameState:
        best: tuple[int, GameState] | None = None
        for _ in range(tries):
            candidate = sample_world(seat_view, rng)
            distance = off(candidate)
            if best is None or distance < best[0]:
                best = (distance, candidate)
            if best[0] == 0:
                break
        assert best is not None
        return best[1]

    return world


RIVALS: dict[str, Policy] = {"plan": plan.choose, "v1": policy_v1.choose}
"""The policies the other seats may play (``--rivals``): the plan, or the frozen v1."""


def seats(seat: int, rivals: str, own: str = "plan") -> Policy:
    """A playout policy: the ``own`` policy for ``seat``, the ``rivals`` policy for the
    others (``RIVALS`` names them)."""
    mine, others = RIVALS[own], RIVALS[rivals]

    def policy(state: GameState, rng: Random) -> Decision:
        return (mine if state.to_move == seat else others)(state, rng)

    return policy


KNOWS = ("cheat", "hands", "bag", "power", "fixed", "model", "ownv1")
"""What a bot spec's prefix (``cheat+search:time=1``) lets the search know: the true
hands, the other hands alone, the bag's contents alone, the others' paying power,
one random world fixed for the whole decision (a control: consistency without truth), or
the rivals' policy (``model``: the worlds stay uniform); ``ownv1`` plays its own seat by v1
in its playouts instead (a worse model of its own later play)."""


def stand_in(knows: str, state: GameState,
             index: int) -> Callable[..., GameState]:
    """The ``sample_world`` a search that ``knows`` this much uses at ``state``."""
    if knows == "cheat":
        return true_world(state)
    if knows in ("hands", "bag"):
        return partial_world(state, knows)
    if knows == "power":
        return power_world(state)
    return true_world(sample_world(view(state, state.to_move), Random(f"fixed:{index}")))


def knowing(knows: str, bot: object, state: GameState, index: int,
            rivals: str) -> contextlib.AbstractContextManager[object]:
    """What ``bot`` is let know at ``state`` while it decides (``KNOWS``; "": nothing)."""
    if not knows:
        return contextlib.nullcontext()
    if knows == "model":
        return mock.patch.object(bot, "playout_policy", lambda seat: seats(seat, rivals))
    if knows == "ownv1":
        return mock.patch.object(bot, "playout_policy", lambda seat: seats(seat, "plan", "v1"))
    return mock.patch.object(search, "sample_world", stand_in(knows, state, index))


def positions(players: int, count: int, seed: int, near: bool = False,
              mulligan: bool = False, rivals: str = "plan") -> list[GameState]:
    """``count`` positions from plan self-play: a few decisions of each game, spread over
    its whole length (phase 1, the switch and phase 2); with ``near``, only phase-1
    decisions within medium's window of the switch (``plan.near_switch``), a third of
    them, where the declaration is weighed; with ``mulligan``, half of the mulligans.
    With other ``rivals``, the plan plays one seat of each game (in turn) and they the
    others, and only the plan's decisions are kept."""
    rules = Rules(players=players)
    found: list[GameState] = []
    game = 0
    while len(found) < count:
        deck = Deck(rules, f"regret:{seed}:{game}")
        pick = Random(f"pick:{seed}:{game}")
        state = GameState(rules, deck.start_player)
        mine = None if rivals == "plan" else game % players
        policy = seats(game % players, rivals)
        while not state.is_over() and len(found) < count:
            if state.is_chance():
                state.play(deck.next_draw(state))
                continue
            if mine is not None and state.to_move != mine:
                state.play(to_action(policy(state, pick)))
                continue
            if mulligan:
                wanted, share = state.stage == MULLIGAN, 0.5
            elif near:
                wanted, share = plan.near_switch(state), 0.35
            else:
                wanted, share = state.stage == PLAY, 0.1
            if wanted and pick.random() < share:
                found.append(state.clone())
            state.play(to_action(plan.choose(state)))
        game += 1
    return found


def kind(state: GameState, action: Action) -> str:
    """What sort of decision ``action`` (the plan's move) makes at ``state``."""
    if state.stage == MULLIGAN:
        return "mulligan"
    if isinstance(action, Declare):
        return "declaration"
    return f"{type(action).__name__.lower()} in phase {state.phases[state.to_move]}"


def by_kind(kinds: list[str], gains: list[float], differ: list[bool]) -> None:
    """Print the gains a decision per kind of the plan's move (where the search gains)."""
    for name in sorted(set(kinds)):
        picked = [i for i, k in enumerate(kinds) if k == name]
        values = [gains[i] for i in picked]
        spread = statistics.stdev(values) / math.sqrt(len(values)) if len(values) > 1 else 0
        print(f"  {name}: {len(values)} positions, gain {statistics.fmean(values):+.4f} "
              f"(SE {spread:.4f}), differs {sum(differ[i] for i in picked)}", flush=True)


def oracle(state: GameState, action: Action, key: str, playouts: int,
           rivals: str = "plan") -> tuple[float, float]:
    """The mean win share and margin of ``action`` at the true ``state``, over ``playouts``
    games finished by the plan for the mover and ``rivals`` for the others (draws seeded
    by ``key``: the same for every action)."""
    seat = state.to_move
    policy = seats(seat, rivals)
    wins = margins = 0.0
    for k in range(playouts):
        world = state.clone()
        world.apply(action)
        playout(world, Random(f"{key}:{k}"), policy)
        margin, win = outcome(world, seat)
        wins += win
        margins += margin
    return wins / playouts, margins / playouts


def beyond(states: list[GameState], screen: int, final: int) -> None:
    """Whether moves outside the candidates are worth more: at each position every legal
    move gets ``screen`` oracle playouts, the six best and the best candidate ``final``
    fresh ones, and the winner among the six is compared with the best candidate on
    ``final`` more (fresh again, so that the noise that picked them does not count).
    Prints the mean gain a decision of the best legal move over the best candidate."""
    gains: list[float] = []
    outside = 0
    for index, state in enumerate(states):
        legal = legal_actions(state)
        among = set(candidates(state, legal))
        screened = {a: oracle(state, a, f"screen:{index}", screen)[0] for a in legal}
        top = sorted(legal, key=lambda a: -screened[a])[:6]
        rated = {a: oracle(state, a, f"final:{index}", final)[0]
                 for a in {*top, max(among, key=lambda a: screened[a])}}
        winner = max(top, key=lambda a: rated[a])
        best_candidate = max((a for a in rated if a in among), key=lambda a: rated[a])
        checked = {a: oracle(state, a, f"check:{index}", final)[0]
                   for a in {winner, best_candidate}}
        gains.append(checked[winner] - checked[best_candidate])
        outside += winner not in among
    print(f"{len(states)} positions: the best legal move gains "
          f"{statistics.fmean(gains):+.4f} win share a decision over the best candidate "
          f"(SE {statistics.stdev(gains) / math.sqrt(len(gains)):.4f}); it is not a "
          f"candidate at {outside}", flush=True)


def arguments(argv: list[str] | None) -> argparse.Namespace:
    """The command line's choices (see the module docstring)."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--players", type=int, default=3)
    parser.add_argument("--positions", type=int, default=120)
    parser.add_argument("--playouts", type=int, default=300)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--bots", default="search:time=0.3")
    parser.add_argument("--cache", type=Path, default=None)
    parser.add_argument("--beyond", type=int, default=0, metavar="SCREEN",
                        help="instead: judge every legal move with SCREEN playouts, the "
                        "best again with --playouts, against the best candidate")
    parser.add_argument("--near-switch", action="store_true",
                        help="only positions near the mover's switch (phase 1)")
    parser.add_argument("--mulligan", action="store_true", help="only mulligans")
    parser.add_argument("--rivals", choices=sorted(RIVALS), default="plan",
                        help="how the other seats play: the plan, or the frozen v1")
    args = parser.parse_args(argv)
    if args.near_switch and args.mulligan:
        parser.error("--near-switch and --mulligan choose different positions: pick one")
    return args


def main(argv: list[str] | None = None) -> int:
    """Judge each bot's decisions at the same positions; print its gain over the plan."""
    args = arguments(argv)
    if args.beyond:
        beyond(positions(args.players, args.positions, args.seed, args.near_switch,
                         args.mulligan), args.beyond, args.playouts)
        return 0
    which = "-near" if args.near_switch else "-mulligan" if args.mulligan else ""
    which += "" if args.rivals == "plan" else f"-{args.rivals}"
    cache_path = args.cache or Path(f"/tmp/regret-{args.players}-{args.seed}-"
                                    f"{args.playouts}{which}.json")
    cache: dict[str, list[float]] = (json.loads(cache_path.read_text())
                                     if cache_path.exists() else {})
    states = positions(args.players, args.positions, args.seed, args.near_switch,
                       args.mulligan, args.rivals)

    def value(index: int, action: Action) -> list[float]:
        name = f"{index}:{action!r}"
        if name not in cache:
            cache[name] = list(oracle(states[index], action, f"oracle:{args.seed}:{index}",
                                      args.playouts, args.rivals))
        return cache[name]

    plans = [to_action(plan.choose(s)) for s in states]
    kinds = [kind(s, a) for s, a in zip(states, plans, strict=True)]
    begin = time.process_time()
    best_gain = []
    for index, state in enumerate(states):
        values = {a: value(index, a)[0] for a in candidates(state, legal_actions(state))}
        best_gain.append(max(values.values()) - values[plans[index]])
    cache_path.write_text(json.dumps(cache))
    print(f"{len(states)} positions, oracle {time.process_time() - begin:.0f} s; the best "
          f"candidate gains {statistics.fmean(best_gain):+.4f} win share a decision over "
          f"the plan's", flush=True)
    first: list[float] = []
    for spec in filter(None, args.bots.split(";")):
        knows, _, rest = spec.partition("+")
        knows, bot = (knows, make_bot(rest)) if knows in KNOWS else ("", make_bot(spec))
        gains, margins, differ = [], [], []
        begin = time.process_time()
        for index, state in enumerate(states):
            seat = state.to_move
            # what hiding costs: the truth, or part of it (the bag's order stays unknown)
            with knowing(knows, bot, state, index, args.rivals):
                action = bot.act(view(state, seat), legal_actions(state),
                                 Random(f"bot:{index}"))
            chosen, base = value(index, action), value(index, plans[index])
            gains.append(chosen[0] - base[0])
            margins.append(chosen[1] - base[1])
            differ.append(action != plans[index])
        cache_path.write_text(json.dumps(cache))
        n = len(gains)
        print(f"{spec}: gain {statistics.fmean(gains):+.4f} win share a decision "
              f"(SE {statistics.stdev(gains) / math.sqrt(n):.4f}), margin "
              f"{statistics.fmean(margins):+.2f} "
              f"(SE {statistics.stdev(margins) / math.sqrt(n):.2f}),"
              f" differs from the plan {sum(differ)}/{n}, "
              f"{time.process_time() - begin:.0f} s", flush=True)
        by_kind(kinds, gains, differ)
        if first:  # against the first bot listed, on the same positions
            paired = [a - b for a, b in zip(gains, first, strict=True)]
            print(f"  against the first: {statistics.fmean(paired):+.4f} "
                  f"(SE {statistics.stdev(paired) / math.sqrt(n):.4f})", flush=True)
        else:
            first = gains
    return 0


if __name__ == "__main__":
    sys.exit(main())
