"""Human judgments as ``gauntlet evaluate dec`` reads them (`mtgauntlet.api.evaluating.evaluate_dec`): the rows of
a named layout or a plain table, and a summary of their protocols and human translations."""

from __future__ import annotations

from mtgauntlet.errors import UsageError


def load_judgments(
    path: str, format: str | None, mapping: str | None, protocol: str | None, quoting: str | None = None
):
    """Judgment rows of a named layout or a plain table; human translations are kept and marked ``human``."""
    from mtgauntlet.corpora.formats import READERS, sniff_named_format
    from mtgauntlet.corpora.judgment_formats import read_judgments
    from mtgauntlet.corpora.readers import parse_column_map

    named = format or sniff_named_format(path)
    if named in ("google-mqm", "wmt23-mtme", "wmt23-esa"):
        if protocol:
            raise UsageError(f"--protocol: the {named} layout has its own protocol")
        return READERS[named](path, keep_refs=True).rows
    return read_judgments(
        path, columns=parse_column_map(mapping), protocol=protocol, keep_refs=True, quoting=quoting
    ).rows


def judgment_summary(rows, include_human: bool) -> dict:
    """Which protocol each lp uses and where it came from; which human translations there are, and whether
    they count (the paper's DEC ranks items over MT systems and human translators)."""
    protocols: dict[str, set] = {}
    for r in rows:
        protocols.setdefault(r["lp"], set()).add(f"{r['protocol']} ({r.get('protocol_source', 'layout')})")
    human = sorted({r["system"] for r in rows if r.get("human")})
    return {
        "protocols": {lp: sorted(v) for lp, v in sorted(protocols.items())},
        "include_human": include_human,
        "human_systems": human,
        "human_rows": sum(1 for r in rows if r.get("human")),
    }
