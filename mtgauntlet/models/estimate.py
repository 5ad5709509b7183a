"""``--dry-run``: how many API calls a build or score command would send, with an estimate of tokens and cost, from
the rendered prompts and the generation budgets — computed before, and instead of, any request.

Counted per ``openai:`` spec (local models cost nothing and are left out): one call per prompt a run sends when
every answer is usable at once; unusable answers are retried (up to the roles' ``retries``), so a real run may send
more. Input tokens are the rendered prompts' characters / 4 (the servers' tokenizers differ; the rule of thumb is
within ~20% for English); MT-breaker's follow-ups, which contain translations not known yet, are estimated with
the seed text in their place, and its conversation grows by one exchange per step. Output tokens are at most the
calls' ``max_tokens``: the cost shown is an upper bound for the output side.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Iterable, Sequence

from mtgauntlet.models import prompts
from mtgauntlet.models.ratelimit import estimate_tokens


def tokens(text: str) -> int:
    return estimate_tokens(len(text), 0)


@dataclass
class Plan:
    calls: dict[str, list] = field(default_factory=dict)  # spec -> [calls, input tokens, max output tokens, price]

    def add(self, llm, prompt_texts: Iterable[str], max_tokens: int, times: int = 1) -> None:
        """``times`` calls of ``llm`` per prompt (nothing for a backend that is not an API)."""
        key = getattr(llm, "usage_key", None)
        if key is None:
            return
        entry = self.calls.setdefault(key, [0, 0, 0, getattr(llm, "price", None)])
        for text in prompt_texts:
            entry[0] += times
            entry[1] += times * tokens(text)
            entry[2] += times * max_tokens

    def add_role(self, backend, sources: Sequence[str], translations: Sequence[str] | None, src_lang: str | None,
                 tgt_lang: str | None, times: int = 1) -> None:
        """The calls of a translator / QE / difficulty role (an ensemble's members too) on these texts."""
        from mtgauntlet.models import llm_roles as roles

        for member in getattr(backend, "backends", None) or [backend]:
            if isinstance(member, roles.LLMQualityEstimator):
                texts = [prompts.LLM_QE.format(source=s, translation=t)
                         for s, t in zip(sources, translations or sources)]
            elif isinstance(member, roles.LLMTranslator):
                texts = [prompts.TRANSLATE.format(src_lang=roles.lang_name(src_lang), tgt_lang=roles.lang_name(
                    tgt_lang), source=s) for s in sources]
            elif isinstance(member, roles.LLMDifficultyJudge):
                texts = [member.prompt(s, tgt_lang) for s in sources]
            else:
                continue
            self.add(member.llm, texts, member.max_tokens, times)

    def lines(self) -> list[str]:
        out = []
        for spec, (calls, tin, tout, price) in sorted(self.calls.items()):
            cost = f", at most ${price.cost(tin, tout):.4f}" if price is not None else " (no #price: cost unknown)"
            out.append(f"{spec}: {calls} calls, ~{tin} input tokens, at most {tout} output tokens{cost}")
        total = sum(p.cost(t, o) for _, t, o, p in self.calls.values() if p is not None)
        if not out:
            return ["dry run: no API call (only local models); nothing was sent"]
        return ["dry run: nothing was sent; estimated calls (one try each; retries of unusable answers add more):",
                *(f"  {line}" for line in out), f"  total: at most ${total:.4f} for the priced specs"]


def breaker_plan(builder, items: Sequence[Any]) -> Plan:
    """MT-breaker (``steps`` edits, + the first text when seedless) or zero-shot (``per_item`` generations)."""
    plan = Plan()
    scorer = builder.scorer
    for item in items:
        seed = (item.data.get("src") or "").strip()
        length = len(seed.split()) or int(item.data.get("length", 30))
        stand_in = seed or " ".join(["word"] * length)
        if hasattr(builder, "walk_all"):  # MT-breaker: the conversation grows one exchange per step
            if builder.seeded and not seed:
                continue
            first = builder._first_prompt(length)
            exchange = f"SOURCE |||{stand_in}|||" + prompts.breaker_followup(
                stand_in, 50.0 if builder.show_qe else None, builder.grammatical_edits)
            asks = ([first] if not builder.seeded else []) + [first + exchange * k for k in range(1, builder.steps + 1)]
            texts = builder.steps + 1
        else:
            asks = [builder._prompt(length)] * builder.per_item
            texts = builder.per_item
        plan.add(builder.llm, asks, builder.max_tokens)
        for translator in scorer.translators:
            plan.add_role(translator, [stand_in], None, builder.src_lang, builder.tgt_lang, times=texts)
        plan.add_role(scorer.qe, [stand_in], [stand_in], builder.src_lang, builder.tgt_lang,
                      times=texts * len(scorer.translators))
    return plan


def role_plan(backend, sources: Sequence[str], translations: Sequence[str] | None = None, src_lang: str | None = None,
              tgt_lang: str | None = None) -> Plan:
    """One call per text of a scoring role (``score qe``, ``score difficulty``, ``build subset``)."""
    plan = Plan()
    plan.add_role(backend, sources, translations, src_lang, tgt_lang)
    return plan


def smaug_plan(builder, items: Sequence[Any]) -> Plan:
    """SMAUG: the good-hypothesis translator (one call per item with ``--good-from translator``) and, for ``neg``,
    Polyjuice (at most one call per item: one AUX* VERB span each, reference-sized prompt). The infiller and the
    NLI model are local (``hf:``) only."""
    from mtgauntlet.builders.smaug.transformations import POLYJUICE_MAX_TOKENS, polyjuice_prompt

    plan = Plan()
    if builder.good_mode == "translator":
        plan.add_role(builder.translator, [it.data["src"] for it in items], None, builder.src_lang, builder.tgt_lang)
    if builder.polyjuice is not None and "neg" in builder.phenomena:
        plan.add(builder.polyjuice, [polyjuice_prompt(it.data["ref"], it.data["ref"]) for it in items],
                 POLYJUICE_MAX_TOKENS)
    return plan


def bandit_plan(scorer, pulls: int, topic_names: Sequence[str], words: int, src_lang: str, tgt_lang: str,
                sampler=None, tree: tuple[Any, Sequence[str], int] | None = None) -> Plan:
    """The bandit: ``pulls`` = the budget; each pull is one ``sampler`` call (``--sampler llm``; the topics asked in
    turn), one translation per ``--mt`` and one QE call per QE spec and translation, on a stand-in text of ``words``
    words (the texts are not known before they are drawn). ``tree``: (llm, prompts, max_tokens) of ``--llm-topics``
    (one ontologist prompt per root domain)."""
    plan = Plan()
    if tree is not None:
        plan.add(tree[0], list(tree[1]), tree[2])
    if sampler is not None:
        plan.add(sampler.llm, [sampler.prompt(topic_names[i % len(topic_names)]) for i in range(pulls)],
                 sampler.max_tokens)
    stand_in = " ".join(["word"] * words)
    for translator in scorer.translators:
        plan.add_role(translator, [stand_in], None, src_lang, tgt_lang, times=pulls)
    plan.add_role(scorer.qe, [stand_in], [stand_in], src_lang, tgt_lang, times=pulls * len(scorer.translators))
    return plan
