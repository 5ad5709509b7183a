"""The shipped QE (`qe`, `qe#fast`) on held-out data, next to round-trip chrF and the previous shipped model.

1. DEMETR Spanish (es->en, reference-free, good vs perturbed translation; never used in training):
   Kendall-like tau (ties discordant, as `gauntlet evaluate metric`), overall and per perturbation, for
   `roundtrip` (chrF of the Apertium back-translation), the current `qe#fast` / `qe` and the previous
   shipped weights (``--previous``, run by the current code, i.e. with the batch-independent Apertium).
2. Human judgments, leave-one-campaign-out (mtgauntlet.training.qe: trained without the held-out
   campaign, setting chosen by an inner LOCO): segment-level Kendall tau_b (per language pair, then
   averaged) and mean within-source tau_b, next to the previous weights and single signals on the same
   rows. These pairs (en-de, zh-en, he-en) have no reverse Apertium translator, so round-trip chrF
   cannot be computed for them; the LM likelihood is computed for every translation, so `qe` and
   `qe#fast` (the same weights, the LM left out) differ. The previous model is scored both ways too.

Writes benchmarks/results/qe_demetr.json and qe_loco.json.
Usage: python benchmarks/qe.py [--specs roundtrip,qe#fast,qe] [--previous PATH|COMMIT] [--skip-demetr]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent


def previous_model(arg: str) -> str | None:
    """A model file: a path, or ``COMMIT`` whose data/models/qe.npz git unpacks to /tmp."""
    if Path(arg).is_file():
        return arg
    out = Path(f"/tmp/mtgauntlet-qe-{arg}.npz")
    res = subprocess.run(["git", "show", f"{arg}:mtgauntlet/data/models/qe.npz"], cwd=HERE.parent, capture_output=True)
    if res.returncode != 0:
        print(f"previous model {arg!r} not found: {res.stderr.decode()[:200]}")
        return None
    out.write_bytes(res.stdout)
    return str(out)


def demetr(shared: Path, specs: list[str]) -> dict:
    from mtgauntlet.evaluation.metric_robustness import evaluate, filter_pairs, load_pairs, score_pairs

    pairs = filter_pairs(load_pairs(str(shared / "demetr/demetr_dev.jsonl.gz")), lps=["es-en"])
    out = {}
    for spec in specs:
        t0 = time.perf_counter()
        good, bad = score_pairs(pairs, spec)
        res = evaluate(pairs, good, bad)
        out[spec] = {r["phenomenon"]: {"n": r["n"], "tau": r["tau"], "d": r["d"]} for r in res}
        print(
            f"\nDEMETR es-en, metric {spec} ({time.perf_counter() - t0:.0f} s): overall tau "
            f"{out[spec]['all']['tau']:+.3f} over {out[spec]['all']['n']} pairs",
            flush=True,
        )
        for ph, r in sorted(out[spec].items()):
            if ph != "all":
                print(f"  {ph:<34} n={r['n']:<4} tau={r['tau']:+.3f}")
    return out


def judgments(shared: Path, previous: str | None, args) -> dict:
    from mtgauntlet.models.features import LinearModel
    from mtgauntlet.models.shipped_qe import SIGNALS
    from mtgauntlet.training.qe import load_experiment, segment_tau, without_lm

    ex = load_experiment(shared, args.per_lp, args.n, args.pairs, Path(args.cache), Path(args.difficulty_cache))
    print("\nhuman judgments, nested leave-one-campaign-out:")
    held = ex.nested_loco()
    prev = LinearModel.load(previous) if previous else None
    singles = ("xsim", "src_quality", "lm", "sub_len", "len", "tgt_rare", "copy")
    table = {}
    for c, rows in ex.sample.items():
        X = ex.Xh[c]
        row = {
            "qe (LOCO)": (held[c]["segment_tau"], held[c]["within_source_tau"]),
            "qe#fast (LOCO)": (held[c]["fast_segment_tau"], held[c]["fast_within_source_tau"]),
        }
        if prev is not None:
            cols = [SIGNALS.index(s) for s in prev.names]
            row["previous qe"] = segment_tau(rows, prev.predict(X[:, cols]))
            row["previous qe#fast"] = segment_tau(rows, prev.predict(without_lm(X)[:, cols]))
        for s in singles:
            row[s] = segment_tau(rows, np.nan_to_num(X[:, SIGNALS.index(s)], nan=0.0))
        table[c] = {k: {"segment_tau": v[0], "within_source_tau": v[1]} for k, v in row.items()}
    cols = list(next(iter(table.values())))
    print(f"\nsegment-level tau_b (mean within-source tau_b in brackets), {args.per_lp} sources per (campaign, lp)")
    print(f"{'held-out campaign':<16}" + "".join(f"{c:>22}" for c in cols))
    for c, row in table.items():
        print(
            f"{c:<16}" + "".join(f"{row[k]['segment_tau']:>+13.3f} ({row[k]['within_source_tau']:+.3f})" for k in cols)
        )
    print(
        f"{'mean':<16}"
        + "".join(
            f"{np.mean([table[c][k]['segment_tau'] for c in table]):>+13.3f} "
            f"({np.nanmean([table[c][k]['within_source_tau'] for c in table]):+.3f})"
            for k in cols
        )
    )
    return table


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--shared", default=str(HERE.parents[1] / "shared" / "data"))
    ap.add_argument("--specs", default="roundtrip,qe#fast,qe")
    ap.add_argument("--previous", default="1f7569a", help="model file or git commit of the previous shipped QE")
    ap.add_argument("--skip-demetr", action="store_true")
    ap.add_argument("--skip-judgments", action="store_true")
    ap.add_argument("--per-lp", type=int, default=100)
    ap.add_argument("--n", type=int, default=300)
    ap.add_argument("--pairs", type=int, default=20000)
    ap.add_argument("--cache", default="/tmp/mtgauntlet-qe-signals.npz")
    ap.add_argument("--difficulty-cache", default="/tmp/mtgauntlet-difficulty-features")
    args = ap.parse_args()
    shared = Path(args.shared)
    previous = previous_model(args.previous) if args.previous else None
    (HERE / "results").mkdir(exist_ok=True)
    if not args.skip_demetr:
        specs = [s for s in args.specs.split(",") if s]
        if previous:
            specs += [f"qe#fast,model={previous}", f"qe#model={previous}"]
        res = demetr(shared, specs)
        (HERE / "results" / "qe_demetr.json").write_text(json.dumps(res, indent=2) + "\n")
    if not args.skip_judgments:
        table = judgments(shared, previous, args)
        (HERE / "results" / "qe_loco.json").write_text(json.dumps(table, indent=2) + "\n")


if __name__ == "__main__":
    main()
