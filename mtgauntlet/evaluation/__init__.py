"""Evaluation: metric robustness on challenge pairs (SMAUG eq. 1-2) and difficulty estimators (DEC)."""
