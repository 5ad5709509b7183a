"""Corpus readers: tables, named layouts and language tags."""
