"""Analysis of MT-breaker / zero-shot sets: the step curve (paper Figure 2), the data-quality measures of its
Table 2 per method, the model-transfer matrix (Table 4) and the language-transfer table (Table 5).

Steps whose translation or score failed (``qe_mean`` null) take no part in any mean; they are counted.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np


def _scored(steps) -> list[dict[str, Any]]:
    return [s for s in (steps or []) if s.get("qe_mean") is not None]


def _mean(values) -> float | None:
    values = list(values)
    return float(np.mean(values)) if values else None


def step_curve(records: Sequence[dict[str, Any]]) -> list[dict[str, float]]:
    """Per step: mean QE over items, and mean of the cumulative-minimum QE up to that step (scored steps only)."""
    max_step = max((s["step"] for r in records for s in (r.get("trajectory") or [])), default=-1)
    rows = []
    for step in range(max_step + 1):
        cur, cummin = [], []
        for r in records:
            traj = [s for s in _scored(r.get("trajectory")) if s["step"] <= step]
            if not traj:
                continue
            at = [s for s in traj if s["step"] == step]
            if at:
                cur.append(at[0]["qe_mean"])
            cummin.append(min(s["qe_mean"] for s in traj))
        rows.append(
            {
                "step": step,
                "mean_qe": float(np.mean(cur)) if cur else float("nan"),
                "cummin_qe": float(np.mean(cummin)) if cummin else float("nan"),
                "items": len(cur),
            }
        )
    return rows


def summary(records: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """Headline numbers of a set. With seeds, the selected text can never score above its seed (the seed is
    step 0 of the trajectory and takes part in the selection), so the seed-vs-final gap alone overstates what
    the editor did; ``items_improved`` and ``edit_mean_qe`` say whether its edits themselves were harder."""
    starts = [
        r["trajectory"][0]["qe_mean"]
        for r in records
        if r.get("trajectory") and r["trajectory"][0].get("qe_mean") is not None
    ]
    edits = [s["qe_mean"] for r in records for s in _scored(r.get("trajectory")) if s["step"] > 0]
    improved = [
        r
        for r in records
        if r.get("trajectory")
        and r["trajectory"][0].get("qe_mean") is not None
        and r["qe_score"] < r["trajectory"][0]["qe_mean"]
    ]
    out = {
        "items": len(records),
        "start_mean_qe": _mean(starts),
        "final_mean_qe": _mean(r["qe_score"] for r in records if r.get("qe_score") is not None),
        "items_improved": len(improved),
        "edit_steps": len(edits),
        "edit_mean_qe": _mean(edits),
    }
    for key in ("llm_failures", "truncated", "mt_failures", "qe_failures"):
        out[key] = int(sum(r.get(key) or 0 for r in records))
    return out


def selected_step(record: dict[str, Any]) -> dict[str, Any] | None:
    """The trajectory step the record's text was selected from (its text and QE), or None."""
    for s in _scored(record.get("trajectory")):
        if s["source"] == record["text"] and s["qe_mean"] == record.get("qe_score"):
            return s
    return None


def selected_translations(record: dict[str, Any]) -> list[str]:
    """The target models' translations of the record's selected text."""
    step = selected_step(record)
    return [t for t in step["translations"] if t is not None] if step else []


def error_modes(records: Sequence[dict[str, Any]], judge) -> tuple[list[list[str]], int]:
    """The appendix's target-text analysis prompt on every (selected text, translation): the error modes per
    translation, and how many answers were unusable."""
    from mtgauntlet.models import structured
    from mtgauntlet.models.prompts import TARGET_ANALYSIS, parse_error_modes

    asks = [
        [{"role": "user", "content": TARGET_ANALYSIS.format(source=r["text"], translation=t)}]
        for r in records
        for t in selected_translations(r)
    ]
    parsed = (
        structured.ask(judge, asks, structured.ERROR_MODES, parse_error_modes, max_tokens=512, temperature=0.0, seed=0)[
            1
        ]
        if asks
        else []
    )
    return [p for p in parsed if p is not None], sum(p is None for p in parsed)


def language_pair(record: dict[str, Any]) -> str:
    return f"{record['src_lang']}-{record['tgt_lang']}"


