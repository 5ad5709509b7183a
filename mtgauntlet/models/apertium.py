"""``apertium:<pair>`` — Debian's rule-based Apertium translator through a subprocess.

``apertium:eng-spa`` (or plain ``apertium`` to pick the pair from the languages). Unknown words are
marked (``*word``, ``@``, ``#``) unless ``-u`` is used; :meth:`translate` returns clean text and
:meth:`translate_marked` the marked output, a diagnostic the shipped QE uses.
"""

from __future__ import annotations

import re
import shutil
import subprocess
from typing import Sequence

from mtgauntlet.errors import BackendUnavailable, GauntletError
from mtgauntlet.models.base import Translator
from mtgauntlet.models.cache import cached_map

ISO3 = {"en": "eng", "es": "spa", "ca": "cat", "gl": "glg", "is": "isl", "mk": "mkd", "sh": "hbs", "sr": "hbs",
        "hr": "hbs", "bs": "hbs", "fr": "fra", "pt": "por", "it": "ita", "de": "deu"}
SEP = "\n\u2063\n"  # invisible separator paragraph: one subprocess call per batch
_MARK = re.compile(r"(?<![\w])[*@#](?=\w)")


def pair_for(src_lang: str, tgt_lang: str) -> str:
    a, b = ISO3.get(src_lang.split("-")[0]), ISO3.get(tgt_lang.split("-")[0])
    if not a or not b:
        raise BackendUnavailable(f"no Apertium pair known for {src_lang}->{tgt_lang}")
    return f"{a}-{b}"


def installed_pairs() -> list[str]:
    if shutil.which("apertium") is None:
        return []
    try:
        out = subprocess.run(["apertium", "-l"], capture_output=True, text=True, timeout=30).stdout
    except (OSError, subprocess.SubprocessError):
        return []
    return [l.strip() for l in out.splitlines() if l.strip()]


class ApertiumTranslator(Translator):
    description = "Apertium rule-based MT (Debian package)"

    def __init__(self, arg: str = "", timeout: float = 120.0):
        if shutil.which("apertium") is None:
            raise BackendUnavailable("apertium is not installed (apt-get install apertium-eng-spa)")
        self.fixed_pair = arg or None
        self.timeout = timeout

    def _pair(self, src_lang: str, tgt_lang: str) -> str:
        pair = self.fixed_pair or pair_for(src_lang, tgt_lang)
        if pair not in installed_pairs():
            raise BackendUnavailable(f"Apertium pair {pair!r} is not installed (have: {', '.join(installed_pairs())}); "
                                     f"apt-get install apertium-{pair}")
        return pair

    def _run(self, texts: list[str], pair: str, marked: bool) -> list[str]:
        if not texts:
            return []
        joined = SEP.join(t.replace("\n", " ") for t in texts)
        cmd = ["apertium"] + ([] if marked else ["-u"]) + [pair]
        try:
            res = subprocess.run(cmd, input=joined, capture_output=True, text=True, timeout=self.timeout)
        except subprocess.TimeoutExpired:
            raise GauntletError(f"apertium {pair} timed out after {self.timeout:g} s") from None
        if res.returncode != 0:
            raise GauntletError(f"apertium {pair} failed: {res.stderr.strip()[:300]}")
        parts = res.stdout.split("\u2063")
        if len(parts) != len(texts):  # separator mangled: fall back to one call per text
            return [self._run([t], pair, marked)[0] for t in texts] if len(texts) > 1 else [res.stdout.strip()]
        return [re.sub(r"\s+", " ", p).strip() for p in parts]

    def translate(self, texts: Sequence[str], src_lang: str, tgt_lang: str) -> list[str]:
        pair = self._pair(src_lang, tgt_lang)
        return cached_map(f"apertium:{pair}", "translate", {}, list(texts), lambda xs: self._run(xs, pair, False))

    def translate_marked(self, texts: Sequence[str], src_lang: str, tgt_lang: str) -> list[str]:
        pair = self._pair(src_lang, tgt_lang)
        return cached_map(f"apertium:{pair}", "translate_marked", {}, list(texts), lambda xs: self._run(xs, pair, True))


def unknown_word_rate(marked: str) -> float:
    """Share of words Apertium marked as unknown/unanalysed (*, @, #)."""
    words = marked.split()
    if not words:
        return 0.0
    return sum(1 for w in words if _MARK.match(w)) / len(words)
