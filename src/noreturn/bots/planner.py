"""The ``heuristic`` bot (level medium): the plan of ``plan.py``, and reasons that name it.

With three and four players medium also thinks at its switch: within a few turns of the
plan's own moment it weighs declaring now against waiting over sampled worlds, both lines
played out by the plan (``switch.declare_value``, 24 worlds in at most some 35 ms), and
follows the verdict. The rule of thumb cannot see what the rivals' public rows and pace say
about this game; the rollouts can. With two players, where a rival who switches first cuts
the other's time, the plan's rule did better (docs/bot-studies.md).

Every reason says where the plan stands, so that hints given turn after turn read as one
plan: how many turns are left, how many scoring turns the rows need, and what this move does
for that ("keep building: about 14 turns left, your rows need 6 scoring turns; place R9 R8:
they fit under your R10 (then your rows need 7 scoring turns)")."""

from __future__ import annotations

from collections.abc import Sequence
from itertools import pairwise
from random import Random

from noreturn.bots import plan
from noreturn.bots.base import BotError, BotSpecError, parse_options, register
from noreturn.bots.switch import declare_value
from noreturn.engine import (
    COLOUR_NAMES,
    DECLARE,
    Action,
    Declare,
    Exchange,
    GameState,
    Mulligan,
    Place,
    Score,
    View,
    colour_of,
    make_tile,
    placed_values,
    sample_world,
    tile_code,
    tiles_text,
    tiles_value,
    to_action,
    value_of,
)
from noreturn.text.lang import _, ngettext
from noreturn.text.narrate import tiles_count
from noreturn.text.refusals import colour_word

SWITCH_WORLDS = {2: 0, 3: 24, 4: 24}
"""Sampled worlds medium weighs its switch by, per table size (0: the plan's rule alone)."""
THINK_BAG = 100
"""Medium weighs its switch only while the bag holds at most this many tiles: each world
plays the rest of the game out, so the bag bounds the cost. At the published size it never
binds near the switch (four players start play with 100); in a game of thousands of tiles
medium keeps to the rule alone rather than think for seconds."""
MAX_WORLDS = 1000
"""The most sampled worlds the switch may weigh (``plan:worlds=N``): each plays a whole
game out, and a decision that never answers (worlds=100000000) is no bot."""


class PlanBot:
    """The plan as a bot; ``decide`` also says why. ``worlds`` overrides ``SWITCH_WORLDS``."""

    name = "plan"

    def __init__(self, worlds: int | None = None) -> None:
        self.worlds = worlds

    def act(self, view: View, legal: Sequence[Action], rng: Random) -> Action:
        """The plan's choice among ``legal``; near the switch, declaring or not as the
        sampled worlds say (``rng`` draws them)."""
        return self._weigh(view, legal, rng)[0]

    def decide(self, view: View, legal: Sequence[Action]) -> tuple[Action, str]:
        """The action ``act`` plays (its worlds drawn by a fixed seed, so a hint asked
        twice reads the same) with a one-line reason a player understands (the hints).

        The plan reads only the seat's own hand and the public table, so it runs on any
        world consistent with the view; which one does not matter."""
        action, worlds, state = self._weigh(view, legal, Random(0))
        declares = isinstance(action, Declare)
        if not worlds or declares == (plan.choose(state)[0] == DECLARE):
            return action, reason(state, action)
        if declares:  # the worlds overrule the turn budget: say so, not the budget alone
            return action, _("switch to phase 2 now: {budget}; in {worlds} sampled games "
                             "declaring now does better than waiting").format(
                budget=_budget(state), worlds=worlds)
        return action, _("do not switch yet: in {worlds} sampled games waiting does better "
                         "than declaring now; {reason}").format(
            worlds=worlds, reason=reason(state, action))

    def thinks_at(self, view: View) -> bool:
        """Whether the decision at ``view`` weighs sampled worlds (some 45 ms rather than
        a fraction of a millisecond): a server runs it as a thinking bot's
        (``base.thinks_now``)."""
        return self._worlds_here(view, sample_world(view, Random(0))) > 0

    def _worlds_here(self, view: View, state: GameState) -> int:
        """The worlds the switch is weighed by at ``view`` (``state``: a world of it); 0
        where medium keeps to the rule (not near its switch, or declaring is not allowed)."""
        worlds = SWITCH_WORLDS.get(view.rules.players, 0) if self.worlds is None else self.worlds
        if worlds and view.bag_count <= THINK_BAG and plan.near_switch(state):
            return worlds
        return 0

    def _weigh(self, view: View, legal: Sequence[Action],
               rng: Random) -> tuple[Action, int, GameState]:
        """The action, the sampled worlds its switch was weighed by (0: the rule's), and
        the world of the view the plan read (for the reason)."""
        state = sample_world(view, Random(0))
        worlds = self._worlds_here(view, state)
        if worlds and any(isinstance(a, Declare) for a in legal):
            gain = declare_value(view, worlds, rng)
            # a tie says nothing (far ahead the clipped value is the same both ways): the
            # rule decides, else a seat far ahead would wait for ever
            if gain > 0 or (gain == 0 and plan.choose(state)[0] == DECLARE):
                return Declare(), worlds, state
            legal = [a for a in legal if not isinstance(a, Declare)]
            return _choose(state, legal), worlds, state
        return _choose(state, legal), 0, state


