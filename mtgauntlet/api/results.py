"""What the Python API returns: small typed objects over the files a command wrote.

Each object names the folder or file it describes (``.path``) and reads from there, so a result stays true when
the files are opened later with other tools (DuckDB, ``datasets``, pandas).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

__all__ = ["Build", "Report", "Release", "Verification", "Publication", "Reproduction"]


def _read_json(path: Path) -> dict[str, Any]:
    from mtgauntlet.fileio import read_json

    return read_json(path, path.name)


@dataclass
class Build:
    """A build directory written by `mtgauntlet.build` (records in ``data/``, manifest in ``build.json``).

    Attributes:
        path: The build directory.
        summary: ``build.json``: configuration, signature, counts of produced, rejected and skipped items with
            their reasons, failure counters, API usage, package versions.
        plan: With ``dry_run=True``: the estimated API calls, tokens and cost (nothing was built), else ``None``.
        run: What this call did (records produced, items, rejected and skipped items, shards resumed, seconds,
            failures, API usage): the runner's summary; ``None`` on a dry run and for a bandit search.
        notes: What the builder said about its setup (SMAUG: how each phenomenon is made, what is flagged).
        skipped: Input rows the reader skipped in this call (``skip_bad=True``), by reason.

    Examples:
        >>> build = mg.build("subset", input="corpus.tsv", src_lang="en", estimator="length", budget=10)
        >>> build.to_pandas()[["text", "difficulty"]].head()
    """

    path: Path
    summary: dict[str, Any] = field(default_factory=dict, repr=False)
    plan: Any = field(default=None, repr=False)
    run: Any = field(default=None, repr=False)
    notes: list[str] = field(default_factory=list, repr=False)
    skipped: dict[str, int] = field(default_factory=dict, repr=False)

    @classmethod
    def open(cls, path: str | Path, **fields: Any) -> Build:
        """The build in ``path`` (its ``build.json`` must exist)."""
        path = Path(path)
        return cls(path=path, summary=_read_json(path / "build.json"), **fields)

    def describe(self) -> str:
        """What the build made, as ``gauntlet build`` prints it (records, rejected and skipped items, signature,
        failure counts); the dry run's plan lines for a dry run."""
        if self.plan is not None:
            return "\n".join(self.plan.lines())
        from mtgauntlet.api.build_report import describe_run, describe_search

        if self.run is None and "top_topics" in self.summary:
            return describe_search(self)
        if self.run is None:
            return f"{self.path}: signature: {self.signature}"
        return describe_run(self.run)

    @property
    def signature(self) -> str:
        """The sacrebleu-style signature that makes the build reproducible (``builder:...|version:...``)."""
        return str(self.summary.get("signature", ""))

    @property
    def counts(self) -> dict[str, Any]:
        """Items read, records produced, rejected and skipped items by reason, failure counters."""
        return dict(self.summary.get("counts", {}))

    def kinds(self) -> list[str]:
        """The record kinds in the build (e.g. ``["topic_text", "bandit_pull"]`` for a bandit search)."""
        from mtgauntlet.records import files_by_kind

        return sorted(files_by_kind(self.path))

    def to_arrow(self, kind: str | None = None):
        """The records as a ``pyarrow.Table`` (of ``kind``, or of the only kind the build holds)."""
        from mtgauntlet.records import load_records

        return load_records(self.path, kind)

    def to_pandas(self, kind: str | None = None):
        """The records as a ``pandas.DataFrame`` (nested columns as Python lists and dicts)."""
        return self.to_arrow(kind).to_pandas()

    def to_dataset(self, kind: str | None = None):
        """The records as a ``datasets.Dataset`` (needs the ``hub`` extra)."""
        import datasets

        return datasets.Dataset(self.to_arrow(kind))


@dataclass
class Report:
    """A validation report (`mtgauntlet.validate`).

    Attributes:
        data: The report as written to ``report.json``: every metric, threshold and verdict, per record kind.
        path: The report folder when one was written (``report=``), else ``None``.

    Examples:
        >>> report = mg.validate("builds/smaug", rules="rules.yaml")
        >>> report.passed, report.failed_rules
    """

    data: dict[str, Any] = field(repr=False)
    path: Path | None = None

    @property
    def passed(self) -> bool:
        """True when every rule of every record kind passed."""
        return bool(self.data.get("passed"))

    @property
    def failed_rules(self) -> list[str]:
        """The rules that failed, as ``"<kind>: <rule>"`` (empty when the report passed)."""
        return list(self.data.get("failed_rules", []))

    def to_dict(self) -> dict[str, Any]:
        """The report as plain JSON data (what ``report.json`` holds)."""
        return json.loads(json.dumps(self.data, default=str))


