"""The audit page from Python: `audit` (``gauntlet audit``)."""

from __future__ import annotations

from pathlib import Path

from mtgauntlet.api.check_options import AuditOptions
from mtgauntlet.api.inputs import path_of
from mtgauntlet.api.session import public
from mtgauntlet.options import takes

__all__ = ["audit"]


@public
@takes(AuditOptions, returns=Path)
def audit(o: AuditOptions) -> Path:
    """Write one self-contained HTML audit page: overview, validation, data quality, examples with their edits,
    method plots and, with ``against``, what changed since the older version. Works offline.

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

    r = Rules.from_yaml(o.rules) if o.rules else Rules.default()
    if o.nli:
        r.options.nli = o.nli
    r.options.lm = r.options.lm or o.lm
    r.options.gx = False  # Data Docs are a separate site; the page is the audit
    return write_audit(
        path_of(o.path),
        o.out,
        None if o.against is None else path_of(o.against),
        rules=r,
        examples=o.examples,
        seed=o.seed,
        metric_results=list(o.metric_results),
    )
