"""The ``search`` bot: determinized Monte Carlo over a few candidate moves.

Each iteration imagines the hidden tiles (``sample_world``: a whole game consistent with
everything this seat knows, the others' hands and the bag dealt at random from the unseen
tiles), then plays every surviving candidate move in that same world, each followed by the
plan (``plan.py``) for every seat to the end of the game. Because all candidates meet the
same world and the same later draws (common random numbers), the luck of a sample falls on
all of them alike and their difference is measured with far fewer playouts.

Candidates (``candidates.py``) are the moves that differ in substance: the plan's own
choice; the declaration; placing a colour's highest placeable tiles (one, two, ... of
them); each scoring tail with its cheapest payment and with the plan's payments (which
give up the rest of the paying colour with it); exchanging the one, two, ... least useful
tiles. Sequential halving spends the budget: every candidate gets the same share of the
first round, the better half goes on to the next round with twice as many playouts each, and
so on, so the budget goes where the decision is close. The plan's own choice stays in every
round, and the winner is played instead only if it beats the plan's choice on the last
round's worlds (fresh: they did not pick the winner) by more than ``trust`` standard errors
of the paired difference. The plan is a strong default, and with three and four players a
second's worlds are few: a search that followed every lucky sample was no stronger than
the plan it plays out (25.5% a seat against medium's 27.0% with four players). Near the
plan's switch (``plan.near_switch``) its rule is least sure, and medium itself weighs the
switch there rather than follow it: there the plain winner is played (``trust_near``),
which judged by an oracle gained +0.004 win share a decision (docs/bot-studies.md). There, with
``shifts``, the search also weighs plans for its own switch (``switch_options``): the plan
with its switch moved by so many turns, for this move and the rest of the game.

The value of a playout is a win (1, shared 1/k) blended with the margin over the best other
seat, so the search prefers a big win to a narrow one and a narrow loss to a big one.

Options: ``search:time=1.0`` (seconds of CPU per decision, the default, at most three
times that on the wall clock: ``WALL_CAP``) or
``search:iterations=N`` (sampled worlds per decision: the same seed gives the same move),
``win=0.5`` (weight of the win against the margin), ``trust=1.0`` (standard errors a move
must beat the plan's choice by; 0: the plain winner), ``trust_near=0`` (the same near the
switch), ``shifts=-1/-2`` (the own switch's shifts searched near it, in turns;
negative: later; none by default), ``infer=1`` (deal the hands of rivals still building
by the hand model, ``inference.py``, not uniformly; off by default: it gained about
+0.001 a decision), ``tie=1`` (the whole margin as a tiebreak, ``tie / 1000`` a point
beyond the clipped value; off by default: a study), ``scale=60`` (points of margin that
count as half a win; beyond half of it either way the margin is clipped). The clip makes
a bot far ahead play to win rather than to win big; ``search:win=0,scale=1000,trust=0``
plays for the expected margin alone, the very value ``noreturn review`` measures moves by.
"""

from __future__ import annotations

import math
import statistics
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from random import Random

from noreturn.bots import plan
from noreturn.bots.base import (
    MAX_ITERATIONS,
    MAX_SECONDS,
    BotSpecError,
    Budget,
    parse_options,
    register,
)
from noreturn.bots.candidates import candidates
from noreturn.bots.inference import hand_weights
from noreturn.engine import (
    Action,
    Decision,
    GameState,
    View,
    playout,
    sample_world,
    to_action,
)
from noreturn.text.lang import N_

TRUST = 1.0
"""Standard errors by which a move must beat the plan's own choice, on the last round's
fresh worlds, to be played instead (0: the plain winner of the halving)."""

TRUST_NEAR = 0.0
"""``TRUST`` near the plan's switch (``plan.near_switch``), where its rule is least sure."""

WALL_CAP = 3.0
"""A time budget counts the CPU time the search itself gets (``time.thread_time``), so a
busy machine does not make the bot weaker: a tournament run beside other work measures
the bot that is shipped. The wall clock caps it at this many times the budget, so that a
crowded server still answers."""

MARGIN_SCALE = 60.0
"""Points of margin that count as much as half a win (clipped beyond)."""

Policy = Callable[[GameState, Random], Decision]
"""A playout policy (``engine.playout``'s slot): the decision tuple for the seat to move."""


def outcome(state: GameState, seat: int) -> tuple[int, float]:
    """A finished game's margin for ``seat`` (its score minus the best other seat's) and
    its share of first place (1, shared 1/k, or 0)."""
    scores = state.scores()
    mine = scores[seat]
    best_other = max(s for i, s in enumerate(scores) if i != seat)
    top = max(scores)
    return mine - best_other, (1.0 / scores.count(top) if mine == top else 0.0)


def clearly_better(values: Sequence[float], baseline: Sequence[float], z: float) -> bool:
    """Whether ``values`` beat ``baseline`` on the same worlds (paired) by more than ``z``
    standard errors of their mean difference."""
    differences = [a - b for a, b in zip(values, baseline, strict=True)]
    if len(differences) < 2:
        return False
    mean = statistics.fmean(differences)
    return mean > z * statistics.stdev(differences) / math.sqrt(len(differences))


