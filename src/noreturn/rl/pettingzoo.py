"""No Return for 2-4 learning agents as a PettingZoo AEC environment.

``env(**options)`` is the environment to use (``raw_env`` inside PettingZoo's
``OrderEnforcingWrapper``); ``raw_env`` is the bare one. Agents are ``"player_0"`` ..
``"player_{n-1}"``, named after their seats, and ``agent_selection`` is always the seat to
decide: draws are made inside the environment with a generator seeded by
``reset(seed=...)``, so equal seeds give equal games.

* **Observation** of an agent: ``{"observation": float32 tensor, "action_mask": int8}``
  built from that seat's ``view`` only (``noreturn.rl.features``); the mask is all zeros
  unless the agent is to decide now.
* **Actions**: ``Discrete(features.player_action_count(rules))``; the ids of the engine's
  encoding, relative to the sorted hand of the agent to move.
* **Rewards** come once, at the end: each seat's final score minus the mean score of the
  others (``features.rewards``), so they sum to zero over the table. Then every agent is
  terminated and steps out with ``None`` as PettingZoo's dead-step protocol asks.
* **Illegal actions**: ``illegal_action="raise"`` (default) raises ``IllegalActionError``
  naming what is wrong and changes nothing; ``"penalize"`` changes nothing either but gives
  the agent ``illegal_reward`` and ``infos[agent]["illegal_action"]`` (the reason), and the
  same agent is still to move.

Only ``OrderEnforcingWrapper`` is applied: ``AssertOutOfBoundsWrapper`` would stop an
out-of-range id with a bare ``AssertionError`` before the environment can raise its clear
message or penalize it, and ``TerminateIllegalWrapper`` ends the game on an illegal move,
which neither of the two modes does.
"""

from __future__ import annotations

from random import Random
from typing import Any

import gymnasium
import numpy as np
from gymnasium.utils import seeding
from pettingzoo import AECEnv
from pettingzoo.utils.wrappers import OrderEnforcingWrapper

from noreturn.engine import (
    GameState,
    IllegalActionError,
    NoReturnError,
    Refusal,
    Rules,
    new_game,
    resolve_chance,
)
from noreturn.rl import features
from noreturn.rl.gymnasium import (
    RENDER_MODES,
    IllegalMode,
    Observation,
    check_illegal_options,
    check_render_mode,
    derive_random,
    observation_space,
    observe_seat,
    resolve_action,
    rules_from_options,
    shown,
    table_text,
)


