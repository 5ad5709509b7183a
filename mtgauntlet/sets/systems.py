"""Which rows of a human-judgment set are systems: WMT's setup for the human-table and mt-metrics-eval importers.

In the WMT metrics task (mt-metrics-eval's ``EvalSet``: ``std_ref``, ``human_sys_names``, ``outlier_sys_names``) a
language pair has one standard reference, which metrics score against; the human references are not systems unless
a task scores one as an extra system (WMT23 he-en: refB is the reference, refA is scored as a system); and the
outlier systems a task names are left out. :class:`SystemChoice` states that choice for an import:

- ``reference``: the standard reference's name, for every language pair (``refB``) or per pair (``he-en=refB``);
  it is never a system. Without one, a human table's ``ref`` column (an mt-metrics-eval folder's ``refA``) is the
  reference.
- ``ref_systems``: the human references kept as systems: ``all``, names (``refA``) or ``LP:NAME`` (``he-en:refA``).
  By default none is kept: their rows are skipped and counted, and the import warns.
- ``exclude``: systems left out (outliers): names or ``LP:NAME``.

A row is a human reference when the table says so (a truthy ``is_human_ref`` column), when its system has a
reference file (mt-metrics-eval: ``references/LP.NAME.txt``), or, without either, when its name looks like one
(``ref``, ``refA``, ``refB``, ``synthetic_ref``, ``human-A``...).
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field

from mtgauntlet.errors import UsageError

REF_NAME = re.compile(r"(synthetic[_-]?)?ref([A-Z]|[_-][A-Za-z0-9]+)?|[Hh]uman([_-][A-Za-z0-9.]+)?")
TRUE = frozenset({"1", "true", "True", "TRUE", "yes", "y"})

REASON_REF = "human reference, not a system (as WMT; --ref-systems keeps it as one)"
REASON_STD_REF = "the standard reference (--reference): never a system"
REASON_EXCLUDED = "system excluded (--exclude-systems)"


def looks_like_reference(system: str) -> bool:
    """Whether a system name is a human reference's by WMT's naming (refA, refB, synthetic_ref, ref-B, Human-A)."""
    return bool(REF_NAME.fullmatch(system))


def _names(value: str | Sequence[str] | None) -> list[str]:
    if value is None:
        return []
    items = [value] if isinstance(value, str) else list(value)
    return [n.strip() for item in items for n in str(item).split(",") if n.strip()]


@dataclass(frozen=True)
class SystemChoice:
    """What an import keeps as systems (module docstring). ``counts`` tallies the human-reference rows seen by
    (lp, system) and whether they were kept, for the warning."""

    reference: dict[str, str] = field(default_factory=dict)  # lp (or "" = every lp) -> reference name
    ref_systems: frozenset[str] = frozenset()
    exclude: frozenset[str] = frozenset()
    seen_refs: Counter = field(default_factory=Counter, compare=False)

    @classmethod
    def parse(
        cls,
        reference: str | Sequence[str] | None = None,
        ref_systems: str | Sequence[str] | None = None,
        exclude_systems: str | Sequence[str] | None = None,
    ) -> SystemChoice:
        refs: dict[str, str] = {}
        for item in _names(reference):
            lp, eq, name = item.rpartition("=")
            if eq and not (lp and name):
                raise UsageError(f"--reference {item!r}: give NAME or LP=NAME (e.g. refB or he-en=refB)")
            key = lp if eq else ""
            if key in refs and refs[key] != name:
                raise UsageError(f"--reference names two references for {key or 'every language pair'}")
            refs[key] = name
        for opt, values in (("--ref-systems", _names(ref_systems)), ("--exclude-systems", _names(exclude_systems))):
            for v in values:
                lp, colon, name = v.partition(":")
                if colon and not (lp and name):
                    raise UsageError(f"{opt} {v!r}: give NAME or LP:NAME (e.g. refA or he-en:refA)")
        return cls(refs, frozenset(_names(ref_systems)), frozenset(_names(exclude_systems)))

    def reference_for(self, lp: str) -> str | None:
        """The standard reference's name for ``lp`` (None: the set's own ``ref``)."""
        return self.reference.get(lp, self.reference.get(""))

    @staticmethod
    def _names_it(values: frozenset[str], lp: str, system: str) -> bool:
        return system in values or f"{lp}:{system}" in values

    def skip_reason(self, lp: str, system: str, is_ref: bool) -> str | None:
        """Why the row of ``system`` in ``lp`` is not a system (None: it is one)."""
        if self._names_it(self.exclude, lp, system):
            return REASON_EXCLUDED
        if system == self.reference_for(lp):
            return REASON_STD_REF
        if not is_ref:
            return None
        kept = "all" in self.ref_systems or self._names_it(self.ref_systems, lp, system)
        self.seen_refs[(lp, system, kept)] += 1
        return None if kept else REASON_REF

    def config(self) -> dict[str, object]:
        """The choice as the build's config (it changes the records, so it is part of the signature)."""
        return {
            "reference": dict(sorted(self.reference.items())) or None,
            "ref_systems": sorted(self.ref_systems) or None,
            "exclude_systems": sorted(self.exclude) or None,
        }

    def is_default(self) -> bool:
        return not (self.reference or self.ref_systems or self.exclude)

    def warning(self, source: str) -> str | None:
        """What the import says about the human-reference rows it met (None when there were none)."""
        if not self.seen_refs:
            return None
        dropped = sorted({(lp, s) for (lp, s, kept) in self.seen_refs if not kept})
        kept = sorted({(lp, s) for (lp, s, k) in self.seen_refs if k})
        rows = sum(n for (_, _, k), n in self.seen_refs.items() if not k)
        parts = []
        if dropped:
            names = ", ".join(f"{lp} {s}" for lp, s in dropped)
            parts.append(
                f"{source}: {rows} rows of human references ({names}) are not systems, as in WMT's metrics task "
                "(--ref-systems all, or LP:NAME, scores them as systems)"
            )
        if kept:
            parts.append(f"{source}: human references scored as systems: {', '.join(f'{lp} {s}' for lp, s in kept)}")
        return "; ".join(parts)
