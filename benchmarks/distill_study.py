"""Can a fast policy learned from hard's own decisions play better than the plan?

    python benchmarks/distill_study.py collect --players 4 --games 200 --seed 1 --out d.npz
    python benchmarks/distill_study.py train d.npz --out model.npz
    python benchmarks/distill_study.py play model.npz --players 4 --deals 200 --seed 2
    python benchmarks/distill_study.py games model.npz --players 4 --deals 100 --time 0.25

The search (hard) plays its playouts by the plan, and half of what it gains rests on those
playouts foreseeing its own later play (docs/bot-studies.md, "More questions"). A playout
policy nearer to how hard really plays is the lever left; this asks whether one can be
learned at all, before any thought of its speed. It is the first round of expert
iteration: imitate the expert (the search) with a fast model of its choices.

1. **collect**: games of one hard seat (``search:iterations=N``: the same seed and
   ``--workers``, the same file) among plan rivals, the hard seat moving round the table
   from game to game. At each of its decisions after the mulligan with two candidates or
   more, every candidate of the search (``candidates.candidates``, the plan's own choice
   first) is described by the ranker study's features of what it leaves
   (``ranker_study.features``) and the index of hard's choice kept. Worker processes
   share the games; the rows go to one ``.npz`` file.
2. **train**: a small network (PyTorch, installed by hand: ``pip install torch``) scores
   each candidate from its features, their difference from the plan choice's, and whether
   it is the plan's choice; a softmax over a position's candidates is fitted to hard's
   choice (cross-entropy) on three quarters of the positions. Printed: on the held-out
   quarter, how often the network picks hard's move, beside the plan (which picks it
   wherever hard kept the plan's choice). The weights go to a ``.npz`` file.
3. **play**: the network as a policy (its best-scored candidate; the plan at the mulligan),
   in each seat in turn against ``--rivals`` (the plan, ``heuristic-v1``, medium as
   shipped, random play), beside the plan on the same deals (``tune_plan.rotated``), and
   its time a decision.
4. **games**: hard as shipped against hard guided by the network (``Guided``: with
   ``--lead`` the network's pick is the move it keeps unless another clearly beats it;
   its playouts play its own next ``--turns`` turns by the network), each in one seat
   among medium on the same deals
   (the seat moving round the table from deal to deal), as ``hidden_ceiling.py`` plays.
   ``--lead --turns 99``: the network as the seat's own policy throughout, its pick the
   default move and its whole playouts.
   ``--time`` gives both the same CPU time a move (the network's playouts cost more, so
   they get fewer worlds); ``--iterations`` the same worlds, which asks whether the
   network's playouts would help if they cost no more than the plan's.

Needs numpy; ``train`` needs PyTorch. Its answer is in docs/bot-studies.md.
"""

from __future__ import annotations

import argparse
import math
import statistics
import sys
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from random import Random
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).parent))
import learned_policy
from ranker_study import features, shipped
from tune_plan import rotated, v1

from noreturn.bots import Deck, make_bot, plan
from noreturn.bots.candidates import candidates
from noreturn.bots.search import Policy as PlayoutPolicy
from noreturn.bots.search import SearchBot
from noreturn.engine import (
    MULLIGAN,
    OVER,
    Action,
    Decision,
    GameState,
    Rules,
    View,
    legal_actions,
    to_decision,
    view,
)
from noreturn.sim.simulate import uniform_action

Policy = Callable[[GameState, Random], Action]
Position = tuple[list[list[float]], int]
"""A position: its candidates' features (the plan's choice first) and hard's choice."""


def describe(state: GameState, options: Sequence[Action]) -> list[list[float]]:
    """The ranker study's features of every option at ``state`` (the seat to move)."""
    p = plan.params_for(state.rules.players)
    left = plan.turns_left(state, p)
    return [features(state, action, left, p) for action in options]


