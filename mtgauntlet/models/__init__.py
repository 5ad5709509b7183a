"""Model backends (translators, QE, difficulty estimators, LLMs, embedders, NLI) behind spec names
(:mod:`mtgauntlet.models.registry`).

The package shares its name with the public function ``mg.models()`` (:func:`mtgauntlet.api.evaluating.models`):
once ``mtgauntlet.models`` is imported, ``mtgauntlet.models`` is this package, so the package is callable and a
call is that function's.
"""

from __future__ import annotations

import sys
import types


class _CallablePackage(types.ModuleType):
    def __call__(self, *args, **kwargs):
        """``mg.models()``: the backends mtgauntlet knows (:func:`mtgauntlet.api.evaluating.models`)."""
        from mtgauntlet.api.evaluating import models

        return models(*args, **kwargs)


sys.modules[__name__].__class__ = _CallablePackage
