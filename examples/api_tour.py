"""A notebook's tour of the Python API (issue #27), cell by cell (``# %%``: run it in Jupyter / VS Code, or as a
script: ``python examples/api_tour.py [OUT_DIR]``): build -> validate -> release -> verify -> query -> audit ->
score, with ``import mtgauntlet as mg`` only, on the sample that ships with mtgauntlet and the offline models.

Every call is silent (``progress=True`` shows a bar); warnings are ``mg.GauntletWarning``; errors are raised as
``mg.GauntletError`` subclasses.
"""

# %% Setup: the shipped es-en sample, as a file and as a DataFrame
import sys
from importlib import resources
from pathlib import Path

import pandas as pd

import mtgauntlet as mg

OUT = Path(sys.argv[1] if len(sys.argv) > 1 else "api-tour")
sample = Path(str(resources.files("mtgauntlet") / "data" / "sample_es_en.tsv"))
frame = pd.read_csv(sample, sep="\t", dtype=str, keep_default_na=False)

# %% 1. Build: SMAUG critical-error pairs from the DataFrame, the 8 hardest sources from the file
pairs = mg.build(
    "smaug",
    input=frame,
    input_name=sample.stem,
    src_col="es",
    ref_col="en",
    src_lang="es",
    tgt_lang="en",
    good_from="reference",
    phenomena="num,del",
    out=OUT / "builds" / "smaug",
)
hardest = mg.build(
    "subset", input=sample, src_col="es", src_lang="es", estimator="length", budget=8, out=OUT / "builds" / "subset"
)
print(pairs.describe().splitlines()[0])
print(pairs.to_pandas()[["phenomenon", "ref", "bad"]].head(3).to_string())

# %% 2. Validate each build (a failed rule is in the report, not an exception)
reports = [mg.validate(b, report=OUT / "reports" / b.path.name) for b in (pairs, hardest)]
print([(r.path.name, r.passed, r.failed_rules) for r in reports])

# %% 3. Release both builds with their reports; the input file is recognised by its sha256 (Apache-2.0)
release = mg.release(
    [pairs, hardest], name="tour-es-en", version="0.1.0", out=OUT / "releases", report=reports, input_file=[sample]
)
print(release.path, release.manifest["total_rows"], "records, licence", release.manifest["license"]["license"])

# %% 4. Verify: every file against the manifest
check = mg.verify(release)
assert check.ok, check.problems
print("verified:", check.ok)

# %% 5. Query every release under OUT/releases with SQL (DuckDB), as a DataFrame
counts = mg.query(
    "SELECT phenomenon, count(*) AS n FROM latest_smaug_pair GROUP BY ALL ORDER BY phenomenon",
    releases=OUT / "releases",
)
print(counts.to_string(index=False))

# %% 6. Audit: one self-contained HTML page
page = mg.audit(release, out=OUT / "audit.html")
print("audit page:", page)

# %% 7. Score the released hardest sources again with another estimator
scored = mg.score(
    "difficulty",
    input=release.to_pandas("selected_text")[["id", "text"]],
    src_col="text",
    src_lang="es",
    estimator="rarity",
)
print(scored.sort_values("difficulty", ascending=False)[["text", "difficulty"]].head(3).to_string(index=False))
