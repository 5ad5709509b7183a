"""``--dry-run``: how many API calls a build or score command would send, with an estimate of tokens and cost, from
the rendered prompts and the generation budgets — computed before, and instead of, any request.

Counted per paid spec (each backend plans its own calls: ``Backend.plan_calls``; local models cost nothing
and are left out): one call per prompt a run sends when
every answer is usable at once; unusable answers are retried (up to the roles' ``retries``), so a real run may send
more. Input tokens are the rendered prompts' characters / 4 (the servers' tokenizers differ; the rule of thumb is
within ~20% for English); MT-breaker's follow-ups, which contain translations not known yet, are estimated with
the seed text in their place, and its conversation grows by one exchange per step. Output tokens are at most the
calls' ``max_tokens``: the cost shown is an upper bound for the output side.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

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
        self.add_calls(key, getattr(llm, "price", None), [(tokens(t), max_tokens) for t in prompt_texts], times)

    def add_calls(self, key: str, price, calls: Iterable[tuple[int, int]], times: int = 1) -> None:
        """``times`` calls of the paid spec ``key`` per (input units, most output units) pair."""
        entry = self.calls.setdefault(key, [0, 0, 0, price])
        for units_in, units_out in calls:
            entry[0] += times
            entry[1] += times * units_in
            entry[2] += times * units_out

    def add_role(
        self,
        backend,
        sources: Sequence[str],
        translations: Sequence[str] | None,
        src_lang: str | None,
        tgt_lang: str | None,
        times: int = 1,
    ) -> None:
        """The calls of a translator / QE / difficulty role (an ensemble's members too) on these texts, as each
        backend plans them (``Backend.plan_calls``)."""
        for member in getattr(backend, "backends", None) or [backend]:
            getattr(member, "plan_calls", lambda *a: None)(self, sources, translations, src_lang, tgt_lang, times)

    def lines(self) -> list[str]:
        out = []
        for spec, (calls, tin, tout, price) in sorted(self.calls.items()):
            cost = f", at most ${price.cost(tin, tout):.4f}" if price is not None else " (no #price: cost unknown)"
            out.append(f"{spec}: {calls} calls, ~{tin} input tokens, at most {tout} output tokens{cost}")
        total = sum(p.cost(t, o) for _, t, o, p in self.calls.values() if p is not None)
        if not out:
            return ["dry run: no API call (only local models); nothing was sent"]
        return [
            "dry run: nothing was sent; estimated calls (one try each; retries of unusable answers add more):",
            *(f"  {line}" for line in out),
            f"  total: at most ${total:.4f} for the priced specs",
        ]


def role_plan(
    backend,
    sources: Sequence[str],
    translations: Sequence[str] | None = None,
    src_lang: str | None = None,
    tgt_lang: str | None = None,
) -> Plan:
    """One call per text of a scoring role (``score qe``, ``score difficulty``, ``build subset``)."""
    plan = Plan()
    plan.add_role(backend, sources, translations, src_lang, tgt_lang)
    return plan