def game_positions(rules: Rules, game: int, seed: int, iterations: int) -> list[Position]:
    """The positions of one game: hard in seat ``game % players``, the plan elsewhere."""
    rng = Random(f"distill:{seed}:{game}")
    hard = SearchBot(iterations=iterations)
    mine = game % rules.players
    deck = Deck(rules, f"distill:{seed}:{game}")
    state = GameState(rules, deck.start_player)
    found: list[Position] = []
    while state.stage != OVER:
        if state.draws_due:
            state.apply(deck.next_draw(state))
            continue
        if state.to_move != mine:
            state.apply(shipped(state, rng))
            continue
        legal = legal_actions(state)
        action = hard.act(view(state, mine), legal, rng)
        options = candidates(state, legal)
        if state.stage != MULLIGAN and len(options) > 1 and action in options:
            found.append((describe(state, options), options.index(action)))
        state.apply(action)
    return found


def _games(task: tuple[int, int, int, int, int, int]) -> list[Position]:
    """``game_positions`` for games ``first``, ``first + step``, ... below ``games`` (a
    worker's share)."""
    players, first, step, games, seed, iterations = task
    rules = Rules(players=players)
    found: list[Position] = []
    for game in range(first, games, step):
        found += game_positions(rules, game, seed, iterations)
        print(f"  game {game + 1}: {len(found)} positions in this worker", flush=True)
    return found


def collect(args: argparse.Namespace) -> None:
    """Play the games in ``--workers`` processes and save their positions."""
    tasks = [(args.players, k, args.workers, args.games, args.seed, args.iterations)
             for k in range(args.workers)]
    began = time.perf_counter()
    with ProcessPoolExecutor(args.workers) as pool:
        found = [p for share in pool.map(_games, tasks) for p in share]
    sizes = np.array([len(f) for f, _ in found])
    rows = np.array([row for f, _ in found for row in f], dtype=np.float32)
    chosen = np.array([c for _, c in found])
    np.savez_compressed(args.out, rows=rows, sizes=sizes, chosen=chosen,
                        players=args.players)
    kept = float(np.mean(chosen == 0))
    print(f"{len(found)} positions from {args.games} games in "
          f"{time.perf_counter() - began:.0f} s; hard kept the plan's choice at {kept:.1%}; "
          f"saved to {args.out}")


def load(path: str) -> tuple[list[np.ndarray], np.ndarray]:
    """The positions of a ``collect`` file: each one's candidate rows, and the choices."""
    data = np.load(path)
    cuts = np.cumsum(data["sizes"])[:-1]
    return np.split(data["rows"], cuts), data["chosen"]


def inputs(rows: np.ndarray) -> np.ndarray:
    """A position's network inputs: each candidate's features, their difference from the
    plan choice's (the first row), and whether it is the plan's choice."""
    first = np.zeros((len(rows), 1), dtype=np.float32)
    first[0] = 1.0
    return np.hstack([rows, rows - rows[0], first]).astype(np.float32)


def padded(positions: list[np.ndarray], mean: np.ndarray, scale: np.ndarray
           ) -> tuple[np.ndarray, np.ndarray]:
    """The positions' standardised inputs in one array, padded to the most candidates any
    position has, and the mask of the real ones."""
    most = max(len(rows) for rows in positions)
    x = np.zeros((len(positions), most, len(mean)), dtype=np.float32)
    mask = np.zeros((len(positions), most), dtype=bool)
    for k, rows in enumerate(positions):
        x[k, : len(rows)] = (inputs(rows) - mean) / scale
        mask[k, : len(rows)] = True
    return x, mask


