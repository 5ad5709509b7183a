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
    "write SOURCE |||<SOURCE_TEXT>|||."
)
# The paper gives the follow-up of the +qe variants only. Both variants use that wording; the plain variants
# leave out what they do not see (the SCORE line and "(one with lowest score)"), so that seeded vs seeded+qe
# differs only in the QE feedback. The answer-format sentence of the first prompt is repeated in both.
BREAKER_FOLLOWUP = (
    "This is the machine translation of the source text.\nTRANSLATION |||{translation}|||\n"
    "{score_line}"
    "Try to make it even more difficult to translate. Modify at most 75% of the best SOURCE{best_hint} so far."
    "{grammatical} At the end of your response write SOURCE |||<SOURCE_TEXT>|||."
)
BREAKER_SCORE_LINE = (
    "And this is the score of the translation: SCORE |||{qe:.1f}%||| (0=bad translation, 100=perfect)\n"
)
BREAKER_BEST_HINT = " (one with lowest score)"
# Section 3.7: "we instructed LLMstep to only make grammatical edits" (not in the Appendix B prompts):
# opt-in (--grammatical-edits), the same sentence in every variant.
BREAKER_GRAMMATICAL = " Only make grammatical edits: the text must stay grammatical and natural."


def breaker_followup(translation: str, qe: float | None = None, grammatical: bool = False) -> str:
    """The follow-up of MT-breaker: with ``qe`` (the +qe variants) the score line and the lowest-score hint."""
    return BREAKER_FOLLOWUP.format(
        translation=translation,
        score_line="" if qe is None else BREAKER_SCORE_LINE.format(qe=qe),
        best_hint="" if qe is None else BREAKER_BEST_HINT,
        grammatical=BREAKER_GRAMMATICAL if grammatical else "",
    )


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

TARGET_ANALYSIS = """Analyze the following translation and return a list of reasons the translation might be incorrect (in JSON).
The options are:
"idioms", "metaphor", "gender", "style", "ambiguity", "named entities",
"numerical expressions", "dates and times", "cultural nuances", "tone",
"context", "syntax", "semantics", "lexical choice", "register",
"collocations", "terminology", "cohesion and coherence",
"omissions", "additions", "misinterpretations", "negation", "tense and aspect",
"modality", "pronoun resolution", "punctuation", "formatting".
Feel free to add extra if you think it's appropriate. Output a list of reasons (even 0, depending on if the translation is erroneous).
Provide only the output in JSON and nothing else. The output should look like this (no extra backticks or newlines):
"error_modes": ["idiom", "gender", "style"],
The sentence to analyze is:
> {source}
The translation is:
> {translation}"""

# the 0-100 quality scale of the QE prompts of both papers (MT-breaker's and the bandit's), word for word
QE_SCALE = """100 - Perfect
95 - Excellent (closely aligned with the source)
80 - Very good (minor style choice)
60 - Fair (some inaccuracies or fluency errors)
40 - Poor (multiple inaccuracies or fluency errors)
0 - Inadequate (unrelated, completely wrong)
"""

LLM_QE = (
    "Evaluate the quality of the translation on a scale from 0 100. Roughly:\n"
    + QE_SCALE
    + """First, think about all the errors in the translation
and their severity (very briefly, max few words per error).
At the end, output a single line in the format like as follows:
SCORE |||70.8|||
The last line is important because it will be matched with a regex, so make sure to use the |.
SOURCE: |||{source}|||
TRANSLATION: |||{translation}|||"""
)

# Bandit topic search, Appendix E -------------------------------------------------------------------
BANDIT_QE = (
    "Evaluate the quality of the translation on a scale from 0 to 100. Roughly:\n"
    + QE_SCALE
    + """First, think about all the errors in the translation and their severity (very briefly, max few words per error). \
At the end, output a single line in the format like as follows:
SCORE |||70.8|||
The last line is important because it will be matched with a regex, so make sure
to use the |.
Don't think for too long (max 10 sentences).
SOURCE: |||{source}|||
TRANSLATION: |||{translation}|||"""
)  # the bandit paper's GEMBA-style QE prompt (its Appendix E), verbatim

TRANSLATE = (
    "You are a professional translator. You are given a source text in {src_lang}. You need to translate the "
    "source text to {tgt_lang}. Don't include any other text except the translation. Please output the "
    "translation between <START OF TRANSLATION> and </END OF TRANSLATION>. Source text: {source}"
)

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
    '{{"extracted_snippets": [{{"text": "content 1", "source_url": "http://example.com/source_1"}}]}}'
)

