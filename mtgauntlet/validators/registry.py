"""The validator rules, registered in one place: what `gauntlet validate` computes, which metric names a rules file
may threshold, the default thresholds, and the rule table of docs/validation.md and of ``--rules``' help all come
from here.

A *rule* is a class, one module of :mod:`mtgauntlet.validators.measures`, subclassing :class:`Rule` and registered
with the :func:`rule` decorator; :data:`MODULES` lists those modules (one line each, in the order of the report).
A rule declares:

- ``name`` and ``description`` (the docs' and the help's words);
- ``metrics``: every metric it computes, each a :class:`Metric` (its name, or a pattern standing for a family of
  names such as ``smaug.nli.<phenomenon>.bad_contradicts_ref_rate``, and a sentence saying what it measures);
- ``kinds``: the record kinds it measures. A threshold on its metrics is reported for those kinds only (NOT CHECKED
  when it could not be computed there), never for the other kinds of a mixed release;
- ``switch``: the rules-file option that turns it on (``""``: it always runs) and ``reports_unchecked``: whether a
  threshold on its metrics is reported NOT CHECKED while the switch is off (the NLI rules: yes; the opt-in LM and
  judge measures: no, they are left out of the report);
- ``record_check``: the per-record check it reads from ``RecordSet.per_record`` (``nli``, ``grammar``, ``lm``: run
  record by record on the engine, :mod:`mtgauntlet.validators.record_engine`), if any, and ``switched_off_note``: the
  note it leaves while switched off; ``record_results(records, measured)`` reads the check's results;
- ``defaults``: its default thresholds (``{metric: {"min"|"max"|"equals": value}}``);
- ``measure(records)``: its metrics of one kind's :class:`RecordSet` (adding notes and problems there);
- ``example()``: a few records and the metrics the rule must compute from them (an :class:`Example`):
  ``tests/validators/test_registry.py`` runs every registered rule on its own example.
"""

from __future__ import annotations

import difflib
import importlib
import re
from collections.abc import Sequence, Sized
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any, ClassVar, TypeVar

import pyarrow as pa

from mtgauntlet.phenomena import NAMES as PHENOMENA
from mtgauntlet.validators.rule_options import Options

# the rule modules of mtgauntlet/validators/measures/, one a line, in the order the report lists their metrics
MODULES = (
    "schema",
    "length",
    "diversity",
    "labels",
    "smaug_records",
    "smaug_nli",
    "naturalness",
    "grammar",
    "judge",
)
MAIN_TEXT = {  # the text column a kind's text measures read (diversity, length, LM naturalness, the judge)
    "smaug_pair": "bad",
    "breaker_text": "text",
    "topic_text": "text",
    "selected_text": "text",
    "judgment": "src",
}
PLACEHOLDERS = {"<phenomenon>": "(" + "|".join(map(re.escape, PHENOMENA)) + ")"}


@dataclass(frozen=True)
class Metric:
    """A metric a rule computes: ``name`` as the docs show it (``<phenomenon>`` stands for every registered SMAUG
    phenomenon), or ``pattern``, a regular expression of the names it stands for; ``doc``: what it measures."""

    name: str
    doc: str
    pattern: str = ""

    @cached_property
    def regex(self) -> re.Pattern[str]:
        if self.pattern:
            return re.compile(self.pattern + r"\Z")
        parts = re.split("(" + "|".join(map(re.escape, PLACEHOLDERS)) + ")", self.name)
        return re.compile("".join(PLACEHOLDERS.get(p, re.escape(p)) for p in parts) + r"\Z")

    def matches(self, metric: str) -> bool:
        return bool(self.regex.match(metric))


