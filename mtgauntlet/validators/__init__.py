"""Quality checks with thresholds and a machine-readable report (`gauntlet validate`)."""
