"""Which rows of a human-judgment set are systems (WMT's setup): human references are not systems by default (their
rows skipped, counted, warned about), ``--ref-systems`` keeps them, ``--reference`` picks the standard reference
(never a system) and ``--exclude-systems`` leaves outliers out; on the WMT23 MQM table imported with the documented
command, en-de has WMT's 12 systems (66 system pairs)."""

from __future__ import annotations

import json
import warnings
from pathlib import Path

import pytest

import mtgauntlet as mg
from mtgauntlet.errors import UsageError
from mtgauntlet.sets.systems import SystemChoice, looks_like_reference
from tests.sets.helpers import records, write_tsv
from tests.support.cli import invoke

KEY = ("lp", "seg_id", "system")
TABLE = "wmt23-mqm-mtme/wmt23_mtme_seg_scores.tsv.gz"
HEADER = ["lp", "seg_id", "system", "is_human_ref", "mqm", "src", "ref", "tgt"]


def _table(tmp_path: Path) -> Path:
    rows = []
    for seg in ("0", "1"):
        for system, is_ref, tgt in (("A", "0", f"a{seg}"), ("B", "0", f"b{seg}"), ("refA", "1", f"ra{seg}")):
            rows.append(["en-de", seg, system, is_ref, "-1", f"s{seg}", f"ra{seg}", tgt])
            rows.append(["de-en", seg, system, is_ref, "-2", f"s{seg}", f"ra{seg}", tgt])
        rows.append(["en-de", seg, "refB", "1", "-3", f"s{seg}", f"ra{seg}", f"rb{seg}"])
    return write_tsv(tmp_path / "t.tsv", HEADER, rows)


def _import(path: Path, out: Path, **kw):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        rel = mg.import_set(
            "human-table", path, name="t", version="1.0.0", out=out, score_col="mqm", provenance=["license=mit"], **kw
        )
    return rel, [str(w.message) for w in caught]


def _systems(rel) -> dict[str, list[str]]:
    out: dict[str, set[str]] = {}
    for lp, _, system in records(rel.path, KEY):
        out.setdefault(lp, set()).add(system)
    return {lp: sorted(s) for lp, s in sorted(out.items())}


def test_references_are_not_systems_by_default_and_the_import_says_so(tmp_path):
    rel, said = _import(_table(tmp_path), tmp_path / "rel")
    assert _systems(rel) == {"de-en": ["A", "B"], "en-de": ["A", "B"]}
    skipped = rel.manifest["builds"][0]["counts"]["skipped"]
    assert skipped == {"human reference, not a system (as WMT; --ref-systems keeps it as one)": 6}
    assert any("6 rows of human references (de-en refA, en-de refA, en-de refB) are not systems" in w for w in said)


def test_ref_systems_keeps_them_all_or_by_language_pair(tmp_path):
    rel, said = _import(_table(tmp_path), tmp_path / "all", ref_systems="all")
    assert _systems(rel) == {"de-en": ["A", "B", "refA"], "en-de": ["A", "B", "refA", "refB"]}
    assert rel.manifest["builds"][0]["counts"]["skipped"] == {}
    rel, _ = _import(_table(tmp_path), tmp_path / "one", ref_systems="en-de:refA")
    assert _systems(rel) == {"de-en": ["A", "B"], "en-de": ["A", "B", "refA"]}


def test_the_reference_picked_gives_every_row_its_text_and_is_never_a_system(tmp_path):
    # WMT23 he-en: refB the reference, refA scored as a system
    rel, _ = _import(_table(tmp_path), tmp_path / "rel", reference="en-de=refB", ref_systems="all")
    got = records(rel.path, KEY)
    assert _systems(rel) == {"de-en": ["A", "B", "refA"], "en-de": ["A", "B", "refA"]}
    assert got[("en-de", "1", "A")]["ref"] == "rb1" and got[("en-de", "1", "refA")]["ref"] == "rb1"
    assert got[("de-en", "1", "A")]["ref"] == "ra1"  # the table's ref column where no reference is named
    skipped = rel.manifest["builds"][0]["counts"]["skipped"]
    assert skipped == {"the standard reference (--reference): never a system": 2}


def test_excluded_systems_and_bad_choices(tmp_path):
    rel, _ = _import(_table(tmp_path), tmp_path / "rel", exclude_systems="B,de-en:A")
    assert _systems(rel) == {"en-de": ["A"]}  # de-en: A and B excluded, refA no system
    assert rel.manifest["builds"][0]["counts"]["skipped"]["system excluded (--exclude-systems)"] == 6
    with pytest.raises(mg.GauntletError, match="de-en has no rows of system 'refC'"):
        _import(_table(tmp_path), tmp_path / "bad", reference="refC")
    with pytest.raises(UsageError, match="LP=NAME"):
        SystemChoice.parse(reference="en-de=")
    r = invoke(["import", "aces", _table(tmp_path), "--name", "x", "--version", "1.0.0", "--ref-systems", "all"])
    assert r.exit_code == 2 and "human-judgment sets" in r.exception


def test_reference_names():
    assert all(looks_like_reference(n) for n in ("refA", "refB", "ref", "synthetic_ref", "Human-A.0", "ref-C"))
    assert not any(looks_like_reference(n) for n in ("AIRC", "ONLINE-A", "reference", "referee", "NLLB_Greedy"))


def test_wmt23_mqm_with_the_documented_command_has_wmts_systems(shared_data, tmp_path):
    table = shared_data / TABLE
    r = invoke(["import", "human-table", table, "--name", "wmt23", "--version", "1.0.0", "--score-col", "mqm",
                "--out", tmp_path / "rel", "--json"])  # fmt: skip
    assert r.exit_code == 0, r.output
    assert "rows of human references (en-de refA, he-en refA, zh-en refA) are not systems" in r.stderr
    rel = Path(json.loads(r.stdout)["release"])
    df = mg.query(
        "SELECT lp, count(DISTINCT system) AS systems, count(*) AS n FROM human_score GROUP BY lp ORDER BY lp",
        releases=rel.parents[1],
    )
    assert list(df["systems"]) == [12, 12, 15]  # refA left out everywhere: en-de 12 systems = 66 pairs
    # every MQM row of the table but the references' (en-de 460, he-en 820, zh-en 1177 segments)
    assert list(df["n"]) == [5980 - 460, 10660 - 820, 18832 - 1177]
