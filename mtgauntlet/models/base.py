"""The small, batch-first interfaces every builder and validator talks to.

Backends implement one (or several) of these. Scores follow one convention everywhere:
QualityEstimator -> 0..100, higher = better; DifficultyEstimator -> higher = harder.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from typing import Sequence

Message = dict  # {"role": "system"|"user"|"assistant", "content": str}


class Backend(ABC):
    """Common base: every backend knows the spec string that made it (used in signatures and caches)."""

    spec: str = ""
    description: str = ""

    def __repr__(self) -> str:  # pragma: no cover - debugging aid
        return f"{type(self).__name__}({self.spec!r})"


class ChatLLM(Backend):
    @abstractmethod
    def chat(self, messages: Sequence[Message], *, max_tokens: int = 256, temperature: float = 0.0,
             seed: int | None = None) -> str:
        """Return the assistant's reply to a list of chat messages."""

    def chat_batch(self, conversations: Sequence[Sequence[Message]], **kw) -> list[str]:
        return [self.chat(c, **kw) for c in conversations]

    def complete(self, prompt: str, *, max_tokens: int = 256, temperature: float = 0.0, seed: int | None = None) -> str:
        """Raw completion (no chat template). Backends without it raise NotImplementedError."""
        raise NotImplementedError(f"{self.spec}: raw completion is not available for this backend")

    def token_logprobs(self, texts: Sequence[str]) -> list[list[float]]:
        """Log-probability of each token of each text given its prefix (where the backend has them)."""
        raise NotImplementedError(f"{self.spec}: token log-probabilities are not available for this backend")


class Translator(Backend):
    @abstractmethod
    def translate(self, texts: Sequence[str], src_lang: str, tgt_lang: str) -> list[str]:
        ...


class QualityEstimator(Backend):
    @abstractmethod
    def score(self, sources: Sequence[str], translations: Sequence[str], src_lang: str, tgt_lang: str) -> list[float]:
        """Reference-free quality, 0..100, higher = better."""


NLI_LABELS = ("entailment", "neutral", "contradiction")


class NLI(Backend):
    @abstractmethod
    def predict(self, premises: Sequence[str], hypotheses: Sequence[str]) -> list[dict[str, float]]:
        """Probabilities keyed by 'entailment', 'neutral', 'contradiction'."""


class Infiller(Backend):
    mask_token: str = "<extra_id_0>"

    @abstractmethod
    def fill(self, texts: Sequence[str], *, n: int = 1, top_k: int = 50, seed: int | None = None) -> list[list[str]]:
        """For each text containing masks, return up to ``n`` candidate fills of the first mask."""


@dataclass
class Entity:
    text: str
    label: str
    start: int  # character offsets
    end: int


@dataclass
class Token:
    text: str
    idx: int  # character offset
    pos: str
    dep: str
    head: int  # index of the head token within the document (itself for the root)
    lemma: str = ""
    morph: str = ""
    whitespace: str = " "
    tag: str = ""  # fine-grained tag (e.g. Penn VBD/VBZ for English)


@dataclass
class Doc:
    text: str
    tokens: list[Token] = field(default_factory=list)
    entities: list[Entity] = field(default_factory=list)

    def tree_depth(self) -> int:
        """Height of the deepest dependency tree in the document (a single root = 1)."""
        best = 0
        for i in range(len(self.tokens)):
            d, j, seen = 1, i, set()
            while self.tokens[j].head != j and j not in seen:
                seen.add(j)
                j = self.tokens[j].head
                d += 1
            best = max(best, d)
        return best


class Annotator(Backend):
    lang: str = ""

    @abstractmethod
    def annotate(self, texts: Sequence[str]) -> list[Doc]:
        ...


class Embedder(Backend):
    @abstractmethod
    def embed(self, texts: Sequence[str]):
        """Return an (n, d) float32 numpy array of L2-normalised vectors."""


class DifficultyEstimator(Backend):
    @abstractmethod
    def difficulty(self, texts: Sequence[str], src_lang: str | None = None, tgt_lang: str | None = None) -> list[float]:
        """Higher = harder to translate."""
