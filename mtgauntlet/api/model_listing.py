"""The model backends from Python: `list_models` (``gauntlet models``)."""

from __future__ import annotations

from mtgauntlet.api.catalog_options import ModelsOptions
from mtgauntlet.api.session import public
from mtgauntlet.options import takes

__all__ = ["list_models"]


@public
@takes(ModelsOptions)
def list_models(o: ModelsOptions):
    """The model backends mtgauntlet knows: the embedded (offline) ones, installed or not, and every backend spec
    name with its roles (``gauntlet models``).

    Returns:
        A ``pandas.DataFrame`` with one row per embedded backend (``role``, ``spec``, ``installed``, ``what``, ...).
            ``df.attrs`` holds the rest of ``gauntlet models --json``: ``defaults`` (the spec per role when none is
            given), ``default_translator_by_pair``, ``backends`` (spec name -> roles) and ``suggestions``.

    Examples:
        >>> df = mg.list_models()
        >>> df[df.installed][["role", "spec"]], df.attrs["backends"]["openai"]
    """
    import pandas as pd

    from mtgauntlet.models.embedded import packaged_translator
    from mtgauntlet.models.registry import DEFAULTS, REGISTRY, SUGGESTIONS, embedded_status

    by_pair = {f"{a}-{b}": packaged_translator(a, b) for a, b in (("en", "pt"), ("pt", "en"))}
    from mtgauntlet.validators.grammar import available_languages

    df = pd.DataFrame(embedded_status(tuple(available_languages())))
    df.attrs.update(
        {
            "defaults": dict(DEFAULTS),
            "default_translator_by_pair": {k: v for k, v in by_pair.items() if v},  # used when none given
            "backends": {k: sorted(v) for k, v in REGISTRY.items()},
            "suggestions": SUGGESTIONS,
        }
    )
    return df