def reward(state: GameState, seat: int, win_weight: float,
           scale: float = MARGIN_SCALE, tie: float = 0.0) -> float:
    """A finished game's value for ``seat``, from 0 to 1 (beside the tiebreak); ``scale``
    points of margin count as half a win (see ``MARGIN_SCALE``). ``tie`` adds ``tie /
    1000`` a point of the whole margin, unclipped: a tiebreak for a seat so far ahead (or
    behind) that the clipped value is the same whatever it does."""
    margin, win = outcome(state, seat)
    scaled = max(-0.5, min(0.5, margin / scale))
    return win_weight * win + (1.0 - win_weight) * (0.5 + scaled) + tie * margin / 1000


def shifted(p: plan.Params, by: float) -> plan.Params:
    """The plan's constants with its switch ``by`` turns earlier (negative: later): the
    margin of scoring turns it keeps in hand, its solo set's too."""
    solo = None if p.solo is None else replace(p.solo, margin=p.solo.margin + by)
    return replace(p, margin=p.margin + by, solo=solo)


def own_switch(seat: int, p: plan.Params) -> Policy:
    """A playout policy: ``seat`` plays the plan with the constants ``p``, the others the
    plan as tuned."""
    def policy(state: GameState, rng: Random) -> Decision:
        return plan.decide(state, p) if state.to_move == seat else plan.choose(state, rng)
    return policy


def switch_options(state: GameState, legal: Sequence[Action],
                   shifts: Sequence[float]) -> list[tuple[Action, Policy]]:
    """Moves paired with a switch of the mover's own for the rest of the game: the plan
    with its switch shifted by each of ``shifts`` turns, its move now and its play after.

    A candidate alone is judged by playouts in which the plan's switch follows it: "not
    now" is then "one turn later", since the rule declares again next turn. The oracle
    that played every candidate with the true hands found the plan's declarations the
    moves it faults most (it would have waited at 21 of 47, a quarter of a win each), and
    waiting pays only if it goes on; such a pair is a plan for the switch, searched."""
    seat = state.to_move
    allowed = set(legal)
    base = plan.params_for(state.rules.players)
    paired: list[tuple[Action, Policy]] = []
    for by in shifts:
        p = shifted(base, by)
        action = to_action(plan.decide(state, p))
        if action in allowed:
            paired.append((action, own_switch(seat, p)))
    return paired


