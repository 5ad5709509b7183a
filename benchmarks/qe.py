"""The shipped QE (`qe`) measured three ways (issue #5), next to the round-trip chrF baseline.

1. Reference-free metric robustness on DEMETR Spanish (es->en): Kendall-like tau of good vs perturbed
   translation, per perturbation and overall (ties discordant), via the same code as
   `gauntlet evaluate metric`. Baseline: round-trip chrF through Apertium (`roundtrip`), about 0.51.
2. Segment-level Kendall tau_b on held-out human judgments (WMT23 en-de ESA, zh-en MQM).
3. Kendall tau_b within each source (translations of one source ranked) on the same judgments.

Writes benchmarks/results/qe_demetr.json. Usage: python benchmarks/qe.py [--specs roundtrip,qe#fast,qe]
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

from mtgauntlet.corpora.formats import read_wmt23_esa, read_wmt23_mtme
from mtgauntlet.evaluation.metric_robustness import evaluate, filter_pairs, load_pairs, score_pairs

HERE = Path(__file__).resolve().parent


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--shared", default=str(HERE.parents[1] / "shared" / "data"))
    ap.add_argument("--specs", default="roundtrip,qe#fast,qe")
    args = ap.parse_args()
    shared = Path(args.shared)
    pairs = filter_pairs(load_pairs(str(shared / "demetr/demetr_dev.jsonl.gz")), lps=["es-en"])
    out = {}
    for spec in [s for s in args.specs.split(",") if s]:
        t0 = time.perf_counter()
        good, bad = score_pairs(pairs, spec)
        res = evaluate(pairs, good, bad)
        out[spec] = {r["phenomenon"]: {"n": r["n"], "tau": r["tau"], "d": r["d"]} for r in res}
        print(f"\nDEMETR es-en, metric {spec} ({time.perf_counter() - t0:.0f} s): overall tau "
              f"{out[spec]['all']['tau']:+.3f} over {out[spec]['all']['n']} pairs")
        for ph, r in sorted(out[spec].items()):
            if ph != "all":
                print(f"  {ph:<34} n={r['n']:<4} tau={r['tau']:+.3f}")
    (HERE / "results").mkdir(exist_ok=True)
    (HERE / "results" / "qe_demetr.json").write_text(json.dumps(out, indent=2) + "\n")
    from dec import qe_tau  # benchmarks/dec.py

    esa = read_wmt23_esa(shared / "wmt23-mqm-mtme/wmt23_ende_esa_campaign.tsv.gz").rows
    mqm = read_wmt23_mtme(shared / "wmt23-mqm-mtme/wmt23_mtme_seg_scores.tsv.gz", score="mqm").rows
    print("\nheld-out judgments (no Apertium pair for en-de / zh-en: round-trip signals drop out):")
    for spec in [s for s in args.specs.split(",") if s and s != "roundtrip"]:
        qe_tau(esa, spec)
        qe_tau([r for r in mqm if r["lp"] == "zh-en"], spec)


if __name__ == "__main__":
    import sys

    sys.path.insert(0, str(HERE))
    main()