def _choose(state: GameState, legal: Sequence[Action]) -> Action:
    """The plan's choice in ``state`` among ``legal``. When declaring is not among
    ``legal`` though the plan would declare (a wrapper keeps it in phase 1:
    ``declare_at.py``; or medium's worlds said wait), the plan's best move that stays in
    phase 1."""
    decision = plan.choose(state)
    if decision[0] == DECLARE and not any(isinstance(a, Declare) for a in legal):
        decision = plan.decide(state, plan.params_for(state.rules.players), may_declare=False)
    action = to_action(decision)
    if action not in legal:  # a plan bug must not cost the game: say so loudly
        raise BotError(f"the plan chose {action}, which is not legal here")
    return action


SHOWN_PAYMENT = {2: 19, 3: 18, 4: 18}
"""The points a scoring turn is counted at in the reasons' "your rows need N scoring
turns", per table size. The plan's own count (``plan.scoring_turns`` at its ``typical``,
15 with two and four players) is a cautious one its switch was tuned with: in medium's
self-play it ran 3.0 scoring turns long at the first phase-2 turn with two players and 1.0
with four (0.3 with three, at 18), so that a hint declared "15 turns left, your rows need
16" and the rows were then scored in 13 (issue 15 read that as overbuilding). At these
payments the count is about right there (docs/bots.md), so what a hint says matches what
comes; the switch stays the plan's, and its reason says why it keeps turns spare."""


def shown_need(rows: list[list[int]], hand: list[int], players: int) -> int:
    """The scoring turns ``rows`` need, as the reasons say it (``SHOWN_PAYMENT``)."""
    payment = SHOWN_PAYMENT[min(max(players, 2), 4)]
    return plan.scoring_turns(rows, plan.paying_power(hand), payment)


def _budget(state: GameState) -> str:
    """Where the plan stands: turns left against the scoring turns the rows need."""
    seat, players = state.to_move, state.rules.players
    needed = shown_need(state.rows[seat], state.hands[seat], players)
    left = plan.turns_left(state, plan.params_for(players))
    if state.ending:  # the bag is empty: the round is completed, so this turn is the last
        if needed == 0:
            return _("this is your last turn, your rows are empty")
        return _("this is your last turn") + ngettext(
            ", your rows need {needed} scoring turn", ", your rows need {needed} scoring turns",
            needed).format(needed=needed)
    turns = max(1, round(left))  # the turn under way counts: never "0 turns left"
    if needed == 0:
        return ngettext("about {turns} turn left, your rows are empty",
                        "about {turns} turns left, your rows are empty", turns).format(turns=turns)
    return ngettext("about {turns} turn left", "about {turns} turns left", turns).format(
        turns=turns) + ngettext(", your rows need {needed} scoring turn",
                                ", your rows need {needed} scoring turns", needed).format(
        needed=needed)


def reason(state: GameState, action: Action) -> str:
    """Why the plan chose ``action`` in ``state``, in a player's words."""
    seat = state.to_move
    if isinstance(action, Mulligan):
        if not action.tiles:
            return _("keep the hand: it has no low tiles to get rid of")
        low = plan.params_for(state.rules.players).mulligan_max
        if all(value_of(t) <= low for t in action.tiles):
            return _("set aside {tiles}: low tiles start no row and pay little").format(
                tiles=tiles_text(action.tiles))
        return _("set aside {tiles}: low tiles start no row, and the weak colours spread "
                 "your hand thin (a row and a payment are each of one colour)").format(
            tiles=tiles_text(action.tiles))
    if isinstance(action, Declare):
        return _("switch to phase 2 now: {budget}; building on risks tiles left unscored, "
                 "and a tile left in a row counts against you").format(budget=_budget(state))
    if isinstance(action, Score):
        return _score_reason(state, action)
    if isinstance(action, Place):
        return _place_reason(state, action)
    if isinstance(action, Exchange):
        tiles, budget = tiles_text(action.tiles), _budget(state)
        if state.phases[seat] == 2:
            return _phase_two_exchange(state, tiles, budget)
        return ngettext("exchange {tiles}: it fits no row; fish for tiles that do ({budget})",
                        "exchange {tiles}: they fit no row; fish for tiles that do ({budget})",
                        len(action.tiles)).format(tiles=tiles, budget=budget)
    return _("nothing else is possible")


