"""Simulations from Python: `simulate` (``gauntlet simulate KIND``) and `simulate_bandit` (``gauntlet simulate
bandit``: synthetic topic search at scale), whose keywords, docstring ``Args`` and range checks come from
`mtgauntlet.api.evaluate_options.SimulateBanditOptions` (declared once)."""

from __future__ import annotations

import math
from typing import Any

from mtgauntlet.api.checks import dispatch, listed
from mtgauntlet.api.evaluate_options import SimulateBanditOptions
from mtgauntlet.api.session import public
from mtgauntlet.errors import UsageError
from mtgauntlet.options import takes

__all__ = ["simulate", "simulate_bandit"]


@public
@takes(SimulateBanditOptions, dict[str, Any])
def simulate_bandit(o: SimulateBanditOptions) -> dict[str, Any]:
    """Compare bandit algorithms against the oracle top-k at equal budgets on synthetic topics.

    Returns:
        dict[str, Any]: What ``gauntlet simulate bandit --json`` prints: ``oracle_topk_mean``, ``oracle_top1``,
            ``algorithms`` (per algorithm: true means, pulls, speed) and ``mixture`` (and ``plot``); with ``sizes``:
            ``k``, ``scaling`` and ``mixture``.

    Raises:
        UsageError: An option out of range, unknown algorithms, ``k`` above ``topics`` or ``sizes``.

    Examples:
        >>> res = mg.simulate("bandit", topics=10_000, budget=15_000, algorithms="greedy,eps-greedy")
        >>> res["oracle_topk_mean"], res["algorithms"]["greedy"]["topk_true_mean"]
    """
    from mtgauntlet.builders.bandit.simulate import (
        SIM_ALGORITHMS,
        Mixture,
        budget_curve,
        fit_from_pull_log,
        oracle_scaling,
    )
    from mtgauntlet.builders.bandit.simulate import plot as plot_curve
    from mtgauntlet.builders.bandit.simulate import simulate as run

    topics, budget, k, epsilon, batch, seed = o.topics, o.budget, o.k, o.epsilon, o.batch, o.seed
    mixture = fit_from_pull_log(str(o.fit)) if o.fit else Mixture()
    if o.sigma is not None:
        mixture.sigma = o.sigma
    mix = {
        "weights": list(mixture.weights),
        "means": list(mixture.means),
        "sds": list(mixture.sds),
        "sigma": mixture.sigma,
        "fitted_from": mixture.fitted_from,
    }
    if o.sizes:
        try:
            ns = [int(x) for x in listed(o.sizes)]
        except ValueError:
            raise UsageError(f"--sizes takes comma-separated integers, not {o.sizes!r}") from None
        if not ns or min(ns) < k:
            raise UsageError(f"--sizes needs topic-set sizes of at least --k ({k})")
        return {"k": k, "scaling": oracle_scaling(ns, k=k, mixture=mixture, seed=seed), "mixture": mix}
    if k > topics:
        raise UsageError(f"--k {k} is more than --topics {topics}")
    algos = listed(o.algorithms)
    unknown = [a for a in algos if a not in SIM_ALGORITHMS]
    if unknown or not algos:
        raise UsageError(
            f"--algorithms: unknown {', '.join(map(repr, unknown)) or 'empty list'}; choose from "
            f"{', '.join(SIM_ALGORITHMS)}"
        )
    capf = math.inf if not o.cap else o.cap
    res = run(topics, budget, algos, k=k, cap=capf, epsilon=epsilon, batch=batch, seed=seed, mixture=mixture)
    out = {
        "oracle_topk_mean": res.oracle_topk_mean,
        "oracle_top1": res.oracle_top1,
        "algorithms": res.algorithms,
        "mixture": mix,
    }
    if o.plot:
        curve = budget_curve(
            topics, (0.5, 1.0, 1.5, 3.0), algos, k=k, cap=capf, epsilon=epsilon, batch=batch, seed=seed, mixture=mixture
        )
        plot_curve(curve, o.plot, k=k)
        out["plot"] = str(o.plot)
    return out


SIMULATIONS = {"bandit": simulate_bandit}


@public
def simulate(kind: str, *, progress: bool = False, **options) -> dict[str, Any]:
    """Run a simulation: ``gauntlet simulate KIND`` (``bandit``: synthetic topic search at scale, see
    `simulate_bandit` for the options).

    Args:
        kind: ``bandit``.
        **options: The kind's options (``topics``, ``budget``, ``algorithms``, ``k``, ``cap``, ``plot``, ...).

    Returns:
        The result dict that ``gauntlet simulate KIND --json`` prints (the plot written when ``plot`` is given).

    Raises:
        UsageError: An unknown kind or option, an option out of range.

    Examples:
        >>> mg.simulate("bandit", topics=10_000, budget=15_000, plot="sim.png")["oracle_topk_mean"]
    """
    return dispatch("simulate", SIMULATIONS, kind, options)
