"""Human-judgment sets in the mt-metrics-eval layout (Google's mt-metrics-eval, WMT metrics task)::

    sources/LP.txt                      one source segment per line (seg_id = 0-based line number)
    references/LP.refA.txt              the reference (``--reference NAME``: LP.NAME.txt; else refA; else the only
                                        references/LP.*.txt)
    system-outputs/LP/SYS.txt           one translation per line, per system
    human-scores/LP.NAME.seg.score      lines ``SYS<TAB>SCORE`` (``None`` = not judged), each system's lines in
                                        segment order
    documents/LP.docs                   optional: lines ``DOMAIN<TAB>DOC``

Each (segment, system) with a system output and at least one human score becomes a ``human_score`` (scores named by
NAME); pairs without any human score are skipped and counted. Systems as WMT (:mod:`mtgauntlet.sets.systems`): the
outputs of human references (a system with a ``references/LP.SYS.txt`` file, or named like one: refA, Human-B.0)
are skipped and counted unless ``--ref-systems`` keeps them, the reference is never a system, and
``--exclude-systems`` leaves systems out. Written back the same way by :func:`write_mtme`:
the layout carries no ``extra`` columns, an empty domain or document is null, and segments without records are
written as empty lines (they have no scores, so they are skipped again on import).
"""

from __future__ import annotations

import re
from collections import defaultdict
from pathlib import Path
from typing import Any

from mtgauntlet.errors import GauntletError, InputError
from mtgauntlet.sets.field_checks import score_value, text_value
from mtgauntlet.sets.imported import ImportedSet, split_lp
from mtgauntlet.sets.systems import SystemChoice, looks_like_reference
from mtgauntlet.sets.text_files import text_lines, write_lines

_SAFE = re.compile(r"[^/\\\x00\n\t]+")
_SCORE_FILE = re.compile(r"(?P<lp>[^.]+)\.(?P<name>.+)\.seg\.score")


def _lines(path: Path, field: str) -> list[str]:
    """The lines of a layout file, each checked to hold no NUL byte."""
    lines = text_lines(path)
    for i, line in enumerate(lines, start=1):
        text_value(line, file=str(path), line=i, field=field)
    return lines


def _reference_files(root: Path, lp: str) -> list[Path]:
    return sorted((root / "references").glob(f"{lp}.*.txt")) if (root / "references").is_dir() else []


def _reference(root: Path, lp: str, name: str | None = None) -> Path | None:
    refs = _reference_files(root, lp)
    if name is not None:
        chosen = root / "references" / f"{lp}.{name}.txt"
        if chosen not in refs:
            have = ", ".join(f.name for f in refs) or "none"
            raise GauntletError(f"--reference {name}: no references/{lp}.{name}.txt in {root} (it has {have})")
        return chosen
    preferred = root / "references" / f"{lp}.refA.txt"
    return preferred if preferred in refs else (refs[0] if len(refs) == 1 else None)


def _human_scores(root: Path, lp: str, n: int) -> dict[str, dict[str, list[float | None]]]:
    """score name -> system -> per-segment scores."""
    out: dict[str, dict[str, list[float | None]]] = {}
    for f in sorted((root / "human-scores").glob(f"{lp}.*.seg.score")):
        m = _SCORE_FILE.fullmatch(f.name)
        if not m or m.group("lp") != lp:
            continue
        per: dict[str, list[float | None]] = defaultdict(list)
        for i, line in enumerate(text_lines(f), start=1):
            parts = line.split("\t")
            if len(parts) != 2:
                raise InputError("expected SYSTEM<TAB>SCORE", file=str(f), line=i)
            text_value(parts[0], file=str(f), line=i, field="system")
            per[parts[0]].append(score_value(parts[1], file=str(f), line=i, field="score"))
        for system, values in per.items():
            if len(values) != n:
                raise InputError(
                    f"system {system} has {len(values)} scores, sources/{lp}.txt has {n} segments", file=str(f)
                )
        out[m.group("name")] = dict(per)
    return out


