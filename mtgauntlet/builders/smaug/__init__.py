"""SMAUG (Alves et al., 2022): (source, good, bad, reference, phenomenon) records whose bad hypothesis
is the reference with one critical error of one phenomenon (ne, num, neg, ins, del: registered in
mtgauntlet/phenomena.py). Each phenomenon is one object (phenomena/: its transformation, constraints, language
support and card flags); this module wires them into a builder."""

from __future__ import annotations

import logging
from collections.abc import Sequence
from typing import Any

from mtgauntlet.builders.base import Builder, Item, ItemResult, run_constraints
from mtgauntlet.builders.inputs import read_corpus, with_languages
from mtgauntlet.builders.keyed import keyed_rng
from mtgauntlet.builders.options.smaug import SmaugOptions
from mtgauntlet.builders.smaug.clause_edits import clause_pool
from mtgauntlet.builders.smaug.constraints import NLIContradiction
from mtgauntlet.builders.smaug.phenomena import all_phenomena
from mtgauntlet.builders.smaug.pools import KeyedPool, entity_pool
from mtgauntlet.builders.smaug.transformations import UnusableAnswer, base_lang
from mtgauntlet.corpora.readers import RowSet
from mtgauntlet.errors import BackendUnavailable, GauntletError
from mtgauntlet.models import registry
from mtgauntlet.models.embedded import packaged_translator
from mtgauntlet.models.estimate import Plan
from mtgauntlet.models.registry import public_spec
from mtgauntlet.options import listed
from mtgauntlet.phenomena import NAMES
from mtgauntlet.validators.record_checks import span_identity_holds

log = logging.getLogger(__name__)
# the options that tune the perturbations (build.json config.params, the signature)
PARAMS = ("min_char_edit", "min_word_edit", "del_min_words", "del_max_words", "max_parse_chars", "ne_types")
PARSE_CHUNK = 64  # references parsed at once (progress advances after each chunk)
TOO_LONG = "too_long"  # skip reason of a row longer than max_parse_chars
TRANSLATION_FAILED = "good_translation_failed"  # skip reason: the translator gave no good hypothesis (None)


def same_text(a: str, b: str) -> bool:
    """Equal up to whitespace (a good hypothesis that only re-spaces the reference does not differ from it)."""
    return a.split() == b.split()


