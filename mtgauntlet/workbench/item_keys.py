"""Item keys: the content hash of what a metric reads of an item (source, hypothesis, reference, languages).

`item_key` is the definition: the first 16 hex digits of the sha256 of the compact JSON array
``[src,hyp,ref,src_lang,tgt_lang]`` (``ensure_ascii=False``, UTF-8). Stored scores keep their keys and later runs
reuse them, so the definition never changes. `item_keys` computes the same keys for whole Arrow columns: the JSON of
each column once (`json_strings`), the arrays joined by Arrow, one hash per item in one loop.
"""

from __future__ import annotations

import hashlib
import json
from json.encoder import encode_basestring  # the C encoder json.dumps uses (ensure_ascii=False)

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

# the bytes JSON escapes in a string (``encode_basestring``): the quote, the backslash, the control characters (in
# UTF-8 no byte of a multi-byte character is below 0x80, so a byte of these is the character itself)
_ESCAPED = bytes([*range(0x20), 0x22, 0x5C])
_NOT_ESCAPED = bytes(b for b in range(256) if b not in _ESCAPED)
_IS_ESCAPED = np.zeros(256, dtype=bool)
_IS_ESCAPED[list(_ESCAPED)] = True


def item_key(src: str | None, hyp: str | None, ref: str | None, src_lang: str | None, tgt_lang: str | None) -> str:
    blob = json.dumps([src, hyp, ref, src_lang, tgt_lang], ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(blob.encode("utf-8")).hexdigest()[:16]


def _escaped_rows(values: pa.Array) -> np.ndarray:
    """The rows of a string array holding a byte JSON escapes (none, found in one pass, in the usual case)."""
    _, offsets, data = values.buffers()
    if data is None or not len(values):
        return np.zeros(0, dtype=np.int64)
    ends = np.frombuffer(offsets, dtype=np.int32)[values.offset : values.offset + len(values) + 1]
    first, last = int(ends[0]), int(ends[-1])
    if not data.slice(first, last - first).to_pybytes().translate(None, _NOT_ESCAPED):
        return np.zeros(0, dtype=np.int64)
    at = np.flatnonzero(_IS_ESCAPED[np.frombuffer(data, dtype=np.uint8)[first:last]]) + first
    rows = np.unique(np.searchsorted(ends, at, side="right") - 1)
    if values.null_count:  # a null slot may keep bytes (Arrow allows it): it is null all the same
        rows = rows[values.is_valid().to_numpy(zero_copy_only=False)[rows]]
    return rows


def json_strings(values: pa.Array) -> pa.Array:
    """The JSON of each string of ``values`` as ``json.dumps(..., ensure_ascii=False)`` writes it (``null`` for a
    null): a string with nothing to escape is itself between quotes; the others (a quote, a backslash or a control
    character in them) go through json's own encoder."""
    values = values.cast(pa.string())
    quoted = pc.binary_join_element_wise('"', values, '"', "")
    rows = _escaped_rows(values)
    if rows.size:
        mask = np.zeros(len(values), dtype=bool)
        mask[rows] = True
        escaped = [encode_basestring(s) for s in values.take(pa.array(rows)).to_pylist()]
        quoted = pc.replace_with_mask(quoted, pa.array(mask), pa.array(escaped, pa.string()))
    return pc.fill_null(quoted, "null") if values.null_count else quoted


def _hashes(blobs: pa.Array) -> list[str]:
    """`item_key`'s hash of each (UTF-8) string of ``blobs`` (16 hex digits: the first 8 bytes of the digest)."""
    sha = hashlib.sha256
    return [sha(b).digest()[:8].hex() for b in blobs.cast(pa.binary()).to_pylist()]


def item_keys(
    src: pa.Array, hyps: list[pa.Array], ref: pa.Array, src_lang: pa.Array, tgt_lang: pa.Array
) -> list[list[str]]:
    """`item_key` of each record's hypotheses (one list per column of ``hyps``), for Arrow string columns of equal
    length (a null is JSON's null, as `item_key` writes None)."""
    head = pc.binary_join_element_wise("[", json_strings(src), "")
    tail = pc.binary_join_element_wise(json_strings(ref), json_strings(src_lang), json_strings(tgt_lang), ",")
    tail = pc.binary_join_element_wise(tail, "]", "")
    return [_hashes(pc.binary_join_element_wise(head, json_strings(h), tail, ",")) for h in hyps]