@dataclass
class RecordSet:
    """The records of one kind that the rules measure, with what they share: the rules file's options and the
    metrics it thresholds, the kind's main text, the per-record checks run on the engine (NLI, grammar, LM), and
    the notes (``info``) and ``problems`` the rules add for the report."""

    kind: str
    table: pa.Table
    options: Options = field(default_factory=Options)
    thresholded: tuple[str, ...] = ()
    per_record: list[dict[str, Any]] = field(default_factory=list)
    info: dict[str, str] = field(default_factory=dict)
    problems: list[str] = field(default_factory=list)

    @cached_property
    def rows(self) -> list[dict[str, Any]]:
        return self.table.to_pylist()

    @property
    def text_col(self) -> str | None:
        return MAIN_TEXT.get(self.kind)

    @cached_property
    def texts(self) -> list[str]:
        """The kind's main texts (empty when it has none)."""
        col = self.text_col
        return [t or "" for t in self.table.column(col).to_pylist()] if col in self.table.column_names else []

    def column(self, name: str) -> list[Any]:
        return self.table.column(name).to_pylist()


@dataclass(frozen=True)
class Example:
    """Records of ``kind`` (their own fields: ``id``, the languages, ``builder``, ``builder_version`` and
    ``created_at`` are filled in where missing), the rules-file ``options`` to measure them with, and what the rule
    must compute from them: ``expect`` (metric -> value) and the notes (``info`` keys) it must leave."""

    kind: str
    rows: tuple[dict[str, Any], ...]
    expect: dict[str, float] = field(default_factory=dict)
    options: dict[str, Any] = field(default_factory=dict)
    info: tuple[str, ...] = ()


class Rule:
    """A validator rule (see the module docstring); subclasses set the class attributes and ``measure``."""

    name: ClassVar[str]
    description: ClassVar[str]
    metrics: ClassVar[tuple[Metric, ...]]
    kinds: ClassVar[tuple[str, ...]]
    switch: ClassVar[str] = ""
    reports_unchecked: ClassVar[bool] = True
    record_check: ClassVar[str] = ""  # the per-record check it reads (RecordSet.per_record): "nli", "grammar", "lm"
    switched_off_note: ClassVar[tuple[str, str] | None] = None  # (info key, note) it leaves while switched off
    defaults: ClassVar[dict[str, dict[str, float]]] = {}

    def measure(self, records: RecordSet) -> dict[str, Any]:
        raise NotImplementedError

    @classmethod
    def example(cls) -> Example:
        raise NotImplementedError

    def owns(self, metric: str) -> bool:
        return any(m.matches(metric) for m in self.metrics)

    def applies(self, metric: str, kind: str) -> bool:
        """Whether ``metric`` (one of this rule's) is measured on records of ``kind``."""
        return kind in self.kinds

    def switched_on(self, options: Options, thresholded: Sequence[str] = ()) -> bool:
        return not self.switch or bool(getattr(options, self.switch))

    def record_results(self, records: RecordSet, measured: Sized) -> list[Any] | None:
        """The results of the rule's per-record check (``record_check``), one per record; None while the rule is
        switched off (its ``switched_off_note`` left in the notes) or where ``measured`` (the rows or texts it
        reads) is empty."""
        if not self.switched_on(records.options, records.thresholded):
            if self.switched_off_note:
                key, note = self.switched_off_note
                records.info[key] = note
            return None
        if not measured:
            return None
        return [r[self.record_check] for r in records.per_record]


RuleT = TypeVar("RuleT", bound=type[Rule])
RULES: dict[str, Rule] = {}


def rule(cls: RuleT) -> RuleT:
    """Register a rule class under its ``name`` (a second rule of one name, or of a metric another rule already
    computes, is an error: a metric name means one thing)."""
    if cls.name in RULES:
        raise ValueError(f"validator rule {cls.name!r} is registered twice")
    instance = cls()
    for other in RULES.values():
        clash = [m.name for m in cls.metrics if other.owns(m.name) or any(o.matches(m.name) for o in other.metrics)]
        if clash:
            raise ValueError(f"validator rule {cls.name!r}: metric {clash[0]!r} is already computed by {other.name!r}")
    RULES[cls.name] = instance
    return cls


