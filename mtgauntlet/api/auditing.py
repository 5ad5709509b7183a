"""The audit page from Python: `audit` (``gauntlet audit``)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from mtgauntlet.api.checks import in_ranges
from mtgauntlet.api.inputs import path_of
from mtgauntlet.api.session import public

__all__ = ["audit"]

MINIMUM = {"examples": 0}  # the range of ``--examples`` (recipes read it too: mtgauntlet.recipes.options)


@public
def audit(
    path: Any,
    *,
    out: str | Path = "report.html",
    against: Any = None,
    rules: str | Path | None = None,
    nli: str | None = None,
    lm: bool = False,
    examples: int = 5,
    seed: int = 13,
    metric_results: Sequence[str | Path] = (),
    progress: bool | None = False,
) -> Path:
    """Write one self-contained HTML audit page: overview, validation, data quality, examples with their edits,
    method plots and, with ``against``, what changed since the older version. Works offline.

    Args:
        path: A build or release directory (or a `Build` / `Release`), or Parquet record file(s).
        out: The HTML page to write.
        against: An older build or release: adds a diff section.
        rules: Validation rules YAML (as for `mtgauntlet.validate`); default: the built-in rules.
        nli: NLI spec for the SMAUG contradiction rules.
        lm: Also compute LM naturalness with the embedded LLM (slow).
        examples: Records shown per phenomenon / variant / topic (``>= 0``).
        seed: Seed of the example sample.
        metric_results: Outputs of ``gauntlet evaluate metric --set PATH --json`` to show as metric sensitivity
            per phenomenon.

    Returns:
        The path of the page written.

    Raises:
        UsageError: ``examples`` below 0.
        GauntletError: A path that is not a build, release or record file; bad rules or metric results.

    Examples:
        >>> page = mg.audit("releases/name=my-es-en/version=0.2.0", out="audit.html",
        ...                 against="releases/name=my-es-en/version=0.1.0")
    """
    from mtgauntlet.cards.audit import write_audit
    from mtgauntlet.validators.rules import Rules

    in_ranges({"examples": examples}, MINIMUM)
    r = Rules.from_yaml(rules) if rules else Rules.default()
    if nli:
        r.options.nli = nli
    r.options.lm = r.options.lm or lm
    r.options.gx = False  # Data Docs are a separate site; the page is the audit
    return write_audit(
        path_of(path),
        out,
        None if against is None else path_of(against),
        rules=r,
        examples=examples,
        seed=seed,
        metric_results=list(metric_results),
    )
