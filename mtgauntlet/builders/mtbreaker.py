"""MT-breaker (Algorithm 1 and Appendix B prompts of the MT-breaker paper).

An editing LLM sees the chat history with the target model's translation(s) and proposes a modified
source, step by step; at the end every step is scored with QE and the most difficult source is kept.
Variants: seeded / seedless, each optionally ``+qe`` (the follow-up also shows the QE score). The follow-up
wording is the paper's (+qe) prompt in every variant; the plain variants leave out only the score line and its
"(one with lowest score)" hint, so seeded vs seeded+qe differs only in the QE feedback. Several target models at
once ("multi"): every step is translated by each, and the selection uses their average QE. Several QE specs
(``--qe A,B``, the paper: MetricX-24-QE and LLM-as-QE) are averaged per text on the 0-100 scale.

Trajectory: step 0 is the seed (seeded) or the LLM's first text (seedless); steps 1..N are edits. An
unusable LLM answer (no ``SOURCE |||…|||``, fewer than two words, a copy of the prompt's instructions, cut off
by the generation budget, or — with the opt-in language guard — not in the source language) is retried ``retries``
times (other sampling seeds), then counted in ``llm_failures`` and the step is skipped — never fatal.
A step whose translation or QE failed (``None``) is kept in the trajectory with ``failure`` set, is never
selected, is counted (``mt_failures`` / ``qe_failures``), and the conversation goes on from the last scored step
(in every variant alike). The conversation keeps the editor's answers as it wrote them (the paper's chat
history); a seed, which no LLM wrote, is shown as ``SOURCE |||seed|||``.
"""

from __future__ import annotations

import logging
import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from mtgauntlet.builders.base import Builder, Item, ItemResult
from mtgauntlet.builders.keyed import keyed_rank
from mtgauntlet.builders.runtime_info import roles_runtime
from mtgauntlet.core import progress
from mtgauntlet.corpora.word_count import words as count_words
from mtgauntlet.errors import GauntletError
from mtgauntlet.models import prompts, registry, structured
from mtgauntlet.models.estimate import Plan
from mtgauntlet.models.llm_roles import lang_name
from mtgauntlet.models.qe_ensemble import load_qe
from mtgauntlet.models.registry import public_spec

log = logging.getLogger(__name__)
VARIANTS = ("seeded", "seedless", "seeded+qe", "seedless+qe")
DEFAULT_TEMPERATURE = 0.8  # MT-breaker and zero-shot alike (the paper gives none)
DEFAULT_MAX_TOKENS = 1024  # room for a capable LLM's reasoning before SOURCE |||...|||
LANGUAGE_GUARD_FLAG = (
    "language guard on (not in the paper): proposals not detected as the source language were "
    "rejected and counted in llm_failures"
)
FAILURE_KEYS = ("llm_failures", "truncated", "mt_failures", "qe_failures")
PLAIN_FOLLOWUP_FLAG = (
    "follow-up wording: the paper gives the +qe variants' follow-up only; this plain variant used "
    "it without the score line and without '(one with lowest score)'"
)


def temperature_flag(temperature: float) -> str:
    return f"sampling temperature {temperature:g} (the paper gives none)"


def word_count_flag(src_lang: str) -> dict[str, str]:
    """The card's note on how a Chinese or Japanese source's words were counted (``{}`` for other languages)."""
    base = (src_lang or "").split("-")[0].lower()
    if base == "zh":
        return {"word_count": "Chinese words counted by the jieba segmenter (length target, two-word minimum)"}
    if base == "ja":
        return {
            "word_count": "Japanese words counted as Han/kana characters / 2.3 (no segmenter installed; length "
            "target, two-word minimum)"
        }
    return {}


EMPTY_HINT = (
    "check --llm / --mt / --qe (an LLM that never answers SOURCE |||...|||, a translator or QE that never "
    "returns a result)"
)
_UNTERMINATED = re.compile(r"SOURCE\s*:?\s*\|\|\|(?:(?!\|\|\|).)*$", re.S)