def train(args: argparse.Namespace) -> None:
    """Fit the network to hard's choices; print held-out agreement; save its weights."""
    try:
        import torch  # noqa: PLC0415 - only this step needs it
    except ImportError:
        raise SystemExit("train needs PyTorch: pip install torch (for the CPU build alone: "
                         "--index-url https://download.pytorch.org/whl/cpu)") from None

    torch.manual_seed(args.seed)
    positions, chosen = load(args.data)
    cut = len(positions) * 3 // 4
    seen = np.concatenate([inputs(rows) for rows in positions[:cut]])
    mean, scale = seen.mean(axis=0), seen.std(axis=0) + 1e-6
    x, mask = (torch.from_numpy(a) for a in padded(positions, mean, scale))
    target = torch.from_numpy(chosen.astype(np.int64))
    net = torch.nn.Sequential(torch.nn.Linear(len(mean), args.hidden), torch.nn.Tanh(),
                              torch.nn.Linear(args.hidden, 1))
    optimiser = torch.optim.Adam(net.parameters(), lr=args.rate, weight_decay=args.decay)

    def logits(rows: slice | torch.Tensor) -> torch.Tensor:
        scores: torch.Tensor = net(x[rows]).squeeze(-1)
        return scores.masked_fill(~mask[rows], float("-inf"))

    def held_picks() -> np.ndarray:
        with torch.no_grad():
            picks: np.ndarray = logits(slice(cut, None)).argmax(dim=1).numpy()
        return picks

    for epoch in range(args.epochs):
        total = 0.0
        order = torch.randperm(cut)
        for start in range(0, cut, args.batch):
            batch = order[start:start + args.batch]
            loss = torch.nn.functional.cross_entropy(logits(batch), target[batch])
            optimiser.zero_grad()
            torch.autograd.backward(loss)
            optimiser.step()
            total += loss.item() * len(batch)
        if (epoch + 1) % 10 == 0 or epoch + 1 == args.epochs:
            agree = np.mean(held_picks() == chosen[cut:])
            print(f"epoch {epoch + 1}: training loss {total / cut:.3f}; held out: the "
                  f"network picks hard's move at {agree:.1%}", flush=True)
    report(chosen[cut:], held_picks())
    saved: dict[str, Any] = {"mean": mean, "scale": scale}
    for k, layer in enumerate(m for m in net if isinstance(m, torch.nn.Linear)):
        saved |= {f"w{k}": layer.weight.detach().numpy(), f"b{k}": layer.bias.detach().numpy()}
    np.savez(args.out, **saved)
    print(f"weights saved to {args.out}")


def report(held: np.ndarray, picks: np.ndarray) -> None:
    """How often the plan and the network pick hard's move on the held-out positions, and
    where they differ from it."""
    departs = held != 0

    def share(hits: np.ndarray) -> str:
        return f"{np.mean(hits):.1%}" if len(hits) else "-"

    print(f"held out, {len(held)} positions: the plan picks hard's move at "
          f"{share(held == 0)}, the network at {share(picks == held)}; where hard departs "
          f"from the plan ({departs.sum()}), the network finds its move at "
          f"{share(picks[departs] == held[departs])}, and it departs where hard does not at "
          f"{share(picks[~departs] != 0)}")


def network(path: str) -> Policy:
    """The saved network as a policy: its best-scored candidate (the plan at the
    mulligan or with one candidate). ``learned_policy.py`` reads the features that
    ``collect`` saved (``describe``) off the moves themselves, fast enough for playouts."""
    return learned_policy.chooser(learned_policy.load(path))


