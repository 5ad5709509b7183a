"""Pairwise chrF's exact n-gram keys (`mtgauntlet.validators.chrf_matrix.Symbols`): packed ids and, where packing
does not fit, exact ranks give sacrebleu's values on Latin, CJK and emoji texts."""

from __future__ import annotations

import random

import numpy as np
import pytest
from sacrebleu.metrics import CHRF

from mtgauntlet.validators import chrf_matrix
from mtgauntlet.validators.chrf_matrix import pairwise_chrf


@pytest.mark.parametrize("pack_bits", [64, 0])  # 0: every n-gram of order > 1 keyed by the exact rank
def test_pairwise_chrf_with_packed_and_ranked_keys_equals_sacrebleu(monkeypatch, pack_bits):
    monkeypatch.setattr(chrf_matrix, "PACK_BITS", pack_bits)
    rng = random.Random(3)
    words = ["the", "cat", "sat", "on", "mat.", "(a)", "東京", "日本の", "首都", "👍🏽", "é", "Hi!", "x-y"]
    texts = [" ".join(rng.choice(words) for _ in range(rng.randint(0, 12))) for _ in range(24)]
    texts += ["".join(chr(rng.randint(0x4E00, 0x9FFF)) for _ in range(40)) for _ in range(4)]  # > 64/6 bits each
    for metric, options in ((CHRF(), {}), (CHRF(word_order=2), {"word_order": 2})):
        want = np.array([[metric.sentence_score(h, [r]).score for r in texts] for h in texts])
        assert np.abs(pairwise_chrf(texts, **options) - want).max() < 1e-9
    assert len(np.unique(want.round(6))) > 50
