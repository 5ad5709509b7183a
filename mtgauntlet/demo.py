"""`make demo`: a release from the example recipe, then every other builder on the shipped sample, a second
version, DuckDB queries, a reproduction check and the audit page of the release.

Runs with the project alone (no ../shared), on the embedded offline defaults. Output: ./demo-output/
"""

from __future__ import annotations

import shutil
import sys
import sysconfig
import time
from importlib import resources
from pathlib import Path

from mtgauntlet.cli.main import run

OUT = Path("demo-output")
SHARE = Path("share") / "mtgauntlet" / "examples"  # where a wheel installs examples/ (pyproject data-files)


def examples_dir() -> Path:
    """The example recipes: the checkout's ``examples/``, else the copy an installed wheel put under its prefix."""
    here = Path(__file__).resolve()
    prefix = here.parents[4] if len(here.parents) > 4 else None  # lib/pythonX.Y/site-packages/mtgauntlet/demo.py
    for d in (
        here.parents[1] / "examples",
        Path(sysconfig.get_path("data")) / SHARE,
        *([prefix / SHARE] if prefix is not None else []),
        Path(sys.prefix) / SHARE,
    ):
        if (d / "demo.yaml").is_file():
            return d
    raise SystemExit("demo: examples/demo.yaml was not found (neither in a checkout nor installed with the wheel)")


def sample_path() -> str:
    return str(resources.files("mtgauntlet") / "data" / "sample_es_en.tsv")


def gauntlet(*args: str) -> None:
    """Run a command through the CLI's entry point, as typed; stop the demo on failure."""
    print(f"\n$ gauntlet {' '.join(args)}", flush=True)
    code = run(list(args))
    if code != 0:
        sys.exit(f"demo step failed (exit {code})")


def demo_recipe() -> Path:
    """examples/demo.yaml with its input pointing at the sample this package ships (so it runs from a checkout
    and from an installed wheel alike); without Apertium the good hypothesis is the reference."""
    recipe = examples_dir() / "demo.yaml"
    text = recipe.read_text(encoding="utf-8").replace("../mtgauntlet/data/sample_es_en.tsv", sample_path())
    if not shutil.which("apertium"):
        text = text.replace("    translator: apertium", "    good-from: reference")
        print("note: apertium is not installed; the demo's SMAUG build uses --good-from reference")
    local = OUT / "demo-recipe.yaml"
    local.write_text(text, encoding="utf-8")
    (OUT / "rules.yaml").write_text((recipe.parent / "rules.yaml").read_text(encoding="utf-8"), encoding="utf-8")
    return local


def main() -> None:
    t0 = time.monotonic()
    if OUT.exists():
        shutil.rmtree(OUT)
    OUT.mkdir()
    builds, releases = OUT / "builds", OUT / "releases"
    sample = sample_path()
    print(f"mtgauntlet demo on the shipped sample {sample}")
    # 1. a whole release from one recipe: SMAUG + subset builds, validation, release, audit page
    recipe = demo_recipe()
    gauntlet("run", str(recipe), "--work", str(OUT / "work"), "--releases", str(releases))
    v1 = releases / "name=demo-es-en" / "version=0.1.0"
    card = v1 / "README.md"
    print(f"\ndataset card: {card} (first lines)")
    print("\n".join(card.read_text(encoding="utf-8").splitlines()[:12]))
    gauntlet("verify", str(v1))
    gauntlet("evaluate", "metric", "--set", str(v1), "--metric", "chrf")
    # 2. MT-breaker: the embedded LLM edits 3 English seeds for 3 steps against Apertium EN->ES (shipped QE)
    gauntlet(
        "build",
        "mtbreaker",
        "--seeds",
        sample,
        "--column",
        "en",
        "--limit",
        "3",
        "--steps",
        "3",
        "--max-tokens",
        "256",
        "--mt",
        "apertium",
        "--qe",
        "qe",
        "--src-lang",
        "en",
        "--tgt-lang",
        "es",
        "--out",
        str(builds / "mtbreaker"),
    )
    gauntlet("evaluate", "breaker", "--set", str(builds / "mtbreaker"), "--plot", str(OUT / "mtbreaker_steps.png"))
    # 3. bandit topic search over the sample's domains (a real search runs over FLORES topics; see README)
    gauntlet(
        "build",
        "bandit",
        "--corpus",
        sample,
        "--text-column",
        "en",
        "--topic-column",
        "domain",
        "--min-words",
        "5",
        "--budget",
        "12",
        "--k",
        "2",
        "--cap",
        "4",
        "--src-lang",
        "en",
        "--tgt-lang",
        "es",
        "--out",
        str(builds / "bandit"),
    )
    # 4. a changed build (another seed) is released as a new version beside the first
    good = ["--translator", "apertium"] if shutil.which("apertium") else ["--good-from", "reference"]
    gauntlet(
        "build",
        "smaug",
        "--input",
        sample,
        "--src-col",
        "es",
        "--ref-col",
        "en",
        "--src-lang",
        "es",
        "--tgt-lang",
        "en",
        *good,
        "--seed",
        "14",
        "--out",
        str(builds / "smaug-seed14"),
    )
    gauntlet(
        "release",
        str(builds / "smaug-seed14"),
        str(OUT / "work" / "builds" / "subset"),
        "--name",
        "demo-es-en",
        "--version",
        "0.2.0",
        "--out",
        str(releases),
        "--input-file",
        sample,
    )  # the shipped sample, recognised by its sha256: Apache-2.0
    gauntlet("query", "--releases", str(releases), "SELECT name, version, rows, kind FROM releases ORDER BY version")
    gauntlet(
        "query",
        "--releases",
        str(releases),
        "SELECT version, phenomenon, count(*) AS n FROM smaug_pair GROUP BY ALL ORDER BY version, phenomenon",
    )
    gauntlet(
        "query",
        "--releases",
        str(releases),
        "SELECT phenomenon, any_value(ref) AS ref, any_value(bad) AS bad FROM latest_smaug_pair "
        "GROUP BY phenomenon ORDER BY phenomenon",
    )
    gauntlet(
        "query",
        "--releases",
        str(builds),
        "SELECT topic, count(*) AS texts, round(avg(difficulty), 1) AS difficulty FROM topic_text GROUP BY topic",
    )
    # 5. the first release rebuilt from the recipe stored inside it: identical records
    gauntlet("reproduce", str(v1), "--inputs", str(Path(sample).parent), "--work", str(OUT / "reproduce"))
    # 6. the audit page of the latest release, with what changed since 0.1.0: open it in any browser, offline
    report = OUT / "audit-demo-es-en-0.2.0.html"
    gauntlet("audit", str(releases / "name=demo-es-en" / "version=0.2.0"), "--against", str(v1), "--out", str(report))
    print(f"\ndemo finished in {time.monotonic() - t0:.0f} s: outputs in {OUT.resolve()}")
    print(f"audit report of the release: {report.resolve()}")


if __name__ == "__main__":
    main()