class SearchBot:
    """Sequential halving over the candidates, within seconds or iterations per decision."""

    name = "search"

    @property
    def budget(self) -> Budget:
        """What a decision may cost (``Bot.budget``): the server caps and schedules by it."""
        if self.iterations is not None:
            return Budget(iterations=self.iterations)
        return Budget(seconds=self.seconds)

    def __init__(self, seconds: float = 1.0, iterations: int | None = None,
                 win_weight: float = 0.5, trust: float = TRUST,
                 margin_scale: float = MARGIN_SCALE, trust_near: float = TRUST_NEAR,
                 shifts: Sequence[float] = (), infer: bool = False, tie: float = 0.0) -> None:
        self.trust = trust
        self.tie = tie
        self.infer = infer
        self.shifts = tuple(shifts)
        self.trust_near = trust_near
        self.seconds = seconds
        self.iterations = iterations
        self.win_weight = win_weight
        self.margin_scale = margin_scale
        self.last_playouts = 0

    def act(self, view: View, legal: Sequence[Action], rng: Random) -> Action:
        """The candidate with the best mean value over the sampled worlds."""
        self.last_playouts = 0  # (a forced move plays none: bot_speed.py counts them)
        if len(legal) == 1:
            return legal[0]
        seat = view.seat or 0
        first = sample_world(view, rng)
        policy = self.playout_policy(seat)
        options: list[tuple[Action, Policy]] = [(action, policy)
                                                for action in self.candidates(first, legal)]
        near = plan.near_switch(first)
        if near and self.shifts:
            options += switch_options(first, legal, self.shifts)
        if len(options) == 1:
            return options[0][0]
        trust = self.trust_near if near else self.trust
        return options[self._halving(view, seat, options, rng, trust)][0]

    def candidates(self, state: GameState, legal: Sequence[Action]) -> list[Action]:
        """The moves searched at ``state`` (``candidates``), the one kept unless clearly
        beaten first. A study may lead with another move (``distill_study.py``)."""
        return candidates(state, legal)

    def playout_policy(self, seat: int) -> Policy:
        """The policy the playouts follow after a candidate, for every seat: the plan. A
        study may model the seats otherwise (``search_regret.py``'s ``model+`` plays the
        rivals as they really play, ``ownv1+`` the searching seat by another policy,
        ``distill_study.py`` by a network learned from hard)."""
        del seat  # every seat alike
        return plan.choose

    def _halving(self, view: View, seat: int, options: list[tuple[Action, Policy]],
                 rng: Random, trust: float) -> int:
        """The index of the winner of sequential halving among ``options`` (the plan's own
        choice first): the plan's choice unless the winner beats it by ``trust``."""
        alive = list(range(len(options)))
        totals = [0.0] * len(options)
        counts = [0] * len(options)
        rounds = max(1, math.ceil(math.log2(len(options))))
        began = (time.thread_time(), time.perf_counter())
        self.last_playouts = 0
        fresh: dict[int, list[float]] = {}
        leaning = hand_weights(view) if self.infer else None
        for done in range(rounds):
            worlds = 0
            share = self.seconds * (done + 1) / rounds
            deadline = (began[0] + share, began[1] + WALL_CAP * share)
            fresh = {index: [] for index in alive}
            while self._more(worlds, rounds, deadline):
                world = sample_world(view, rng, leaning)
                seed = rng.random()
                for index in alive:
                    state = world.clone()
                    action, policy = options[index]
                    state.apply(action)
                    playout(state, Random(seed), policy)
                    value = reward(state, seat, self.win_weight, self.margin_scale,
                                   self.tie)
                    totals[index] += value
                    counts[index] += 1
                    fresh[index].append(value)
                worlds += 1
            self.last_playouts += worlds * len(alive)
            alive.sort(key=lambda i: -totals[i] / max(counts[i], 1))
            if done < rounds - 1:
                kept = alive[: max(1, (len(alive) + 1) // 2)]
                alive = [*kept, 0] if trust and 0 not in kept else kept
        best = alive[0]
        if trust and best != 0 and not clearly_better(fresh[best], fresh[0], trust):
            return 0
        return best

    def _more(self, worlds: int, rounds: int, deadline: tuple[float, float]) -> bool:
        """Whether this round samples another world (at least two per round): within the
        iterations, or within both the CPU deadline and the wall deadline (``WALL_CAP``)."""
        if self.iterations is not None:
            return worlds < max(2, self.iterations // rounds)
        return worlds < 2 or (time.thread_time() < deadline[0]
                              and time.perf_counter() < deadline[1])


@register("search", "determinized Monte Carlo; search:time=1 (CPU s per move) or "
                    "search:iterations=N (worlds per move)")
def _search(options: str) -> SearchBot:
    values = parse_options(options, {"time": float, "iterations": int, "win": float,
                                     "trust": float, "scale": float, "trust_near": float,
                                     "shifts": str, "infer": int, "tie": float})
    seconds = checked(values, "time", 1.0, 1e-3, MAX_SECONDS, N_("seconds of CPU a decision"))
    iterations = int(values["iterations"]) if "iterations" in values else None
    if iterations is not None and not 1 <= iterations <= MAX_ITERATIONS:
        raise BotSpecError("bot option iterations={value}: sample at least 1 world and at "
                           "most {high}",
                           {"value": iterations, "high": format(MAX_ITERATIONS, ",")})
    return SearchBot(seconds=seconds, iterations=iterations,
                     trust=checked(values, "trust", TRUST, 0, 100, N_("standard errors")),
                     win_weight=checked(values, "win", 0.5, 0, 1, N_("the win's weight")),
                     margin_scale=checked(values, "scale", MARGIN_SCALE, 1e-3, 1e6,
                                          N_("points of margin (the margin scale)")),
                     trust_near=checked(values, "trust_near", TRUST_NEAR, 0, 100,
                                        N_("standard errors")),
                     shifts=parse_shifts(str(values.get("shifts", ""))),
                     infer=bool(values.get("infer", 0)),
                     tie=checked(values, "tie", 0.0, 0, 10, N_("thousandths of a win a point")))


def checked(values: Mapping[str, float | int | str], key: str, default: float, low: float,
            high: float, meaning: str) -> float:
    """Option ``key`` (``default`` if absent) as a number from ``low`` to ``high``.

    Raises:
        BotSpecError: outside that range, or not a number at all (nan): a budget that never
            ends, a negative weight or trust would make a bot that never answers or plays
            against its own values."""
    number = float(values.get(key, default))
    if not low <= number <= high:
        raise BotSpecError("bot option {key}={value}: give {meaning} from {low} to {high}",
                           {"key": key, "value": format(number, "g"), "meaning": meaning,
                            "low": format(low, "g"), "high": format(high, "g")})
    return number


def parse_shifts(text: str) -> tuple[float, ...]:
    """``shifts=-1/-2``: the turns by which the own switch is shifted in the searched
    plans for it (``switch_options``; negative: later)."""
    try:
        shifts = tuple(float(part) for part in text.split("/") if part.strip())
    except ValueError:
        shifts = (math.nan,)
    if not all(abs(shift) <= 30 for shift in shifts):  # nan too
        raise BotSpecError("bot option shifts={value}: use turns from -30 to 30 separated by "
                           "'/', e.g. shifts=-1/-2", {"value": text})
    return shifts