class raw_env(AECEnv):  # noqa: N801 - PettingZoo's naming convention for the bare env
    """No Return for ``players`` agents, one per seat (see the module docstring).

    Args:
        players, colors, max_value, copies, hand_size, exchange_limit: the variant (default
            the published two-player game); or ``rules=Rules(...)`` instead.
        render_mode: ``None``, ``"ansi"`` (the public table as text) or ``"human"`` (it
            printed).
        illegal_action: ``"raise"`` or ``"penalize"``.
        illegal_reward: the reward of an illegal action in ``"penalize"`` mode.
    """

    metadata: dict[str, Any] = {  # noqa: RUF012 - PettingZoo reads it from the class
        "name": "noreturn_v0",
        "render_modes": RENDER_MODES,
        "is_parallelizable": False,
    }

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
        render_mode: str | None = None,
        illegal_action: IllegalMode = "raise",
        illegal_reward: float = -1.0,
    ) -> None:
        """Check the options (bad ones raise a clear error) and build the spaces."""
        super().__init__()
        self.rules = rules_from_options(
            rules, players=players, colors=colors, max_value=max_value, copies=copies,
            hand_size=hand_size, exchange_limit=exchange_limit)
        check_render_mode(render_mode)
        self.render_mode = render_mode
        self.illegal_reward = check_illegal_options(illegal_action, illegal_reward)
        self.illegal_action: IllegalMode = illegal_action
        self.possible_agents: list[str] = [f"player_{s}" for s in range(self.rules.players)]
        self._seats = {agent: seat for seat, agent in enumerate(self.possible_agents)}
        count = features.player_action_count(self.rules)
        # one object per agent (seeding one agent's space leaves the others' alone),
        # returned again on every call (the API test checks identity)
        self.observation_spaces = {agent: observation_space(self.rules)
                                   for agent in self.possible_agents}
        self.action_spaces = {agent: gymnasium.spaces.Discrete(count)
                              for agent in self.possible_agents}
        self.np_random: np.random.Generator | None = None
        self.np_random_seed: int | None = None
        self._chance_rng = Random(0)
        self._state: GameState | None = None

    # ------------------------------------------------------------------------ spaces
    def observation_space(self, agent: str) -> gymnasium.spaces.Space[Any]:
        """The observation space of ``agent`` (the same object every time)."""
        return self.observation_spaces[self._known(agent)]

    def action_space(self, agent: str) -> gymnasium.spaces.Space[Any]:
        """The action space of ``agent`` (the same object every time)."""
        return self.action_spaces[self._known(agent)]

    # --------------------------------------------------------------------------- API
    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        """Deal a new game up to the first decision.

        A ``seed`` reseeds the generator; without one the game continues its sequence (a
        fresh random one the first time). ``options`` is accepted for the API and unused.
        """
        if seed is not None or self.np_random is None:
            self.np_random, self.np_random_seed = seeding.np_random(seed)
        self._chance_rng = derive_random(self.np_random)
        state = new_game(self.rules, self._chance_rng)
        resolve_chance(state, self._chance_rng)
        self._state = state
        self.agents = self.possible_agents[:]
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos = self._fresh_infos()
        self.agent_selection = self.possible_agents[state.to_move]

    def step(self, action: Any) -> None:
        """Play ``action`` (an id) for ``agent_selection``; ``None`` for a finished agent."""
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        state = self._require_state()
        decoded = resolve_action(state, action)
        if isinstance(decoded, Refusal) and self.illegal_action == "raise":
            raise IllegalActionError(f"{agent}: {decoded.reason}", decoded.code)  # no change
        self._cumulative_rewards[agent] = 0.0
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self.infos = self._fresh_infos()
        if isinstance(decoded, Refusal):  # penalize: same agent again, state unchanged
            self.rewards[agent] = self.illegal_reward
            self.infos[agent]["illegal_action"] = decoded.reason
        else:
            state.apply(decoded)
            resolve_chance(state, self._chance_rng)
            if state.is_over():
                self._finish(state)
            else:
                self.agent_selection = self.possible_agents[state.to_move]
        self._accumulate_rewards()

    def observe(self, agent: str) -> Observation:
        """``agent``'s observation, built from its own view; mask zeros unless it decides."""
        return observe_seat(self._require_state(), self._seats[self._known(agent)])

    def render(self) -> str | None:
        """The public table and whose turn it is (``RENDER_MODES``); no hand shown."""
        if self.render_mode is None:
            gymnasium.logger.warn("render() was called with render_mode=None: make the "
                                  "environment with render_mode='ansi' to get the table text")
            return None
        return shown(table_text(self._require_state(), self.possible_agents), self.render_mode)

    def close(self) -> None:
        """Nothing to release: no window, no process."""

    @property
    def game(self) -> GameState:
        """The full game state (hidden parts included: for tests and analysis, not agents)."""
        return self._require_state()

    # ----------------------------------------------------------------------- helpers
    def _known(self, agent: str) -> str:
        if agent not in self._seats:
            raise NoReturnError(f"unknown agent {agent!r}: the agents are "
                                f"{', '.join(self.possible_agents)}")
        return agent

    def _require_state(self) -> GameState:
        if self._state is None:
            raise NoReturnError("call reset() before using the environment")
        return self._state

    def _fresh_infos(self) -> dict[str, dict[str, Any]]:
        return {agent: {"seat": self._seats[agent]} for agent in self.agents}

    def _finish(self, state: GameState) -> None:
        """The game ended: hand out the final rewards and terminate every agent."""
        scores = state.scores()
        ranks = state.ranks()
        for agent, reward in zip(self.possible_agents, features.rewards(state), strict=True):
            self.rewards[agent] = reward
            self.terminations[agent] = True
            self.infos[agent]["scores"] = list(scores)
            self.infos[agent]["ranks"] = list(ranks)
        # agent_selection stays on the agent that ended the game: it steps out first


def env(**kwargs: Any) -> AECEnv:
    """The environment to use: ``raw_env(**kwargs)`` with PettingZoo's order enforcement."""
    return OrderEnforcingWrapper(raw_env(**kwargs))
