"""Versioned releases, manifests, the DuckDB catalog and Hub publishing."""
