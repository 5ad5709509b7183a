"""The small, batch-first interfaces every builder and validator talks to.

Backends implement one (or several) of these. Scores follow one convention everywhere:
QualityEstimator -> 0..100, higher = better; DifficultyEstimator -> higher = harder.
"""

from __future__ import annotations

import importlib
import importlib.util
import os
from abc import ABC, abstractmethod
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from types import ModuleType

from mtgauntlet.core.spec_public import PACE, PLACE
from mtgauntlet.errors import BackendUnavailable

Message = dict  # {"role": "system"|"user"|"assistant", "content": str}


# the global settings a backend may read when it is made (``gauntlet --device/--dtype/--batch-size/--concurrency``,
# published in the environment so that scripts and Ray workers see them: :mod:`.runtime`); the registry makes a
# backend anew when one of them changed
SETTINGS = {
    "device": "MTGAUNTLET_DEVICE",
    "dtype": "MTGAUNTLET_DTYPE",
    "batch": "MTGAUNTLET_BATCH_SIZE",
    "concurrency": "MTGAUNTLET_CONCURRENCY",
    "threads": "MTGAUNTLET_THREADS",
}


def settings() -> dict[str, str]:
    """The global settings currently set (environment), e.g. ``{'device': 'cuda:1'}``."""
    return {k: os.environ[v] for k, v in SETTINGS.items() if os.environ.get(v)}


# the ``#`` options every torch backend knows: where it runs (kept in a spec's public form) and its batch size (pace)
PLACEMENT_OPTIONS: dict[str, str] = {"device": PLACE, "dtype": PLACE, "batch": PACE}


def import_or_unavailable(module: str, message: str) -> ModuleType:
    """The optional library ``module`` a backend runs on; not installed: the one-line ``BackendUnavailable(message)``
    (which names what to install)."""
    try:
        return importlib.import_module(module)
    except ModuleNotFoundError:
        raise BackendUnavailable(message) from None


class Backend(ABC):  # noqa: B024 (abstract: the role classes below declare the abstract methods)
    """Common base: every backend knows the spec string that made it (used in signatures and caches), set by the
    registry before ``__init__`` runs, so ``self.spec`` is usable there.

    The contract a backend class declares (read by :mod:`.registry`, the only place that loads backends):

    - ``options``: the ``#`` options its spec may carry, each with its kind (:mod:`.spec_public`: ``ANSWER``,
      ``PLACE``, ``COST``, ``PACE``, ``ACCESS``, ``SECRET``); an option not declared is a one-line error at load,
      and only ``ANSWER`` and ``PLACE`` options reach records, signatures and published files. ``None``: the
      argument is another spec, whose backend declares the options; such a wrapper may take some options out of
      that spec for itself: ``wrapper_options`` (same kinds; ``llm-as-qe:openai:m@u#json=1,spans=1``).
    - ``requires``: ``(python module, extra)`` pairs checked before the class is instantiated: a missing module is a
      one-line `BackendUnavailable` naming ``pip install 'mtgauntlet[extra]'``.
    - ``plan_calls``: the paid API calls a role would send for some texts, for ``--dry-run`` (:mod:`.estimate`).
    - paid backends: ``usage_key`` (the ledger's name of the spec) and ``price`` (a `.usage.Price` or None);
      :class:`.paid.PaidTranslator` is the hook for per-request priced translation APIs (ledger, cache, budget).
    - ``example``: the backend's test example, a spec of it that loads in the tests (``{url}``: a local server on
      127.0.0.1, ``{models}``: the folder of the tests' tiny models); the registry-wide contract tests
      (tests/models/test_backend_contract.py) load every registry entry by it.
    """

    spec: str = ""
    description: str = ""
    neural: bool = False  # runs a torch model: has a device, a dtype and a batch size
    options: Mapping[str, str] | None = {}
    wrapper_options: Mapping[str, str] = {}
    requires: tuple[tuple[str, str], ...] = ()
    example: str = ""

    def __repr__(self) -> str:  # pragma: no cover - debugging aid
        return f"{type(self).__name__}({self.spec!r})"

    @classmethod
    def missing_requirement(cls) -> str | None:
        """The one-line message for the first module of ``requires`` not installed here (None: all are)."""
        for module, extra in cls.requires:
            try:
                found = importlib.util.find_spec(module) is not None
            except (ImportError, ValueError):
                found = False
            if not found:
                install = f"pip install 'mtgauntlet[{extra}]'" if extra else "pip install --force-reinstall mtgauntlet"
                return f"needs the Python package {module!r}: {install} (or choose another spec)"
        return None

    def runtime_info(self) -> dict:
        """Where the backend runs, for build manifests: ``{}`` for CPU-only code, else device, dtype, batch
        (plus truncation and out-of-memory counts); API backends give their concurrency."""
        return {}

    def plan_calls(
        self,
        plan,
        sources: Sequence[str],
        translations: Sequence[str] | None,
        src_lang: str | None,
        tgt_lang: str | None,
        times: int = 1,
    ) -> None:
        """Add to ``plan`` (an :class:`.estimate.Plan`) the paid calls this backend would send for these texts,
        ``times`` over; local backends send none (the default)."""
        return None


