"""Issue #26 (1): how much of a build survives edits elsewhere in its input.

The shipped 42-row sample is built once as is and once changed (4 rows edited, 4 deleted or 4 appended); the
records of the *other* rows (the rows the change did not touch, matched by source id) are compared byte for byte
(JSON of every field, ``created_at`` left out; ``rank`` too for subsets, where it is the position in the selection
by definition). A row counts as stable when its record is the same in both builds, or absent from both.

Every build goes through the real CLI entry point; MT-breaker and the bandit use the scripted OpenAI-compatible
roles of tests/support/scripted_roles.py (an editor whose answer depends only on the conversation and the request's seed,
an upper-casing translator and two QE judges), so no model is needed.
"""

from __future__ import annotations

import csv
import json
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from tests.support.cli import REPO, invoke

SAMPLE = REPO / "mtgauntlet" / "data" / "sample_es_en.tsv"
CHANGES = ("edit", "delete", "append")
TOUCHED = ("3", "13", "23", "33")  # ids edited or deleted
IGNORED = {"created_at"}


def sample_rows() -> list[dict[str, str]]:
    with open(SAMPLE, encoding="utf-8", newline="") as fh:
        return list(csv.DictReader(fh, delimiter="\t", quoting=csv.QUOTE_NONE))


def changed_rows(change: str) -> tuple[list[dict[str, str]], set[str]]:
    """The sample after ``change``, and the ids the change touched."""
    rows = sample_rows()
    if change == "edit":
        return [
            {**r, "es": r["es"] + " Lo dijo ayer el portavoz.", "en": r["en"] + " The spokesman said so yesterday."}
            if r["id"] in TOUCHED
            else r
            for r in rows
        ], set(TOUCHED)
    if change == "delete":
        return [r for r in rows if r["id"] not in TOUCHED], set(TOUCHED)
    if change == "append":
        new = [
            {
                "id": str(100 + i),
                "domain": d,
                "es": f"La nueva fila número {i} habla de {d} con varias palabras.",
                "en": f"The new row number {i} talks about {d} with several words.",
            }
            for i, d in enumerate(("news", "science", "travel", "daily"))
        ]
        return rows + new, {r["id"] for r in new}
    raise ValueError(change)


def write_tsv(rows: list[dict[str, str]], path: Path) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "w", encoding="utf-8", newline="") as fh:
        fh.write("\t".join(rows[0]) + "\n")
        fh.writelines("\t".join(r.values()) + "\n" for r in rows)
    return path


@contextmanager
def roles() -> Iterator[dict[str, Any]]:
    from tests.support.scripted_roles import scripted_stack, seeded_editor

    with scripted_stack(seeded_editor(fail_every=0)) as stack:
        yield stack


def build(builder: str, corpus: Path, out: Path, stack: dict[str, Any] | None, **opts: Any) -> Path:
    """One build of ``builder`` over ``corpus`` (es -> en) through the CLI; its output directory."""
    scripted = ["--mt", stack["mt"], "--qe", f"{stack['qe_a']},{stack['qe_b']}"] if stack else []
    if builder == "subset":
        args = [
            "build",
            "subset",
            "--input",
            corpus,
            "--src-col",
            "es",
            "--src-lang",
            "es",
            "--estimator",
            "random",
            "--budget",
            100,
        ]
    elif builder == "mtbreaker":
        args = [
            "build",
            "mtbreaker",
            "--seeds",
            corpus,
            "--column",
            "es",
            "--src-lang",
            "es",
            "--tgt-lang",
            "en",
            "--llm",
            stack["llm"],
            "--no-language-guard",
            "--steps",
            opts.pop("steps", 2),
            *scripted,
        ]
    elif builder == "zeroshot":
        args = [
            "build",
            "zeroshot",
            "--seeds",
            corpus,
            "--column",
            "es",
            "--src-lang",
            "es",
            "--tgt-lang",
            "en",
            "--llm",
            stack["llm"],
            *scripted,
        ]
    elif builder == "bandit":
        args = [
            "build",
            "bandit",
            "--corpus",
            corpus,
            "--text-column",
            "es",
            "--topic-column",
            "domain",
            "--src-lang",
            "es",
            "--tgt-lang",
            "en",
            "--min-words",
            3,
            "--budget",
            opts.pop("budget", 16),
            "--k",
            2,
            "--cap",
            6,
            *scripted,
        ]
    else:
        raise ValueError(builder)
    for key, value in opts.items():
        args += [f"--{key.replace('_', '-')}", value]
    r = invoke([*args, "--out", out])
    if r.exit_code != 0:
        raise RuntimeError(f"{builder} build failed: {r.stderr.strip()[-500:]}")
    return out


def records_by_source(out: Path, ignore: set[str]) -> dict[str, list[str]]:
    """Each source id's records as canonical JSON (fields in ``ignore`` left out), sorted."""
    from mtgauntlet.records import load_records

    by: dict[str, list[str]] = {}
    for rec in load_records(out).to_pylist():
        kept = {k: v for k, v in rec.items() if k not in ignore}
        by.setdefault(str(rec["source_id"]), []).append(
            json.dumps(kept, sort_keys=True, default=str, ensure_ascii=False)
        )
    return {k: sorted(v) for k, v in by.items()}


def measure(builder: str, change: str, work: Path, stack: dict[str, Any] | None = None, **opts: Any) -> dict:
    """Share of the untouched rows whose records are byte-identical after ``change``."""
    work.mkdir(parents=True, exist_ok=True)
    ignore = IGNORED | ({"rank"} if builder == "subset" else set())
    base = records_by_source(
        build(builder, write_tsv(sample_rows(), work / "in-base" / "sample.tsv"), work / "base", stack, **dict(opts)),
        ignore,
    )
    rows, touched = changed_rows(change)
    after = records_by_source(
        build(builder, write_tsv(rows, work / f"in-{change}" / "sample.tsv"), work / change, stack, **dict(opts)),
        ignore,
    )
    others = [r["id"] for r in sample_rows() if r["id"] not in touched]
    same = sum(base.get(i) == after.get(i) for i in others)
    with_records = sum(1 for i in others if i in base or i in after)
    return {
        "builder": builder,
        "change": change,
        "other_rows": len(others),
        "rows_with_records": with_records,
        "identical": same,
        "share": same / len(others),
    }
