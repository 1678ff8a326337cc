"""One seat of No Return as a Gymnasium environment, the other seats played by bots.

``env(**options)`` (or ``gymnasium.make("noreturn/NoReturn-v0", **options)`` after importing
this module, or ``gymnasium.make("noreturn.rl.gymnasium:noreturn/NoReturn-v0")`` without)
gives a ``NoReturnEnv``. The agent plays one seat; every other seat is a bot from
``noreturn.bots``, and every draw is made inside the environment, so a step is one decision
of the agent and everything up to its next one.

* **Observation**: ``{"observation": float32 tensor, "action_mask": int8 mask}`` exactly as in
  the PettingZoo environment (``noreturn.rl.features``); ``info["action_mask"]`` holds the
  mask too, for libraries that read it there.
* **Actions**: ``Discrete(features.player_action_count(rules))``.
* **Reward**: 0 until the end, then the seat's final score minus the mean of the others
  (``features.rewards``). An illegal action (``illegal_action="penalize"``, the default)
  changes nothing, costs ``illegal_reward`` and says why in ``info["illegal_action"]``.

Penalizing is the default because Gymnasium's ``check_env`` and most single-agent libraries
sample actions without a mask, and in the default game almost every id is illegal; an
agent that keeps choosing illegal ids is truncated after ``illegal_limit`` of them in a row.

The helpers at the top (rules from options, the spaces, the legality check of an id, the
table text) are shared with ``noreturn.rl.pettingzoo``.
"""

from __future__ import annotations

import math
import operator
from collections.abc import Sequence
from random import Random
from typing import Any, Literal, SupportsIndex

import gymnasium
import numpy as np
from gymnasium import spaces

from noreturn.bots import Bot, BotError, make_bot
from noreturn.engine import (
    Action,
    GameState,
    IllegalActionError,
    NoReturnError,
    Refusal,
    Rules,
    RulesError,
    decode_action,
    encode_action,
    legal_actions,
    new_game,
    refusal,
    resolve_chance,
    view,
    why_illegal,
)
from noreturn.rl import features
from noreturn.text.lang import speaking
from noreturn.text.narrate import narrate_game_over, render_table

ENV_ID = "noreturn/NoReturn-v0"
"""The id this module registers with Gymnasium."""

IllegalMode = Literal["raise", "penalize"]
Observation = dict[str, Any]
"""``{"observation": float32 array, "action_mask": int8 array}``."""


# --------------------------------------------------------------------------- shared helpers
def rules_from_options(rules: Rules | None = None, **sizes: int | None) -> Rules:
    """The variant from ``rules=Rules(...)`` or from size keywords (``None`` = default).

    Raises:
        RulesError: both ways were used, ``rules`` is not a ``Rules``, or a size is bad.
    """
    given = {name: value for name, value in sizes.items() if value is not None}
    if rules is None:
        return Rules(**given)
    if not isinstance(rules, Rules):
        raise RulesError("rules must be a noreturn.engine.Rules, not {found}",
                         {"found": type(rules).__name__})
    if given:
        raise RulesError("give either rules=Rules(...) or the size options ({given}), not "
                         "both", {"given": ", ".join(sorted(given))})
    return rules


def check_illegal_options(illegal_action: str, illegal_reward: float) -> float:
    """Validate the illegal-action options; returns the reward as a float.

    Raises:
        ValueError: an unknown mode or a reward that is not a finite number.
    """
    if illegal_action not in ("raise", "penalize"):
        raise ValueError(f"illegal_action must be 'raise' or 'penalize', not {illegal_action!r}")
    try:
        reward = float(illegal_reward)
    except (TypeError, ValueError):
        reward = math.nan
    if isinstance(illegal_reward, bool) or not math.isfinite(reward):
        raise ValueError(f"illegal_reward must be a finite number, not {illegal_reward!r}")
    return reward


RENDER_MODES = ["human", "ansi"]
"""``ansi``: ``render()`` returns the public table as text; ``human``: it prints it (and
returns None), after every reset and step of the Gymnasium env too, as that mode asks."""


def check_render_mode(render_mode: str | None) -> None:
    """Raise ``ValueError`` unless ``render_mode`` is ``None`` or one of ``RENDER_MODES``."""
    if render_mode is not None and render_mode not in RENDER_MODES:
        raise ValueError(f"render_mode must be None, 'human' or 'ansi', not {render_mode!r}")


