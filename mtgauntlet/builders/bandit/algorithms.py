"""Topic-choosing strategies of the bandit topic search (paper Algorithms 1-5), on an explicit state.

Difficulty is higher = harder; the search maximises the observed mean difficulty of a topic. Every
strategy respects the cap ``c`` (no topic is pulled more than ``c`` times) and the budget (the caller
stops at B pulls). ``choose`` returns up to ``b`` topics (the batched variants take the top-b at once).
UCB is not in the paper: UCB1's bonus assumes rewards in [0, 1], so it is scaled by the 0-100 difficulty range.
"""

from __future__ import annotations

import heapq
import math
import random
from collections.abc import Sequence
from dataclasses import dataclass, field

ALGORITHMS = ("brute", "greedy", "eps-greedy", "contextual", "ucb")
REWARD_RANGE = 100.0  # difficulty = 100 - QE lies in [0, 100]


@dataclass
class BanditState:
    n_topics: int
    counts: list[int] = field(default_factory=list)
    sums: list[float] = field(default_factory=list)
    exhausted: set[int] = field(default_factory=set)  # no more texts to sample

    def __post_init__(self):
        if not self.counts:
            self.counts = [0] * self.n_topics
            self.sums = [0.0] * self.n_topics

    def update(self, t: int, d: float) -> None:
        self.counts[t] += 1
        self.sums[t] += d

    def mean(self, t: int) -> float | None:
        return self.sums[t] / self.counts[t] if self.counts[t] else None

    def sampled_mean(self, t: int) -> float:
        """The mean of a topic pulled at least once."""
        return self.sums[t] / self.counts[t]

    @property
    def pulls(self) -> int:
        return sum(self.counts)

    def available(self, cap: float) -> list[int]:
        return [t for t in range(self.n_topics) if self.counts[t] < cap and t not in self.exhausted]

    def top_k(self, k: int) -> list[int]:
        seen = [t for t in range(self.n_topics) if self.counts[t]]
        return sorted(seen, key=lambda t: (-self.sums[t] / self.counts[t], t))[:k]


def _best(state: BanditState, cands: Sequence[int], score, b: int) -> list[int]:
    return heapq.nsmallest(b, cands, key=lambda t: (-score(t), t))


def ucb_bonus(pulls: int, count: int) -> float:
    return REWARD_RANGE * math.sqrt(2 * math.log(max(1, pulls)) / count)


def choose(
    algorithm: str,
    state: BanditState,
    rng: random.Random,
    *,
    cap: float = math.inf,
    epsilon: float = 0.7,
    b: int = 1,
    neighbours: Sequence[Sequence[tuple[int, float]]] | None = None,
) -> list[int]:
    avail = state.available(cap)
    if not avail:
        return []
    unexplored = [t for t in avail if state.counts[t] == 0]
    explored = [t for t in avail if state.counts[t] > 0]
    if algorithm == "brute":  # Algorithm 2: uniformly random topic
        return rng.sample(avail, min(b, len(avail)))
    if algorithm == "greedy":  # Algorithm 3: every topic once, then exploit
        if unexplored:
            return rng.sample(unexplored, min(b, len(unexplored)))
        return _best(state, explored, state.mean, b)
    if algorithm == "eps-greedy":  # Algorithm 4
        picks: list[int] = []
        pool_u, pool_e = list(unexplored), _best(state, explored, state.mean, min(b, len(explored)))
        for _ in range(min(b, len(avail))):
            if pool_u and (rng.random() < epsilon or not pool_e):
                picks.append(pool_u.pop(rng.randrange(len(pool_u))))
            elif pool_e:
                picks.append(pool_e.pop(0))
        return picks
    if algorithm == "ucb":  # unsampled first, then mean + 100 * sqrt(2 ln n / n_t)
        if unexplored:
            return rng.sample(unexplored, min(b, len(unexplored)))
        n = state.pulls
        return _best(state, explored, lambda t: state.sampled_mean(t) + ucb_bonus(n, state.counts[t]), b)
    if algorithm == "contextual":  # Algorithm 5
        if neighbours is None:
            raise ValueError("the contextual bandit needs topic neighbours")
        scores = {t: contextual_score(state, t, neighbours[t]) for t in avail}
        if unexplored and any(s is None for s in scores.values()):
            # some topic cannot be scored yet: explore uniformly among *all* unsampled topics (Alg. 5, line 2)
            return rng.sample(unexplored, min(b, len(unexplored)))
        known = {t: s for t, s in scores.items() if s is not None}
        return _best(state, list(known), lambda t: known[t], b)
    raise ValueError(f"unknown algorithm {algorithm!r}; choose from {', '.join(ALGORITHMS)}")


def contextual_score(state: BanditState, t: int, neigh: Sequence[tuple[int, float]]) -> float | None:
    """beta * own mean + (1 - beta) * softmax(similarities) . neighbour means (Algorithm 5)."""
    n = [(o, s) for o, s in neigh if o != t and s > 0 and state.counts[o] > 0]
    c = state.counts[t]
    if c == 0 and len(n) < 2:
        return None
    beta = 0.0 if c == 0 else 0.5 if c == 1 else 1.0
    own = state.sampled_mean(t) if c else 0.0
    if beta == 1.0 or not n:
        return own if c else None
    m = max(s for _, s in n)
    w = [math.exp(s - m) for _, s in n]
    z = sum(w)
    neigh_score = sum(wi / z * state.sampled_mean(o) for wi, (o, _) in zip(w, n))
    return beta * own + (1 - beta) * neigh_score