class Guided(SearchBot):
    """The search guided by the network: with ``lead``, the network's pick is the move it
    keeps unless another clearly beats it (the plan's choice as shipped); with ``turns``,
    its own seat's next turns in each playout are played by the network (the rest, and
    every other seat, by the plan as shipped)."""

    def __init__(self, model: Policy, turns: int, lead: bool, seconds: float,
                 iterations: int | None = None) -> None:
        super().__init__(seconds=seconds, iterations=iterations)
        self.model, self.turns, self.lead, self.horizon = model, turns, lead, 0

    def act(self, view_: View, legal: Sequence[Action], rng: Random) -> Action:
        """The search's move, its playouts' horizon set from the turn now."""
        self.horizon = view_.turns + self.turns * view_.rules.players
        return super().act(view_, legal, rng)

    def candidates(self, state: GameState, legal: Sequence[Action]) -> list[Action]:
        """The search's candidates, with ``lead`` the network's pick first."""
        options = candidates(state, legal)
        if not self.lead:
            return options
        pick = self.model(state, Random(0))
        return [pick, *(a for a in options if a != pick)] if pick in options else options

    def playout_policy(self, seat: int) -> PlayoutPolicy:
        """The network for ``seat`` until the horizon, the plan otherwise."""
        def policy(state: GameState, rng: Random) -> Decision:
            if state.to_move == seat and state.turns < self.horizon:
                return to_decision(self.model(state, rng))
            return plan.choose(state, rng)
        return policy


def head_to_head(rules: Rules, deal: int, bots: tuple[SearchBot, SearchBot]
                 ) -> list[tuple[float, int, float]]:
    """Each of ``bots`` in seat ``deal % players`` among medium rivals, on the same deal:
    its win share, its score and its playouts a decision."""
    results = []
    me = deal % rules.players
    for bot in bots:
        deck = Deck(rules, f"distill-games:{deal}")
        state = GameState(rules, deck.start_player)
        seats = [bot if seat == me else make_bot("medium") for seat in range(rules.players)]
        rngs = [Random(f"distill-bot:{deal}:{seat}") for seat in range(rules.players)]
        playouts: list[int] = []
        while state.stage != OVER:
            if state.draws_due:
                state.apply(deck.next_draw(state))
                continue
            seat = state.to_move
            state.apply(seats[seat].act(view(state, seat), legal_actions(state), rngs[seat]))
            if seat == me:
                playouts.append(bot.last_playouts)
        scores = state.scores()
        top = max(scores)
        results.append((1.0 / scores.count(top) if scores[me] == top else 0.0, scores[me],
                        statistics.fmean(playouts)))
    return results


def games(args: argparse.Namespace) -> None:
    """Hard as shipped and hard guided by the network, on the same deals against medium;
    the pooled figures printed as the deals come."""
    rules = Rules(players=args.players)
    bots = (SearchBot(seconds=args.time, iterations=args.iterations),
            Guided(network(args.model), args.turns, args.lead, args.time, args.iterations))
    played: list[list[tuple[float, int, float]]] = []
    for deal in range(args.first, args.first + args.deals * args.step, args.step):
        played.append(head_to_head(rules, deal, bots))
        n = len(played)
        gains = [second[0] - first[0] for first, second in played]
        error = statistics.stdev(gains) / math.sqrt(n) if n > 1 else math.nan
        shipped_, guided = ([statistics.fmean(game[k][j] for game in played)
                                 for j in range(3)] for k in range(2))
        print(f"deal {deal}: {n} deals, win share {shipped_[0]:.3f} as shipped, "
              f"{guided[0]:.3f} guided by the network, difference "
              f"{statistics.fmean(gains):+.3f} (SE {error:.3f}); mean score "
              f"{shipped_[1]:.1f} against {guided[1]:.1f}; playouts a decision "
              f"{shipped_[2]:.0f} against {guided[2]:.0f}", flush=True)


def timed(policy: Policy, times: list[float]) -> Policy:
    """``policy``, its time for each decision added to ``times``."""
    def wrapped(state: GameState, rng: Random) -> Action:
        began = time.perf_counter()
        action = policy(state, rng)
        times.append(time.perf_counter() - began)
        return action
    return wrapped


def as_policy(name: str) -> Policy:
    """A registered bot (``make_bot``) as a policy of the whole state: it sees only its
    seat's view."""
    bot = make_bot(name)

    def policy(state: GameState, rng: Random) -> Action:
        return bot.act(view(state, state.to_move), legal_actions(state), rng)
    return policy