def seed_records(records: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """The paper's "Seeds" baseline as records: step 0 of every seeded trajectory (the seed text with its QE),
    once per (seed text, language pair). Seedless variants start from the LLM's own text and add nothing."""
    seen, out = set(), []
    for r in records:
        traj = r.get("trajectory") or []
        if not traj or not str(r.get("method", "")).startswith("mtbreaker-seeded"):
            continue
        step0 = traj[0]
        key = (step0["source"], language_pair(r))
        if key in seen:
            continue
        seen.add(key)
        out.append(
            {**r, "method": "seeds", "text": step0["source"], "qe_score": step0.get("qe_mean"), "trajectory": [step0]}
        )
    return out


def _qe_per_spec(recs: Sequence[dict[str, Any]], specs: Sequence[str]) -> dict[str, float | None]:
    """Mean QE of the selected texts by each QE spec (one Table 2 row per QE metric), over target models: the
    scores of the step each text was selected from (a record keeps them in its trajectory)."""
    rows = [
        row
        for r in recs
        for step in [selected_step(r)]
        if step
        for row in (step.get("qe_components") or [])
        if row is not None
    ]
    out = {}
    for j, spec in enumerate(specs):
        vals = [row[j] for row in rows if len(row) > j and row[j] is not None]
        out[f"qe[{spec}]"] = _mean(vals)
    return out


def style_measures(texts: Sequence[str], langs: Sequence[str]) -> dict[str, float | None]:
    """Table 2's "Complexity & Style" rows that run offline: word rarity (mean 8 - wordfreq Zipf over words: the
    paper asks an LLM for a 0-100 rarity instead), syntax complexity (mean dependency-tree height, spaCy: the paper
    asks an LLM), and grammaticality (100 x the share of texts in which Harper/Grammalecte find no grammar error:
    the paper asks an LLM for a 0-100 score). None where no model covers the language."""
    from mtgauntlet.errors import BackendUnavailable
    from mtgauntlet.models.difficulty import mean_by_language

    out: dict[str, float | None] = {}
    for key, spec in (("word_rarity", "rarity"), ("syntax_complexity", "syntax")):
        value, _ = mean_by_language(spec, texts, langs)
        out[key] = None if value != value else value
    try:
        from mtgauntlet.validators.grammar import check_texts

        by_lang: dict[str, list[str]] = defaultdict(list)
        for t, lang in zip(texts, langs):
            by_lang[lang.split("-")[0]].append(t)
        clean = [x["grammar_errors"] == 0 for lang, group in by_lang.items() for x in check_texts(group, lang)]
        out["grammaticality"] = 100.0 * sum(clean) / len(clean) if clean else None
    except BackendUnavailable:
        out["grammaticality"] = None
    return out


def judged_style(texts: Sequence[str], judge) -> dict[str, Any]:
    """Table 2's LLM-rated rows with the appendix's source-text analysis prompt: naturalness, the number of
    distinct topics ("Diversity (topics)"), and the judge's own 0..100 grammaticality, word rarity and syntax
    complexity (the paper's scale; the offline rows above are not); unusable answers are left out and counted."""
    from mtgauntlet.validators.fluency import judged_measures, llm_judge

    m = judged_measures(llm_judge(texts, judge))
    return {
        "naturalness": m["naturalness"],
        "diversity_topics": m["unique_topics"],
        "grammaticality_llm": m["grammaticality"],
        "word_rarity_llm": m["word_rarity"],
        "syntax_complexity_llm": m["syntax_complexity"],
        "source_analysis_failures": m["failures"],
    }


def source_difficulty(texts: Sequence[str], langs: Sequence[str], specs: Sequence[str]) -> dict[str, Any]:
    """Mean source-only difficulty by each estimator spec (``difficulty[SPEC]``, higher = harder): the place of the
    paper's SRCQE row, a source-only MetricX of its own (Appendix A) that is not released; with the texts an
    estimator could not score (``difficulty_notes``). An estimator that could not measure a single text (it does not
    load, or covers none of the languages) is an error: it was asked for by name."""
    from mtgauntlet.errors import GauntletError
    from mtgauntlet.models.difficulty import mean_by_language

    out: dict[str, Any] = {}
    notes: list[str] = []
    for spec in specs:
        value, why = mean_by_language(spec, texts, langs)
        if value != value and texts and any("not measured" in n for n in why):
            raise GauntletError(f"--difficulty {spec}: {why[0]}")
        out[f"difficulty[{spec}]"] = None if value != value else value
        notes += [f"{spec}: {n}" for n in why]
    if notes:
        out["difficulty_notes"] = "; ".join(notes)
    return out


def quality_table(
    records: Sequence[dict[str, Any]],
    *,
    judge=None,
    embedder=None,
    lm: bool = False,
    difficulty: Sequence[str] = (),
    seeds: bool = True,
    tokenization: str = "whitespace",
    chrf_references: str = "all-others",
) -> dict[str, dict[str, Any]]:
    """Table 2's measures per method: chrF diversity in the paper's setting (chrF++, nw:2; by default each text
    against all the others as references, :mod:`mtgauntlet.validators.set_measures`), unique words, average word
    count and length (whitespace words by default: the definitions that reproduce the paper's Seeds column), mean QE of the selected texts (averaged, and per
    QE spec when the set was scored by several), the variance of QE over every scored step (the paper's
    per-variant variance, e.g. 297 vs 325), and — with a judge LLM — the number of distinct error types; with
    an embedder, embedding diversity. The judge also answers the source-text analysis prompt for every text
    (:func:`judged_style`: naturalness, topic diversity, LLM-rated grammaticality, rarity and syntax); with ``lm``,
    ``lm_naturalness`` is the embedded LM's calibrated 0..100 naturalness (offline, not the paper's LLM rating);
    with ``difficulty`` specs, the mean source-only difficulty by each (:func:`source_difficulty`).
    With ``seeds``, the seeds of seeded variants are a method of their own
    (the paper's "Seeds" column). Sets of several language pairs get one row per (method, language pair):
    each set is measured in its own target language, never pooled."""
    from mtgauntlet.validators.checks import embedding_diversity, error_mode_diversity
    from mtgauntlet.validators.set_measures import chrf_diversity, unique_words, word_stats

    records = list(records) + (seed_records(records) if seeds else [])
    several = len({language_pair(r) for r in records}) > 1
    groups: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for r in records:
        groups[f"{r['method']} {language_pair(r)}" if several else r["method"]].append(r)
    table = {}
    for method, recs in sorted(groups.items()):
        texts = [r["text"] for r in recs]
        steps = [s["qe_mean"] for r in recs for s in _scored(r.get("trajectory"))]
        specs = list(recs[0].get("qe_models") or [])
        row: dict[str, Any] = {
            "items": len(recs),
            "diversity_chrf": chrf_diversity(texts, references=chrf_references, word_order=2)["chrf_diversity"],
            "unique_words": unique_words(texts, tokenization),
            **word_stats(texts, tokenization),
            "qe_mean": _mean(r["qe_score"] for r in recs if r.get("qe_score") is not None),
            **(_qe_per_spec(recs, specs) if len(specs) > 1 else {}),
            "qe_step_variance": float(np.var(steps)) if len(steps) > 1 else None,
        }
        langs = [r.get("src_lang") or "en" for r in recs]
        row.update(style_measures(texts, langs))
        row.update(source_difficulty(texts, langs, difficulty))
        if embedder is not None:
            row["diversity_embd"] = embedding_diversity(texts, embedder)
        if lm:
            from mtgauntlet.validators.fluency import lm_naturalness

            row["lm_naturalness"] = _mean(lm_naturalness(texts))
        if judge is not None:
            row.update(judged_style(texts, judge))
            modes, failed = error_modes(recs, judge)
            div = error_mode_diversity(modes)
            row.update(
                diversity_errors=div["error_modes_unique"],
                error_modes_entropy=div["error_modes_entropy"],
                error_analysis_failures=failed,
            )
        table[method] = row
    return table


def plot_step_curve(curve: Sequence[dict[str, float]], path: str | Path, title: str = "MT-breaker") -> Path:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    steps = [c["step"] for c in curve]
    fig, ax = plt.subplots(figsize=(6, 3.5), dpi=100)
    ax.plot(steps, [c["mean_qe"] for c in curve], marker="o", label="mean QE at step")
    ax.plot(steps, [c["cummin_qe"] for c in curve], marker="s", label="mean cumulative-min QE")
    ax.set_xlabel("step")
    ax.set_ylabel("QE (higher = easier)")
    ax.set_title(title)
    ax.legend()
    return save_figure(fig, path)


def save_figure(fig, path: str | Path) -> Path:
    """Lay out, write (creating the folder) and close a matplotlib figure."""
    import matplotlib.pyplot as plt

    fig.tight_layout()
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path)
    plt.close(fig)
    return path


