"""The simulation's search loops over synthetic topics, numba-compiled where numba is installed (plain Python
otherwise): eps-greedy (greedy at eps=1), brute force and UCB, each returning per-topic pull counts and difficulty
sums. A binary max-heap of observed means makes each exploitation O(log T)."""

from __future__ import annotations

import math

import numpy as np


def _jit(fn):
    try:
        from numba import njit

        return njit(cache=False, nogil=True)(fn)
    except ModuleNotFoundError:  # pragma: no cover - exercised only without numba
        return fn


@_jit
def _draw(mu, sigma):
    """One item's difficulty: N(mu, sigma^2) clipped to [0, 100]."""
    return min(100.0, max(0.0, mu + sigma * np.random.standard_normal()))


@_jit
def _heap_push(keys, ids, size, key, tid):
    i = size
    keys[i] = key
    ids[i] = tid
    while i > 0:
        p = (i - 1) // 2
        if keys[p] >= keys[i]:
            break
        keys[p], keys[i] = keys[i], keys[p]
        ids[p], ids[i] = ids[i], ids[p]
        i = p
    return size + 1


@_jit
def _heap_pop(keys, ids, size):
    top = ids[0]
    size -= 1
    keys[0] = keys[size]
    ids[0] = ids[size]
    i = 0
    while True:
        left, right, m = 2 * i + 1, 2 * i + 2, i
        if left < size and keys[left] > keys[m]:
            m = left
        if right < size and keys[right] > keys[m]:
            m = right
        if m == i:
            break
        keys[m], keys[i] = keys[i], keys[m]
        ids[m], ids[i] = ids[i], ids[m]
        i = m
    return top, size


@_jit
def eps_greedy(mu, sigma, budget, cap, eps, batch, seed):
    """eps-greedy (eps=1 is greedy: every topic once, then exploit); batched top-b; cap per topic."""
    np.random.seed(seed)
    n = mu.shape[0]
    perm = np.random.permutation(n)
    counts = np.zeros(n, np.int64)
    sums = np.zeros(n, np.float64)
    keys = np.empty(n, np.float64)
    ids = np.empty(n, np.int64)
    size = 0
    nxt = 0
    pulls = 0
    chosen = np.empty(batch, np.int64)
    while pulls < budget:
        m = 0
        for _ in range(batch):
            if nxt < n and (size == 0 or np.random.random() < eps):
                chosen[m] = perm[nxt]
                nxt += 1
                m += 1
            elif size > 0:
                t, size = _heap_pop(keys, ids, size)
                chosen[m] = t
                m += 1
        if m == 0:
            break
        for j in range(m):
            t = chosen[j]
            if pulls >= budget:
                break
            counts[t] += 1
            sums[t] += _draw(mu[t], sigma)
            pulls += 1
        for j in range(m):
            t = chosen[j]
            if counts[t] < cap:
                size = _heap_push(keys, ids, size, sums[t] / counts[t], t)
    return counts, sums


@_jit
def brute(mu, sigma, budget, cap, seed):
    np.random.seed(seed)
    n = mu.shape[0]
    counts = np.zeros(n, np.int64)
    sums = np.zeros(n, np.float64)
    pulls = 0
    full = 0
    while pulls < budget and full < n:
        t = np.random.randint(0, n)
        if counts[t] >= cap:
            continue
        counts[t] += 1
        sums[t] += _draw(mu[t], sigma)
        pulls += 1
        if counts[t] >= cap:
            full += 1
    return counts, sums


@_jit
def ucb(mu, sigma, budget, cap, seed):
    np.random.seed(seed)
    n = mu.shape[0]
    perm = np.random.permutation(n)
    counts = np.zeros(n, np.int64)
    sums = np.zeros(n, np.float64)
    pulls = 0
    nxt = 0
    while pulls < budget:
        if nxt < n:
            t = perm[nxt]
            nxt += 1
        else:
            best, t = -1e300, -1
            lg = math.log(pulls)
            for i in range(n):
                if counts[i] < cap:
                    s = sums[i] / counts[i] + 100.0 * math.sqrt(2.0 * lg / counts[i])
                    if s > best:
                        best, t = s, i
            if t < 0:
                break
        counts[t] += 1
        sums[t] += _draw(mu[t], sigma)
        pulls += 1
    return counts, sums
