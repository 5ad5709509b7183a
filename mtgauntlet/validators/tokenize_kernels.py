"""sacrebleu's ``13a`` tokenizer compiled (numba where installed, plain Python otherwise): texts as code points
in, tokens as exact integer ids out, for sentence BLEU over many texts
(`mtgauntlet.validators.sentence_lexical`).

Python does the plain string replacements of ``Tokenizer13a`` (``<skipped>``, ``-\\n``, newlines, the four HTML
entities: C-speed ``str.replace``); the compiled loop then applies the four rules of sacrebleu's
``TokenizerRegexp`` as ``re.sub`` does (left to right, non-overlapping, each on the output of the one before):
1. pad every character of ``[{-~[-` -&(-+:-@/]`` with spaces; 2. ``([^0-9])([.,])`` -> ``\\1 \\2 ``;
3. ``([.,])([^0-9])`` -> `` \\1 \\2``; 4. ``([0-9])(-)`` -> ``\\1 \\2 ``; and splits on the characters
``str.split()`` splits on (rules 2-3 run only on a text with a "." or ",", rule 4 only with a "-": no rule writes
them). Each token gets its id as it is split off, from an open-addressing table of the distinct tokens met so far
(in order of first occurrence), found by a 64-bit FNV-1a hash and compared code point by code point, so a hash
collision never merges two tokens. ``tests/validators/test_sentence_lexical.py`` compares the tokens with
sacrebleu's on thousands of texts. :func:`whitespace_code_points` is the one whitespace set of the lexical
kernels.
"""

from __future__ import annotations

import functools
import re

import numpy as np

from mtgauntlet.validators.lexical_kernels import table_shift

