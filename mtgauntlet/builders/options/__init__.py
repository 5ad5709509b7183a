"""The options of each builder, declared once: one dataclass per builder (subset.py, smaug.py, breaker.py for
MT-breaker and zero-shot, bandit.py), its fields made with `mtgauntlet.options.option` (the options several
commands share: `mtgauntlet.shared_options`). `mtgauntlet.options` turns a dataclass into the API's signature,
docstring and range checks; the CLI (``mtgauntlet.cli.declared``) and recipes (``mtgauntlet.recipes.options``)
read the same fields. ``builds=False`` marks what never changes the records (where to, how fast, whether at all)."""

BREAKER_SHARD_SIZE = 16  # items advanced together by mtbreaker/zeroshot (requests in flight <= items per shard)


def arxiv_citation(key: str, title: str, author: str, eprint: str, year: int = 2025) -> str:
    """The BibTeX entry of an arXiv preprint (cs.CL), as a method's card cites it."""
    return (
        f"@misc{{{key},\n  title = {{{title}}},\n  author = {{{author}}},\n  year = {{{year}}},\n"
        f"  eprint = {{{eprint}}},\n  archivePrefix = {{arXiv}},\n  primaryClass = {{cs.CL}}\n}}"
    )