def all_rules() -> dict[str, Rule]:
    """Every registered rule, in :data:`MODULES` order (the modules imported on first use)."""
    for module in MODULES:
        importlib.import_module(f"mtgauntlet.validators.measures.{module}")
    return RULES


def owner(metric: str) -> Rule | None:
    """The rule that computes ``metric`` (None: no rule does)."""
    return next((r for r in all_rules().values() if r.owns(metric)), None)


def is_known(metric: str) -> bool:
    return owner(metric) is not None


def suggestion(metric: str) -> str:
    """``; did you mean 'NAME'?`` for a name close to one a rule computes, else ``""``."""
    names = [m.name for r in all_rules().values() for m in r.metrics if not m.pattern and "<" not in m.name]
    close = difflib.get_close_matches(metric, names, n=1, cutoff=0.6)
    return f"; did you mean {close[0]!r}?" if close else ""


def reported(metric: str, kind: str, options: Options, thresholded: Sequence[str] = ()) -> bool:
    """Whether a threshold on ``metric`` that was not computed for ``kind`` is reported (NOT CHECKED): only for a
    kind its rule measures, and for an opt-in rule only while it is switched on."""
    r = owner(metric)
    if r is None or not r.applies(metric, kind):
        return False
    return r.reports_unchecked or r.switched_on(options, thresholded)


def default_thresholds() -> list[tuple[str, dict[str, float]]]:
    """(metric, bounds) of every rule's default thresholds, in registry order."""
    return [(metric, bounds) for r in all_rules().values() for metric, bounds in r.defaults.items()]


def rules_for(kind: str, only: Sequence[str] | None = None) -> list[Rule]:
    """The rules that measure ``kind`` (``only``: of these names)."""
    return [r for r in all_rules().values() if (only is None or r.name in only) and r.kinds and _measures(r, kind)]


def _measures(r: Rule, kind: str) -> bool:
    return any(r.applies(m.name, kind) for m in r.metrics)


TABLE_START = "<!-- rule table: generated from mtgauntlet/validators/registry.py (python -m mtgauntlet.validators) -->"
TABLE_END = "<!-- end of the rule table -->"


def _cell(text: str) -> str:
    return text.replace("|", "\\|")


def docs_table() -> str:
    """The Markdown table of docs/validation.md: one row per metric of every registered rule."""
    rows = ["| rule | metric | kinds | what it measures | default |", "|---|---|---|---|---|"]
    for r in all_rules().values():
        on = f" (with `options.{r.switch}`)" if r.switch else ""
        for m in r.metrics:
            bounds = r.defaults.get(m.name)
            default = ", ".join(f"{k} {v:g}" for k, v in bounds.items()) if bounds else ""
            kinds = ", ".join(k for k in r.kinds if r.applies(m.name, k))
            rows.append(f"| `{r.name}`{on} | `{_cell(m.name)}` | {kinds} | {_cell(m.doc)} | {default} |")
    return "\n".join([TABLE_START, *rows, TABLE_END])


def with_docs_table(page: str) -> str:
    start, end = page.index(TABLE_START), page.index(TABLE_END) + len(TABLE_END)
    return page[:start] + docs_table() + page[end:]


def help_line() -> str:
    """What ``--rules`` says about the rules a file may threshold."""
    return "Rules YAML (thresholds + options); rules: " + ", ".join(all_rules()) + " (docs/validation.md)."


def pair_example(
    rows: Sequence[dict[str, Any]], *, src_lang: str = "es", tgt_lang: str = "en"
) -> tuple[dict[str, Any], ...]:
    """SMAUG pair example rows (src, ref, good, bad, phenomenon and any other field) with their languages."""
    return tuple({"src_lang": src_lang, "tgt_lang": tgt_lang, **r} for r in rows)
