"""Who a finished table rates, and the openskill arithmetic of one game.

Pure functions (no database): ``players.py`` reads the seats and ratings, asks here, and
writes the answer. The choices, and why (docs/server-protocol.md, "Players"):

- A person is rated by their player key (the browser's secret, ``player.js``). A person
  without a key (a script, an old page) is left out: nobody to credit.
- A bot is rated too, one player per bot level (``bot:medium``), its rating moving like a
  person's. Leaving bots out would leave a person who plays bots unrated; fixing their
  ratings by hand would need numbers nobody measured on this scale. Rated bots are
  anchors on the board: beating ``hard`` means something to the next reader.
- A table is rated when at least one keyed person and one other entrant took part: a
  game of bots alone says nothing new about people (and would let bots drift by
  themselves).
- One key at two seats of a table (one browser playing both) is not rated at that table:
  a person against themself is no evidence, and it would be a way to farm a rating.
- A person who left during the game stays rated with the seat's final rank (the bot that
  took over finished it): leaving is not a way out of a loss.
- Two seats of one bot level are rated per seat and the level's new rating is the mean,
  as ``noreturn.sim.stats.openskill_ratings`` does for tournaments.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import NamedTuple

BOT_PREFIX = "bot:"
"""A bot level's player id is this and its level (``bot:medium``); a person's is the
SHA-256 of their key in hex, which never holds a colon."""
START_MU = 25.0
START_SIGMA = 25.0 / 3
"""openskill's defaults: a new player's rating (ordinal 0)."""


class Skill(NamedTuple):
    """A rating: the skill estimate and its uncertainty."""

    mu: float
    sigma: float

    @property
    def ordinal(self) -> float:
        """mu - 3 sigma: a cautious estimate, the board's order (openskill's ordinal)."""
        return self.mu - 3 * self.sigma


START = Skill(START_MU, START_SIGMA)


class SeatFacts(NamedTuple):
    """What rating needs of a seat: as created (``kind``, ``level``), and the player key's
    digest that joined it (None: no key)."""

    seat: int
    kind: str
    level: str | None
    player_id: str | None


def bot_id(level: str) -> str:
    """A bot level's player id."""
    return BOT_PREFIX + level


def entrants(seats: Sequence[SeatFacts]) -> dict[int, str]:
    """The seats a finished table rates, to their player ids (see the module docstring);
    empty when the table is not rated at all."""
    keys = [s.player_id for s in seats if s.kind == "human" and s.player_id]
    chosen: dict[int, str] = {}
    for s in seats:
        if s.kind == "bot" and s.level:
            chosen[s.seat] = bot_id(s.level)
        elif s.kind == "human" and s.player_id and keys.count(s.player_id) == 1:
            chosen[s.seat] = s.player_id
    people = [p for p in chosen.values() if not p.startswith(BOT_PREFIX)]
    if not people or len(set(chosen.values())) < 2:
        return {}
    return chosen


def rate_game(chosen: Mapping[int, str], ranks: Sequence[int],
              now: Mapping[str, Skill]) -> dict[str, Skill]:
    """The new ratings of the entrants ``chosen`` (seat to player id) after a game that
    ended with ``ranks`` (by seat, 1 = first, ties equal), from their ratings ``now``.

    Plackett-Luce (openskill), the model the tournaments use for three or four players;
    it takes two players and ties as well.
    """
    from openskill.models import PlackettLuce  # noqa: PLC0415 - imported once it is needed

    model = PlackettLuce(mu=START_MU, sigma=START_SIGMA)
    order = sorted(chosen)
    teams = [[model.rating(mu=now[chosen[s]].mu, sigma=now[chosen[s]].sigma)] for s in order]
    rated = model.rate(teams, ranks=[float(ranks[s]) for s in order])
    sums: dict[str, list[Skill]] = {}
    for seat, team in zip(order, rated, strict=True):
        sums.setdefault(chosen[seat], []).append(Skill(team[0].mu, team[0].sigma))
    return {pid: Skill(sum(r.mu for r in got) / len(got), sum(r.sigma for r in got) / len(got))
            for pid, got in sums.items()}


__all__ = ["BOT_PREFIX", "START", "SeatFacts", "Skill", "bot_id", "entrants", "rate_game"]
