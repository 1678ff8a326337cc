"""The game state and the unchecked, fast way to change it.

The state is mutable and changed in place by ``apply``; ``clone`` copies it cheaply. That
is what search and simulation need: a playout applies thousands of actions, and copying an
immutable state on each would cost more than the rules themselves.

Chance is explicit. Whenever tiles must be drawn (deal, mulligan, refill) the state is a
chance node (``is_chance()``): the next action must be a ``Draw`` of one tile from the bag,
given by a record or a script, or sampled with ``sample_draw(rng)``. Nothing here holds a
random generator.
"""

from __future__ import annotations

from collections import Counter
from enum import IntEnum
from random import Random
from typing import Final

from noreturn.engine.actions import (
    Action,
    Declare,
    Draw,
    Exchange,
    Mulligan,
    Place,
    Score,
)
from noreturn.engine.errors import RulesError
from noreturn.engine.tiles import TILE_COLOUR, Rules, make_tiles, placed_values


class Stage(IntEnum):
    """Where a game is: the deal, the mulligan, play, or over; one type for states and views.

    An ``IntEnum`` because the stage is compared in the hottest loops (``playout``,
    ``apply``), where an int compare is all it may cost. Its text form (``str``, f-strings,
    ``text``) is the lowercase name, ``"play"``: the word JSON, records and the browser
    use. ``json.dumps`` would write the number, so serialise ``stage.text``.
    """

    DEAL = 0
    MULLIGAN = 1
    PLAY = 2
    OVER = 3

    @property
    def text(self) -> str:
        """The stage's word: "deal", "mulligan", "play" or "over"."""
        return _STAGE_TEXTS[self]

    def __str__(self) -> str:
        return _STAGE_TEXTS[self]


_STAGE_TEXTS = ("deal", "mulligan", "play", "over")
DEAL, MULLIGAN, PLAY, OVER = Stage
"""The stages under module names, for hot loops: a global costs far less than ``Stage.PLAY``."""


STATE_FIELDS: Final = (
    "rules", "n", "hand_size", "start", "last", "to_move", "stage", "bag", "hands",
    "rows", "piles", "pile_sums", "phases", "declared", "declared_turns", "exchanged",
    "paid", "mulligan_tiles", "aside", "row_tiles", "draws_due", "ending", "turns",
)
"""The fields of a ``GameState`` (its slots; what pickling keeps)."""


