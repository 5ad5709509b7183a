"""Prompts from the papers (MT-breaker App. B; bandit topic search App. E; Sentinel paper's LLM judge)
and robust parsers of their ``|||...|||`` answers."""

from __future__ import annotations

import json
import re

# MT-breaker, Appendix B ----------------------------------------------------------------------------
BREAKER_FIRST = (
    "We want to find a text in {lang1} that's exceptionally difficult for a machine translation model to "
    "translate into {lang2}. The goal is to expose a wide range of translation errors and severely challenge the "
    "MT model's capabilities. The text should be approximately {seed_length} words. At the end of your response "
    "write SOURCE |||<SOURCE_TEXT>|||.")
BREAKER_FOLLOWUP = (
    "This is the machine translation of the source text.\nTRANSLATION |||{translation}|||\n"
    "Try to make it even more difficult to translate. Only make grammatical edits: the text must stay grammatical "
    "and natural. At the end of your response write SOURCE |||<SOURCE_TEXT>|||.")
BREAKER_FOLLOWUP_QE = (
    "This is the machine translation of the source text.\nTRANSLATION |||{translation}|||\n"
    "And this is the score of the translation: SCORE |||{qe:.1f}%||| (0=bad translation, 100=perfect)\n"
    "Try to make it even more difficult to translate. Modify at most 75% of the best SOURCE (one with lowest score) "
    "so far. At the end of your response write SOURCE |||<SOURCE_TEXT>|||.")

SOURCE_ANALYSIS = """Analyze the following text and return the answer in JSON. We want to determine the following attributes:
- grammaticality: on a scale from 0 (complete gibbersish) to 100 (perfect, no errors).
- naturalness: on a scale from 0 (wholy unnatural) to 100 (fully human-like and would occur in a corpus).
- word rarity: on average, how rare are the words from 0 (average modern human would use this word daily) to 100 (average modern human would not understand the word).
- syntax complexity: on a scale from 0 (simplest possible sentence) to 100 (most complex and hard to understand).
- topics: list of 1 to 5 topics that the text is about.
Provide only the output in JSON and nothing else. The output should look like this (no extra backticks or newlines):
{{
"grammaticality": 90,
"naturalness": 80,
"word rarity": 50,
"syntax complexity": 70,
"topics": ["science", "technology"],
}}
The sentence to analyze is:
> {source}"""

LLM_QE = """Evaluate the quality of the translation on a scale from 0 100. Roughly:
100 - Perfect
95 - Excellent (closely aligned with the source)
80 - Very good (minor style choice)
60 - Fair (some inaccuracies or fluency errors)
40 - Poor (multiple inaccuracies or fluency errors)
0 - Inadequate (unrelated, completely wrong)
First, think about all the errors in the translation
and their severity (very briefly, max few words per error).
At the end, output a single line in the format like as follows:
SCORE |||70.8|||
The last line is important because it will be matched with a regex, so make sure to use the |.
Don't think for too long (max 10 sentences).
SOURCE: |||{source}|||
TRANSLATION: |||{translation}|||"""

# Bandit topic search, Appendix E -------------------------------------------------------------------
TRANSLATE = (
    "You are a professional translator. You are given a source text in {src_lang}. You need to translate the "
    "source text to {tgt_lang}. Don't include any other text except the translation. Please output the "
    "translation between <START OF TRANSLATION> and </END OF TRANSLATION>. Source text: {source}")

ONTOLOGIST = """You are an expert ontologist specializing in {domain}. Your task is to generate a comprehensive concept tree for this domain. Please adhere to the following specifications:
Output Format: Generate a single Python code block containing a nested dictionary representing the concept tree.
Tree Structure:
Root Node: The root of the tree must be '{domain}'.
Depth: The tree must have a depth of {levels}, meaning there are {levels} levels of subtopics beneath the root node.
Branching Factor: Each parent node (non-leaf node) must generate exactly {branching} unique child nodes (subtopics).
Node Naming (Crucial):
Self-Contained: Each node name (the dictionary key) must be a self-contained and specific phrase suitable for a direct Google search. It must be fully understandable without knowing its parent topic.
Language: All node names must be in {language}.
Example Structure: The final output should follow this nested dictionary format (with no additional comments or text):
{{"[Root Node Name]": {{"[Subtopic 1.1]": {{"[Subtopic 1.1.1]": {{}}, "[Subtopic 1.1.2]": {{}}}}, "[Subtopic 1.2]": {{}}}}}}"""