def _mean_qe(texts: Sequence[str], mt_specs: Sequence[str], qe_specs, src_lang: str, tgt_lang: str) -> dict[str, Any]:
    from mtgauntlet.builders.breaker_scoring import Scorer

    scored = Scorer(mt_specs, qe_specs, src_lang, tgt_lang)(list(texts))
    ok = [s["qe_mean"] for s in scored if s["qe_mean"] is not None]
    return {"qe": _mean(ok), "failed": len(scored) - len(ok)}


def transfer_matrix(
    records: Sequence[dict[str, Any]], mt_specs: Sequence[str], qe_specs
) -> dict[str, dict[str, dict[str, float | None]]]:
    """Mean QE of the final texts per language pair: rows = target model they were built against, columns =
    evaluation model (Table 4). Each set is translated into its own target language (a set built for en-cs is
    never scored as en-de)."""
    by_lp: dict[tuple[str, str], dict[str, list[str]]] = defaultdict(lambda: defaultdict(list))
    for r in records:
        by_lp[(r["src_lang"], r["tgt_lang"])][",".join(r.get("target_models") or [])].append(r["text"])
    return {
        f"{s}-{t}": {
            target: {spec: _mean_qe(texts, [spec], qe_specs, s, t)["qe"] for spec in mt_specs}
            for target, texts in sorted(groups.items())
        }
        for (s, t), groups in sorted(by_lp.items())
    }


def language_transfer(
    records: Sequence[dict[str, Any]], langs: Sequence[str], mt_specs: Sequence[str], qe_specs
) -> dict[str, dict[str, float | None]]:
    """Mean QE of the final texts: rows = method and language pair the set was built for, columns = the target
    language they are translated into by ``mt_specs`` (averaged over them) and scored (Table 5)."""
    groups: dict[tuple[str, str, str], list[str]] = defaultdict(list)
    for r in records:
        groups[(r["method"], r["src_lang"], r["tgt_lang"])].append(r["text"])
    return {
        f"{method} {src}-{built_for}": {lang: _mean_qe(texts, mt_specs, qe_specs, src, lang)["qe"] for lang in langs}
        for (method, src, built_for), texts in sorted(groups.items())
    }