TOKEN_MULTIPLIER = 0x9E3779B97F4A7C15  # Fibonacci hashing: a token's slot is the top bits of hash * this


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
    4: ``([0-9])(-)`` -> ``\\1 \\2 ``. The first match at or after i is found, the text before it copied at once."""
    nd, i = 0, 0
    while True:
        j = i
        while j + 1 < n:
            x, y = src[j], src[j + 1]
            if rule == 2:
                if (y == 0x2E or y == 0x2C) and not _digit(x):
                    break
            elif rule == 3:
                if (x == 0x2E or x == 0x2C) and not _digit(y):
                    break
            elif y == 0x2D and _digit(x):
                break
            j += 1
        if j + 1 >= n:  # no match left
            dst[nd : nd + n - i] = src[i:n]
            return nd + n - i
        dst[nd : nd + j - i] = src[i:j]
        nd += j - i
        x, y = src[j], src[j + 1]
        if rule == 3:
            dst[nd], dst[nd + 1], dst[nd + 2], dst[nd + 3] = 0x20, x, 0x20, y
        else:
            dst[nd], dst[nd + 1], dst[nd + 2], dst[nd + 3] = x, 0x20, y, 0x20
        nd += 4
        i = j + 2


@_jit
def _token_table(cap):  # pragma: no cover - compiled
    """An empty table of distinct tokens: (slots, shift, slot -> token or -1, rows of (start, length, hash))."""
    slots = 2
    while slots < cap:
        slots *= 2
    return slots, table_shift(slots), np.full(slots, -1, np.int64), np.empty((slots // 2, 3), np.int64)


@_jit
def _grow_tokens(cap, n_dist, distinct, multiplier):  # pragma: no cover - compiled
    """The table of distinct tokens doubled (``cap`` slots -> 2 * cap), the tokens re-inserted."""
    cap, shift, table, grown = _token_table(2 * cap)
    grown[:n_dist] = distinct[:n_dist]
    for d in range(n_dist):
        slot = np.int64((np.uint64(grown[d, 2]) * multiplier) >> shift)
        while table[slot] >= 0:
            slot = (slot + 1) & (cap - 1)
        table[slot] = d
    return cap, shift, table, grown


@_jit
def _token_id(src, start, m, table, cap, shift, multiplier, distinct, n_dist, tok_codes, n_code):  # pragma: no cover
    """The index of the token ``src[start : start + m]`` among the distinct tokens: found by its 64-bit FNV-1a hash
    and compared code point by code point (a hash collision never merges two tokens), else added as ``n_dist``
    (its code points copied to ``tok_codes[n_code:]``; the table must have a free slot)."""
    h = np.uint64(14695981039346656037)
    for i in range(start, start + m):
        h = (h ^ np.uint64(src[i])) * np.uint64(1099511628211)
    key = np.int64(h)
    slot = np.int64((h * multiplier) >> shift)
    d = table[slot]
    while d >= 0:
        if distinct[d, 2] == key and distinct[d, 1] == m:
            same = True
            for x in range(m):
                if tok_codes[distinct[d, 0] + x] != src[start + x]:
                    same = False
                    break
            if same:
                return d
        slot = (slot + 1) & (cap - 1)
        d = table[slot]
    distinct[n_dist, 0], distinct[n_dist, 1], distinct[n_dist, 2] = n_code, m, key
    tok_codes[n_code : n_code + m] = src[start : start + m]
    table[slot] = n_dist
    return n_dist


@_jit
def _rule_1(codes, s, m, out):  # pragma: no cover - compiled
    """Rule 1 on " " + ``codes[s : s + m]`` + " " into ``out``: (length, whether a "." or "," occurs (rules 2-3 need
    one), whether a "-" does (rule 4 needs one); no rule writes them)."""
    nb = 0
    out[nb] = 0x20
    nb += 1
    dots, dashes = False, False
    for i in range(s, s + m):
        c = codes[i]
        if _symbol(c):
            out[nb] = 0x20
            out[nb + 1] = c
            out[nb + 2] = 0x20
            nb += 3
        else:
            out[nb] = c
            nb += 1
            dots |= c == 0x2E or c == 0x2C
            dashes |= c == 0x2D
    out[nb] = 0x20
    return nb + 1, dots, dashes


@_jit
def _split_ids(
    b, nb, is_space, table, cap, shift, multiplier, distinct, n_dist, tok_codes, n_code, tok_ids, n_tok
):  # pragma: no cover
    """The tokens of ``b[:nb]`` (split on ``is_space``) to their ids (``tok_ids[n_tok:]``); returns the new
    (n_tok, n_code, n_dist). The table must have room for every token."""
    i = 0
    while i < nb:
        if is_space[b[i]]:
            i += 1
            continue
        start = i  # the token: b[start:i]
        while i < nb and not is_space[b[i]]:
            i += 1
        d = _token_id(b, start, i - start, table, cap, shift, multiplier, distinct, n_dist, tok_codes, n_code)
        if d == n_dist:
            n_dist += 1
            n_code += i - start
        tok_ids[n_tok] = d + 1
        n_tok += 1
    return n_tok, n_code, n_dist


@_jit
def tokenize(codes, starts, lengths, is_space, slots, multiplier, tok_codes, tok_ids, per_line):  # pragma: no cover
    """The tokens of every text as exact ids (1.., in order of first occurrence; ``tok_ids``) and their number per
    text (``per_line``); returns (tokens, distinct tokens). Ids: :func:`_token_id`, in a table of ``slots`` at
    first (doubled at half load); ``tok_codes`` receives the code points of the distinct tokens only."""
    longest = 0
    for t in range(len(lengths)):
        longest = max(longest, lengths[t])
    cur = np.empty(3 * longest + 2, dtype=np.uint32)  # the text as the rules rewrite it (at most 3x + 2 long)
    other = np.empty(3 * longest + 2, dtype=np.uint32)
    cap, shift, table, distinct = _token_table(slots)
    n_tok, n_code, n_dist = 0, 0, 0
    for t in range(len(lengths)):
        s, m = starts[t], lengths[t]
        first = n_tok
        nb, dots, dashes = _rule_1(codes, s, m, cur)
        for rule in range(2, 5):
            if (rule < 4 and dots) or (rule == 4 and dashes):
                if len(other) < 2 * nb + 2:  # a rule at most doubles the text
                    other = np.empty(2 * len(other) + 2 * nb + 2, dtype=np.uint32)
                nb = _pair_rule(cur, nb, other, rule)
                cur, other = other, cur
        while 2 * (n_dist + (nb + 1) // 2) > cap:  # room for every token of this text
            cap, shift, table, distinct = _grow_tokens(cap, n_dist, distinct, multiplier)
        n_tok, n_code, n_dist = _split_ids(
            cur, nb, is_space, table, cap, shift, multiplier, distinct, n_dist, tok_codes, n_code, tok_ids, n_tok
        )
        per_line[t] = n_tok - first
    return n_tok, n_dist


@_jit
def punct_words(codes, starts, lengths, is_space, slots, multiplier, tok_codes, tok_ids, per_line):  # pragma: no cover
    """chrF++'s words as exact ids, like :func:`tokenize`: each text split as ``str.split()`` does, one leading or
    trailing punctuation mark of ``!"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~`` split off a word of 2 or more code points
    (sacrebleu's ``CHRF._remove_punctuation``: the trailing one first)."""
    cap, shift, table, distinct = _token_table(slots)
    n_tok, n_code, n_dist = 0, 0, 0
    for t in range(len(lengths)):
        i, end = starts[t], starts[t] + lengths[t]
        while i < end:
            if is_space[codes[i]]:
                i += 1
                continue
            j = i
            while j < end and not is_space[codes[j]]:
                j += 1
            cut = j  # the word codes[i:j], as codes[i:cut] and codes[cut:j]
            if j - i > 1:
                if _punct(codes[j - 1]):
                    cut = j - 1
                elif _punct(codes[i]):
                    cut = i + 1
            for a, b in ((i, cut), (cut, j)):
                if b > a:
                    if 2 * (n_dist + 1) > cap:
                        cap, shift, table, distinct = _grow_tokens(cap, n_dist, distinct, multiplier)
                    d = _token_id(codes, a, b - a, table, cap, shift, multiplier, distinct, n_dist, tok_codes, n_code)
                    if d == n_dist:
                        n_dist += 1
                        n_code += b - a
                    tok_ids[n_tok] = d + 1
                    per_line[t] += 1
                    n_tok += 1
            i = j
    return n_tok, n_dist


@_jit
def _punct(c):  # pragma: no cover - compiled
    """Whether code point c is one of sacrebleu's ``CHRF._PUNCTS`` (the ASCII punctuation)."""
    return (0x21 <= c <= 0x2F) or (0x3A <= c <= 0x40) or (0x5B <= c <= 0x60) or (0x7B <= c <= 0x7E)


@functools.cache
def whitespace_code_points() -> np.ndarray:
    """The code points ``str.split()`` splits on (``str.isspace``; sacrebleu's whitespace), found once: ``re``'s
    ``\\s`` (``Py_UNICODE_ISSPACE`` for str patterns, as ``str.isspace``) over one string of every code point but
    the surrogates (about 0.03 s; a loop over the 0x110000 code points takes ~0.13 s and gives the same 29)."""
    points = np.arange(0x110000, dtype=np.uint32)
    points = points[(points < 0xD800) | (points > 0xDFFF)]
    spaces = re.sub(r"\S+", "", points.tobytes().decode("utf-32-le"))
    return np.frombuffer(spaces.encode("utf-32-le"), dtype=np.uint32).copy()


@functools.cache
def is_space_table() -> np.ndarray:
    """``is_space[c]``: whether ``str.split()`` splits on code point c (computed once)."""
    table = np.zeros(0x110000, dtype=np.bool_)
    table[whitespace_code_points()] = True
    return table


def replacements_13a(line: str) -> str:
    """The plain replacements ``Tokenizer13a`` makes before its rules."""
    if "<skipped>" in line:
        line = line.replace("<skipped>", "")
    if "\n" in line:
        line = line.replace("-\n", "").replace("\n", " ")
    if "&" in line:
        line = line.replace("&quot;", '"').replace("&amp;", "&").replace("&lt;", "<").replace("&gt;", ">")
    return line


def token_ids_13a(
    lines: list[str], slots: int = 1024, multiplier: int | None = None
) -> tuple[np.ndarray, np.ndarray, int]:
    """(token ids, tokens per line, distinct tokens) of ``Tokenizer13a()(line).split()`` for each line: equal tokens
    get equal ids (1..), different tokens different ones. ``slots``, ``multiplier``: the id table's first size and
    hash multiplier (default ``TOKEN_MULTIPLIER``; tests force collisions with 0)."""
    return _token_ids(tokenize, [replacements_13a(t) for t in lines], slots, multiplier)


def punct_word_ids(
    lines: list[str], slots: int = 1024, multiplier: int | None = None
) -> tuple[np.ndarray, np.ndarray, int]:
    """(word ids, words per line, distinct words) of chrF++'s words (sacrebleu's ``CHRF._remove_punctuation``) of
    each line, as :func:`token_ids_13a`."""
    return _token_ids(punct_words, lines, slots, multiplier)


def _token_ids(kernel, lines: list[str], slots: int, multiplier: int | None) -> tuple[np.ndarray, np.ndarray, int]:
    codes = np.frombuffer("".join(lines).encode("utf-32-le", "surrogatepass"), dtype=np.uint32)
    lengths = np.fromiter(map(len, lines), dtype=np.int64, count=len(lines))
    starts = np.zeros(len(lines), dtype=np.int64)
    if len(lines) > 1:
        np.cumsum(lengths[:-1], out=starts[1:])
    cap = max(1, len(codes))
    tok_codes = np.empty(cap, dtype=np.uint32)
    tok_ids = np.empty(cap, dtype=np.uint32)
    per_line = np.zeros(len(lines), dtype=np.int64)
    spread = np.uint64(TOKEN_MULTIPLIER if multiplier is None else multiplier)
    n, distinct = kernel(codes, starts, lengths, is_space_table(), slots, spread, tok_codes, tok_ids, per_line)
    return tok_ids[:n], per_line, int(distinct)
