"""``apertium:<pair>`` — Debian's rule-based Apertium translator through a subprocess.

``apertium:eng-spa`` (or plain ``apertium`` to pick the pair from the languages). Unknown words are
marked (``*word``, ``@``, ``#``) unless ``-u`` is used; :meth:`translate` returns clean text and
:meth:`translate_marked` the marked output, a diagnostic the shipped QE uses.

Every text is translated as if it were alone (issue #19.4a): a batch is one pipeline run in Apertium's
null-flush mode (one ``\\0``-terminated chunk per text), and the stages that keep state from one chunk
to the next — the HMM part-of-speech tagger, whose Viterbi state survives a flush, and constraint
grammar, which looks at previous windows — are started afresh for every chunk. Joining texts into one
document (what this module did before) let the previous rows change a row's tagging and so its
translation. Where the null-flush pipeline cannot be built, each text gets its own ``apertium`` call.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from collections.abc import Sequence
from functools import cache
from pathlib import Path

from mtgauntlet.core.cache import cached_map
from mtgauntlet.errors import BackendUnavailable, GauntletError
from mtgauntlet.models.base import Translator

ISO3 = {
    "en": "eng",
    "es": "spa",
    "ca": "cat",
    "gl": "glg",
    "is": "isl",
    "mk": "mkd",
    "sh": "hbs",
    "sr": "hbs",
    "hr": "hbs",
    "bs": "hbs",
    "fr": "fra",
    "pt": "por",
    "it": "ita",
    "de": "deu",
}
_MARK = re.compile(r"(?<![\w])[*@#](?=\w)")
_ESCAPE = re.compile(r"([\[\]\\^$/@<>{}])")  # the characters apertium-destxt escapes
_PAIR = re.compile(r"^[a-z]{2,3}(?:_[A-Za-z]+)?-[a-z]{2,3}(?:_[A-Za-z]+)?(?:-[A-Za-z0-9_]+)?$")
STATEFUL_STAGES = ("apertium-tagger", "cg-proc")  # keep state across null-flush chunks: one process per text


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
    return [line.strip() for line in out.splitlines() if line.strip()]


def _env() -> dict[str, str]:
    return dict(os.environ, LC_ALL="C.UTF-8")  # lt-proc needs a UTF-8 locale, as the apertium script sets


@cache
def isolated_pipeline(pair: str) -> tuple[str, str] | None:
    """The pair's null-flush pipeline with every stateful stage restarted per chunk, as two bash commands:
    the analysis-transfer part and the generation part (which takes the generator flag as $1); None when
    it cannot be built here."""
    if not _PAIR.match(pair) or shutil.which("apertium-wblank-mode") is None:
        return None
    mode = Path(os.environ.get("APERTIUM_DATADIR", "/usr/share/apertium")) / "modes" / f"{pair}.mode"
    if not mode.is_file():
        return None
    try:
        res = subprocess.run(["apertium-wblank-mode", "-z", str(mode)], capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.SubprocessError):
        return None
    stages = [s.strip() for s in res.stdout.strip().split("|")]
    if res.returncode != 0 or not all(stages) or "$1" in stages[0] or not any("$1" in s for s in stages):
        return None
    out = []
    for stage in stages:
        words = stage.split()
        if words[0] in STATEFUL_STAGES:
            fresh = " ".join(w for w in words if w not in ("-z", "--null-flush"))
            stage = f"while IFS= read -r -d '' c; do printf '%s' \"$c\" | {fresh}; printf '\\0'; done"
        out.append(stage)
    cut = next(i for i, s in enumerate(out) if "$1" in s)  # the generator and what follows it
    return " | ".join(out[:cut]), " | ".join(out[cut:])


def deformat(text: str) -> str:
    """One text as apertium-destxt writes it: blanks collapsed, stream characters escaped, the
    end-of-text marker (an inserted period and an empty superblank) appended."""
    return _ESCAPE.sub(r"\\\1", " ".join(text.replace("\0", " ").split())) + ".[]"


def reformat(stream: str) -> str:
    """Inverse of :func:`deformat` on the pipeline output (what apertium-retxt does), blanks collapsed."""
    s = stream.rstrip()
    if s.endswith(".[]"):
        s = s[:-3]
    elif s.endswith("[]"):
        s = s[:-2]
    out, i = [], 0
    while i < len(s):
        ch = s[i]
        if ch == "\\" and i + 1 < len(s):
            out.append(s[i + 1])
            i += 2
            continue
        if ch not in "[]":  # superblank brackets
            out.append(ch)
        i += 1
    return " ".join("".join(out).split())


class ApertiumTranslator(Translator):
    description = "Apertium rule-based MT (Debian package)"

    def __init__(self, arg: str = "", timeout: float = 120.0):
        if shutil.which("apertium") is None:
            raise BackendUnavailable("apertium is not installed (apt-get install apertium-eng-spa)")
        self.fixed_pair = arg or None
        self.timeout = timeout
        self._other: dict[tuple[str, bool, str], str] = {}  # the variant computed but not asked for yet

    def _pair(self, src_lang: str, tgt_lang: str) -> str:
        pair = self.fixed_pair or pair_for(src_lang, tgt_lang)
        if pair not in installed_pairs():
            raise BackendUnavailable(
                f"Apertium pair {pair!r} is not installed (have: {', '.join(installed_pairs())}); "
                f"apt-get install apertium-{pair}"
            )
        return pair

    def _call(self, cmd: list[str], data: str, pair: str) -> str:
        try:
            res = subprocess.run(cmd, input=data, capture_output=True, text=True, timeout=self.timeout, env=_env())
        except subprocess.TimeoutExpired:
            raise GauntletError(f"apertium {pair} timed out after {self.timeout:g} s") from None
        if res.returncode != 0:
            raise GauntletError(f"apertium {pair} failed: {res.stderr.strip()[:300]}")
        return res.stdout

    def _split(self, stream: str, n: int) -> list[str] | None:
        chunks = stream.split("\0")  # each stage writes one more NUL at the end: only empty chunks may follow
        return chunks[:n] if len(chunks) > n and not "".join(chunks[n:]).strip() else None

    def _run_both(self, texts: list[str], pair: str) -> dict[bool, list[str]]:
        """Plain and marked translations; each text translated independently of the others (same output
        alone, in any batch, in any order). One analysis-transfer run feeds both generators."""
        todo = [i for i, t in enumerate(texts) if t.strip()]
        out = {False: [""] * len(texts), True: [""] * len(texts)}
        pipeline = isolated_pipeline(pair) if todo else None
        if pipeline is not None:
            data = "".join(deformat(texts[i]) + "\0" for i in todo)
            mid = self._split(self._call(["bash", "-c", pipeline[0]], data, pair), len(todo))
            if mid is not None:
                data = "".join(c + "\0" for c in mid)
                gen = {
                    m: self._split(
                        self._call(["bash", "-c", pipeline[1], "apertium", "-g" if m else "-n", ""], data, pair),
                        len(todo),
                    )
                    for m in (False, True)
                }
                plain, marked = gen[False], gen[True]
                if plain is not None and marked is not None:
                    for m, chunks in ((False, plain), (True, marked)):
                        for i, chunk in zip(todo, chunks):
                            out[m][i] = reformat(chunk)
                    return out
        for m in (False, True):  # one apertium process per text: slow, and right by construction
            cmd = ["apertium"] + ([] if m else ["-u"]) + [pair]
            for i in todo:
                out[m][i] = " ".join(self._call(cmd, " ".join(texts[i].split()), pair).split())
        return out

    def _run(self, texts: list[str], pair: str, marked: bool) -> list[str]:
        """One variant; the other one, computed by the same run, waits (once) for the matching call:
        ``translate_marked`` right after ``translate`` of the same texts (as the shipped QE does) is free."""
        out: dict[str, str] = {}
        for t in dict.fromkeys(texts):
            if (pair, marked, t) in self._other:
                out[t] = self._other.pop((pair, marked, t))
        missing = [t for t in dict.fromkeys(texts) if t not in out]
        if missing:
            both = self._run_both(missing, pair)
            out.update(zip(missing, both[marked]))
            if len(self._other) > 50_000:
                self._other.clear()
            self._other.update({(pair, not marked, t): o for t, o in zip(missing, both[not marked])})
        return [out[t] for t in texts]

    def translate(self, texts: Sequence[str], src_lang: str, tgt_lang: str) -> list[str]:
        pair = self._pair(src_lang, tgt_lang)
        return cached_map(f"apertium:{pair}", "translate.v2", {}, list(texts), lambda xs: self._run(xs, pair, False))

    def translate_marked(self, texts: Sequence[str], src_lang: str, tgt_lang: str) -> list[str]:
        pair = self._pair(src_lang, tgt_lang)
        return cached_map(
            f"apertium:{pair}", "translate_marked.v2", {}, list(texts), lambda xs: self._run(xs, pair, True)
        )


def unknown_word_rate(marked: str) -> float:
    """Share of words Apertium marked as unknown/unanalysed (*, @, #)."""
    words = marked.split()
    if not words:
        return 0.0
    return sum(1 for w in words if _MARK.match(w)) / len(words)