def shown(text: str, render_mode: str | None) -> str | None:
    """``render()``'s answer: the text (``ansi``), or None once printed (``human``)."""
    if render_mode == "human":
        print(text)
        return None
    return text


def observation_space(rules: Rules) -> spaces.Dict:
    """The observation space of one seat: the tensor and the action mask."""
    size = features.observation_size(rules)
    count = features.player_action_count(rules)
    return spaces.Dict({
        "observation": spaces.Box(-1.0, 1.0, (size,), np.float32),
        "action_mask": spaces.Box(0, 1, (count,), np.int8),
    })


def seat_mask(state: GameState, seat: int) -> features.Mask:
    """``seat``'s action mask: the legal ids if it is to decide now, else all zeros."""
    if seat == state.to_move:
        return features.action_mask(state)  # all zeros at the end
    return np.zeros(features.player_action_count(state.rules), dtype=np.int8)


def observe_seat(state: GameState, seat: int) -> Observation:
    """What ``seat`` observes: built from ``view(state, seat)``; the mask is all zeros
    unless that seat is to decide now."""
    tensor = features.observation_tensor(view(state, seat))
    return {"observation": tensor, "action_mask": seat_mask(state, seat)}


def resolve_action(state: GameState, action: object) -> Action | Refusal:
    """The engine action for the id ``action`` of the player to move, or why it is illegal:
    a ``Refusal`` (the rule code, ``bad_id`` for an id that names no action, and a reason).

    An id is legal exactly when the action mask holds 1 there: the id must be in range,
    name hand positions that exist, be allowed by the rules, and be the canonical id of its
    action (the same tiles named through other positions of equal tiles are refused, so
    that the mask and this check always agree). Nothing is changed.
    """
    count = features.player_action_count(state.rules)
    not_an_id = Refusal("bad_id", "an action is an integer id 0..{last}, not {action}",
                        {"last": count - 1, "action": repr(action)})
    if isinstance(action, (bool, np.bool_)) or not isinstance(action, SupportsIndex):
        return not_an_id
    try:
        action_id = operator.index(action)
    except TypeError:  # e.g. a numpy array of more than one element
        return not_an_id
    if not 0 <= action_id < count:
        return Refusal("bad_id", "action id {id} is out of range: ids run from 0 to {last}",
                       {"id": action_id, "last": count - 1})
    if state.is_over():
        return Refusal("game_over", "the game is over")
    try:
        decoded = decode_action(state, action_id)
    except NoReturnError as exc:
        return Refusal("bad_id", "{error}", {"error": str(exc)})
    refused = refusal(state, decoded)
    if refused is not None:
        return Refusal(refused.code, "action id {id} ({action}): " + refused.template,
                       {**refused.params, "id": action_id, "action": str(decoded)})
    canonical = encode_action(state, decoded)
    if canonical != action_id:
        return Refusal("bad_id", "action id {id} names {action} through other positions of equal "
                       "tiles; its id is {canonical} (the one the action mask marks)",
                       {"id": action_id, "action": str(decoded), "canonical": canonical})
    return decoded


def table_text(state: GameState, names: Sequence[str]) -> str:
    """The public table (the spectators' view, never a hand) and whose turn it is."""
    with speaking("en"):  # programs read this text: always English
        text = render_table(view(state, None), list(names))
        if state.is_over():
            return f"{text}\n{narrate_game_over(names, state.scores())}"
    return f"{text}\nto move: {names[state.to_move]}"


def derive_random(np_random: np.random.Generator) -> Random:
    """A ``random.Random`` seeded from ``np_random`` (the engine and bots use ``Random``)."""
    return Random(int(np_random.integers(2**63)))