def words(text: str, lang: str | None = None) -> int:
    """Words of a seed or proposal: ``\\w+`` runs, Chinese by jieba, Japanese by characters / 2.3
    (:mod:`mtgauntlet.corpora.word_count`): the prompt's length target and the two-word usability check."""
    return count_words(text, lang)


def item_key(item: Item) -> tuple[str, str]:
    """What an item is (its source id and text): its RNG is keyed by this, never by its position in the input."""
    return str(item.data.get("source_id")), str(item.data.get("src") or "")


def keyed_sample(rows: Sequence[dict[str, Any]], n: int | None, seed: int) -> list[dict[str, Any]]:
    """``n`` rows drawn at random, in input order: those with the smallest keyed hash of (seed, source text).
    The draw is by the text's identity, never its id (WMT24's ids name the language pair, ``en-cs:1``): the same
    English sources are drawn for every target language, as the paper compares them (Table 5, "Seeds"); the
    source id only breaks a tie between identical texts. A row's draw depends only on its own content, so adding,
    removing or editing other rows changes the sample only where such a row enters it or leaves it."""
    if n is None or n >= len(rows):
        return list(rows)
    order = sorted(
        range(len(rows)),
        key=lambda i: (
            keyed_rank(seed, "sample", rows[i].get("src")),
            keyed_rank(seed, "tie", rows[i].get("source_id")),
        ),
    )
    chosen = set(order[:n])
    return [r for i, r in enumerate(rows) if i in chosen]


def usable_source(text: str, src_lang: str, language_guard: bool = False) -> bool:
    """A proposal is usable when it has at least two words, is not the prompt's placeholder, does not repeat
    the prompt's instructions, and (with the guard) is detected as the source language — not a translation
    into the target language."""
    if words(text, src_lang) < 2 or "<SOURCE_TEXT>" in text or prompts.echoes_instructions(text):
        return False
    if language_guard:
        from mtgauntlet.models.langid import is_language

        return is_language(text, src_lang) is not False
    return True


def answer_truncated(llm, answer: str, budget: int) -> bool:
    """Whether the generation budget cut the answer: by token count where the backend has its tokenizer, otherwise
    when the last ``SOURCE |||`` span is never closed."""
    tokenizer = getattr(llm, "tokenizer", None)
    if tokenizer is not None:
        try:
            return len(tokenizer(answer, add_special_tokens=False)["input_ids"]) >= budget - 3
        except Exception:  # noqa: BLE001 - a tokenizer that cannot re-encode: fall back to the answer's shape
            pass
    return bool(_UNTERMINATED.search(answer or ""))


@dataclass
class SourceRequest:
    """One conversation that needs a usable ``SOURCE |||...|||`` answer: its messages, the item's rng (sampling
    seeds are drawn from it, one per attempt) and the item's failure counters."""

    messages: list[dict]
    rng: Any
    counts: Counter
    answer: str | None = None  # the usable answer as the LLM wrote it (the chat history keeps it)


def ask_for_sources(
    llm,
    requests: Sequence[SourceRequest],
    *,
    budget: int,
    temperature: float,
    retries: int,
    src_lang: str,
    language_guard: bool = False,
) -> list[str | None]:
    """A usable source per request (1 try + ``retries``), ``None`` where none came. Every round sends the pending
    conversations as one list through ``llm.chat_many`` (concurrent for API backends), each with the next seed of
    its own rng, so an item's answers are those it gets when asked alone. Answers cut by the budget are unusable
    (the text may be cut) and counted in the request's ``counts['truncated']``. The usable answer, as written, is
    left in the request's ``answer``."""
    out: list[str | None] = [None] * len(requests)
    pending = list(range(len(requests)))
    for _ in range(retries + 1):
        if not pending:
            break
        seeds = [requests[i].rng.randrange(2**31) for i in pending]
        answers, texts = structured.ask(
            llm,
            [requests[i].messages for i in pending],
            structured.SOURCE,
            lambda a: prompts.parse_tagged(a, "SOURCE"),
            max_tokens=budget,
            temperature=temperature,
            seed=seeds,
        )
        for i, answer, text in zip(pending, answers, texts):
            if answer_truncated(llm, answer, budget):
                requests[i].counts["truncated"] += 1
                continue
            if text and usable_source(text, src_lang, language_guard):
                out[i], requests[i].answer = text, answer
        pending = [i for i in pending if out[i] is None]
    return out


