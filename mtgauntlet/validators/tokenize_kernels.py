"""sacrebleu's ``13a`` tokenizer compiled (numba where installed, plain Python otherwise): texts as code points
in, tokens as exact integer ids out, for sentence BLEU over many texts
(`mtgauntlet.validators.sentence_lexical`).

Python does the plain string replacements of ``Tokenizer13a`` (``<skipped>``, ``-\\n``, newlines, the four HTML
entities: C-speed ``str.replace``); the compiled loop then applies the four rules of sacrebleu's
``TokenizerRegexp`` as ``re.sub`` does (left to right, non-overlapping, each on the output of the one before):
1. pad every character of ``[{-~[-` -&(-+:-@/]`` with spaces; 2. ``([^0-9])([.,])`` -> ``\\1 \\2 ``;
3. ``([.,])([^0-9])`` -> `` \\1 \\2``; 4. ``([0-9])(-)`` -> ``\\1 \\2 ``; and splits on the characters
``str.split()`` splits on. Token ids are exact: tokens are grouped by a 64-bit hash and compared code point by code
point inside a group, so a collision never merges two tokens. ``tests/validators/test_sentence_lexical.py``
compares the tokens with sacrebleu's on thousands of texts.
"""

from __future__ import annotations

import numpy as np


def _jit(fn):
    try:
        from numba import njit
    except ModuleNotFoundError:  # pragma: no cover - exercised only without numba
        return fn
    return njit(cache=True, nogil=True)(fn)


@_jit
def _symbol(c):  # pragma: no cover - compiled
    return (
        (0x7B <= c <= 0x7E)
        or (0x5B <= c <= 0x60)
        or (0x20 <= c <= 0x26)
        or (0x28 <= c <= 0x2B)
        or (0x3A <= c <= 0x40)
        or c == 0x2F
    )


@_jit
def _digit(c):  # pragma: no cover - compiled
    return 0x30 <= c <= 0x39


@_jit
def _pair_rule(src, n, dst, rule):  # pragma: no cover - compiled
    """One of the rules 2-4 over ``src[:n]`` into ``dst`` (as ``re.sub``: left to right, non-overlapping); returns
    the length written. 2: ``([^0-9])([.,])`` -> ``\\1 \\2 ``; 3: ``([.,])([^0-9])`` -> `` \\1 \\2``;
    4: ``([0-9])(-)`` -> ``\\1 \\2 ``."""
    nd, i = 0, 0
    while i < n:
        if i + 1 < n:
            x, y = src[i], src[i + 1]
            if rule == 2:
                hit = not _digit(x) and (y == 0x2E or y == 0x2C)
            elif rule == 3:
                hit = (x == 0x2E or x == 0x2C) and not _digit(y)
            else:
                hit = _digit(x) and y == 0x2D
            if hit:
                if rule == 3:
                    dst[nd], dst[nd + 1], dst[nd + 2], dst[nd + 3] = 0x20, x, 0x20, y
                else:
                    dst[nd], dst[nd + 1], dst[nd + 2], dst[nd + 3] = x, 0x20, y, 0x20
                nd += 4
                i += 2
                continue
        dst[nd] = src[i]
        nd += 1
        i += 1
    return nd


@_jit
def tokenize(codes, starts, lengths, is_space, tok_codes, tok_start, tok_len, tok_hash, tok_text):  # pragma: no cover
    """Tokens of every text: their code points (``tok_codes``), start, length, 64-bit hash and text; returns the
    number of tokens."""
    longest = 0
    for t in range(len(lengths)):
        longest = max(longest, lengths[t])
    a = np.empty(3 * longest + 2, dtype=np.uint32)
    b = np.empty(2 * len(a) + 2, dtype=np.uint32)
    n_tok, n_code = 0, 0
    for t in range(len(lengths)):
        s, m = starts[t], lengths[t]
        # rule 1 on " " + line + " "
        na = 0
        a[na] = 0x20
        na += 1
        for i in range(s, s + m):
            c = codes[i]
            if _symbol(c):
                a[na] = 0x20
                a[na + 1] = c
                a[na + 2] = 0x20
                na += 3
            else:
                a[na] = c
                na += 1
        a[na] = 0x20
        na += 1
        nb = _pair_rule(a, na, b, 2)
        if len(a) < 2 * nb:  # rule 3 writes back into a: at most 3/2 of b... grow if needed
            a = np.empty(2 * nb, dtype=np.uint32)
        na = _pair_rule(b, nb, a, 3)
        if len(b) < 2 * na:
            b = np.empty(2 * na, dtype=np.uint32)
        nb = _pair_rule(a, na, b, 4)
        # split on whitespace
        i = 0
        while i < nb:
            if is_space[b[i]]:
                i += 1
                continue
            tok_start[n_tok] = n_code
            h = np.uint64(14695981039346656037)
            while i < nb and not is_space[b[i]]:
                tok_codes[n_code] = b[i]
                h = (h ^ np.uint64(b[i])) * np.uint64(1099511628211)
                n_code += 1
                i += 1
            tok_len[n_tok] = n_code - tok_start[n_tok]
            tok_hash[n_tok] = h
            tok_text[n_tok] = t
            n_tok += 1
    return n_tok


