"""Validation rules: thresholds on named metrics plus options, from YAML into dataclasses.

Example ``rules.yaml``::

    version: 1
    options:
      embedder: e5          # embedding diversity backend
      chrf_word_order: 2    # chrF++ (the MT-breaker paper's nc:6|nw:2)
      lm: true              # LM naturalness (slow: runs the embedded LLM)
      nli: hf:roberta-large-mnli   # SMAUG contradiction rules (not checked without it)
      judge: openai:gpt-4o-mini@https://api.openai.com/v1   # LLM source-analysis judge
      max_texts: 5000       # sample for pairwise metrics on very large sets
      gx: true              # also run the Great Expectations suite and write Data Docs
      grammar: true         # grammar.error_rate (per 100 words) of the fluent side (SMAUG good, MT-breaker texts)
    thresholds:
      chrf_diversity: {min: 0.5}
      ids.duplicates: {max: 0}
      smaug.nli.bad_contradicts_ref_rate: {min: 0.9}   # neg records only

SMAUG defaults: ``smaug.span_mismatches`` (records whose span does not describe the edit) must be 0;
with an NLI backend, at least 80% of the ``neg`` records must contradict the reference and at most 20%
of the good hypotheses may. ``smaug.nli.not_checked_rate`` and ``smaug.good_equals_ref_rate`` are
reported (and shown on the card) without a threshold: add one here to make them fail a set.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypedDict

from mtgauntlet.errors import InputError
from mtgauntlet.validators.metric_names import is_known, suggestion
from mtgauntlet.validators.rule_options import Options

RULES_VERSION = 1


@dataclass
class Threshold:
    metric: str
    min: float | None = None
    max: float | None = None
    equals: Any = None

    def evaluate(self, value: Any) -> str:
        """'pass', 'fail' or 'not_checked' (metric not computed, or NaN)."""
        if value is None or (isinstance(value, float) and value != value):
            return "not_checked"
        if self.min is not None and value < self.min:
            return "fail"
        if self.max is not None and value > self.max:
            return "fail"
        if self.equals is not None and value != self.equals:
            return "fail"
        return "pass"

    def describe(self) -> str:
        parts = []
        if self.min is not None:
            parts.append(f">= {self.min:g}")
        if self.max is not None:
            parts.append(f"<= {self.max:g}")
        if self.equals is not None:
            parts.append(f"== {self.equals}")
        return " and ".join(parts)


@dataclass
class Rules:
    thresholds: list[Threshold] = field(default_factory=list)
    options: Options = field(default_factory=Options)

    def grammar_on(self) -> bool:
        """The grammar checks run: ``options.grammar`` or any ``grammar.*`` threshold."""
        from mtgauntlet.validators.registry import all_rules

        return all_rules()["grammar"].switched_on(self.options, [t.metric for t in self.thresholds])

    @classmethod
    def default(cls) -> Rules:
        """Every registered rule's default thresholds (:func:`mtgauntlet.validators.registry.default_thresholds`)."""
        from mtgauntlet.validators.registry import default_thresholds

        return cls(thresholds=[Threshold(metric, **bounds) for metric, bounds in default_thresholds()])

    @classmethod
    def from_yaml(cls, path: str | Path) -> Rules:
        import yaml

        p = Path(path)
        try:
            text = p.read_text(encoding="utf-8")
            data = yaml.safe_load(text) or {}
        except FileNotFoundError:
            raise InputError("rules file not found", file=str(p)) from None
        except yaml.YAMLError as exc:
            mark = getattr(exc, "problem_mark", None)
            raise InputError(
                f"invalid YAML ({getattr(exc, 'problem', exc)})", file=str(p), line=mark.line + 1 if mark else None
            ) from None
        if not isinstance(data, dict):
            raise InputError("a rules file is a mapping with version, options and thresholds", file=str(p))
        unknown = set(data) - {"version", "options", "thresholds"}
        if unknown:
            raise InputError(f"unknown keys {sorted(unknown)} (expected version, options, thresholds)", file=str(p))
        if data.get("version", RULES_VERSION) != RULES_VERSION:
            raise InputError(
                f"rules version {data.get('version')} not supported (expected {RULES_VERSION})",
                file=str(p),
                field="version",
            )
        opts = data.get("options") or {}
        if not isinstance(opts, dict):
            raise InputError("options must be a mapping", file=str(p), field="options")
        thresholds = []
        section = data.get("thresholds") or {}
        if not isinstance(section, dict):
            raise InputError(
                "thresholds must be a mapping metric -> {min, max, equals}", file=str(p), field="thresholds"
            )
        for metric, spec in section.items():
            where: _Where = {"file": str(p), "line": _line_of(text, str(metric)), "field": f"thresholds.{metric}"}
            if not is_known(str(metric)):
                raise InputError(f"unknown rule {metric!r}: no validator computes it{suggestion(str(metric))}", **where)
            if not isinstance(spec, dict) or not set(spec) <= {"min", "max", "equals"} or not spec:
                raise InputError("a threshold is a mapping with min, max and/or equals", **where)
            for bound in ("min", "max"):
                if spec.get(bound) is not None and not isinstance(spec[bound], (int, float)):
                    raise InputError(f"{bound} must be a number, got {spec[bound]!r}", **where)
            thresholds.append(Threshold(metric, **spec))
        return cls(thresholds=thresholds, options=_options(opts, p, text))


class _Where(TypedDict):
    """Where a rules-file finding is (`InputError`'s keywords)."""

    file: str
    line: int | None
    field: str


def _line_of(text: str, key: str) -> int | None:
    """1-based line where ``key:`` first appears (for error messages)."""
    for i, line in enumerate(text.splitlines(), start=1):
        if line.strip().startswith((f"{key}:", f"'{key}':", f'"{key}":')):
            return i
    return None


def _options(opts: dict[str, Any], path: Path, text: str) -> Options:
    """Options from YAML: unknown keys and wrong types are errors naming the key and line."""
    import typing

    types = typing.get_type_hints(Options)
    for key, value in opts.items():
        where: _Where = {"file": str(path), "line": _line_of(text, str(key)), "field": f"options.{key}"}
        if key not in types:
            raise InputError(f"unknown option {key!r}; known: {', '.join(sorted(types))}", **where)
        want = types[key]
        ok = (
            isinstance(value, bool)
            if want is bool
            else isinstance(value, int) and not isinstance(value, bool)
            if want is int
            else isinstance(value, (int, float)) and not isinstance(value, bool)
            if want is float
            else value is None or isinstance(value, str)
        )
        if not ok:
            raise InputError(f"expected {getattr(want, '__name__', str(want))}, got {value!r}", **where)
    return Options(**opts)