def _phase_two_exchange(state: GameState, tiles: str, budget: str) -> str:
    """Why exchange in phase 2: to fish for paying power, or, with every row scored, to
    end the game sooner (or nothing at all once the bag is empty)."""
    if any(state.rows[state.to_move]):
        return _("exchange {tiles}: no row tail can be paid well yet; fish for one strong "
                 "colour ({budget})").format(tiles=tiles, budget=budget)
    if state.bag:
        return _("exchange {tiles}: your rows are all scored, so an exchange is the only "
                 "move left, and the more tiles it takes from the bag, the fewer turns "
                 "the others have to score ({budget})").format(tiles=tiles, budget=budget)
    return _("exchange {tiles}: your rows are all scored and the bag is empty, so nothing "
             "you do now changes your score ({budget})").format(tiles=tiles, budget=budget)


def _score_reason(state: GameState, action: Score) -> str:
    """Why score this tail now: its points, the payment, and the plan's budget."""
    row = state.rows[state.to_move][action.row]
    due = sum(row[-action.count:])
    over = tiles_value(action.pay) - due
    pay = tiles_text(action.pay)
    extra = _thrown_in(action.pay, due) if state.bag else ()  # no refill: nothing fresh
    if extra:
        paid = ngettext("paying {tiles} ({over} over: {extra} thrown in, the refill brings "
                        "a fresh tile for it)",
                        "paying {tiles} ({over} over: {extra} thrown in, the refill brings "
                        "fresh tiles for them)", len(extra)).format(
            tiles=pay, over=over, extra=tiles_text(extra))
    elif over:
        paid = _("paying {tiles} ({over} over)").format(tiles=pay, over=over)
    else:
        paid = _("paying {tiles}").format(tiles=pay)
    return _("score {tiles} of your {colour} row for {points}, {paid}: {budget}").format(
        tiles=tiles_count(action.count), colour=colour_word(COLOUR_NAMES[action.row]),
        points=ngettext("{n} point", "{n} points", due).format(n=due), paid=paid,
        budget=_budget(state))


def _thrown_in(pay: tuple[int, ...], due: int) -> tuple[int, ...]:
    """The payment's lowest tiles that are not needed to cover ``due``: the plan gives them
    up on purpose (a free exchange: the refill replaces them at no cost of a turn)."""
    ordered = sorted(pay, key=value_of, reverse=True)
    covered = 0
    for needed, tile in enumerate(ordered, start=1):
        covered += value_of(tile)
        if covered >= due:
            return tuple(ordered[needed:])
    return ()


SMALL_STEP = 2
"""The widest step down a reason still calls small; the plan takes wider ones too (up to
four with two players, any with three and four), and then the reason does not say small."""


def _small_steps(lowest: int, tiles: tuple[int, ...]) -> bool:
    """Whether ``tiles`` go under a row ending in ``lowest`` by steps of at most
    ``SMALL_STEP``."""
    values = [lowest, *placed_values(tiles)]
    return all(a - b <= SMALL_STEP for a, b in pairwise(values))


def _place_reason(state: GameState, action: Place) -> str:
    """Why place these tiles: a new row, or steps under the row's last tile."""
    colour = colour_of(action.tiles[0])
    row = state.rows[state.to_move][colour]
    if not row:
        what = _("start a new {colour} row high").format(colour=colour_word(COLOUR_NAMES[colour]))
    elif _small_steps(row[-1], action.tiles):
        what = ngettext("it fits under your {lowest} with small steps",
                        "they fit under your {lowest} with small steps",
                        len(action.tiles)).format(
            lowest=tile_code(make_tile(colour, row[-1])))
    else:
        what = ngettext("it fits under your {lowest}", "they fit under your {lowest}",
                        len(action.tiles)).format(lowest=tile_code(make_tile(colour, row[-1])))
    needed = _needed_after(state, action)
    then = ngettext("then your rows need {needed} scoring turn",
                    "then your rows need {needed} scoring turns", needed).format(needed=needed)
    return _("keep building: {budget}; place {tiles}: {what} ({then})").format(
        budget=_budget(state), tiles=tiles_text(action.tiles), what=what, then=then)


def _needed_after(state: GameState, action: Place) -> int:
    """The scoring turns the mover's rows need once ``action`` is played (the engine plays
    it on a copy), so that a hint says how far a placement fills the budget: the next
    turn's "switch now" then follows from what this one said."""
    seat, after = state.to_move, state.clone()
    after.apply(action)
    return shown_need(after.rows[seat], after.hands[seat], state.rules.players)


@register("plan", "the plan: a turn budget, rows built to it, a timed declaration; "
          "worlds=N: sampled worlds weighing the switch (default 24 with 3-4 players, "
          "0 with 2: the rule alone)")
def _heuristic(options: str) -> PlanBot:
    worlds = parse_options(options, {"worlds": int}).get("worlds")
    if worlds is not None and not 0 <= int(worlds) <= MAX_WORLDS:
        raise BotSpecError("bot option worlds={value}: use 0 to {high} sampled worlds",
                           {"value": worlds, "high": MAX_WORLDS})
    return PlanBot(None if worlds is None else int(worlds))
