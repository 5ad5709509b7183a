"""Great Expectations suites for record kinds (ephemeral context; Data Docs HTML in a fixed folder).

Imported lazily: great_expectations is heavy. The suite is derived from the record schema: non-null
columns, allowed values, unique ids, non-empty texts.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from mtgauntlet.schema import RecordKind

TEXT_COLUMNS = {
    "smaug_pair": ("src", "ref", "good", "bad"),
    "breaker_text": ("text",),
    "topic_text": ("text",),
    "selected_text": ("text",),
    "judgment": ("src",),
}


class DataDocs:
    """One ephemeral GX context and one Data Docs site for a whole validation run.

    Each kind adds its own suite, validation definition and checkpoint to the same context, so the
    site rebuilt after each run indexes the suites and results of every kind validated so far (a
    context per kind would rewrite the site with the last kind only).
    """

    def __init__(self, docs_dir: str | Path):
        os.environ.setdefault("GX_ANALYTICS_ENABLED", "false")
        import great_expectations as gx

        self.gx = gx
        self.docs_dir = Path(docs_dir).resolve()
        self.docs_dir.mkdir(parents=True, exist_ok=True)
        quiet = os.environ.get("MTGAUNTLET_VERBOSE") != "1"  # GX's INFO lines and progress bars only with -v
        if quiet:
            import logging

            for name in ["great_expectations", *logging.root.manager.loggerDict]:
                if name.startswith("great_expectations"):
                    logging.getLogger(name).setLevel(logging.WARNING)
        self.context = gx.get_context(mode="ephemeral")
        if quiet:
            from great_expectations.data_context.types.base import ProgressBarsConfig

            self.context.variables.progress_bars = ProgressBarsConfig(globally=False, metric_calculations=False)
        self.context.add_data_docs_site(
            site_name="mtgauntlet",
            site_config={
                "class_name": "SiteBuilder",
                "store_backend": {"class_name": "TupleFilesystemStoreBackend", "base_directory": str(self.docs_dir)},
                "site_index_builder": {"class_name": "DefaultSiteIndexBuilder"},
            },
        )
        self.source = self.context.data_sources.add_pandas("records")

    def run_suite(self, df, kind: RecordKind) -> dict[str, Any]:
        gx, context = self.gx, self.context
        df = _scalar_columns(df)
        asset = self.source.add_dataframe_asset(name=kind.name)
        batch = asset.add_batch_definition_whole_dataframe("all")
        suite = context.suites.add(gx.ExpectationSuite(name=f"mtgauntlet-{kind.name}"))
        for expectation in _expectations(gx.expectations, df, kind):
            suite.add_expectation(expectation)
        vd = context.validation_definitions.add(
            gx.ValidationDefinition(data=batch, suite=suite, name=f"vd-{kind.name}")
        )
        cp = context.checkpoints.add(
            gx.Checkpoint(
                name=f"cp-{kind.name}",
                validation_definitions=[vd],
                actions=[gx.checkpoint.UpdateDataDocsAction(name="docs", site_names=["mtgauntlet"])],
            )
        )
        result = cp.run(batch_parameters={"dataframe": df})
        expectations = []
        for run in result.run_results.values():
            for r in run.results:
                config = r.expectation_config
                assert config is not None  # GX states the expectation of every result it ran
                expectations.append(
                    {"type": config.type, "column": config.kwargs.get("column"), "success": bool(r.success)}
                )
        return {
            "success": bool(result.success),
            "expectations": expectations,
            "docs": str(self.docs_dir / "index.html"),
        }


def _scalar_columns(df):
    df = df.copy()
    for col in df.columns:  # GX checks scalar columns; nested ones (lists, structs) are checked by pyarrow
        if str(df[col].dtype).startswith("datetime"):
            df[col] = df[col].astype(str)
    return df[[c for c in df.columns if df[c].map(lambda v: isinstance(v, (str, int, float, type(None)))).all()]]


def _expectations(E, df, kind: RecordKind) -> list:
    out = [E.ExpectColumnValuesToNotBeNull(column=col) for col in kind.non_null_columns() if col in df.columns]
    out += [
        E.ExpectColumnValuesToBeInSet(column=col, value_set=list(allowed))
        for col, allowed in kind.allowed.items()
        if col in df.columns
    ]
    if "id" in df.columns:
        out.append(E.ExpectColumnValuesToBeUnique(column="id"))
    out += [
        E.ExpectColumnValueLengthsToBeBetween(column=col, min_value=1)
        for col in TEXT_COLUMNS.get(kind.name, ())
        if col in df.columns
    ]
    return out


def run_suite(df, kind: RecordKind, docs_dir: str | Path) -> dict[str, Any]:
    """One kind in its own Data Docs site (use :class:`DataDocs` to validate several kinds together)."""
    return DataDocs(docs_dir).run_suite(df, kind)
