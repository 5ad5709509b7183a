"""The names of every metric `gauntlet validate` can compute, so a rules file naming anything else is an error: each
registered validator rule (:mod:`mtgauntlet.validators.registry`) declares the names it computes.

A rule on a metric that exists but was not computed for this set (no NLI backend, no LM) is reported
NOT CHECKED; a rule on a name that no validator computes (a typo such as ``chrf_diversty``) is refused
when the rules file is read.
"""

from __future__ import annotations

from mtgauntlet.validators.registry import is_known, suggestion

__all__ = ["is_known", "suggestion"]
