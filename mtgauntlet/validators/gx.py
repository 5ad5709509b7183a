"""Great Expectations suite for a record kind (ephemeral context; Data Docs HTML in a fixed folder).

Imported lazily: great_expectations is heavy. The suite is derived from the record schema: non-null
columns, allowed values, unique ids, non-empty texts.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from mtgauntlet.schema import RecordKind

TEXT_COLUMNS = {"smaug_pair": ("src", "ref", "good", "bad"), "breaker_text": ("text",), "topic_text": ("text",),
                "selected_text": ("text",), "judgment": ("src",)}


def run_suite(df, kind: RecordKind, docs_dir: str | Path) -> dict[str, Any]:
    os.environ.setdefault("GX_ANALYTICS_ENABLED", "false")
    import great_expectations as gx

    docs_dir = Path(docs_dir).resolve()
    docs_dir.mkdir(parents=True, exist_ok=True)
    context = gx.get_context(mode="ephemeral")
    context.add_data_docs_site(site_name="mtgauntlet", site_config={
        "class_name": "SiteBuilder",
        "store_backend": {"class_name": "TupleFilesystemStoreBackend", "base_directory": str(docs_dir)},
        "site_index_builder": {"class_name": "DefaultSiteIndexBuilder"}})
    df = df.copy()
    for col in df.columns:  # GX checks scalar columns; nested ones (lists, structs) are checked by pyarrow
        if str(df[col].dtype).startswith("datetime"):
            df[col] = df[col].astype(str)
    df = df[[c for c in df.columns if df[c].map(lambda v: isinstance(v, (str, int, float, type(None)))).all()]]
    asset = context.data_sources.add_pandas("records").add_dataframe_asset(name=kind.name)
    batch = asset.add_batch_definition_whole_dataframe("all")
    suite = context.suites.add(gx.ExpectationSuite(name=f"mtgauntlet-{kind.name}"))
    E = gx.expectations
    for col in kind.non_null_columns():
        if col in df.columns:
            suite.add_expectation(E.ExpectColumnValuesToNotBeNull(column=col))
    for col, allowed in kind.allowed.items():
        if col in df.columns:
            suite.add_expectation(E.ExpectColumnValuesToBeInSet(column=col, value_set=list(allowed)))
    if "id" in df.columns:
        suite.add_expectation(E.ExpectColumnValuesToBeUnique(column="id"))
    for col in TEXT_COLUMNS.get(kind.name, ()):
        if col in df.columns:
            suite.add_expectation(E.ExpectColumnValueLengthsToBeBetween(column=col, min_value=1))
    vd = context.validation_definitions.add(gx.ValidationDefinition(data=batch, suite=suite, name=f"vd-{kind.name}"))
    cp = context.checkpoints.add(gx.Checkpoint(
        name=f"cp-{kind.name}", validation_definitions=[vd],
        actions=[gx.checkpoint.UpdateDataDocsAction(name="docs", site_names=["mtgauntlet"])]))
    result = cp.run(batch_parameters={"dataframe": df})
    expectations = [{"type": r.expectation_config.type, "column": r.expectation_config.kwargs.get("column"),
                     "success": bool(r.success)} for run in result.run_results.values() for r in run.results]
    return {"success": bool(result.success), "expectations": expectations, "docs": str(docs_dir / "index.html")}
