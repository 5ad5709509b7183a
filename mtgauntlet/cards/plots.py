"""Figures embedded in dataset cards (matplotlib, Agg backend, PNG).

Every title names the record kind and the scale of what is plotted; count axes are integer.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path


def _plt():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def _save(fig, ax, path: Path) -> Path:
    from matplotlib.ticker import MaxNLocator

    ax.yaxis.set_major_locator(MaxNLocator(integer=True))
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path)
    _plt().close(fig)
    return path


def histogram(values: Sequence[float], path: Path, title: str, xlabel: str) -> Path:
    import numpy as np

    plt = _plt()
    vals = np.asarray(values, dtype=float)
    fig, ax = plt.subplots(figsize=(6, 3.2), dpi=100)
    ax.hist(vals[~np.isnan(vals)], bins=30, color="#4C72B0")
    ax.set_title(title, fontsize=10)
    ax.set_xlabel(xlabel)
    ax.set_ylabel("records")
    return _save(fig, ax, path)


def bar_counts(counts: Mapping[str, int], path: Path, title: str, xlabel: str = "") -> Path:
    plt = _plt()
    keys = sorted(counts)
    fig, ax = plt.subplots(figsize=(6, 3.2), dpi=100)
    ax.bar(keys, [counts[k] for k in keys], color="#55A868")
    ax.set_title(title, fontsize=10)
    ax.set_xlabel(xlabel)
    ax.set_ylabel("records")
    for i, k in enumerate(keys):
        ax.text(i, counts[k], str(counts[k]), ha="center", va="bottom", fontsize=8)
    plt.setp(ax.get_xticklabels(), rotation=30, ha="right")
    return _save(fig, ax, path)