SAMPLE_TEXT = (
    "Please use Google search to find all relevant topics about {topic} in {language}. Then extract all relevant "
    "snippet contents in the format of JSON. Each extracted content should be approximately 20-40 words and "
    "distinct from each other. Please make sure to extract all relevant contents.\n"
    '{{"extracted_snippets": [{{"text": "content 1", "source_url": "http://example.com/source_1"}}]}}')

# Sentinel paper (difficulty estimation), LLM-as-judge: predicted proficiency needed, 0-120 -------------
DIFFICULTY_JUDGE = (
    "Estimate how difficult the following {src_lang} text is to translate into {tgt_lang} for a professional "
    "translator, on a scale from 0 (trivial) to 120 (extremely difficult: only the most proficient expert "
    "translators would translate it without errors). Consider vocabulary, syntax, idioms, domain knowledge and "
    "ambiguity. At the end, output a single line in the format SCORE |||<number>|||.\nTEXT: |||{source}|||")

_TRIPLE = re.compile(r"\|\|\|(.*?)\|\|\|", re.S)
_NUMBER = re.compile(r"[-+]?\d+(?:[.,]\d+)?")


def parse_tagged(answer: str, tag: str | None = None) -> str | None:
    """Last ``TAG |||...|||`` span (or last ``|||...|||`` span when no tag matches); None when absent/empty."""
    if not answer:
        return None
    if tag:
        tagged = re.findall(rf"{re.escape(tag)}\s*:?\s*\|\|\|(.*?)\|\|\|", answer, re.S)
        if tagged:
            value = tagged[-1].strip()
            return value or None
    spans = [s.strip() for s in _TRIPLE.findall(answer) if s.strip()]
    if spans:
        return spans[-1]
    if tag:  # unterminated: 'SOURCE |||text' at the end of the answer
        m = re.search(rf"{re.escape(tag)}\s*:?\s*\|\|\|(.+)$", answer, re.S)
        if m and m.group(1).strip().strip("|").strip():
            return m.group(1).strip().strip("|").strip()
    return None


def parse_score(answer: str, lo: float = 0.0, hi: float = 100.0) -> float | None:
    """Number inside ``SCORE |||x|||`` (``%`` allowed), clipped check to [lo, hi]; None when unusable."""
    span = parse_tagged(answer, "SCORE")
    if span is None:
        return None
    m = _NUMBER.search(span)
    if not m:
        return None
    value = float(m.group(0).replace(",", "."))
    if not lo <= value <= hi:
        return None
    return value


def parse_translation(answer: str) -> str | None:
    m = re.search(r"<START OF TRANSLATION>(.*?)(?:</END OF TRANSLATION>|<END OF TRANSLATION>|$)", answer or "", re.S)
    if m and m.group(1).strip():
        return m.group(1).strip()
    return parse_tagged(answer, "TRANSLATION")


def parse_json_object(answer: str) -> dict | None:
    """First {...} block of an answer, tolerating trailing commas and code fences."""
    if not answer:
        return None
    m = re.search(r"\{.*\}", answer, re.S)
    if not m:
        return None
    text = re.sub(r",\s*([}\]])", r"\1", m.group(0))
    try:
        obj = json.loads(text)
    except json.JSONDecodeError:
        return None
    return obj if isinstance(obj, dict) else None


def _instruction_openings(*templates: str, n_words: int = 6) -> tuple[str, ...]:
    """The first ``n_words`` words of every instruction sentence of the templates (placeholders removed)."""
    out = []
    for t in templates:
        for sentence in re.split(r"(?<=[.:])\s+|\n", re.sub(r"\{[^}]*\}|\|\|\|.*?\|\|\|", " ", t)):
            ws = re.findall(r"[\w%']+", sentence.lower())
            if len(ws) >= n_words:
                out.append(" ".join(ws[:n_words]))
    return tuple(dict.fromkeys(out))


_BREAKER_OPENINGS = _instruction_openings(BREAKER_FIRST, BREAKER_FOLLOWUP, BREAKER_FOLLOWUP_QE)


def echoes_instructions(text: str, openings: tuple[str, ...] = _BREAKER_OPENINGS) -> bool:
    """True when a proposed source repeats the prompt's own instructions (a small LLM often copies the rest of
    the prompt after an unterminated ``SOURCE |||``): such an answer is not a source text."""
    flat = " ".join(re.findall(r"[\w%']+", text.lower()))
    return any(o in flat for o in openings)
