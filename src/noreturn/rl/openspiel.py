"""No Return as an OpenSpiel game: importing this module registers ``python_no_return``.

::

    import pyspiel
    import noreturn.rl.openspiel  # registers python_no_return

    game = pyspiel.load_game("python_no_return(players=3,colors=3,max_value=6,hand_size=5)")

The engine plays the game; this module only translates. Numbers come from
``noreturn.rl.features`` so that an action id, an observation and a return mean the same
here as in the PettingZoo and Gymnasium interfaces (docs/rl.md).

* **Chance is explicit.** Every tile drawn (deal, mulligan redraw, refill) is its own chance
  node; outcome ``k`` is tile kind ``k`` (``features.tile_index``), with the probability of
  drawing that kind from the bag.
* **The starting player is chance too** (docs/rules.md: chosen at random). The first node of
  every game is a chance node with one outcome per seat, each ``1 / players``: outcome
  ``s`` makes seat ``s`` start. Every later chance node is a draw.
* **Hidden information stays hidden.** Observations and information states are built from
  the engine's two gates (in ``noreturn.rl.openspiel_observer``): ``view(state, seat)`` for
  the table and ``observe(event, seat)`` for each event of the log, whose hidden tiles (the
  tiles a seat drew, exchanged or set aside) reach that seat only; every other seat reads
  a count.
  ``str(state)`` (OpenSpiel's debug string) and ``state.history()`` (every action id,
  draws included; a player's ids name positions in its hand) are the full game: do not
  give them to an agent.
* **Serialization** (``pyspiel.serialize_game_and_state``, ``pickle``) stores the engine
  state; import this module before loading or deserializing the game.
* **Information state.** The string is the seat's whole action-observation history (perfect
  recall). The tensor is the observation tensor: it already holds every tile-level fact the
  seat has ever learned (its own hand, exchanged and set-aside tiles, every public tile and
  every count), which is all the rules need to decide what is legal and what may still be
  drawn. It forgets only the order of play; that order can tell something about the
  opponents' choices, so algorithms that need exact perfect recall (CFR and friends) should
  key on the string.
* ``resample_from_infostate`` deals the hidden tiles anew (``noreturn.engine.sample_world``),
  so OpenSpiel's ISMCTS bot can play. In such an imagined state the other seats' past
  private events are unknown, so its log keeps them as counts; each other seat gets one
  line, for itself alone, naming its imagined hand and removed tiles. An information state
  then always fixes its seat's hand, hence its legal actions, and ISMCTSBot works with its
  default ``allow_inconsistent_action_sets=False``.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from random import Random
from typing import Any

try:
    import pyspiel
except ImportError as exc:  # pragma: no cover - depends on the environment
    raise ImportError(
        "noreturn.rl.openspiel needs OpenSpiel: pip install -e '.[openspiel]' "
        "(the open_spiel package)"
    ) from exc

from noreturn.engine import (
    COLOUR_LETTERS,
    DEAL,
    Draw,
    GameState,
    NoReturnError,
    Rules,
    RulesError,
    check,
    decode_action,
    encode_action,
    event_of,
    make_tile,
    observe,
    sample_world,
    start_event,
    tile_code,
    tiles_text,
    view,
)
from noreturn.rl import features
from noreturn.rl.openspiel_observer import (
    SHORT_NAME,
    Entry,
    NoReturnObserver,
    Told,
    imagined_entry,
    log_draw,
    seat_name,
)
from noreturn.text.lang import speaking
from noreturn.text.narrate import narrate_event

RULE_FIELDS = tuple(f.name for f in dataclasses.fields(Rules))
DEFAULTS: dict[str, int] = {name: getattr(Rules(), name) for name in RULE_FIELDS}
"""Every ``Rules`` field is a game parameter, with the published game as the default."""

GAME_TYPE = pyspiel.GameType(
    short_name=SHORT_NAME,
    long_name="Python No Return",
    dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
    chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
    information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
    utility=pyspiel.GameType.Utility.ZERO_SUM,
    reward_model=pyspiel.GameType.RewardModel.TERMINAL,
    max_num_players=4,
    min_num_players=2,
    provides_information_state_string=True,
    provides_information_state_tensor=True,
    provides_observation_string=True,
    provides_observation_tensor=True,
    parameter_specification=dict(DEFAULTS),
    provides_factored_observation_string=True,
)


# ----------------------------------------------------------------------------- sizes
def utility_bounds(rules: Rules) -> tuple[float, float]:
    """Bounds on ``features.rewards``: honest (never exceeded), not tight.

    With ``P`` the sum of all tile values, seat ``i``'s reward is ``s_i`` minus the mean of
    the other scores, and a score is the score pile minus the rows. Piles, rows and paid
    tiles are disjoint sets of tiles, and every SCORE pays at least what it moves to the
    pile, so all piles together hold at most ``P / 2``.

    * Lowest: ``s_i >= -rows_i`` and each other score is at most its pile, so the reward is
      at least ``-(rows_i + piles_others / (n - 1))`` with ``rows_i + 2 piles_others <= P``:
      at least ``-P``.
    * Highest: ``s_i <= pile_i`` and each other score is at least minus its rows, so the
      reward is at most ``pile_i + rows_others / (n - 1)`` with ``2 pile_i + rows_others
      <= P``: at most ``P`` for two players and ``max(P / 2, P / (n - 1)) = P / 2`` for
      three or four.
    """
    points = float(features.total_points(rules))
    return -points, points if rules.players == 2 else points / 2


def max_game_length(rules: Rules) -> int:
    """An upper bound on the player decisions of a game (OpenSpiel's ``MaxGameLength``).

    With ``T`` tiles, ``n`` players and hands of ``h``: when play starts the bag holds
    ``T - n h`` tiles (set-aside tiles are back) and every hand is full. A turn that starts
    with tiles in the bag starts with a full hand, takes at least one tile out of it for
    good (EXCHANGE, PLACE and SCORE all do; PASS needs an empty hand) and so draws at least
    one: there are at most ``T - n h`` such turns. The one that empties the bag is among
    them, and after it at most ``n - 1`` turns complete the round. Besides its turns, each
    player decides its mulligan and at most one declaration, which does not use up a turn.
    So at most ``T - n h + n - 1 + 2 n`` decisions (121 in the published game; a player
    who makes every game as long as it can gets within a few, see the tests). This is
    tighter than ``features.max_turns(rules) + 2 n``.
    """
    n = rules.players
    return rules.tile_count - n * rules.hand_size + 3 * n - 1


def max_chance_nodes(rules: Rules) -> int:
    """An upper bound on the draws of a game (OpenSpiel's ``MaxChanceNodesInHistory``).

    The deal draws ``players * hand_size`` tiles and the mulligan at most as many again;
    after the mulligan nothing goes back into the bag, which then holds ``tile_count -
    players * hand_size`` tiles, each drawn at most once. One more chance node chooses the
    starting player.
    """
    return rules.tile_count + rules.players * rules.hand_size + 1


def rules_from_params(params: dict[str, Any]) -> Rules:
    """The ``Rules`` of OpenSpiel game parameters (missing ones take their default).

    Raises:
        RulesError: an unknown parameter or a value the rules do not allow; the message
            says which and what is allowed.
    """
    unknown = sorted(set(params) - set(RULE_FIELDS))
    if unknown:
        raise RulesError("{game}: unknown parameter {unknown}; the parameters are {keys}",
                         {"game": SHORT_NAME, "unknown": ", ".join(unknown),
                          "keys": ", ".join(RULE_FIELDS)})
    try:
        return Rules(**{**DEFAULTS, **params})
    except RulesError as exc:
        raise RulesError("{game}: " + exc.template, {**exc.params, "game": SHORT_NAME}) \
            from None


def game_info(rules: Rules) -> Any:
    """The ``pyspiel.GameInfo`` of ``rules``."""
    low, high = utility_bounds(rules)
    return pyspiel.GameInfo(
        num_distinct_actions=features.player_action_count(rules),
        max_chance_outcomes=max(features.chance_outcome_count(rules), rules.players),
        num_players=rules.players,
        min_utility=low,
        max_utility=high,
        utility_sum=0.0,
        max_game_length=max_game_length(rules),
    )


# ---------------------------------------------------------------------- event log
class Table:
    """The engine state and the event log of one OpenSpiel state, copied as one.

    OpenSpiel clones a Python state by deep-copying its attributes; ``__deepcopy__`` makes
    that a cheap ``GameState.clone`` plus a shallow copy of the log, whose entries (engine
    events with their words, ``openspiel_observer.Told``) a state shares with its clones. The
    legal action ids are kept until the next action, because search asks for them several
    times per position and listing them is the costliest step of a move.
    """

    __slots__ = ("game", "legal", "log", "opening")

    def __init__(self, game: GameState, log: list[Entry], opening: bool = False) -> None:
        """Wrap ``game`` with its story ``log``; ``opening``: the starting player is still
        to be chosen (``game`` is then a placeholder with seat 0 to start)."""
        self.game = game
        self.log = log
        self.opening = opening
        self.legal: list[int] | None = None

    def __deepcopy__(self, memo: dict[int, Any]) -> Table:
        copy = Table(self.game.clone(), list(self.log), self.opening)
        copy.legal = self.legal
        return copy

    def __getstate__(self) -> tuple[GameState, list[Entry], bool]:
        return self.game, self.log, self.opening

    def __setstate__(self, data: tuple[GameState, list[Entry], bool]) -> None:
        self.game, self.log, self.opening = data
        self.legal = None

    def legal_ids(self) -> list[int]:
        """``features.legal_ids`` of the game, listed once per position."""
        if self.legal is None:
            self.legal = features.legal_ids(self.game)
        return self.legal

    def record_draw(self, tile: int) -> None:
        """Log a draw by the player to move: it extends that player's current run."""
        game = self.game
        log_draw(self.log, game.to_move, tile, game.stage == DEAL)


# -------------------------------------------------------------------------- game
def tile_of_kind(rules: Rules, kind: int) -> int:
    """The tile of kind ``kind`` (the inverse of ``features.tile_index``)."""
    colour, value = divmod(kind, rules.max_value)
    return make_tile(colour, value + 1)


class NoReturnGame(pyspiel.Game):  # type: ignore[misc]  # pyspiel has no type information
    """The game ``python_no_return``; its parameters are the fields of ``Rules``."""

    def __init__(self, params: dict[str, Any] | None = None) -> None:
        """A variant from OpenSpiel parameters (defaults: the published game).

        Raises:
            RulesError: a parameter the rules do not allow.
        """
        rules = rules_from_params(dict(params or {}))
        super().__init__(GAME_TYPE, game_info(rules), {**DEFAULTS, **(params or {})})
        self.rules = rules

    def __reduce__(self) -> tuple[type[NoReturnGame], tuple[dict[str, Any]]]:
        """Pickled and copied by its parameters: pyspiel's own way rebuilds the object
        without ``__init__``, so the copy had no ``rules``."""
        return NoReturnGame, (dict(self.get_parameters()),)

    def new_initial_state(self) -> NoReturnState:
        """A game before the starting player is chosen (a chance node)."""
        return NoReturnState(self)

    def max_chance_nodes_in_history(self) -> int:
        """See ``max_chance_nodes``."""
        return max_chance_nodes(self.rules)

    def make_py_observer(self, iig_obs_type: Any = None,
                         params: dict[str, Any] | None = None) -> NoReturnObserver:
        """An observer of the kind ``iig_obs_type`` (default: the observation)."""
        if isinstance(iig_obs_type, dict):  # OpenSpiel passes only the parameters then
            iig_obs_type, params = None, iig_obs_type
        return NoReturnObserver(
            self.rules, iig_obs_type or pyspiel.IIGObservationType(perfect_recall=False), params)


class NoReturnState(pyspiel.State):  # type: ignore[misc]  # pyspiel has no type information
    """One position: an engine ``GameState`` and its event log (``table``)."""

    def __init__(self, game: NoReturnGame) -> None:
        """Every tile in the bag; the first chance node chooses who starts."""
        super().__init__(game)
        self.table = Table(GameState(game.rules, 0), [], opening=True)

    @property
    def choosing_start(self) -> bool:
        """Whether the next chance outcome chooses the starting seat (not a draw)."""
        return self.table.opening

    @property
    def engine(self) -> GameState:
        """The engine's state, hidden tiles included: show a seat only ``view(engine, seat)``."""
        return self.table.game

    # --------------------------------------------------------------- OpenSpiel API
    def current_player(self) -> int:
        """The seat to decide, or TERMINAL, or CHANCE while a draw is due."""
        game = self.table.game
        if game.is_over():
            return int(pyspiel.PlayerId.TERMINAL)
        if self.table.opening or game.is_chance():
            return int(pyspiel.PlayerId.CHANCE)
        return game.to_move

    def is_terminal(self) -> bool:
        """Whether the game has ended."""
        return self.table.game.is_over()

    def _legal_actions(self, player: int) -> list[int]:
        """The legal action ids of ``player`` (the player to move), ascending."""
        return list(self.table.legal_ids())

    def chance_outcomes(self) -> list[tuple[int, float]]:
        """Each seat, equally likely, to start; later each tile kind in the bag with the
        probability of drawing it."""
        game = self.table.game
        rules = game.rules
        if self.table.opening:
            return [(seat, 1.0 / game.n) for seat in range(game.n)]
        return [(features.tile_index(rules, draw.tile), p)
                for draw, p in game.chance_outcomes()]

    def _apply_action(self, action: int) -> None:
        """Apply action id ``action``: a tile kind at a chance node, else a player's id.

        Raises:
            NoReturnError: the id is not a legal action here (IllegalActionError names the
                rule it breaks); the state is unchanged.
        """
        table = self.table
        game = table.game
        rules = game.rules
        if table.opening:
            if type(action) is not int or not 0 <= action < game.n:
                raise NoReturnError(f"the first chance outcome is the starting seat "
                                    f"0..{game.n - 1}, not {action!r}")
            table.game = GameState(rules, action)
            table.opening = False
            table.log.append(Told(start_event(action)))
            return
        if game.is_chance():
            kinds = features.chance_outcome_count(rules)
            if type(action) is not int or not 0 <= action < kinds:
                raise NoReturnError(f"a chance outcome is a tile kind 0..{kinds - 1}, "
                                    f"not {action!r}")
            tile = tile_of_kind(rules, action)
            if tile not in game.bag:
                raise NoReturnError(f"chance outcome {action} ({tile_code(tile)}): no such "
                                    "tile is left in the bag")
            table.record_draw(tile)
            table.legal = None
            game.apply(Draw(tile))
            return
        move = decode_action(game, action)
        check(game, move)
        canonical = encode_action(game, move)
        if canonical != action:
            raise NoReturnError(f"action id {action} names {move} with other copies of equal "
                                f"tiles; its id is {canonical}")
        table.log.append(Told(event_of(game, move)))
        table.legal = None
        game.apply(move)

    def _action_to_string(self, player: int, action: int) -> str:
        """The action's text form (``place R11 R9``, ``exchange B3``); ``draw R5`` for chance.

        A player's ids are relative to that player's hand, so they are read with it.
        """
        game = self.table.game
        rules = game.rules
        if player == int(pyspiel.PlayerId.CHANCE):
            if self.table.opening:
                with speaking("en"):  # programs read these strings: always English
                    return narrate_event(seat_name(action), observe(start_event(action), None))
            if 0 <= action < features.chance_outcome_count(rules):
                return str(Draw(tile_of_kind(rules, action)))
            return f"chance outcome {action} (not a tile kind)"
        seat = player if 0 <= player < game.n else None
        try:
            return str(decode_action(game, action, seat))
        except NoReturnError:
            return f"action {action} (not an action of p{player}'s hand)"

    def returns(self) -> list[float]:
        """Final score minus the mean of the others' (0 until the end)."""
        return features.rewards(self.table.game)

    def __str__(self) -> str:
        """The full state, hidden tiles included (OpenSpiel's debug string)."""
        return full_text(self.table.game)

    # -------------------------------------------------------------------- sampling
    def resample_from_infostate(self, player_id: int,
                                probability_sampler: Callable[[], float]) -> NoReturnState:
        """A state that ``player_id`` cannot tell apart from this one, hidden tiles redealt.

        The hidden tiles come from ``sample_world`` of the seat's view, with a
        generator seeded by one number of ``probability_sampler`` (any callable giving
        floats in [0, 1), such as ``pyspiel.UniformProbabilitySampler(0., 1.)`` or
        ``random.Random(7).random``). The new state's log keeps the seat's own private
        lines; the other seats' are unknown there. Its OpenSpiel ``history()`` is empty:
        its past is imagined.
        """
        game = self.table.game
        rng = Random(int(probability_sampler() * (1 << 53)))
        imagined = sample_world(view(game, player_id), rng)
        log: list[Entry] = [
            Told(e.event.without_hidden()) if isinstance(e, Told) and e.event.actor != player_id
            else e for e in self.table.log]
        log += [imagined_entry(view(imagined, seat))
                for seat in range(imagined.n) if seat != player_id]
        state = self.get_game().new_initial_state()
        state.table = Table(imagined, log)
        return state  # type: ignore[no-any-return]


def full_text(game: GameState) -> str:
    """Everything about ``game`` as text, hidden tiles included, in a stable order."""
    lines = [
        f"stage {game.stage}, to move {seat_name(game.to_move)}, draws due {game.draws_due}, "
        f"turns {game.turns}, last round {game.ending}",
        f"bag ({len(game.bag)}): {tiles_text(sorted(game.bag))}",
    ]
    if game.aside:
        lines.append(f"set aside, back to the bag after the mulligan: "
                     f"{tiles_text(sorted(game.aside))}")
    scores = game.scores()
    for seat in range(game.n):
        rows = [f"{COLOUR_LETTERS[c]}: {' '.join(map(str, r))}"
                for c, r in enumerate(game.rows[seat]) if r]
        mulligan = game.mulligan_tiles[seat]
        lines += [
            f"{seat_name(seat)}: phase {game.phases[seat]}, score {scores[seat]}",
            f"  hand: {tiles_text(sorted(game.hands[seat]))}",
            f"  rows: {' | '.join(rows) or 'none'}",
            f"  pile: {tiles_text(sorted(game.piles[seat]))}",
            f"  paid: {tiles_text(sorted(game.paid[seat]))}",
            f"  exchanged: {tiles_text(sorted(game.exchanged[seat]))}",
            "  set aside: " + ("-" if mulligan is None else tiles_text(sorted(mulligan))),
        ]
    return "\n".join(lines)


pyspiel.register_game(GAME_TYPE, NoReturnGame)