class GameState:
    """Everything about one game, hidden parts included; show a seat only ``view(state, seat)``.

    Attributes (read them; change them only through ``apply``/``play``):
        rules: the size parameters.
        start: the starting seat; ``last`` is the seat just before it, who ends a round.
        to_move: the seat to act, or to draw when ``draws_due`` > 0.
        stage: a ``Stage``: DEAL, MULLIGAN, PLAY or OVER.
        bag: the tiles in the bag; its order carries no meaning.
        hands: each seat's hand, in no particular order.
        rows: ``rows[seat][colour]`` is that row's values, first (highest) to last (lowest).
        piles, pile_sums: each seat's score pile (tiles) and its sum.
        phases: 1 or 2 per seat; ``declared`` counts the seats in phase 2.
        declared_turns: per seat, the turn in which it declared (the value of ``turns``
            then: its turn under way), None while in phase 1. Public, as the declaration.
        exchanged: the tiles each seat removed by EXCHANGE (hidden from the others).
        paid: the tiles each seat paid in SCORE actions (public).
        mulligan_tiles: the tiles each seat set aside, ``None`` before its mulligan.
        aside: set-aside tiles waiting to go back to the bag after the last mulligan.
        row_tiles: how many tiles lie in all rows together (for the early end).
        draws_due: tiles still to be drawn by ``to_move`` before play goes on.
        ending: the bag has run empty during play; the round is being completed.
        turns: completed turns since the first one.
    """

    __slots__ = STATE_FIELDS

    def __init__(self, rules: Rules, start_player: int, *,
                 copy_of: GameState | None = None) -> None:
        """A game before the deal: every tile in the bag, the first deal draw due; or, with
        ``copy_of``, an independent copy of that game (``clone``: built through here rather
        than ``GameState.__new__``, which a compiled build of this class does not allow)."""
        if copy_of is not None:
            self._copy(copy_of)
            return
        n = rules.players
        if type(start_player) is not int or not 0 <= start_player < n:
            raise RulesError("start player must be a seat from 0 to {last}, not {found}",
                             {"last": n - 1, "found": repr(start_player)})
        self.rules = rules
        self.n = n
        self.hand_size = rules.hand_size
        self.start = start_player
        self.last = (start_player - 1) % n
        self.to_move = start_player
        self.stage: Stage = DEAL
        self.bag = rules.all_tiles()
        self.hands: list[list[int]] = [[] for _ in range(n)]
        self.rows: list[list[list[int]]] = [[[] for _ in range(rules.colors)] for _ in range(n)]
        self.piles: list[list[int]] = [[] for _ in range(n)]
        self.pile_sums = [0] * n
        self.phases = [1] * n
        self.declared = 0
        self.declared_turns: list[int | None] = [None] * n
        self.exchanged: list[list[int]] = [[] for _ in range(n)]
        self.paid: list[list[int]] = [[] for _ in range(n)]
        self.mulligan_tiles: list[list[int] | None] = [None] * n
        self.aside: list[int] = []
        self.row_tiles = 0
        self.draws_due = rules.hand_size
        self.ending = False
        self.turns = 0

    # ----------------------------------------------------------------- questions
    def is_chance(self) -> bool:
        """Whether the next action is a ``Draw``."""
        return self.draws_due > 0

    def is_over(self) -> bool:
        """Whether the game has ended."""
        return self.stage == OVER

    def row_sum(self, seat: int) -> int:
        """The sum of the tiles still in ``seat``'s rows."""
        return sum(map(sum, self.rows[seat]))  # (the plan asks at every playout turn)

    def scores(self) -> list[int]:
        """Each seat's score if the game ended now: score pile minus rows."""
        return [self.pile_sums[s] - self.row_sum(s) for s in range(self.n)]

    def ranks(self) -> list[int]:
        """1 + the number of seats with a strictly higher score; equal scores share a rank."""
        scores = self.scores()
        return [1 + sum(other > mine for other in scores) for mine in scores]

    def chance_outcomes(self) -> list[tuple[Draw, float]]:
        """The possible draws with their probabilities, by tile ascending.

        Raises:
            RulesError: no draw is due (not a chance node): an answer there would be the
                bag's contents, a question nobody should be asking of a player's turn.
        """
        self._check_chance("chance_outcomes")
        size = len(self.bag)
        return [(Draw(t), c / size) for t, c in sorted(Counter(self.bag).items())]

    def sample_draw(self, rng: Random) -> Draw:
        """A draw sampled from the bag: each tile equally likely.

        Raises:
            RulesError: no draw is due (not a chance node).
        """
        if not self.draws_due:
            self._check_chance("sample_draw")
        return Draw(self.bag[int(rng.random() * len(self.bag))])

    def _check_chance(self, asked: str) -> None:
        """Refuse a chance question at a node that is not a chance node."""
        if not self.draws_due:
            who = "the game is over" if self.stage == OVER else f"seat {self.to_move} is to act"
            raise RulesError("{asked}: no draw is due ({who}): this is not a chance node",
                             {"asked": asked, "who": who})

    # ------------------------------------------------------------------- copies
    def clone(self) -> GameState:
        """An independent copy; cheap enough to take once per search iteration."""
        return GameState(self.rules, self.start, copy_of=self)

    def _copy(self, other: GameState) -> None:
        """Make this (new) state an independent copy of ``other``: lists copied, the rest
        (numbers, the rules) shared. Written out field by field: the search copies a state
        for every playout, and a loop over ``STATE_FIELDS`` with ``setattr`` was slower."""
        self.rules = other.rules
        self.n = other.n
        self.hand_size = other.hand_size
        self.start = other.start
        self.last = other.last
        self.to_move = other.to_move
        self.stage = other.stage
        self.declared = other.declared
        self.row_tiles = other.row_tiles
        self.draws_due = other.draws_due
        self.ending = other.ending
        self.turns = other.turns
        self.bag = other.bag[:]
        self.hands = [h[:] for h in other.hands]
        self.rows = [[r[:] for r in rows] for rows in other.rows]
        self.piles = [p[:] for p in other.piles]
        self.pile_sums = other.pile_sums[:]
        self.phases = other.phases[:]
        self.declared_turns = other.declared_turns[:]
        self.exchanged = [e[:] for e in other.exchanged]
        self.paid = [p[:] for p in other.paid]
        self.mulligan_tiles = [None if m is None else m[:] for m in other.mulligan_tiles]
        self.aside = other.aside[:]

    def __reduce__(self) -> tuple[object, ...]:
        """Pickle as the rules, the starting seat and every field (``_rebuild``): explicit,
        so that a compiled build of this class pickles like the interpreted one (process
        pools and Ray send states between processes)."""
        return (_rebuild, (self.rules, self.start,
                           {name: getattr(self, name) for name in STATE_FIELDS}))

    def key(self) -> tuple[object, ...]:
        """A value equal for two states exactly when they are the same game position.

        Orders of hands, bag and removed tiles carry no meaning, so they are sorted here.
        """
        def srt(tiles: list[int] | None) -> tuple[int, ...] | None:
            return None if tiles is None else tuple(sorted(tiles))

        return (
            self.rules, self.start, self.to_move, self.stage, srt(self.bag),
            tuple(srt(h) for h in self.hands),
            tuple(tuple(tuple(r) for r in rows) for rows in self.rows),
            tuple(srt(p) for p in self.piles), tuple(self.phases), tuple(self.declared_turns),
            tuple(srt(e) for e in self.exchanged), tuple(srt(p) for p in self.paid),
            tuple(srt(m) for m in self.mulligan_tiles), srt(self.aside),
            self.draws_due, self.ending, self.turns,
        )

    def __eq__(self, other: object) -> bool:
        return isinstance(other, GameState) and self.key() == other.key()

    __hash__ = None  # type: ignore[assignment]  # mutable: equal states may change apart

    # ------------------------------------------------------------------ changes
    def apply(self, action: Action) -> None:
        """Apply ``action`` without checking it (see ``play`` for the checked way).

        For bots, simulation and learning after masking: an illegal action here corrupts the
        state instead of raising.
        """
        kind = type(action)
        if kind is Draw:
            self._take(self.bag.index(action.tile))  # type: ignore[union-attr]
        elif kind is Place:
            self._place(action.tiles)  # type: ignore[union-attr]
        elif kind is Exchange:
            self._exchange(action.tiles)  # type: ignore[union-attr]
        elif kind is Score:
            self._score(action.row, action.count, action.pay)  # type: ignore[union-attr]
        elif kind is Declare:
            self._declare()
        elif kind is Mulligan:
            self._mulligan(action.tiles)  # type: ignore[union-attr]
        else:
            self._end_turn()

    def play(self, action: Action) -> None:
        """Apply ``action`` if the rules allow it.

        Raises:
            IllegalActionError: the action is not legal now; the message says which rule it
                breaks, and the state is unchanged.
        """
        from noreturn.engine.legal import check  # noqa: PLC0415 - legal imports this module

        check(self, action)
        self.apply(action)

    def _take(self, index: int) -> None:
        """Move the bag tile at ``index`` to the drawing player's hand.

        The first copy of that tile is the one taken, so the bag's order afterwards depends
        only on which tile was drawn, not on the route (``sample_draw`` + ``apply``,
        ``resolve_chance``, ``playout``): one seed then gives one game on every route.
        """
        bag = self.bag
        tile = bag[index]
        index = bag.index(tile)
        bag[index] = bag[-1]
        bag.pop()
        self.hands[self.to_move].append(tile)
        if not bag and self.stage == PLAY:
            self.ending = True
        self.draws_due -= 1
        if not self.draws_due:
            self._after_draws()

    def _after_draws(self) -> None:
        stage = self.stage
        if stage == PLAY:
            self._end_turn()
        elif stage == MULLIGAN:
            self._next_mulligan()
        else:
            self.to_move = (self.to_move + 1) % self.n
            if self.to_move == self.start:
                self.stage = MULLIGAN
            else:
                self.draws_due = self.hand_size

    def _mulligan(self, tiles: tuple[int, ...]) -> None:
        seat = self.to_move
        hand = self.hands[seat]
        for t in tiles:
            hand.remove(t)
        self.mulligan_tiles[seat] = list(tiles)
        self.aside.extend(sorted(tiles, reverse=True))  # the bag's order must not depend on
        # how the caller ordered the tiles (playout passes them in hand order)
        self.draws_due = len(tiles)
        if not tiles:
            self._next_mulligan()

    def _next_mulligan(self) -> None:
        if self.to_move == self.last:
            self.bag.extend(self.aside)
            self.aside.clear()
            self.stage = PLAY
        self.to_move = (self.to_move + 1) % self.n

    def _declare(self) -> None:
        """DECLARE: the player to move enters phase 2 for good and goes on with its turn
        (docs/rules.md: declaring is free, and a phase-2 action follows in the same turn)."""
        self.phases[self.to_move] = 2
        self.declared_turns[self.to_move] = self.turns
        self.declared += 1

    def _exchange(self, tiles: tuple[int, ...]) -> None:
        seat = self.to_move
        hand = self.hands[seat]
        for t in tiles:
            hand.remove(t)
        self.exchanged[seat].extend(tiles)
        self._refill(hand)

    def _place(self, tiles: tuple[int, ...]) -> None:
        hand = self.hands[self.to_move]
        for t in tiles:
            hand.remove(t)
        row = self.rows[self.to_move][TILE_COLOUR[tiles[0]]]
        row.extend(placed_values(tiles))
        self.row_tiles += len(tiles)
        self._refill(hand)

    def _score(self, colour: int, count: int, pay: tuple[int, ...]) -> None:
        seat = self.to_move
        hand = self.hands[seat]
        for t in pay:
            hand.remove(t)
        self.paid[seat].extend(pay)
        row = self.rows[seat][colour]
        taken = row[-count:]
        del row[-count:]
        self.piles[seat].extend(make_tiles(colour, taken))
        self.pile_sums[seat] += sum(taken)
        self.row_tiles -= count
        self._refill(hand)

    def _refill(self, hand: list[int]) -> None:
        due = self.hand_size - len(hand)
        due = min(due, len(self.bag))
        if due > 0:
            self.draws_due = due
        else:
            self._end_turn()

    def _end_turn(self) -> None:
        self.turns += 1
        if (self.ending and self.to_move == self.last) or (
            self.declared == self.n and not self.row_tiles
        ):
            self.stage = OVER
        else:
            self.to_move = (self.to_move + 1) % self.n