# ------------------------------------------------------------------------------ environment
class NoReturnEnv(gymnasium.Env[Observation, np.int64]):
    """One seat of No Return against bots (see the module docstring for the numbers).

    Args:
        players, colors, max_value, copies, hand_size, exchange_limit: the variant (default
            the published two-player game); or ``rules=Rules(...)`` instead.
        opponents: a bot spec (``noreturn.bots.make_bot``), or a list of specs given to the
            other seats in playing order after the agent, cycled; at most one per other
            seat.
        seat: the agent's seat, or ``"random"`` to draw it at every reset.
        render_mode: ``None``, ``"ansi"`` (the public table as text) or ``"human"`` (it
            printed).
        illegal_action: ``"penalize"`` (state unchanged, reward ``illegal_reward``,
            ``info["illegal_action"]`` says why) or ``"raise"`` (``IllegalActionError``).
        illegal_limit: truncate after this many illegal actions in a row (penalize mode).
    """

    metadata: dict[str, Any] = {"render_modes": RENDER_MODES, "render_fps": 4}  # noqa: RUF012

    def __init__(
        self,
        players: int | None = None,
        *,
        colors: int | None = None,
        max_value: int | None = None,
        copies: int | None = None,
        hand_size: int | None = None,
        exchange_limit: int | None = None,
        rules: Rules | None = None,
        opponents: str | Sequence[str] = "heuristic",
        seat: int | Literal["random"] = 0,
        render_mode: str | None = None,
        illegal_action: IllegalMode = "penalize",
        illegal_reward: float = -1.0,
        illegal_limit: int = 100,
    ) -> None:
        """Check every option (bad ones raise a clear error) and make the bots."""
        self.rules = rules_from_options(
            rules, players=players, colors=colors, max_value=max_value, copies=copies,
            hand_size=hand_size, exchange_limit=exchange_limit)
        n = self.rules.players
        check_render_mode(render_mode)
        self.render_mode = render_mode
        self.illegal_reward = check_illegal_options(illegal_action, illegal_reward)
        self.illegal_action: IllegalMode = illegal_action
        if type(illegal_limit) is not int or illegal_limit < 1:
            raise ValueError(f"illegal_limit must be a whole number >= 1, not {illegal_limit!r}")
        self.illegal_limit = illegal_limit
        if seat != "random" and (type(seat) is not int or not 0 <= seat < n):
            raise ValueError(f"seat must be 0..{n - 1} or 'random', not {seat!r}")
        self.seat_option = seat
        specs = [opponents] if isinstance(opponents, str) else list(opponents)
        if not specs or not all(isinstance(s, str) for s in specs):
            raise BotError(f"opponents must be a bot spec or a non-empty list of specs, "
                           f"not {opponents!r}")
        if len(specs) > n - 1:  # the rest would be dropped unseen: a mistake, most likely
            raise BotError(f"{len(specs)} opponents for {n - 1} other seat"
                           f"{'s' if n > 2 else ''}: give at most {n - 1}")
        self.opponent_specs = specs
        self._bots: list[Bot] = [make_bot(specs[i % len(specs)]) for i in range(n - 1)]
        self.observation_space = observation_space(self.rules)
        self.action_space = spaces.Discrete(features.player_action_count(self.rules))
        self.seat = seat if isinstance(seat, int) else 0
        self._state: GameState | None = None
        self._seat_bots: dict[int, Bot] = {}
        self._chance_rng = Random(0)
        self._bot_rngs: dict[int, Random] = {}
        self._illegal_streak = 0
        self._done = True
        self._in_game = False

    # --------------------------------------------------------------------------- API
    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[Observation, dict[str, Any]]:
        """Deal a new game; the bots play until the agent's first decision.

        ``options`` is accepted for the API and unused. Equal seeds give equal games
        (deal, seat, start player and the bots' choices), except against a bot that thinks
        for a time (``search:time=S``, and ``search`` itself: a second): how far it gets
        depends on the machine, so give it ``iterations=N`` for games that repeat.
        """
        super().reset(seed=seed)
        self._finish_bots()
        rng = self.np_random
        n = self.rules.players
        self.seat = int(rng.integers(n)) if self.seat_option == "random" else self.seat
        self._chance_rng = derive_random(rng)
        others = [(self.seat + k) % n for k in range(1, n)]
        self._seat_bots = dict(zip(others, self._bots, strict=True))
        self._bot_rngs = {s: derive_random(rng) for s in others}
        state = new_game(self.rules, self._chance_rng)
        resolve_chance(state, self._chance_rng)
        self._state = state
        self._illegal_streak = 0
        self._done = False
        names = self.names()
        for other, bot in self._seat_bots.items():
            start = getattr(bot, "start_game", None)
            if callable(start):
                start(other, names)
        self._in_game = True
        self._advance()
        if self.render_mode == "human":
            self.render()
        return self._observation_and_info()

    def step(
        self, action: np.int64 | int
    ) -> tuple[Observation, float, bool, bool, dict[str, Any]]:
        """Play the agent's action, then the bots up to the agent's next decision."""
        state = self._require_state()
        if self._done:
            raise NoReturnError("the episode is over: call reset() to start a new game")
        decoded = resolve_action(state, action)
        if isinstance(decoded, Refusal):
            if self.illegal_action == "raise":
                raise IllegalActionError(f"seat {self.seat}: {decoded.reason}", decoded.code)
            self._illegal_streak += 1
            truncated = self._illegal_streak >= self.illegal_limit
            if truncated:
                self._done = True
                self._finish_bots()
            obs, info = self._observation_and_info()
            info["illegal_action"] = decoded.reason
            return obs, self.illegal_reward, False, truncated, info
        self._illegal_streak = 0
        state.apply(decoded)
        resolve_chance(state, self._chance_rng)
        self._advance()
        terminated = state.is_over()
        reward = features.rewards(state)[self.seat] if terminated else 0.0
        if terminated:
            self._done = True
        obs, info = self._observation_and_info()
        if self.render_mode == "human":
            self.render()
        return obs, reward, terminated, False, info

    def render(self) -> str | None:
        """The public table and whose turn it is (``RENDER_MODES``); no hand shown."""
        if self.render_mode is None:
            gymnasium.logger.warn("render() was called with render_mode=None: make the "
                                  "environment with render_mode='ansi' to get the table text")
            return None
        return shown(table_text(self._require_state(), self.names()), self.render_mode)

    def close(self) -> None:
        """Tell the bots the game is done (an external bot's program stops)."""
        self._finish_bots()

    def action_masks(self) -> np.ndarray[Any, np.dtype[np.bool_]]:
        """The legal ids as booleans (the method sb3-contrib's MaskablePPO looks for)."""
        return self._mask().astype(bool)

    def names(self) -> list[str]:
        """Seat names for the table text: ``player_i``, the agent's marked ``(you)``."""
        return [f"player_{s}" + (" (you)" if s == self.seat else "")
                for s in range(self.rules.players)]

    @property
    def opponents_by_seat(self) -> dict[int, str]:
        """The spec of the bot at each other seat in the current game."""
        return {s: self.opponent_specs[i % len(self.opponent_specs)]
                for i, s in enumerate(self._seat_bots)}

    @property
    def game(self) -> GameState:
        """The full game state (hidden parts included: for tests and analysis, not agents)."""
        return self._require_state()

    # ----------------------------------------------------------------------- helpers
    def _require_state(self) -> GameState:
        if self._state is None:
            raise NoReturnError("call reset() before using the environment")
        return self._state

    def _mask(self) -> features.Mask:
        return seat_mask(self._require_state(), self.seat)

    def _observation_and_info(self) -> tuple[Observation, dict[str, Any]]:
        """The agent's observation and the step's info; the legal ids are found once and
        the info gets its own copy of the mask."""
        state = self._require_state()
        obs = observe_seat(state, self.seat)
        info: dict[str, Any] = {"seat": self.seat, "action_mask": obs["action_mask"].copy(),
                                "turns": state.turns}
        if state.is_over():
            info["scores"] = state.scores()
        return obs, info

    def _advance(self) -> None:
        """Let the bots decide until it is the agent's turn or the game is over."""
        state = self._require_state()
        while not state.is_over() and state.to_move != self.seat:
            mover = state.to_move
            legal = legal_actions(state)
            chosen = self._seat_bots[mover].act(view(state, mover), legal, self._bot_rngs[mover])
            if chosen not in legal:
                reason = why_illegal(state, chosen) or "not among the legal actions"
                raise BotError(f"opponent at seat {mover} answered {chosen}, which is not "
                               f"legal: {reason}")
            state.apply(chosen)
            resolve_chance(state, self._chance_rng)
        if state.is_over():
            self._finish_bots()

    def _finish_bots(self) -> None:
        """Call the bots' ``end_game`` hooks once per started game."""
        if not self._in_game or self._state is None:
            return
        self._in_game = False
        for other, bot in self._seat_bots.items():
            end = getattr(bot, "end_game", None)
            if callable(end):
                end(view(self._state, other))


def env(**options: Any) -> NoReturnEnv:
    """A ``NoReturnEnv`` with ``options`` (see ``NoReturnEnv`` for the list)."""
    return NoReturnEnv(**options)


def register() -> None:
    """Register ``noreturn/NoReturn-v0`` with Gymnasium, once (importing this module does)."""
    if ENV_ID not in gymnasium.registry:
        gymnasium.register(id=ENV_ID, entry_point="noreturn.rl.gymnasium:NoReturnEnv")


register()
