"""The shipped QE's copy / wrong-language gate, before (v1) and after (v2) bounding it, on human judgments.

1. Every row of WMT23 MQM (../shared/data/wmt23-mqm-mtme) and the Google WMT20-21 MQM (google-wmt-mqm): how many
   translations each gate version penalises, by language pair and by the target text's main script, and the human
   score of those translations (MQM: 0 = perfect, -25 = worst).
2. Segment-level Kendall tau_b of `qe#fast` (the shipped weights) with MQM on WMT23 and on Google's newstest2021
   (per language pair, then averaged, as benchmarks/qe.py), with the gate v1 and v2: every MT and human
   translation of a seeded sample of segments per pair plus every segment where either gate fires. The model's
   score is computed once; the gates only multiply it (by 0.01 where they fire).
Writes benchmarks/results/qe_gate.json.
Usage: python benchmarks/qe_gate.py [--segments 20] [--skip-tau]
"""

from __future__ import annotations

import argparse
import csv
import gzip
import json
import random
import re
import time
import unicodedata
from collections import Counter, defaultdict
from pathlib import Path

import numpy as np

from mtgauntlet.models.shipped_qe import WRONG_LANGUAGE_FACTOR, wrong_language

HERE = Path(__file__).resolve().parent
_LETTERS = re.compile(r"[^\W\d_]{2,}", re.UNICODE)


def gate_v1(source: str, translation: str, src_lang: str, tgt_lang: str) -> bool:
    """The gate as shipped before this change (commit 0f2d3f3): any copy of 3+ letter runs; lingua on the whole text."""
    from mtgauntlet.models import langid

    tgt, src = tgt_lang.split("-")[0].lower(), src_lang.split("-")[0].lower()
    if len(_LETTERS.findall(translation)) < 3 or tgt == src:
        return False
    if " ".join(translation.casefold().split()) == " ".join(source.casefold().split()):
        return True
    if not langid.covers(tgt):
        return False
    conf = langid.confidences(translation)
    if not conf:
        return False
    top = max(conf, key=conf.get)
    return top != tgt and conf.get(tgt, 0.0) < 0.1 and conf[top] >= 0.5


def main_script(text: str) -> str:
    counts = Counter(unicodedata.name(ch, "?").split()[0] for ch in text if ch.isalpha())
    return counts.most_common(1)[0][0] if counts else "none"


def read(path: Path, score: str, item: str) -> list[dict]:
    with gzip.open(path, "rt", encoding="utf-8", newline="") as fh:
        return [
            {**r, "score": float(r[score]), "item": f"{r.get('testset', '')}:{r[item]}"}
            for r in csv.DictReader(fh, delimiter="\t", quoting=csv.QUOTE_NONE)
            if r.get(score) not in ("", "None", None)
        ]


def gate_counts(name: str, rows: list[dict]) -> dict:
    out: dict = {"by_lp": defaultdict(Counter), "by_script": defaultdict(Counter), "flagged": []}
    for r in rows:
        s, t = r["lp"].split("-")
        v1, v2 = gate_v1(r["src"], r["tgt"], s, t), wrong_language(r["src"], r["tgt"], s, t)
        r["v1"], r["v2"] = v1, v2
        script = main_script(r["tgt"])
        for key, where in ((r["lp"], out["by_lp"]), (script, out["by_script"])):
            where[key]["rows"] += 1
            where[key]["v1"] += v1
            where[key]["v2"] += v2
        if v1 or v2:
            out["flagged"].append(
                {
                    "lp": r["lp"],
                    "system": r["system"],
                    "mqm": r["score"],
                    "v1": v1,
                    "v2": v2,
                    "script": script,
                    "tgt": r["tgt"][:100],
                }
            )
    print(f"\n{name}: rows penalised by gate v1 / v2")
    for k, c in sorted(out["by_lp"].items()):
        print(f"  {k}: {c['v1']} / {c['v2']} of {c['rows']}")
    for k, c in sorted(out["by_script"].items()):
        print(f"  target script {k}: {c['v1']} / {c['v2']} of {c['rows']}")
    for f in out["flagged"]:
        print(f"  v1={int(f['v1'])} v2={int(f['v2'])} {f['lp']} {f['system']:<16} MQM {f['mqm']:>6}  {f['tgt'][:70]}")
    return {
        "by_lp": {k: dict(v) for k, v in out["by_lp"].items()},
        "by_script": {k: dict(v) for k, v in out["by_script"].items()},
        "flagged": out["flagged"],
    }