@dataclass
class Release:
    """A sealed release folder (`mtgauntlet.release`): ``releases/name=NAME/version=X.Y.Z``.

    Attributes:
        path: The release directory.
        manifest: ``manifest.json``: every file with its sha256, configs, signatures, licence, validation.
        warnings: What the release warned about (licences to check, dropped duplicates), also raised as
            `mtgauntlet.GauntletWarning`.

    Examples:
        >>> rel = mg.release(["builds/smaug"], name="my-es-en", version="0.1.0")
        >>> rel.manifest["total_rows"], rel.not_validated, rel.to_pandas().head()
    """

    path: Path
    manifest: dict[str, Any] = field(default_factory=dict, repr=False)
    warnings: list[str] = field(default_factory=list, repr=False)

    @classmethod
    def open(cls, path: str | Path) -> Release:
        """The release in ``path`` (its ``manifest.json`` must exist)."""
        path = Path(path)
        return cls(path=path, manifest=_read_json(path / "manifest.json"))

    @property
    def name(self) -> str:
        """The release name."""
        return str(self.manifest.get("name", ""))

    @property
    def version(self) -> str:
        """The release version (``X.Y.Z``)."""
        return str(self.manifest.get("version", ""))

    def describe(self) -> str:
        """What was released, as ``gauntlet release`` prints it (records, data files, configs, licence, path)."""
        m = self.manifest
        n_data = sum(1 for f in m.get("files", []) if f.get("kind"))
        return (
            f"released {self.name} {self.version}: {m.get('total_rows')} records in {n_data} data files, "
            f"configs {', '.join(c['config_name'] for c in m.get('configs', []))}; licence "
            f"{(m.get('license') or {}).get('license')} -> {self.path}"
        )

    @property
    def not_validated(self) -> list[str]:
        """The record kinds no validation report covers (the card says so)."""
        validation = self.manifest.get("validation") or {}
        return [k for k in self.manifest.get("kinds", []) if not validation.get(k)]

    def to_arrow(self, kind: str | None = None):
        """The released records of ``kind`` (or of the only kind) as a ``pyarrow.Table``."""
        from mtgauntlet.records import load_records

        return load_records(self.path, kind)

    def to_pandas(self, kind: str | None = None):
        """The released records of ``kind`` (or of the only kind) as a ``pandas.DataFrame``."""
        return self.to_arrow(kind).to_pandas()

    def to_dataset(self, kind: str | None = None):
        """The released records of ``kind`` (or of the only kind) as a ``datasets.Dataset`` (needs the ``hub``
        extra)."""
        import datasets

        return datasets.Dataset(self.to_arrow(kind))


@dataclass
class Verification:
    """The outcome of `mtgauntlet.verify`: ``ok`` when every file matches the manifest.

    Attributes:
        path: The release directory checked.
        problems: One line per changed, missing or extra file (empty when ``ok``).

    Examples:
        >>> check = mg.verify("releases/name=my-es-en/version=0.1.0")
        >>> check.ok or print("\\n".join(check.problems))
    """

    path: Path
    problems: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        """True when every file matches the manifest and none is missing or extra."""
        return not self.problems

    def __bool__(self) -> bool:
        return self.ok


@dataclass
class Publication:
    """What `mtgauntlet.publish` did (or, with ``dry_run=True``, would do).

    Attributes:
        repo: The Hub repository (``ORG/NAME``) or local git repository (``file:PATH``).
        tag: The immutable tag ``vX.Y.Z``.
        commit: The commit id (``None`` on a dry run or when nothing had to be published).
        operations: The exact file operations of the commit: ``{"op": "add" or "delete", "path": ...}``.
        dry_run: True when nothing was published.
        already_published: True when the tag already held exactly these files (nothing new was sent).
        parent_commit: The branch head the commit goes on (``None``: a new branch or repository).
        commit_message: The commit's (and the tag's) message.
        remote: ``ok``, ``missing`` (publishing creates the repository) or ``unreachable`` (on a dry run).
        description: The plan as text (what ``gauntlet publish`` prints).

    Examples:
        >>> plan = mg.publish("releases/name=my-es-en/version=0.1.0", repo="my-org/my-es-en", dry_run=True)
        >>> [op["path"] for op in plan.operations]
    """

    repo: str
    tag: str
    commit: str | None
    operations: list[dict[str, str]] = field(default_factory=list)
    dry_run: bool = False
    already_published: bool = False
    parent_commit: str | None = None
    commit_message: str = ""
    remote: str = ""
    description: str = field(default="", repr=False)


@dataclass
class Reproduction:
    """The outcome of `mtgauntlet.reproduce`: per record kind, whether the rebuild equals the release.

    Attributes:
        reproduced: True when every record kind is identical (ids, texts and values).
        kinds: Per kind: ``identical`` and, when not, the ids only in the release / only in the rebuild and the
            columns that differ.
        changes: What changed around the build (input sha256, builder or model versions, package versions).
        path: The release checked.
        rebuild: Where it was rebuilt (``None``: a temporary folder, removed).
        lines: Per kind, the comparison as text (what ``gauntlet reproduce`` prints).

    Examples:
        >>> check = mg.reproduce("releases/name=demo-es-en/version=0.1.0")
        >>> check.reproduced, check.changes
    """

    reproduced: bool
    kinds: dict[str, Any] = field(default_factory=dict)
    changes: list[str] = field(default_factory=list)
    path: Path | None = None
    rebuild: Path | None = None
    lines: list[str] = field(default_factory=list, repr=False)

    def describe(self) -> str:
        """The comparison as ``gauntlet reproduce`` prints it: per kind, then what changed, then the verdict."""
        where = str(self.rebuild) if self.rebuild else "a temporary folder, removed"
        return "\n".join(
            [
                *self.lines,
                *(f"note: {n}" for n in self.changes),
                ("REPRODUCED" if self.reproduced else "NOT REPRODUCED") + f": {self.path} (rebuilt in {where})",
            ]
        )

    def __bool__(self) -> bool:
        return self.reproduced