@dataclass
class Walk:
    """The state of one item's MT-breaker run: the seed, the item's rng, the chat history with the editor, the
    trajectory so far, the last scored step (what the next follow-up shows) and the failure counters."""

    seed: str | None
    rng: Any
    messages: list[dict]
    trajectory: list[dict[str, Any]] = field(default_factory=list)
    anchor: dict[str, Any] | None = None
    counts: Counter = field(default_factory=Counter)


class Scorer:
    """Translate with every target model and score each translation with the QE ensemble. A translation or a
    score that failed is ``None``; the step's ``qe_mean`` is then ``None`` and ``failure`` says which."""

    def __init__(self, mt_specs: Sequence[str], qe_specs: str | Sequence[str] | None, src_lang: str, tgt_lang: str):
        self.mt_specs = list(mt_specs)
        self.translators = [registry.load("translator", s) for s in self.mt_specs]
        self.qe = load_qe(qe_specs)
        self.qe_specs = self.qe.specs
        self.qe_spec = ",".join(self.qe_specs)
        # the specs as records and build.json name them: no price, pace or secret options, no URL user info
        self.public_mt, self.public_qe = public_spec(self.mt_specs), public_spec(list(self.qe_specs))
        self.public_qe_spec = ",".join(self.public_qe)
        self.src_lang, self.tgt_lang = src_lang, tgt_lang

    def roles(self) -> dict[str, Any]:
        return {"mt": self.translators, "qe": self.qe}

    def __call__(self, sources: list[str]) -> list[dict[str, Any]]:
        """Each translator gets all ``sources`` as one list, the QE ensemble all translations of a model as one."""
        if not sources:
            return []
        per_model = [list(tr.translate(sources, self.src_lang, self.tgt_lang)) for tr in self.translators]
        comps: list[list[list[float | None] | None]] = []  # [model][text] -> components, None: no translation
        for hyps in per_model:
            ok = [i for i, h in enumerate(hyps) if h is not None]
            scored = (
                self.qe.score_components([sources[i] for i in ok], [hyps[i] for i in ok], self.src_lang, self.tgt_lang)
                if ok
                else []
            )
            row: list[list[float | None] | None] = [None] * len(sources)
            for i, c in zip(ok, scored):
                row[i] = c
            comps.append(row)
        out = []
        for i in range(len(sources)):
            translations = [h[i] for h in per_model]
            components = [c[i] for c in comps]
            qe = [None if c is None else self.qe.combine(c) for c in components]
            failure = "mt" if any(t is None for t in translations) else "qe" if any(q is None for q in qe) else None
            out.append(
                {
                    "translations": translations,
                    "qe": qe,
                    "qe_components": components,
                    "qe_mean": None if failure else sum(qe) / len(qe),
                    "failure": failure,
                }
            )
        return out


def best_step(trajectory: Sequence[dict[str, Any]]) -> dict[str, Any] | None:
    """The most difficult scored step (lowest mean QE, earliest on ties); steps without a score are never chosen."""
    scored = [s for s in trajectory if s.get("qe_mean") is not None]
    return min(scored, key=lambda s: (s["qe_mean"], s["step"])) if scored else None


def failure_counts(trajectory: Sequence[dict[str, Any]]) -> dict[str, int]:
    return {
        "mt_failures": sum(s.get("failure") == "mt" for s in trajectory),
        "qe_failures": sum(s.get("failure") == "qe" for s in trajectory),
    }


