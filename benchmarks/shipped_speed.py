"""Speed of the shipped models against the previous versions, side by side in one run (issue #13).

`score difficulty --estimator learned` and `score qe --qe qe#fast` on the same texts: the current working
tree against the code and model files of an earlier commit (default: the one before the retraining),
unpacked from git into a temporary folder. Each side runs in its own process, models loaded and warmed up
before the clock starts, the output cache off; the sides alternate ``--rounds`` times, the side that goes
first alternating too (ABBA), and the median is printed, so machine load and order hit both alike.

Texts: WMT23 en-de ESA sources (English paragraphs) for difficulty; FLORES devtest en->es references as
translations for QE (the reverse Apertium pair exists, so the round-trip signals run) and WMT23 en-de
ESA translations (no reverse pair).

Usage: python benchmarks/shipped_speed.py [--base 1f7569a] [--n 200] [--rounds 3] [--tasks difficulty,qe]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent

WORKER = r"""
import json, sys, time
from pathlib import Path
from mtgauntlet.corpora.formats import read_flores
from mtgauntlet.corpora.judgment_formats import read_wmt23_esa
from mtgauntlet.models import registry
shared, n, task = Path(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
esa = read_wmt23_esa(shared / "wmt23-mqm-mtme/wmt23_ende_esa_campaign.tsv.gz").rows
if task == "difficulty":
    texts = list(dict.fromkeys(r["src"] for r in esa))[:n]
    est = registry.load("difficulty", "learned")
    est.difficulty(texts[:3], "en", "de")
    t0 = time.perf_counter(); est.difficulty(texts, "en", "de"); dt = time.perf_counter() - t0
else:
    rows = read_flores(shared / "flores200-devtest/flores200_devtest.tsv.gz", src="en", tgt="es").rows[:n]
    pairs = [("en", "es", [r["src"] for r in rows], [r["ref"] for r in rows])]
    de = [r for r in esa if r["tgt"]][:n]
    pairs.append(("en", "de", [r["src"] for r in de], [r["tgt"] for r in de]))
    qe = registry.load("qe", "qe#fast")
    for sl, tl, s, t in pairs:
        qe.score(s[:3], t[:3], sl, tl)
    t0 = time.perf_counter()
    for sl, tl, s, t in pairs:
        qe.score(s, t, sl, tl)
    dt = time.perf_counter() - t0
    texts = [x for p in pairs for x in p[2]]
print(json.dumps({"n": len(texts), "seconds": dt}))
"""


def run_side(root: Path, shared: Path, n: int, task: str) -> dict:
    env = dict(os.environ, PYTHONPATH=str(root), MTGAUNTLET_CACHE="off", HF_HUB_OFFLINE="1", TRANSFORMERS_OFFLINE="1")
    out = subprocess.run(
        [sys.executable, "-c", WORKER, str(shared), str(n), task], env=env, capture_output=True, text=True, cwd=root
    )
    if out.returncode != 0:
        raise SystemExit(f"{task} at {root} failed:\n{out.stderr[-2000:]}")
    return json.loads(out.stdout.strip().splitlines()[-1])


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--shared", default=str(REPO.parent / "shared" / "data"))
    ap.add_argument("--base", default="1f7569a", help="git commit with the previous shipped models")
    ap.add_argument("--n", type=int, default=200)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--tasks", default="difficulty,qe", help="difficulty, qe or both")
    args = ap.parse_args()
    shared = Path(args.shared).resolve()
    with tempfile.TemporaryDirectory() as tmp:
        archive = subprocess.run(["git", "archive", args.base, "mtgauntlet"], cwd=REPO, capture_output=True)
        if archive.returncode != 0:
            raise SystemExit(f"cannot unpack {args.base}: {archive.stderr.decode()[:300]}")
        subprocess.run(["tar", "-x", "-C", tmp], input=archive.stdout, check=True)
        sides = {"previous": Path(tmp), "current": REPO}
        print(
            f"previous = {args.base}, current = working tree; median of {args.rounds} alternating rounds, "
            f"output cache off"
        )
        for task, label in (("difficulty", "score difficulty --estimator learned"), ("qe", "score qe --qe qe#fast")):
            if task not in args.tasks.split(","):
                continue
            times: dict[str, list[float]] = {k: [] for k in sides}
            n = 0
            for k in range(args.rounds):
                order = list(sides.items())
                for name, root in order if k % 2 == 0 else order[::-1]:  # ABBA: neither side always goes first
                    r = run_side(root, shared, args.n, task)
                    times[name].append(r["seconds"])
                    n = r["n"]
                print(
                    f"  round {k + 1}: " + ", ".join(f"{name} {n / times[name][-1]:.2f}/s" for name in sides),
                    flush=True,
                )
            prev, cur = statistics.median(times["previous"]), statistics.median(times["current"])
            print(
                f"{label:<40} {n} texts: previous {n / prev:7.1f}/s  current {n / cur:7.1f}/s  "
                f"current/previous speed {prev / cur:.2f}x"
            )


if __name__ == "__main__":
    main()