def tau(rows: list[dict], segments: int, seed: int = 13) -> dict:
    from mtgauntlet.evaluation.dec import kendall_tau_b
    from mtgauntlet.models.shipped_qe import SIGNALS, ShippedQE

    qe = ShippedQE("fast")
    by_lp: dict[str, dict[str, list[dict]]] = defaultdict(lambda: defaultdict(list))
    for r in rows:
        by_lp[r["lp"]][r["item"]].append(r)
    result = {}
    for lp, items in sorted(by_lp.items()):
        flagged = sorted(i for i, rs in items.items() if any(r["v1"] or r["v2"] for r in rs))
        rest = sorted(set(items) - set(flagged))
        chosen = flagged + random.Random(f"{seed}:{lp}").sample(rest, min(segments, len(rest)))
        sample = [r for i in chosen for r in items[i]]
        s, t = lp.split("-")
        t0 = time.perf_counter()
        X = qe.features([r["src"] for r in sample], [r["tgt"] for r in sample], s, t)
        logits = qe.model.predict(X[:, [SIGNALS.index(n) for n in qe.model.names]])
        base = 100.0 / (1.0 + np.exp(-logits))
        human = [r["score"] for r in sample]
        taus = {}
        for v in ("v1", "v2"):
            scores = base * np.array([WRONG_LANGUAGE_FACTOR if r[v] else 1.0 for r in sample])
            taus[v] = kendall_tau_b(list(scores), human)
        taus["no gate"] = kendall_tau_b(list(base), human)
        result[lp] = {"rows": len(sample), "segments": len(chosen), "flagged_segments": len(flagged), **taus}
        print(
            f"  {lp}: {len(sample)} translations of {len(chosen)} segments ({len(flagged)} with a gated row), "
            f"tau_b v1 {taus['v1']:+.4f}, v2 {taus['v2']:+.4f}, no gate {taus['no gate']:+.4f} "
            f"({time.perf_counter() - t0:.0f} s)",
            flush=True,
        )
    result["mean"] = {v: float(np.mean([result[lp][v] for lp in by_lp])) for v in ("v1", "v2", "no gate")}
    print(
        f"  mean over pairs: v1 {result['mean']['v1']:+.4f}, v2 {result['mean']['v2']:+.4f}, "
        f"no gate {result['mean']['no gate']:+.4f}"
    )
    return result


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--shared", default=str(HERE.parents[1] / "shared" / "data"))
    ap.add_argument("--segments", type=int, default=20)
    ap.add_argument("--skip-tau", action="store_true")
    ap.add_argument("--tau-on", default="wmt23,google", help="where tau is measured: wmt23, google (newstest2021)")
    args = ap.parse_args()
    shared = Path(args.shared)
    wmt23 = read(shared / "wmt23-mqm-mtme/wmt23_mtme_seg_scores.tsv.gz", "mqm", "seg_id")
    google = read(shared / "google-wmt-mqm/google_mqm_seg_scores.tsv.gz", "mqm_avg_score", "seg_id")
    out = {"gate": {"wmt23-mqm": gate_counts("WMT23 MQM", wmt23), "google-wmt-mqm": gate_counts("Google MQM", google)}}
    news21 = [r for r in google if r["testset"] == "newstest2021" and r["tgt"]]  # rows with the system's text
    sets = {"wmt23": ("tau_wmt23_mqm", wmt23), "google": ("tau_google_newstest2021_mqm", news21)}
    for name in [] if args.skip_tau else args.tau_on.split(","):
        key, rows = sets[name]
        print(
            f"\nqe#fast segment-level tau_b with MQM, {name} ({args.segments} sampled segments per pair + gated ones):",
            flush=True,
        )
        out[key] = tau(rows, args.segments)
    (HERE / "results" / "qe_gate.json").write_text(json.dumps(out, indent=1) + "\n")


if __name__ == "__main__":
    main()
