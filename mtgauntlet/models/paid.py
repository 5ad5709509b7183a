"""The usage/cost hook of paid backends: each request through the answer cache, the budget and the usage ledger.

A paid backend says what one request is and what it may cost; this module does the rest, the same way for every
paid backend: an answer already in the output cache (:mod:`.cache`) is not asked again (counted ``cached``); a
request to send first passes the run's budget (``--max-cost`` / ``--max-requests``, :meth:`.usage.Ledger.reserve`)
with what it may cost at most; its answer is stored in the cache the moment it arrives (a kill after it does not
pay it again) and its billed units are recorded in :data:`.usage.LEDGER` (``input_tokens`` / ``output_tokens``:
the units the backend's ``#price`` is quoted in, per 1M: tokens, or characters for a per-character API); a request
that fails is counted in ``failures``. ``--dry-run`` asks the same backend for the same bounds (:meth:`plan_calls`).

:class:`PaidTranslator` is the hook for a translation API: a subclass declares ``options`` (with ``price`` as
``COST`` and its credentials as ``SECRET``) and writes two methods, :meth:`~PaidTranslator.bound` and
:meth:`~PaidTranslator.send`; the registry parses ``#price``, registers the spec in the ledger and refuses a spec
without a price under ``--max-cost`` before anything is sent (:func:`.registry.load`). docs/contributing.md walks
through one.
"""

from __future__ import annotations

from abc import abstractmethod
from collections.abc import Sequence

from mtgauntlet.core import cache
from mtgauntlet.core.paid_run import stop_if_draining
from mtgauntlet.core.usage import LEDGER, Price, RunStopped
from mtgauntlet.models.base import Translator


class PaidTranslator(Translator):
    """A translator that pays per request. ``price`` (USD per 1M units in / out) and ``usage_key`` (the spec as
    the ledger and build.json name it: no credential) are set by the registry before ``__init__``; ``unit`` names
    what the price is quoted per 1M of (``"characters"`` for a per-character API: usage lines say so)."""

    unit: str = "tokens"
    price: Price | None = None
    usage_key: str = ""
    cache_spec: str = ""  # the public spec: a change of price or pace keeps the cached answers

    @abstractmethod
    def bound(self, text: str, src_lang: str, tgt_lang: str) -> tuple[int, int]:
        """The units (in, out) one request for ``text`` may be billed at most: budgets reserve it before the
        request is sent, ``--dry-run`` adds it up."""

    @abstractmethod
    def send(self, text: str, src_lang: str, tgt_lang: str) -> tuple[str, int, int]:
        """Send one request: (its translation, units billed in, units billed out)."""

    def translate(self, texts: Sequence[str], src_lang: str, tgt_lang: str) -> list[str]:
        """Translations in input order; each distinct text is asked once, cached answers are not asked again."""
        params = {"src": src_lang, "tgt": tgt_lang}
        keys, found = cache.lookup(self.cache_spec, "translate", params, list(texts))
        todo = cache.missing_indices(keys, found) if self.cache_spec else list(range(len(keys)))
        LEDGER.add(self.usage_key, cached=len(keys) - len(todo))
        for i in todo:
            found[keys[i]] = self._paid(texts[i], src_lang, tgt_lang)
            cache.store(self.cache_spec, [(keys[i], found[keys[i]])])  # the moment it arrives
        return [found[k] for k in keys]  # (a text given twice is asked once)

    def _paid(self, text: str, src_lang: str, tgt_lang: str) -> str:
        most = self.price.cost(*self.bound(text, src_lang, tgt_lang)) if self.price is not None else 0.0
        try:  # waits while only requests in flight stand in the way; raises BudgetSpent when it cannot fit
            LEDGER.reserve(self.usage_key, most)  # and journals the request before it is sent
        except RunStopped:
            stop_if_draining()
            raise
        try:
            answer, units_in, units_out = self.send(text, src_lang, tgt_lang)
        except BaseException:  # no answer: perhaps billed all the same, so it stays unanswered at its bound
            LEDGER.add(self.usage_key, failures=1)
            LEDGER.abandon(most)
            raise
        LEDGER.settle(self.usage_key, most, requests=1, input_tokens=units_in, output_tokens=units_out)
        stop_if_draining()
        return answer

    def plan_calls(self, plan, sources, translations, src_lang, tgt_lang, times=1) -> None:
        plan.add_calls(self.usage_key, self.price, [self.bound(s, src_lang, tgt_lang) for s in sources], times)
