"""`make demo`: run every available builder on the shipped sample, query the result in DuckDB, audit the release.

Runs with the project alone (no ../shared), on the embedded offline defaults. Output: ./demo-output/
"""

from __future__ import annotations

import shutil
import sys
from importlib import resources
from pathlib import Path

from typer.testing import CliRunner

from mtgauntlet.cli.main import app

OUT = Path("demo-output")


def sample_path() -> str:
    return str(resources.files("mtgauntlet") / "data" / "sample_es_en.tsv")


def gauntlet(*args: str) -> str:
    """Run a CLI command in-process, echo it, stop the demo on failure."""
    print(f"\n$ gauntlet {' '.join(args)}", flush=True)
    result = CliRunner().invoke(app, list(args), catch_exceptions=False)
    print(result.output, end="", flush=True)
    if result.exit_code != 0:
        sys.exit(f"demo step failed (exit {result.exit_code})")
    return result.output


def main() -> None:
    if OUT.exists():
        shutil.rmtree(OUT)
    builds = OUT / "builds"
    sample = sample_path()
    print(f"mtgauntlet demo on the shipped sample {sample}")
    gauntlet("build", "subset", "--input", sample, "--src-col", "es", "--domain-col", "domain",
             "--src-lang", "es", "--tgt-lang", "en", "--estimator", "learned", "--budget", "8",
             "--stratify", "domain", "--out", str(builds / "subset"))
    import shutil as _sh

    good = ["--translator", "apertium"] if _sh.which("apertium") else ["--good-from", "reference"]
    gauntlet("build", "smaug", "--input", sample, "--src-col", "es", "--ref-col", "en", "--src-lang", "es",
             "--tgt-lang", "en", *good, "--out", str(builds / "smaug"))
    gauntlet("evaluate", "metric", "--set", str(builds / "smaug"), "--metric", "chrf")
    # MT-breaker: the embedded LLM edits 3 English seeds for 3 steps against Apertium EN->ES, judged by the shipped QE
    gauntlet("build", "mtbreaker", "--seeds", sample, "--column", "en", "--limit", "3", "--steps", "3",
             "--mt", "apertium", "--qe", "qe", "--src-lang", "en", "--tgt-lang", "es", "--out", str(builds / "mtbreaker"))
    gauntlet("evaluate", "breaker", "--set", str(builds / "mtbreaker"), "--plot", str(OUT / "mtbreaker_steps.png"))
    # bandit topic search over the sample's domains (a real search runs over FLORES topics; see README)
    gauntlet("build", "bandit", "--corpus", sample, "--text-column", "en", "--topic-column", "domain",
             "--min-words", "5", "--budget", "12", "--k", "2", "--cap", "4", "--src-lang", "en", "--tgt-lang", "es",
             "--out", str(builds / "bandit"))
    reports = OUT / "reports"
    gauntlet("validate", str(builds / "smaug"), "--report", str(reports / "smaug"))
    releases = OUT / "releases"
    gauntlet("release", str(builds / "smaug"), str(builds / "subset"), "--name", "demo-es-en", "--version", "0.1.0",
             "--report", str(reports / "smaug"), "--out", str(releases))
    card = releases / "name=demo-es-en" / "version=0.1.0" / "README.md"
    print(f"\ndataset card: {card} (first lines)")
    print("\n".join(card.read_text(encoding="utf-8").splitlines()[:12]))
    gauntlet("verify", str(card.parent))
    # a changed build (more items per phenomenon: another seed) is released as a new version beside the first
    gauntlet("build", "smaug", "--input", sample, "--src-col", "es", "--ref-col", "en", "--src-lang", "es",
             "--tgt-lang", "en", *good, "--seed", "14", "--out", str(builds / "smaug-seed14"))
    gauntlet("release", str(builds / "smaug-seed14"), str(builds / "subset"), "--name", "demo-es-en",
             "--version", "0.2.0", "--out", str(releases))
    gauntlet("query", "--releases", str(releases),
             "SELECT name, version, rows, kind FROM releases ORDER BY version")
    gauntlet("query", "--releases", str(releases),
             "SELECT version, phenomenon, count(*) AS n FROM smaug_pair GROUP BY ALL ORDER BY version, phenomenon")
    gauntlet("query", "--releases", str(releases),
             "SELECT phenomenon, any_value(ref) AS ref, any_value(bad) AS bad FROM latest_smaug_pair "
             "GROUP BY phenomenon ORDER BY phenomenon")
    gauntlet("query", "--releases", str(builds),
             "SELECT topic, count(*) AS texts, round(avg(difficulty), 1) AS difficulty FROM topic_text GROUP BY topic")
    # the audit page of the latest release, with what changed since 0.1.0: open it in any browser, offline
    report = OUT / "audit-demo-es-en-0.2.0.html"
    gauntlet("audit", str(releases / "name=demo-es-en" / "version=0.2.0"), "--against",
             str(releases / "name=demo-es-en" / "version=0.1.0"), "--out", str(report))
    print("\ndemo finished: outputs in", OUT.resolve())
    print(f"audit report of the release: {report.resolve()}")


if __name__ == "__main__":
    main()
