"""What an importer refuses in a row, each as one line naming the file, the line and the field (exit 2, nothing
released): a score that is no finite number (``inf``, ``-inf``, ``1e400``, JSON ``Infinity``), a repeated id or row
(both lines named), a NUL byte in a text, a language pair that is not two language codes. Rows made from real DEMETR
items and the real WMT23 MQM table."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest

from tests.sets.helpers import demetr_items, write_tsv
from tests.support.cli import invoke

ACES = ["source", "good-translation", "incorrect-translation", "reference", "phenomena", "langpair", "BLEU-good"]
WMT = ["lp", "source", "good", "incorrect", "reference", "phenomena"]
MQM = "wmt23-mqm-mtme/wmt23_mtme_seg_scores.tsv.gz"


def _aces_rows(shared: Path, n: int = 4) -> list[list[str]]:
    return [
        [it["src_sent"], it["mt_sent"], it["pert_sent"], it["eng_sent"], it["pert_name"], "de-en", f"{0.25 * i:.2f}"]
        for i, it in enumerate(demetr_items(shared, n))
    ]


def _refused(tmp_path: Path, fmt: str, src: Path, *extra) -> str:
    r = invoke(["import", fmt, src, "--name", "bad", "--version", "1.0.0", "--out", tmp_path / "rel", *extra])
    assert r.exit_code == 2, r.output
    assert r.stderr.count("\n") == 1 and "Traceback" not in r.output, r.output
    assert not (tmp_path / "rel").exists()
    return r.exception


def _mqm_rows(shared: Path, n: int = 4) -> tuple[list[str], list[list[str]]]:
    with gzip.open(shared / MQM, "rt", encoding="utf-8", newline="") as f:
        lines = [next(f).rstrip("\n") for _ in range(n + 1)]
    header, *rows = (ln.split("\t") for ln in lines)
    return header, rows


@pytest.mark.parametrize("value", ["inf", "-inf", "1e400", "Infinity"])
def test_a_score_that_is_not_finite_is_a_malformed_value_in_every_format(value, shared_data, tmp_path):
    rows = _aces_rows(shared_data)
    rows[2][6] = value
    src = write_tsv(tmp_path / "aces.tsv", ACES, rows)
    assert _refused(tmp_path, "aces", src).startswith(f"error: {src}, line 4, field 'BLEU-good': not a finite number")

    header, mqm = _mqm_rows(shared_data)
    mqm[1][header.index("mqm")] = value
    table = write_tsv(tmp_path / "mqm.tsv", header, mqm)
    assert _refused(tmp_path, "human-table", table, "--score-col", "mqm").startswith(
        f"error: {table}, line 3, field 'mqm': not a finite number"
    )


def test_a_json_infinity_or_overflowing_number_is_refused(shared_data, tmp_path):
    objs = [dict(zip(ACES, row)) | {"BLEU-good": 0.5} for row in _aces_rows(shared_data, 3)]
    for literal in ("Infinity", "-Infinity", "1e400"):
        text = [json.dumps(o, ensure_ascii=False) for o in objs]
        text[1] = text[1].replace('"BLEU-good": 0.5', f'"BLEU-good": {literal}')
        src = tmp_path / "aces.jsonl"
        src.write_text("\n".join(text) + "\n", encoding="utf-8")
        assert _refused(tmp_path, "aces", src).startswith(f"error: {src}, line 2, field 'BLEU-good': not a finite")


def test_an_mt_metrics_eval_score_that_is_not_finite_is_refused(tmp_path):
    root = tmp_path / "mtme"
    for sub in ("sources", "references", "human-scores", "system-outputs/en-de"):
        (root / sub).mkdir(parents=True)
    (root / "sources" / "en-de.txt").write_text("One.\nTwo.\n", encoding="utf-8")
    (root / "system-outputs" / "en-de" / "A.txt").write_text("Eins.\nZwei.\n", encoding="utf-8")
    score = root / "human-scores" / "en-de.mqm.seg.score"
    score.write_text("A\t-1.0\nA\t-inf\n", encoding="utf-8")
    assert _refused(tmp_path, "mtme", root).startswith(f"error: {score}, line 2, field 'score': not a finite number")


def test_a_repeated_row_or_id_names_both_lines(shared_data, tmp_path):
    rows = _aces_rows(shared_data)
    src = write_tsv(tmp_path / "twice.tsv", ACES, [*rows, rows[1]])
    assert _refused(tmp_path, "aces", src) == f"error: {src}, line 6: the same row again: line 6 repeats line 3"

    with_id = write_tsv(tmp_path / "ids.tsv", [*ACES, "ID"], [[*r, "7"] for r in rows])
    assert _refused(tmp_path, "aces", with_id) == (
        f"error: {with_id}, line 3, field 'ID': ID value '7' again: line 3 repeats line 2"
    )
    wmt = [[r[5], r[0], r[1], r[2], r[3], r[4]] for r in rows]
    src = write_tsv(tmp_path / "wmt.tsv", WMT, [*wmt, wmt[0]])
    assert "line 6 repeats line 2" in _refused(tmp_path, "wmt-challenge", src)
    spans = write_tsv(
        tmp_path / "spans.tsv",
        [*ACES, "good-translation-span", "incorrect-translation-span"],
        [[*r, "", ""] for r in [*rows, rows[3]]],
    )
    assert "line 6 repeats line 5" in _refused(tmp_path, "span-aces", spans)


def test_a_demetr_item_twice_names_both_lines(shared_data, tmp_path):
    items = demetr_items(shared_data, 3)
    items.append({**items[0], "mt_sent": items[0]["mt_sent"] + " (edited)"})  # same perturbation and id, other text
    src = tmp_path / "demetr.jsonl"
    src.write_text("".join(json.dumps(it, ensure_ascii=False) + "\n" for it in items), encoding="utf-8")
    key = f"{items[0]['pert_name']}:{items[0]['id']}"
    assert _refused(tmp_path, "demetr", src) == (
        f"error: {src}, line 4, field 'id': pert_name:id {key!r} again: line 4 repeats line 1"
    )


def test_a_nul_byte_is_refused_naming_file_line_and_field(shared_data, tmp_path):
    rows = _aces_rows(shared_data)
    rows[1][2] = rows[1][2][:5] + "\x00" + rows[1][2][5:]
    src = write_tsv(tmp_path / "nul.tsv", ACES, rows)
    assert _refused(tmp_path, "aces", src) == (
        f"error: {src}, line 3, field 'incorrect-translation': a NUL byte at character 5: text cannot hold one"
    )
    items = demetr_items(shared_data, 2)
    items[1]["pert_desc"] = "with \x00 inside"
    lines = tmp_path / "nul.jsonl"
    lines.write_text("".join(json.dumps(it, ensure_ascii=False) + "\n" for it in items), encoding="utf-8")
    assert _refused(tmp_path, "demetr", lines).startswith(f"error: {lines}, line 2, field 'pert_desc': a NUL byte")


@pytest.mark.parametrize("lp", ["en-es<img src=x onerror=alert(1)>", "en-es-fr", "english-spanish", "en- es"])
def test_a_language_pair_is_two_language_codes(lp, shared_data, tmp_path):
    rows = _aces_rows(shared_data)
    rows[0][5] = lp
    src = write_tsv(tmp_path / "lp.tsv", ACES, rows)
    assert _refused(tmp_path, "aces", src).startswith(
        f"error: {src}, line 2, field 'langpair': language pair {lp!r}: expected two language codes"
    )
    header, mqm = _mqm_rows(shared_data)
    mqm[0][0] = lp
    table = write_tsv(tmp_path / "mqm.tsv", header, mqm)
    assert "field 'lp': language pair" in _refused(tmp_path, "human-table", table, "--score-col", "mqm")


def test_codes_with_subtags_are_language_pairs(shared_data, tmp_path):
    rows = _aces_rows(shared_data)
    rows[0][5], rows[1][5] = "en-cs_CZ", "spa_Latn-eng_Latn"
    src = write_tsv(tmp_path / "ok.tsv", ACES, rows)
    r = invoke(["import", "aces", src, "--name", "ok", "--version", "1.0.0", "--out", tmp_path / "rel"])
    assert r.exit_code == 0, r.output