class SmaugBuilder(Builder):
    """``ne_types``: ``all`` (the paper: one entity drawn uniformly among every entity the NER finds, dates, times
    and numbers included) or ``names`` (named entities only, leaving numbers to ``num``: stated in the card).
    ``good_from``: column | translator | reference. The paper keeps only pairs whose good hypothesis
    differs from the reference: items whose good equals the reference are rejected (``good_equals_ref``),
    except with ``good_from="reference"``, the explicit reference-free mode (good = reference for every
    record; the manifest says so). An item whose translator gave no translation (``None``) is skipped and counted
    (``good_translation_failed``). ``require_nli`` drops ``neg`` records whose NLI contradiction check did
    not run; without it they are kept with ``checks.nli_contradiction`` = null (not checked). ``seed`` is the
    build's seed (the runner's ``--seed``): with the row's content it keys every random choice (:meth:`item_rng`)."""

    name = "smaug"
    version = "4"
    kind = "smaug_pair"
    batched = True  # a shard is annotated (spaCy) and perturbed as one batch

    def __init__(self, options: SmaugOptions):
        o = options
        src_lang, tgt_lang, phenomena, translator = o.src_lang, o.tgt_lang, listed(o.phenomena), o.translator
        if o.polyjuice and base_lang(tgt_lang) != "en":
            raise GauntletError(
                f"--polyjuice: Polyjuice negates English only, and the target language is {tgt_lang}; "
                "leave out --polyjuice"
            )
        bad = [p for p in phenomena if p not in NAMES]
        if bad:
            raise GauntletError(f"unknown phenomena {bad}; choose from {', '.join(NAMES)}")
        if not 1 <= o.del_min_words <= o.del_max_words:
            raise GauntletError(f"--del-min-words/--del-max-words: need 1 <= {o.del_min_words} <= {o.del_max_words}")
        if o.require_nli and not o.nli and "neg" in phenomena:
            raise GauntletError(
                "--require-nli keeps only NLI-checked negations: pass --nli SPEC "
                "(e.g. hf:roberta-large-mnli), or leave out --require-nli"
            )
        self.src_lang, self.tgt_lang, self.seed = src_lang, tgt_lang, o.seed
        if translator is None and o.good_col is None and o.good_from in (None, "translator"):
            translator = packaged_translator(src_lang, tgt_lang)  # e.g. bergamot for en<->pt; None elsewhere
        self.phenomena = tuple(phenomena)
        self.specs = {
            "translator": translator,
            "infiller": o.infiller,
            "nli": o.nli,
            "polyjuice": o.polyjuice,
            "annotator": o.annotator or f"spacy:{tgt_lang.split('-')[0]}",
        }
        self.public_specs = {k: public_spec(v) for k, v in self.specs.items()}  # as records and build.json name them
        self.good_col, self.good_from, self.require_nli = o.good_col, o.good_from, o.require_nli
        self.params: dict[str, Any] = {name: getattr(o, name) for name in PARAMS}
        self.shards_on = (o.engine, o.actors)
        self._load_backends()
        self.support = support_report(self.tgt_lang, self)
        missing = {p: self.support[p][1] for p in self.phenomena if not self.support[p][0]}
        if missing:
            raise GauntletError(
                "phenomena not supported for target language "
                f"{self.tgt_lang} with the configured backends: "
                + "; ".join(f"{p}: {why}" for p, why in missing.items())
                + ". Pass --phenomena with a subset of: "
                + ",".join(p for p in NAMES if self.support[p][0])
            )
        self._good_origin()

    @classmethod
    def read(cls, options: SmaugOptions) -> tuple[SmaugOptions, RowSet]:
        """The parallel corpus (source, reference and, with ``good_col``, the good hypothesis)."""
        o = with_languages(options)
        good = {"good": o.good_col} if o.good_col else None
        return o, read_corpus(o, o.input, text=o.src_col, ref=o.ref_col, limit=o.limit, columns=good)

    def notes(self) -> list[str]:
        """How each phenomenon is made here, and what the card flags."""
        notes = [f"{ph}: {how}" for ph, (ok, how) in self.support.items() if ph in self.phenomena]
        return notes + [f"note: {why}" for why in self.flags().values()]

    def shards_engine(self) -> tuple[str, int | None]:
        return self.shards_on

    # -- backends ---------------------------------------------------------------------------------
    def _load_backends(self) -> None:
        try:
            self.annotator = registry.load("annotator", self.specs["annotator"])
        except BackendUnavailable as exc:
            self.annotator, self.annotator_error = None, str(exc)
        self.infiller = registry.load("infiller", self.specs["infiller"]) if self.specs["infiller"] else None
        self.nli = registry.load("nli", self.specs["nli"]) if self.specs["nli"] else None
        self.polyjuice = registry.load("llm", self.specs["polyjuice"]) if self.specs["polyjuice"] else None
        self.translator = registry.load("translator", self.specs["translator"]) if self.specs["translator"] else None

    def _good_origin(self) -> None:
        mode = self.good_from or ("column" if self.good_col else "translator" if self.translator else None)
        if mode is None:
            raise GauntletError(
                "no good hypothesis: pass --good-col COLUMN (a second reference or MT output), "
                "--translator SPEC (e.g. apertium for es->en), or --good-from reference"
            )
        if mode == "column" and not self.good_col:
            raise GauntletError("--good-from column needs --good-col")
        if mode == "translator" and self.translator is None:
            raise GauntletError("--good-from translator needs --translator SPEC")
        self.good_mode = mode

    def signature_fields(self) -> dict[str, Any]:
        return {
            "src": self.src_lang,
            "tgt": self.tgt_lang,
            "phenomena": list(self.phenomena),
            "good": self.good_mode + (f"={self.good_col}" if self.good_mode == "column" else ""),
            **{k: v for k, v in self.specs.items() if v},
            **self.params,
            **({"require_nli": "yes"} if self.require_nli else {}),
        }

    def config(self) -> dict[str, Any]:
        return {
            "phenomena": list(self.phenomena),
            "good_from": self.good_mode,
            "good_col": self.good_col,
            "specs": self.public_specs,
            "params": self.params,
            "require_nli": self.require_nli,
            "flags": self.flags(),
            "support": {p: {"supported": ok, "how": how} for p, (ok, how) in self.support.items()},
        }

    def flags(self) -> dict[str, str]:
        """Departures from the paper that a dataset card must state (config.flags): the build's own, then each built
        phenomenon's (its ``flags`` hook: e.g. the model-free method used in place of the paper's model)."""
        out = {
            "not_hand_checked": "records are not filtered by hand (the paper hand-checked its ~50 records per "
            "phenomenon)",
            "no_bicleaner": "the input corpus is not filtered with Bicleaner (the paper kept pairs scoring >= 0.85)",
        }
        if self.good_mode == "reference":
            out["good_equals_ref"] = (
                "good = reference for every record (--good-from reference): the paper keeps "
                "only pairs whose good differs from the reference; use these pairs for "
                "reference-free evaluation only"
            )
        annotator = str(self.specs.get("annotator") or "")
        if not annotator.startswith("stanza"):
            out["annotator"] = (
                f"entities and parts of speech come from {annotator or 'spaCy'} (the paper: Stanza; "
                "--annotator stanza:LANG)"
            )
        phenomena = all_phenomena()
        for name in self.phenomena:
            out.update(phenomena[name].flags(self))
        return out

    def model_specs(self) -> dict[str, str]:
        return {k: v for k, v in self.public_specs.items() if v}

    def plan(self, items: Sequence[Item]) -> Plan:
        """The good-hypothesis translator (one call per item with ``--good-from translator``) and, for ``neg``,
        Polyjuice (at most one call per item: one AUX* VERB span each, reference-sized prompt). The infiller and
        the NLI model are local (``hf:``) only."""
        from mtgauntlet.builders.smaug.transformations import POLYJUICE_MAX_TOKENS, polyjuice_prompt

        plan = Plan()
        if self.good_mode == "translator":
            plan.add_role(self.translator, [it.data["src"] for it in items], None, self.src_lang, self.tgt_lang)
        if self.polyjuice is not None and "neg" in self.phenomena:
            plan.add(
                self.polyjuice, [polyjuice_prompt(it.data["ref"], it.data["ref"]) for it in items], POLYJUICE_MAX_TOKENS
            )
        return plan

    def runtime_info(self) -> dict[str, Any]:
        from mtgauntlet.builders.runtime_info import roles_runtime

        return roles_runtime(
            {
                "annotator": self.annotator,
                "infiller": self.infiller,
                "nli": self.nli,
                "polyjuice": self.polyjuice,
                "translator": self.translator,
            }
        )

    # -- build ------------------------------------------------------------------------------------
    def prepare(self, items: Sequence[Item], progress=None) -> None:
        """Annotate every reference once (in chunks, advancing ``progress``): docs for the transformations,
        entity and phrase pools."""
        docs: list = []
        bounded: list[Item] = []
        p = self.params
        for start in range(0, len(items), PARSE_CHUNK):  # the work of a chunk is bounded: PARSE_CHUNK * max_parse_chars
            chunk = [it for it in items[start : start + PARSE_CHUNK] if self.within_bounds(it)]
            bounded += chunk
            docs += self.annotator.annotate([it.data["ref"] for it in chunk]) if self.annotator else [None] * len(chunk)
            if progress is not None:
                for _ in items[start : start + PARSE_CHUNK]:
                    progress.advance()
        self.docs = {it.index: d for it, d in zip(bounded, docs)}
        entities = entity_pool(docs, p["ne_types"]) if self.annotator else {}
        self.entity_pool = {label: KeyedPool(names, self.seed, f"ne:{label}") for label, names in entities.items()}
        rows = [it.data.get("source_id") for it in bounded]  # a clause keeps its ring place when its row is edited
        clauses = clause_pool(docs, lang=self.tgt_lang, identities=rows) if self.annotator else {}
        self.clause_pool = KeyedPool(clauses, self.seed, "ins")
        self._entity_counts: dict[str, int] = {d.text: len(d.entities) for d in docs if d is not None}
        phenomena = all_phenomena()
        self.transformations = {name: phenomena[name].transformation(self) for name in self.phenomena}

    def entity_count(self, text: str) -> int:
        """How many entities the annotator finds in ``text`` (cached: references were annotated in prepare)."""
        if text not in self._entity_counts:
            self._entity_counts[text] = len(self.annotator.annotate([text])[0].entities)
        return self._entity_counts[text]

    def within_bounds(self, item: Item) -> bool:
        """Is the row short enough to parse and perturb (source and reference at most ``max_parse_chars``)? A longer
        row is skipped and counted (``too_long``): SMAUG perturbs sentences, and a parser's time and memory grow
        with the text (a 1 MB line took 84 s and 3 GB of spaCy)."""
        cap = self.params["max_parse_chars"]
        return len(item.data["ref"]) <= cap and len(str(item.data.get("src") or "")) <= cap

    def item_rng(self, item: Item, phenomenon: str):
        """The randomness of one item and phenomenon, keyed by what the item is (build seed, source id, source and
        reference text), never by its position: adding, removing or editing other rows leaves it as it was."""
        d = item.data
        return keyed_rng(self.seed, "smaug", phenomenon, d.get("source_id"), d.get("src"), d["ref"])

    def process_batch(self, items: Sequence[Item], rngs=None) -> list[ItemResult]:
        """Records of ``items``. ``rngs`` (the runner's positional per-item rngs) are not used: every choice comes
        from :meth:`item_rng` and the pools' hash rings, so a record depends only on its row's content."""
        if not hasattr(self, "docs"):
            self.prepare(items)
        results = [ItemResult() for _ in items]
        for pos, item in enumerate(items):
            if not self.within_bounds(item):
                results[pos].skipped.append(TOO_LONG)
        bounded = [pos for pos, item in enumerate(items) if self.within_bounds(item)]
        goods = dict(zip(bounded, self._goods([items[pos] for pos in bounded])))
        candidates = []  # (item position, phenomenon, edit)
        for pos in bounded:
            item = items[pos]
            good = goods[pos][0]
            if good is None:  # the translator gave no usable translation: no good hypothesis, the item is skipped
                results[pos].skipped.append(TRANSLATION_FAILED)
                continue
            if not good.strip():
                results[pos].rejected.append("empty_good")
                continue
            if self.good_mode != "reference" and same_text(good, item.data["ref"]):
                results[pos].rejected.append("good_equals_ref")  # the paper keeps only good != reference
                continue
            ctx = {"doc": self.docs.get(item.index), "entity_pool": self.entity_pool, "clause_pool": self.clause_pool}
            for ph in self.phenomena:
                try:
                    edit = self.transformations[ph].apply(item.data["ref"], self.item_rng(item, ph), ctx)
                except UnusableAnswer as exc:  # a model answer that cannot be used (e.g. no [ANSWER]): counted
                    results[pos].rejected.append(f"{ph}:{exc.reason}")
                    continue
                if edit is None:
                    results[pos].rejected.append(f"{ph}:not_applicable")
                else:
                    candidates.append((pos, ph, edit))
        ne_texts = [e.text for _, ph, e in candidates if ph == "ne" and e.text not in self._entity_counts]
        if ne_texts and self.annotator:
            for t, d in zip(ne_texts, self.annotator.annotate(ne_texts)):
                self._entity_counts[t] = len(d.entities)
        nli_probs = self._nli_batch([(items[pos].data["ref"], ph, edit) for pos, ph, edit in candidates])
        for pos, ph, edit in candidates:
            item, ref = items[pos], items[pos].data["ref"]
            ok, checks, failed = run_constraints(self._constraints(ph), ref, edit, {"nli_probs": nli_probs})
            if not ok:
                results[pos].rejected.append(f"{ph}:{failed}")
                continue
            if self.require_nli and "nli_contradiction" in checks and checks["nli_contradiction"] is None:
                results[pos].rejected.append(f"{ph}:nli_not_checked")
                continue
            if not span_identity_holds(ref, edit.text, edit.start, edit.end, edit.span_replacement):
                results[pos].rejected.append(f"{ph}:span_mismatch")  # never expected: the span must describe the edit
                continue
            good, origin = goods[pos]
            assert good is not None  # an item without a good hypothesis was skipped above
            checks["good_differs_from_ref"] = float(not same_text(good, ref))
            results[pos].records.append(
                {
                    "src": item.data["src"],
                    "ref": ref,
                    "good": good,
                    "bad": edit.text,
                    "phenomenon": ph,
                    "span_original": edit.span_original,
                    "span_replacement": edit.span_replacement,
                    "span_start": edit.start,
                    "span_end": edit.end,
                    "perturbation": f"{ph}/{edit.meta.get('method') or edit.meta.get('rule', '')}",
                    "good_origin": origin,
                    "checks": checks,
                    "src_lang": item.data.get("src_lang", self.src_lang),
                    "tgt_lang": item.data.get("tgt_lang", self.tgt_lang),
                }
            )
        return results

    def _constraints(self, phenomenon: str):
        return all_phenomena()[phenomenon].constraints(self)

    def _nli_batch(self, candidates) -> dict[tuple[str, str], dict[str, float]]:
        """NLI probabilities of every (reference, candidate) pair of the shard that reaches the NLI check (passes the
        constraints before it), predicted as one batch: {(premise, hypothesis): probabilities}."""
        if self.nli is None:
            return {}
        pairs: dict[tuple[str, str], None] = {}
        for ref, ph, edit in candidates:
            constraints = self._constraints(ph)
            before = [c for c in constraints if not isinstance(c, NLIContradiction)]
            if len(before) < len(constraints) and run_constraints(before, ref, edit)[0]:
                pairs[(ref, edit.text)] = None
        if not pairs:
            return {}
        premises, hypotheses = zip(*pairs)
        return dict(zip(pairs, self.nli.predict(list(premises), list(hypotheses))))

    def _goods(self, items: Sequence[Item]) -> list[tuple[str | None, str]]:
        """(good hypothesis, origin) per item; the good is ``None`` where the translator failed for the source."""
        if self.good_mode == "column":
            return [(str(it.data.get("good") or ""), f"column:{self.good_col}") for it in items]
        if self.good_mode == "reference":
            return [(it.data["ref"], "reference") for it in items]
        assert self.translator is not None  # good_mode "translator" (checked in _good_origin)
        outs = self.translator.translate([it.data["src"] for it in items], self.src_lang, self.tgt_lang)
        return [(o, f"translator:{self.public_specs['translator']}") for o in outs]

    def process(self, item: Item, rng=None) -> ItemResult:
        return self.process_batch([item])[0]


def support_report(tgt_lang: str, b: SmaugBuilder) -> dict[str, tuple[bool, str]]:
    """Which phenomena can be produced for ``tgt_lang`` with the configured backends, and how (every registered
    phenomenon, each by its ``support`` hook)."""
    lang = base_lang(tgt_lang)
    return {name: phenomenon.support(b, lang) for name, phenomenon in all_phenomena().items()}
