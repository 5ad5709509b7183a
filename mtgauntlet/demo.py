"""`make demo`: run every available builder on the shipped sample, then query the result in DuckDB.

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
             "--src-lang", "es", "--tgt-lang", "en", "--estimator", "length", "--budget", "8",
             "--stratify", "domain", "--out", str(builds / "subset"))
    import shutil as _sh

    good = ["--translator", "apertium"] if _sh.which("apertium") else ["--good-from", "reference"]
    gauntlet("build", "smaug", "--input", sample, "--src-col", "es", "--ref-col", "en", "--src-lang", "es",
             "--tgt-lang", "en", *good, "--out", str(builds / "smaug"))
    gauntlet("evaluate", "metric", "--set", str(builds / "smaug"), "--metric", "chrf")
    gauntlet("query", "--releases", str(builds),
             "SELECT rank, domain, round(difficulty, 2) AS difficulty, text FROM selected_text ORDER BY rank")
    gauntlet("query", "--releases", str(builds),
             "SELECT phenomenon, count(*) AS n, any_value(ref) AS example_ref, any_value(bad) AS example_bad "
             "FROM smaug_pair GROUP BY phenomenon ORDER BY phenomenon")
    print("\ndemo finished: outputs in", OUT.resolve())


if __name__ == "__main__":
    main()