@_jit
def exact_ids(order, tok_codes, tok_start, tok_len, tok_hash, ids):  # pragma: no cover - compiled
    """Dense ids (1..) of the tokens, equal exactly for equal tokens (``order``: the tokens sorted by hash); returns
    the number of distinct tokens."""
    n = len(order)
    reps = np.empty(n, dtype=np.int64)  # the first token of each distinct id met in the current hash group
    rep_ids = np.empty(n, dtype=np.int64)
    next_id = 0
    k = 0
    while k < n:
        g_end = k
        while g_end < n and tok_hash[order[g_end]] == tok_hash[order[k]]:
            g_end += 1
        n_reps = 0
        for q in range(k, g_end):
            t = order[q]
            found = -1
            for r in range(n_reps):
                u = reps[r]
                if tok_len[u] == tok_len[t]:
                    same = True
                    for x in range(tok_len[t]):
                        if tok_codes[tok_start[u] + x] != tok_codes[tok_start[t] + x]:
                            same = False
                            break
                    if same:
                        found = rep_ids[r]
                        break
            if found < 0:
                next_id += 1
                reps[n_reps] = t
                rep_ids[n_reps] = next_id
                n_reps += 1
                found = next_id
            ids[t] = found
        k = g_end
    return next_id


_SPACE: list[np.ndarray] = []


def is_space_table() -> np.ndarray:
    """``is_space[c]``: whether ``str.split()`` splits on code point c (computed once)."""
    if not _SPACE:
        table = np.zeros(0x110000, dtype=np.bool_)
        table[[c for c in range(0x110000) if chr(c).isspace()]] = True
        _SPACE.append(table)
    return _SPACE[0]


def replacements_13a(line: str) -> str:
    """The plain replacements ``Tokenizer13a`` makes before its rules."""
    if "<skipped>" in line:
        line = line.replace("<skipped>", "")
    if "\n" in line:
        line = line.replace("-\n", "").replace("\n", " ")
    if "&" in line:
        line = line.replace("&quot;", '"').replace("&amp;", "&").replace("&lt;", "<").replace("&gt;", ">")
    return line


def token_ids_13a(lines: list[str]) -> tuple[np.ndarray, np.ndarray, int]:
    """(token ids, tokens per line, distinct tokens) of ``Tokenizer13a()(line).split()`` for each line."""
    lines = [replacements_13a(t) for t in lines]
    codes = np.frombuffer("".join(lines).encode("utf-32-le", "surrogatepass"), dtype=np.uint32)
    lengths = np.fromiter(map(len, lines), dtype=np.int64, count=len(lines))
    starts = np.zeros(len(lines), dtype=np.int64)
    if len(lines) > 1:
        np.cumsum(lengths[:-1], out=starts[1:])
    cap = max(1, len(codes))
    tok_codes = np.empty(cap, dtype=np.uint32)
    tok_start, tok_len, tok_text = (np.empty(cap, dtype=np.int64) for _ in range(3))
    tok_hash = np.empty(cap, dtype=np.uint64)
    n = tokenize(codes, starts, lengths, is_space_table(), tok_codes, tok_start, tok_len, tok_hash, tok_text)
    tok_start, tok_len, tok_hash, tok_text = tok_start[:n], tok_len[:n], tok_hash[:n], tok_text[:n]
    ids = np.empty(n, dtype=np.int64)
    distinct = exact_ids(np.argsort(tok_hash, kind="stable"), tok_codes, tok_start, tok_len, tok_hash, ids)
    per_line = np.bincount(tok_text, minlength=len(lines)).astype(np.int64)
    return ids, per_line, int(distinct)