def plan_walks(builder, items: Sequence[Item], asks) -> Plan:
    """The dry run of MT-breaker and zero-shot: per item, ``asks(seed, length, stand_in)`` gives the LLM prompts
    the item sends and how many texts get translated and scored (``None``: the item sends nothing). Follow-ups hold
    translations not known yet: the seed (or a stand-in of its length) takes their place."""
    plan = Plan()
    for item in items:
        seed = (item.data.get("src") or "").strip()
        length = len(seed.split()) or int(item.data.get("length", 30))
        stand_in = seed or " ".join(["word"] * length)
        asked = asks(seed, length, stand_in)
        if asked is None:
            continue
        texts, n_texts = asked
        plan.add(builder.llm, texts, builder.max_tokens)
        for translator in builder.scorer.translators:
            plan.add_role(translator, [stand_in], None, builder.src_lang, builder.tgt_lang, times=n_texts)
        plan.add_role(
            builder.scorer.qe,
            [stand_in],
            [stand_in],
            builder.src_lang,
            builder.tgt_lang,
            times=n_texts * len(builder.scorer.translators),
        )
    return plan


class MTBreakerBuilder(Builder):
    name = "mtbreaker"
    version = "6"  # 3: failed scores are missing, QE ensembles, same follow-up in all variants, truncation counted
    # 4: an item's sampling seeds come from its source id and text (not its position); seeds without a word skipped
    # 5: the chat history keeps the editor's answers as written (not only SOURCE |||x|||); language guard opt-in
    # 6: Chinese/Japanese words counted by jieba / characters (the length target and the two-word check)
    kind = "breaker_text"
    failure_columns = FAILURE_KEYS  # summed into build.json counts.failures by the runner
    records_seeds = True  # build.json "seeds": the source id and sha256 of each seed, written when planned
    empty_hint = EMPTY_HINT
    batched = True  # a shard's trajectories advance step by step together

    def __init__(
        self,
        *,
        variant: str = "seeded",
        llm: str | None = None,
        mt: Sequence[str] = ("apertium",),
        qe: str | Sequence[str] | None = None,
        steps: int = 10,
        src_lang: str = "en",
        tgt_lang: str = "es",
        retries: int = 2,
        temperature: float = DEFAULT_TEMPERATURE,
        max_tokens: int = DEFAULT_MAX_TOKENS,
        language_guard: bool = False,
        grammatical_edits: bool = False,
        sample: int | None = None,
    ):
        if variant not in VARIANTS:
            raise GauntletError(f"unknown variant {variant!r}; choose from {', '.join(VARIANTS)}")
        if steps < 1:
            raise GauntletError("--steps must be >= 1")
        if max_tokens < 16:
            raise GauntletError("--max-tokens must be >= 16")
        self.variant, self.steps, self.retries = variant, steps, retries
        self.seeded, self.show_qe = variant.startswith("seeded"), variant.endswith("+qe")
        self.llm_spec = llm or "smollm2"
        self.llm = registry.load("llm", llm)
        self.scorer = Scorer(mt, qe, src_lang, tgt_lang)
        self.src_lang, self.tgt_lang = src_lang, tgt_lang
        self.temperature, self.max_tokens = temperature, max_tokens
        self.language_guard, self.grammatical_edits = language_guard, grammatical_edits
        self.sample = sample  # the seeds are a keyed random sample of this size (provenance; drawn by the caller)

    def signature_fields(self) -> dict[str, Any]:
        return {
            "src": self.src_lang,
            "tgt": self.tgt_lang,
            "variant": self.variant,
            "llm": self.llm_spec,
            "mt": self.scorer.mt_specs,
            "qe": self.scorer.qe_specs,
            "steps": self.steps,
            "temperature": self.temperature,
            "max_tokens": self.max_tokens,
            "langid": self.language_guard,
            "grammatical": self.grammatical_edits,
        }

    def config(self) -> dict[str, Any]:
        return {
            "variant": self.variant,
            "steps": self.steps,
            "retries": self.retries,
            "temperature": self.temperature,
            "max_tokens": self.max_tokens,
            "language_guard": self.language_guard,
            "grammatical_edits": self.grammatical_edits,
            "qe": self.scorer.public_qe,
            **({"sample": self.sample} if self.sample is not None else {}),
            "flags": self.flags(),
        }

    def flags(self) -> dict[str, str]:
        """Departures from the paper, stated in the card (docs/methods/mtbreaker.md, "Reproducing the paper")."""
        out = {"temperature": temperature_flag(self.temperature)}
        if not self.show_qe:
            out["followup_wording"] = PLAIN_FOLLOWUP_FLAG
        if self.language_guard:
            out["language_guard"] = LANGUAGE_GUARD_FLAG
        return {**out, **word_count_flag(self.src_lang)}

    @staticmethod
    def item_key(item: Item) -> tuple[str, str]:
        return item_key(item)

    def model_specs(self) -> dict[str, str]:
        return {
            "llm": public_spec(self.llm_spec),
            "mt": ",".join(self.scorer.public_mt),
            "qe": self.scorer.public_qe_spec,
        }

    def runtime_info(self) -> dict[str, Any]:
        return roles_runtime({"llm": self.llm, **self.scorer.roles()})

    def plan(self, items: Sequence[Item]) -> Plan:
        """``steps`` edits per seed (+ the first text when seedless); the conversation grows one exchange a step."""

        def asks(seed: str, length: int, stand_in: str):
            if self.seeded and not seed:
                return None
            first = self._first_prompt(length)
            exchange = f"SOURCE |||{stand_in}|||" + prompts.breaker_followup(
                stand_in, 50.0 if self.show_qe else None, self.grammatical_edits
            )
            texts = ([first] if not self.seeded else []) + [first + exchange * k for k in range(1, self.steps + 1)]
            return texts, self.steps + 1

        return plan_walks(self, items, asks)

    # -- the loop: every trajectory of a shard advances step by step, each step's model calls as one list ------
    def _ask(self, walks: Sequence[Walk]) -> list[tuple[str, str] | None]:
        """Per walk: (the usable source, the answer as the LLM wrote it), or ``None``."""
        requests = [SourceRequest(w.messages, w.rng, w.counts) for w in walks]
        texts = ask_for_sources(
            self.llm,
            requests,
            budget=self.max_tokens,
            temperature=self.temperature,
            retries=self.retries,
            src_lang=self.src_lang,
            language_guard=self.language_guard,
        )
        return [None if t is None else (t, r.answer or f"SOURCE |||{t}|||") for t, r in zip(texts, requests)]

    def _followup(self, step: dict[str, Any]) -> str:
        translations = step["translations"]
        if len(translations) == 1:
            shown = translations[0]
        else:
            shown = " ||| ".join(f"[{spec}] {t}" for spec, t in zip(self.scorer.public_mt, translations))
        return prompts.breaker_followup(shown, step["qe_mean"] if self.show_qe else None, self.grammatical_edits)

    def _first_prompt(self, seed_length: int) -> str:
        return prompts.BREAKER_FIRST.format(
            lang1=lang_name(self.src_lang), lang2=lang_name(self.tgt_lang), seed_length=seed_length
        )

    def _score(self, step: int, proposals: Sequence[tuple[Walk, str, str]]) -> None:
        """Translate and score the step's proposals (walk, source, the answer that proposed it) of every walk as one
        list; extend the walks' trajectories and conversations (a step without a score leaves the conversation at
        the last scored step)."""
        for (walk, source, answer), scored in zip(proposals, self.scorer([source for _, source, _ in proposals])):
            entry = {"step": step, "source": source, **scored}
            walk.trajectory.append(entry)
            if step > 0 and entry["qe_mean"] is None:
                walk.messages.pop()  # no translation or score to show: go on from the last scored step
                continue
            walk.messages.append({"role": "assistant", "content": answer})
            if entry["qe_mean"] is not None:
                walk.anchor = entry

    def walk_all(self, walks: Sequence[Walk]) -> None:
        """Algorithm 1 for several items at once. Each walk's result equals the one it gets alone: its LLM samples
        depend only on its conversation and its own rng, translations and QE only on its texts."""
        rounds = 2 * (self.steps + 1)  # progress: an LLM round and a scoring round per step
        starts = [(w.seed, f"SOURCE |||{w.seed}|||") for w in walks] if self.seeded else self._ask(walks)
        progress.step(1, rounds)
        proposals = []
        for walk, start in zip(walks, starts):
            if start is None:
                walk.counts["llm_failures"] += 1
            else:
                proposals.append((walk, *start))
        self._score(0, proposals)
        progress.step(2, rounds)
        active = [w for w in walks if w.anchor is not None]  # step 0 scored: the editor can start
        for step in range(1, self.steps + 1):
            if not active:
                break
            for walk in active:
                walk.messages.append({"role": "user", "content": self._followup(walk.anchor)})
            proposals = []
            for walk, proposal in zip(active, self._ask(active)):
                if proposal is None:
                    walk.counts["llm_failures"] += 1
                    walk.messages.pop()  # drop the unanswered follow-up; the next step asks again from the same state
                else:
                    proposals.append((walk, *proposal))
            progress.step(2 * step + 1, rounds)
            self._score(step, proposals)
            progress.step(2 * step + 2, rounds)

    def run(self, seed: str | None, seed_length: int, rng) -> dict[str, Any]:
        """One item's trajectory, counters and conversation."""
        walk = Walk(seed, rng, [{"role": "user", "content": self._first_prompt(seed_length)}])
        self.walk_all([walk])
        return {"trajectory": walk.trajectory, "counts": walk.counts, "messages": walk.messages}

    def process_batch(self, items: Sequence[Item], rngs) -> list[ItemResult]:
        results: list[ItemResult | None] = [None] * len(items)
        walks: dict[int, Walk] = {}
        for pos, (item, rng) in enumerate(zip(items, rngs)):
            seed = item.data.get("src")
            if self.seeded and not (seed and seed.strip()):
                results[pos] = ItemResult(skipped=["empty_seed"])
                continue
            if self.seeded and not words(seed, self.src_lang):  # only emoji/symbols: text.empty_rate counts it as empty
                results[pos] = ItemResult(skipped=["no words"])
                continue
            seed_length = words(seed, self.src_lang) if seed else int(item.data.get("length", 30))
            walks[pos] = Walk(seed, rng, [{"role": "user", "content": self._first_prompt(seed_length)}])
        self.walk_all(list(walks.values()))
        for pos, walk in walks.items():
            results[pos] = self._result(walk)
        return results  # type: ignore[return-value]

    def process(self, item: Item, rng) -> ItemResult:
        return self.process_batch([item], [rng])[0]

    def _result(self, walk: Walk) -> ItemResult:
        traj = walk.trajectory
        if not traj:
            return ItemResult(rejected=["llm_failed"])
        if traj[0]["qe_mean"] is None:
            return ItemResult(rejected=[f"step0_{traj[0]['failure']}_failed"])
        best = best_step(traj)
        return ItemResult(
            records=[
                {
                    "text": best["source"],
                    "seed": walk.seed if self.seeded else None,
                    "method": f"mtbreaker-{self.variant}",
                    "target_models": self.scorer.public_mt,
                    "qe_model": self.scorer.public_qe_spec,
                    "qe_models": self.scorer.public_qe,
                    "qe_score": best["qe_mean"],
                    "difficulty": 100.0 - best["qe_mean"],
                    "trajectory": traj,
                    "llm_failures": walk.counts["llm_failures"],
                    "truncated": walk.counts["truncated"],
                    **failure_counts(traj),
                    "src_lang": self.src_lang,
                    "tgt_lang": self.tgt_lang,
                }
            ]
        )