RIVALS: dict[str, tuple[str, Callable[[], Policy]]] = {
    "plan": ("the plan", lambda: shipped), "v1": ("heuristic-v1", lambda: v1),
    "medium": ("medium", lambda: as_policy("medium")),
    "random": ("random", lambda: uniform_action)}
"""The rivals ``play`` may name: the plan (medium without its thinking at the switch), the
frozen yardstick, medium as shipped (slower), random play."""


def play(args: argparse.Namespace) -> None:
    """The network against each of ``--rivals``, beside the plan itself."""
    rules = Rules(players=args.players)
    times: list[float] = []
    mine = timed(network(args.model), times)
    for name, make in (RIVALS[key] for key in args.rivals.split(",")):
        rival = make()
        learned = rotated(mine, rival, rules, args.deals, args.seed)
        planned = rotated(shipped, rival, rules, args.deals, args.seed)
        print(f"against {name}: the network {learned[0]:.1%} (mean {learned[1]:.1f}), the "
              f"plan {planned[0]:.1%} (mean {planned[1]:.1f}); "
              f"{args.deals * rules.players} games each", flush=True)
    print(f"the network's time a decision: {statistics.fmean(times) * 1000:.2f} ms "
          f"(mean of {len(times)})")


def parser() -> argparse.ArgumentParser:
    """The steps' options."""
    main_parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    steps = main_parser.add_subparsers(dest="command", required=True)
    step = steps.add_parser("collect", help="hard's decisions in games, to a .npz file")
    step.add_argument("--players", type=int, default=4)
    step.add_argument("--games", type=int, default=200)
    step.add_argument("--iterations", type=int, default=400,
                      help="hard's sampled worlds a decision")
    step.add_argument("--workers", type=int, default=2)
    step.add_argument("--seed", type=int, default=1)
    step.add_argument("--out", required=True)
    step = steps.add_parser("train", help="fit the network (needs PyTorch)")
    step.add_argument("data")
    step.add_argument("--out", required=True)
    step.add_argument("--hidden", type=int, default=32)
    step.add_argument("--epochs", type=int, default=40)
    step.add_argument("--batch", type=int, default=64)
    step.add_argument("--rate", type=float, default=3e-3)
    step.add_argument("--decay", type=float, default=1e-4)
    step.add_argument("--seed", type=int, default=0)
    step = steps.add_parser("play", help="the network against the plan and others")
    step.add_argument("model")
    step.add_argument("--rivals", default="plan,v1", help="of " + ",".join(RIVALS))
    step.add_argument("--players", type=int, default=4)
    step.add_argument("--deals", type=int, default=200)
    step.add_argument("--seed", type=int, default=2)
    step = steps.add_parser("games", help="hard guided by the network "
                            "against hard as shipped, on the same deals among medium")
    step.add_argument("model")
    step.add_argument("--players", type=int, default=4)
    step.add_argument("--deals", type=int, default=100)
    step.add_argument("--first", type=int, default=0)
    step.add_argument("--step", type=int, default=1)
    step.add_argument("--turns", type=int, default=2,
                      help="the searching seat's turns in a playout played by the network")
    step.add_argument("--lead", action="store_true",
                      help="the network's pick is the move kept unless clearly beaten")
    step.add_argument("--time", type=float, default=1.0, help="CPU seconds a move")
    step.add_argument("--iterations", type=int, default=None,
                      help="sampled worlds a move instead of --time: both bots alike, so "
                      "the network's playouts are judged apart from what they cost")
    return main_parser


def main(argv: list[str] | None = None) -> int:
    """Run the step named on the command line."""
    args = parser().parse_args(argv)
    steps: dict[str, Callable[[argparse.Namespace], None]] = {
        "collect": collect, "train": train, "play": play, "games": games}
    steps[args.command](args)
    return 0


if __name__ == "__main__":
    sys.exit(main())