def read_mtme(path: str | Path, choice: SystemChoice | None = None) -> ImportedSet:
    root = Path(path)
    choice = choice or SystemChoice()
    if not (root / "sources").is_dir() or not (root / "system-outputs").is_dir():
        raise GauntletError(f"{root}: not an mt-metrics-eval folder (needs sources/ and system-outputs/)")
    out = ImportedSet("human_score")
    for src_file in sorted((root / "sources").glob("*.txt")):
        lp = src_file.name[: -len(".txt")]
        src_lang, tgt_lang = split_lp(lp, file=str(src_file), line=None, field_name="file name")
        sources = _lines(src_file, "source")
        n = len(sources)
        out.files.append(src_file)
        ref_file = _reference(root, lp, choice.reference_for(lp))
        ref_names = {f.name[len(lp) + 1 : -len(".txt")] for f in _reference_files(root, lp)}
        refs = _lines(ref_file, "reference") if ref_file else None
        docs_file = root / "documents" / f"{lp}.docs"
        docs = [line.split("\t", 1) for line in _lines(docs_file, "document")] if docs_file.is_file() else None
        for _what, lines, f in (("references", refs, ref_file), ("documents", docs, docs_file)):
            if lines is not None and len(lines) != n:
                raise InputError(f"{len(lines)} lines, sources/{lp}.txt has {n}", file=str(f))
        scores = _human_scores(root, lp, n)
        out.files += [f for f in (ref_file, docs_file) if f is not None and f.is_file()]
        out.files += sorted((root / "human-scores").glob(f"{lp}.*.seg.score"))
        for sys_file in sorted((root / "system-outputs" / lp).glob("*.txt")):
            system = sys_file.name[: -len(".txt")]
            outputs = _lines(sys_file, "translation")
            out.files.append(sys_file)
            if len(outputs) != n:
                raise InputError(f"{len(outputs)} lines, sources/{lp}.txt has {n}", file=str(sys_file))
            is_ref = system in ref_names or looks_like_reference(system)
            for i in range(n):
                seg_scores = {name: per[system][i] if system in per else None for name, per in sorted(scores.items())}
                if all(v is None for v in seg_scores.values()):
                    out.skipped["no human score for this system and segment"] += 1
                    continue
                why = choice.skip_reason(lp, system, is_ref)
                if why is not None:
                    out.skipped[why] += 1
                    continue
                domain, doc = (docs[i] + [""])[:2] if docs else (None, None)
                out.records.append(
                    {
                        "lp": lp,
                        "seg_id": str(i),
                        "system": system,
                        "src": sources[i],
                        "ref": refs[i] if refs is not None else None,
                        "tgt": outputs[i],
                        "domain": domain or None,
                        "doc": doc or None,
                        "scores": seg_scores,
                        "src_lang": src_lang,
                        "tgt_lang": tgt_lang,
                    }
                )
    if not out.files:
        raise GauntletError(f"{root}/sources: no LP.txt files")
    return out


def _name(value: str, what: str) -> str:
    if not _SAFE.fullmatch(value) or value in (".", "..") or value.startswith("."):
        raise GauntletError(f"{what} {value!r} cannot be a file name of the mt-metrics-eval layout")
    return value


def _by_segment(records: list[dict[str, Any]], field: str, n: int, lp: str) -> list[str] | None:
    values: list[Any] = [None] * n
    for r in records:
        i, v = int(r["seg_id"]), r.get(field)
        if values[i] is not None and v is not None and values[i] != v:
            raise GauntletError(
                f"{lp} seg_id {i}: two different {field} texts (system {r['system']}); the "
                "mt-metrics-eval layout has one per segment"
            )
        values[i] = v if values[i] is None else values[i]
    return None if all(v is None for v in values) else ["" if v is None else v for v in values]


def write_mtme(root: Path, records: list[dict[str, Any]]) -> int:
    """Write human_score records in the mt-metrics-eval layout under ``root``; returns the records written."""
    from mtgauntlet.schema import checks_dict

    by_lp: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for r in records:
        if not str(r["seg_id"]).isdigit():
            raise GauntletError(
                f"record {r['id']}: seg_id {r['seg_id']!r} is not a line number; the "
                "mt-metrics-eval layout numbers segments 0, 1, 2, ..."
            )
        by_lp[_name(r["lp"], "language pair")].append(r)
    for lp, recs in sorted(by_lp.items()):
        n = max(int(r["seg_id"]) for r in recs) + 1
        for sub in ("sources", "references", "documents", "human-scores", f"system-outputs/{lp}"):
            (root / sub).mkdir(parents=True, exist_ok=True)
        write_lines(root / "sources" / f"{lp}.txt", _by_segment(recs, "src", n, lp) or [""] * n, f"{lp} sources")
        refs = _by_segment(recs, "ref", n, lp)
        if refs is not None:
            write_lines(root / "references" / f"{lp}.refA.txt", refs, f"{lp} references")
        domains, docs = _by_segment(recs, "domain", n, lp), _by_segment(recs, "doc", n, lp)
        if domains is not None or docs is not None:
            write_lines(
                root / "documents" / f"{lp}.docs",
                list(zip(domains or [""] * n, docs or [""] * n)),
                f"{lp} documents",
                ("domain", "doc"),
            )
        systems: dict[str, dict[int, dict[str, Any]]] = defaultdict(dict)
        for r in recs:
            systems[_name(r["system"], "system")][int(r["seg_id"])] = r
        names = list(dict.fromkeys(k for r in recs for k in checks_dict(r.get("scores"))))
        for system, segs in sorted(systems.items()):
            write_lines(
                root / "system-outputs" / lp / f"{system}.txt",
                [segs[i].get("tgt") or "" if i in segs else "" for i in range(n)],
                f"{lp} {system}",
            )
        for name in names:
            lines = []
            for system, segs in sorted(systems.items()):
                for i in range(n):
                    v = checks_dict(segs[i].get("scores")).get(name) if i in segs else None
                    lines.append((system, "None" if v is None else repr(v)))
            write_lines(
                root / "human-scores" / f"{lp}.{_name(name, 'score name')}.seg.score",
                lines,
                f"{lp} {name} scores",
                ("system", "score"),
            )
    return len(records)
