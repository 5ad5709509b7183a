"""Figures embedded in dataset cards (matplotlib, Agg backend, PNG)."""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Sequence


def _plt():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def histogram(values: Sequence[float], path: Path, title: str, xlabel: str) -> Path:
    plt = _plt()
    fig, ax = plt.subplots(figsize=(6, 3.2), dpi=100)
    ax.hist([v for v in values if v == v], bins=30, color="#4C72B0")
    ax.set_title(title)
    ax.set_xlabel(xlabel)
    ax.set_ylabel("records")
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path)
    plt.close(fig)
    return path


def bar_counts(labels: Sequence[str], path: Path, title: str) -> Path:
    plt = _plt()
    counts = Counter(labels)
    keys = sorted(counts)
    fig, ax = plt.subplots(figsize=(6, 3.2), dpi=100)
    ax.bar(keys, [counts[k] for k in keys], color="#55A868")
    ax.set_title(title)
    ax.set_ylabel("records")
    for i, k in enumerate(keys):
        ax.text(i, counts[k], str(counts[k]), ha="center", va="bottom", fontsize=8)
    plt.setp(ax.get_xticklabels(), rotation=30, ha="right")
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path)
    plt.close(fig)
    return path
