"""mtgauntlet: build, validate and release machine-translation challenge sets.

The public Python API, one function per CLI verb (``import mtgauntlet as mg``)::

    build = mg.build("smaug", input="my_es_en.tsv", src_col="es", ref_col="en", src_lang="es", tgt_lang="en",
                     translator="apertium", out="builds/smaug")
    report = mg.validate(build.path, rules="rules.yaml")
    release = mg.release([build.path], name="my-es-en", version="0.1.0")
    assert mg.verify(release.path).ok
    mg.query("SELECT phenomenon, count(*) FROM latest_smaug_pair GROUP BY ALL")

Functions are imported on first use, so ``import mtgauntlet`` stays light.
"""

__version__ = "0.1.0"

from mtgauntlet.errors import GauntletError, GauntletWarning, InputError, UsageError  # noqa: E402

_API = {
    "build": "mtgauntlet.api.building",
    "validate": "mtgauntlet.api.checking",
    "release": "mtgauntlet.api.releasing",
    "verify": "mtgauntlet.api.releasing",
    "publish": "mtgauntlet.api.releasing",
    "import_set": "mtgauntlet.api.sets",
    "export_set": "mtgauntlet.api.sets",
    "list_releases": "mtgauntlet.api.releasing",
    "open_release": "mtgauntlet.api.releasing",
    "query": "mtgauntlet.api.catalog",
    "audit": "mtgauntlet.api.auditing",
    "run": "mtgauntlet.recipes.running",
    "reproduce": "mtgauntlet.recipes.reproducing",
    "score": "mtgauntlet.api.scoring",
    "evaluate": "mtgauntlet.api.evaluating",
    "simulate": "mtgauntlet.api.evaluating",
    "list_models": "mtgauntlet.api.model_listing",
    "leaderboard": "mtgauntlet.api.metric_workbench",
    "Build": "mtgauntlet.api.results",
    "Report": "mtgauntlet.api.results",
    "Release": "mtgauntlet.api.results",
    "Verification": "mtgauntlet.api.results",
    "Publication": "mtgauntlet.api.results",
    "Reproduction": "mtgauntlet.api.results",
    "BudgetSpent": "mtgauntlet.core.usage",
    "RuleFailed": "mtgauntlet.recipes.running",
    "NotVerified": "mtgauntlet.recipes.reproducing",
}

__all__ = ["__version__", "GauntletError", "GauntletWarning", "InputError", "UsageError", *_API]


def __getattr__(name: str):
    module = _API.get(name)
    if module is None:
        raise AttributeError(f"module 'mtgauntlet' has no attribute {name!r}")
    import importlib

    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__():
    return sorted(__all__)
