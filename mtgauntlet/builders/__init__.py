"""Builders: one module per method (SMAUG, MT-breaker and zero-shot, bandit topic search, difficulty-selected subsets)."""