def turns_taken(state: GameState) -> tuple[int, ...]:
    """Turns each seat has completed: turns go round from the start player, one each.
    (Here, compiled, since the plan reads it at every decision of every playout.)"""
    n = state.n
    return tuple([(state.turns + n - 1 - (seat - state.start) % n) // n for seat in range(n)])


def new_game(rules: Rules, rng: Random | None = None, start_player: int | None = None) -> GameState:
    """A game before the deal, its starting player given or drawn with ``rng``.

    The caller chooses: a game drawn from an unseeded generator could never be replayed
    (DESIGN: the same seed and actions give the same game), so there is no such fallback.

    Raises:
        TypeError: neither ``rng`` nor ``start_player`` was given.
    """
    if start_player is None:
        if rng is None:
            raise TypeError("new_game needs rng (a seeded Random to draw the start player) "
                            "or start_player: an unseeded game could not be replayed")
        start_player = rng.randrange(rules.players)
    return GameState(rules, start_player)


def resolve_chance(state: GameState, rng: Random) -> None:
    """Draw with ``rng`` until the state is no longer a chance node."""
    while state.draws_due:
        state._take(int(rng.random() * len(state.bag)))


def _rebuild(rules: Rules, start: int, fields: dict[str, object]) -> GameState:
    """A pickled ``GameState`` again (``GameState.__reduce__``)."""
    state = GameState(rules, start)
    for name, value in fields.items():
        setattr(state, name, value)
    return state
