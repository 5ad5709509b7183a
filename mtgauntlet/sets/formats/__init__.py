"""One module per family of formats: a reader (``read_*``) returning an `ImportedSet` and a writer (``write_*``)."""
