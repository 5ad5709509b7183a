"""Topic sets: a taxonomy file, an LLM-generated tree (the paper's ontologist prompt), or a corpus's own
topic/domain column. Neighbours by keyword Jaccard similarity (paper appendix C.1)."""

from __future__ import annotations

import ast
import json
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from mtgauntlet.errors import GauntletError, InputError

STOP = {"a", "an", "the", "of", "and", "or", "in", "on", "for", "to", "with", "by", "at", "vs", "from", "its", "de"}


@dataclass
class Topic:
    name: str
    path: list[str] = field(default_factory=list)

    @property
    def keywords(self) -> set[str]:
        return {w for w in re.findall(r"\w+", self.name.lower()) if w not in STOP and len(w) > 1}


def _walk(node: Any, path: list[str], out: list[Topic], leaves_only: bool) -> None:
    if isinstance(node, dict):
        for k, v in node.items():
            p = path + [str(k)]
            has_children = bool(v) and isinstance(v, (dict, list))
            if not leaves_only or not has_children:
                out.append(Topic(str(k), p))
            if has_children:
                _walk(v, p, out, leaves_only)
    elif isinstance(node, list):
        for v in node:
            if isinstance(v, (dict, list)):
                _walk(v, path, out, leaves_only)
            else:
                out.append(Topic(str(v), path + [str(v)]))


def from_taxonomy(path: str | Path, leaves_only: bool = False) -> list[Topic]:
    """Nested YAML/JSON (dicts of dicts, or lists of names) -> topics with their paths."""
    p = Path(path)
    if not p.exists():
        raise InputError("taxonomy file not found", file=str(p))
    text = p.read_text(encoding="utf-8")
    try:
        if p.suffix.lower() == ".json":
            data = json.loads(text)
        else:
            import yaml

            data = yaml.safe_load(text)
    except Exception as exc:
        raise InputError(f"cannot parse taxonomy ({exc})", file=str(p)) from None
    topics: list[Topic] = []
    _walk(data, [], topics, leaves_only)
    if not topics:
        raise InputError("no topics in taxonomy", file=str(p))
    return dedupe(topics)


TREE_MAX_TOKENS = 1500
TOKENS_PER_NODE = 24  # a node of the answer's dict literal: its quoted name, braces and indentation
PAPER_DOMAINS = ("science", "business", "law", "education", "culture")  # the bandit paper's five roots


def tree_size(levels: int, branching: int) -> int:
    """Topics of one full tree: the root and ``branching``**i subtopics on each of ``levels`` levels beneath it."""
    return sum(branching**i for i in range(levels + 1))


def tree_max_tokens(levels: int = 2, branching: int = 5) -> int:
    """Generation budget of one ontologist answer: room for the whole tree the prompt asks for."""
    return max(TREE_MAX_TOKENS, TOKENS_PER_NODE * tree_size(levels, branching))


def tree_prompt(domain: str, levels: int = 2, branching: int = 5, language: str = "English") -> str:
    """The paper's ontologist prompt for ``domain``."""
    from mtgauntlet.models.prompts import ONTOLOGIST

    return ONTOLOGIST.format(domain=domain, levels=levels, branching=branching, language=language)


def domains_of(llm_topics: str) -> list[str]:
    """The root domains of ``--llm-topics`` (comma-separated; ``paper``: the bandit paper's five)."""
    if llm_topics.strip().lower() == "paper":
        return list(PAPER_DOMAINS)
    return [d.strip() for d in llm_topics.split(",") if d.strip()]


def from_llm_domains(
    llm, domains: Sequence[str], levels: int = 2, branching: int = 5, language: str = "English"
) -> list[Topic]:
    """One ontologist tree per root domain (the paper: five roots, five subtopics per topic, five levels with the
    roots, 3.9k topics), the roots included, duplicates across trees dropped."""
    out: list[Topic] = []
    for domain in domains:
        out += from_llm(llm, domain, levels, branching, language)
    return dedupe(out)


def from_llm(llm, domain: str, levels: int = 2, branching: int = 5, language: str = "English") -> list[Topic]:
    """The paper's ontologist prompt; the answer's dict literal is parsed safely (no code is run)."""
    answer = llm.chat(
        [{"role": "user", "content": tree_prompt(domain, levels, branching, language)}],
        max_tokens=tree_max_tokens(levels, branching),
    )
    m = re.search(r"\{.*\}", answer, re.S)
    if not m:
        raise GauntletError("the LLM answer holds no nested dictionary")
    text = re.sub(r"#.*", "", m.group(0))
    try:
        tree = ast.literal_eval(text)
    except (ValueError, SyntaxError):
        try:
            tree = json.loads(re.sub(r",\s*([}\]])", r"\1", text))
        except json.JSONDecodeError as exc:
            raise GauntletError(f"cannot parse the LLM's topic tree ({exc})") from None
    topics: list[Topic] = []
    _walk(tree, [], topics, leaves_only=False)
    return dedupe(topics)


def from_column(rows: Sequence[dict], column: str) -> list[Topic]:
    names = sorted({str(r[column]).strip() for r in rows if r.get(column) not in (None, "")})
    return [Topic(n, [n]) for n in names]


def dedupe(topics: list[Topic]) -> list[Topic]:
    seen, out = set(), []
    for t in topics:
        if t.name.lower() not in seen:
            seen.add(t.name.lower())
            out.append(t)
    return out


def jaccard(a: set[str], b: set[str]) -> float:
    return len(a & b) / len(a | b) if a and b else 0.0


def neighbours(topics: Sequence[Topic]) -> list[list[tuple[int, float]]]:
    """For each topic, (other topic, Jaccard similarity of keywords) for every positive similarity."""
    index: dict[str, list[int]] = {}
    kws = [t.keywords for t in topics]
    for i, k in enumerate(kws):
        for w in k:
            index.setdefault(w, []).append(i)
    out = []
    for i, k in enumerate(kws):
        cands = {j for w in k for j in index[w] if j != i}
        out.append(sorted(((j, jaccard(k, kws[j])) for j in cands), key=lambda x: (-x[1], x[0])))
    return out