class ChatLLM(Backend):
    @abstractmethod
    def chat(
        self, messages: Sequence[Message], *, max_tokens: int = 256, temperature: float = 0.0, seed: int | None = None
    ) -> str:
        """Return the assistant's reply to a list of chat messages."""

    def chat_many(
        self,
        conversations: Sequence[Sequence[Message]],
        *,
        max_tokens: int = 256,
        temperature: float = 0.0,
        seed: int | Sequence[int | None] | None = None,
        concurrency: int | None = None,
    ) -> list[str]:
        """Replies to many conversations, in input order. ``seed`` is one seed for all or one per
        conversation; a reply depends only on its conversation and seed, never on the batch, its order or
        ``concurrency`` (how many requests an API backend runs at once; local models batch instead)."""
        seeds = per_item_seeds(seed, len(conversations))
        return [
            self.chat(c, max_tokens=max_tokens, temperature=temperature, seed=s) for c, s in zip(conversations, seeds)
        ]

    def chat_batch(self, conversations: Sequence[Sequence[Message]], **kw) -> list[str]:
        return self.chat_many(conversations, **kw)

    def complete(self, prompt: str, *, max_tokens: int = 256, temperature: float = 0.0, seed: int | None = None) -> str:
        """Raw completion (no chat template). Backends without it raise NotImplementedError."""
        raise NotImplementedError(f"{self.spec}: raw completion is not available for this backend")

    def token_logprobs(self, texts: Sequence[str]) -> list[list[float]]:
        """Log-probability of each token of each text given its prefix (where the backend has them)."""
        raise NotImplementedError(f"{self.spec}: token log-probabilities are not available for this backend")


def per_item_seeds(seed: int | Sequence[int | None] | None, n: int) -> list[int | None]:
    if seed is None or isinstance(seed, int):
        return [seed] * n
    seeds = list(seed)
    if len(seeds) != n:
        raise ValueError(f"{len(seeds)} seeds for {n} conversations")
    return seeds


def answer_tokens(llm: object, answer: str) -> int | None:
    """How many tokens ``answer`` is by the backend's own tokenizer (no special tokens), or None where the backend
    has none or it cannot re-encode the answer: how a builder tells an answer the generation budget cut."""
    tokenizer = getattr(llm, "tokenizer", None)
    if tokenizer is None:
        return None
    try:
        return len(tokenizer(answer, add_special_tokens=False)["input_ids"])
    except Exception:  # noqa: BLE001 - a tokenizer that cannot re-encode: not known
        return None


class Translator(Backend):
    @abstractmethod
    def translate(self, texts: Sequence[str], src_lang: str, tgt_lang: str) -> Sequence[str | None]:
        """Translations; None where the backend got no usable answer (an LLM's unparseable reply)."""


class QualityEstimator(Backend):
    @abstractmethod
    def score(
        self, sources: Sequence[str], translations: Sequence[str], src_lang: str, tgt_lang: str
    ) -> Sequence[float | None]:
        """Reference-free quality, 0..100, higher = better; None where the backend got no usable answer."""


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
    def annotate(self, texts: Sequence[str]) -> list[Doc]: ...


class Embedder(Backend):
    @abstractmethod
    def embed(self, texts: Sequence[str]):
        """Return an (n, d) float32 numpy array of L2-normalised vectors."""


class DifficultyEstimator(Backend):
    @abstractmethod
    def difficulty(
        self, texts: Sequence[str], src_lang: str | None = None, tgt_lang: str | None = None
    ) -> Sequence[float | None]:
        """Higher = harder to translate; None where the backend got no usable answer."""