# Sentinel paper (difficulty estimation), Example 2: LLM-as-a-judge, proficiency 0-120 mapped to CEFR -------------
_JUDGE_SCALE = (
    "The final result should be reported as a single numeric score on a scale of 0 to 120, where higher numbers "
    "correspond to a higher difficulty (i.e., more advanced language proficiency requirements). You should also "
    "relate this numeric score to commonly recognized proficiency levels (e.g., A1, A2, B1, B2, C1, C2). Here is the "
    "expected mapping: 0-20 for A1 (Beginner); 21-40 for A2 (Elementary); 41-60 for B1 (Intermediate); 61-80 for B2 "
    "(Upper Intermediate); 81-100 for C1 (Advanced); 101-120 for C2 (Mastery).\n\n"
)
_JUDGE_END = (
    "including complexity of vocabulary, grammar, semantic density, and any specialized knowledge required. Then, "
    "provide a brief explanation of your reasoning for each major factor. Consider whether the text includes "
    "domain-specific terminology, cultural references, idiomatic expressions, or advanced grammatical constructions. "
    "Finally, assign a numeric score from 0 to 120 and map that score to one of the CEFR levels. Conclude with a final "
    "statement that clearly states your numeric score and the corresponding proficiency level surrounded by triple "
    "square brackets, for example [[[86, C1 (Advanced)]]]"
)
DIFFICULTY_JUDGE_SRC = (
    "You are given a source text. Your goal is to determine the approximate proficiency level required to translate "
    "this text, based on a detailed analysis of its complexity. "
    + _JUDGE_SCALE
    + "Instructions: First, examine the text to identify features that affect reading difficulty, "
    + _JUDGE_END
    + "\n\nAnalyze following text:\n\n{source}"
)
DIFFICULTY_JUDGE_TGT = (
    "You are given a source text. Your goal is to determine the approximate proficiency level required to translate "
    "this text into {tgt_lang}, based on a detailed analysis of its complexity. "
    + _JUDGE_SCALE
    + "Instructions: First, examine the text to identify features affecting the translation into {tgt_lang}, which "
    "affect reading difficulty, " + _JUDGE_END + ".\n\nAnalyze following text:\n\n{source}"
)
CEFR_BANDS = (("A1", 0, 20), ("A2", 21, 40), ("B1", 41, 60), ("B2", 61, 80), ("C1", 81, 100), ("C2", 101, 120))

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


_PROFICIENCY = re.compile(r"\[\[\[\s*([-+]?\d+(?:[.,]\d+)?)\s*(?:[,;]\s*([ABC][12])\b[^\]]*)?\]\]\]", re.I)


def cefr_level(score: float) -> str:
    """The Sentinel paper's mapping of a 0-120 proficiency score to a CEFR level (bands of 20, A1 = 0-20)."""
    for level, _lo, hi in CEFR_BANDS:
        if score <= hi:
            return level
    return "C2"


def parse_proficiency(answer: str) -> tuple[float, str] | None:
    """The last ``[[[score, level]]]`` of a judge's answer -> (score in 0..120, CEFR level); None when absent or
    out of range. The level is the stated one when present, otherwise the band of the score."""
    found = _PROFICIENCY.findall(answer or "")
    if not found:
        return None
    number, level = found[-1]
    value = float(number.replace(",", "."))
    if not 0.0 <= value <= 120.0:
        return None
    return value, (level.upper() if level else cefr_level(value))


def parse_translation(answer: str) -> str | None:
    m = re.search(r"<START OF TRANSLATION>(.*?)(?:</END OF TRANSLATION>|<END OF TRANSLATION>|$)", answer or "", re.S)
    if m and m.group(1).strip():
        return m.group(1).strip()
    return parse_tagged(answer, "TRANSLATION")


def parse_error_modes(answer: str) -> list[str] | None:
    """The ``"error_modes": [...]`` list of the target-text analysis answer (with or without the braces the prompt
    leaves out), lower-cased; ``[]`` is a valid answer (no error), ``None`` an unusable one."""
    m = re.search(r'"?error[_ ]modes"?\s*:\s*(\[.*?\])', answer or "", re.S | re.I)
    if not m:
        return None
    try:
        modes = json.loads(re.sub(r",\s*\]", "]", m.group(1)))
    except json.JSONDecodeError:
        return None
    if not isinstance(modes, list):
        return None
    return [str(x).strip().lower() for x in modes if str(x).strip()]


SOURCE_ANALYSIS_SCORES = ("grammaticality", "naturalness", "word_rarity", "syntax_complexity")


def source_analysis_values(obj: dict | None) -> dict | None:
    """The source-text analysis answer as ``{grammaticality, naturalness, word_rarity, syntax_complexity: 0..100,
    topics: [1 to 5 topics, lower-cased]}``: keys are read with spaces or underscores ("word rarity"), numbers may
    be numeric strings; None when a score is missing or outside 0..100, or the topics are not 1 to 5 strings (the
    prompt's bounds), so an answer that does not follow the prompt is counted, never guessed."""
    if not isinstance(obj, dict):
        return None
    obj = {re.sub(r"[\s_]+", "_", str(k).strip().lower()): v for k, v in obj.items()}
    out: dict = {}
    for key in SOURCE_ANALYSIS_SCORES:
        value = obj.get(key)
        if isinstance(value, str):
            try:
                value = float(value.strip().rstrip("%"))
            except ValueError:
                return None
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0.0 <= value <= 100.0:
            return None
        out[key] = float(value)
    topics = obj.get("topics")
    if not isinstance(topics, list) or not all(isinstance(t, str) for t in topics):
        return None
    topics = [" ".join(t.split()).lower() for t in topics if t.strip()]
    if not 1 <= len(topics) <= 5:
        return None
    out["topics"] = topics
    return out


def parse_source_analysis(answer: str) -> dict | None:
    """The source-text analysis prompt's JSON answer (see :func:`source_analysis_values`), or None."""
    return source_analysis_values(parse_json_object(answer))


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


_BREAKER_OPENINGS = _instruction_openings(BREAKER_FIRST, BREAKER_FOLLOWUP, BREAKER_SCORE_LINE, BREAKER_GRAMMATICAL)


def echoes_instructions(text: str, openings: tuple[str, ...] = _BREAKER_OPENINGS) -> bool:
    """True when a proposed source repeats the prompt's own instructions (a small LLM often copies the rest of
    the prompt after an unterminated ``SOURCE |||``): such an answer is not a source text."""
    flat = " ".join(re.findall(r"[\w%']+", text.lower()))
    return any(o in flat for o in openings)
