"""TSV/CSV parsing with quoting detection.

Two conventions exist in the wild and both must load exactly:

* standard quoting (Python's ``csv``, pandas, spreadsheets: QUOTE_MINIMAL): a field holding the delimiter,
  a quote or a line break is wrapped in ``"…"`` with inner quotes doubled;
* no quoting at all (the WMT MQM tables, many TSV dumps): a ``"`` is a literal character, even unbalanced.

``quoting='auto'`` (the default) parses both ways when the file has a field that starts with a quote and
keeps the reading under which every row has the header's field count; when both readings fit and differ,
it reads standard quoting only where a writer that quotes would have produced the file (a quoted field
holding a quote, or a quoted header), since such writers never quote a plain word.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

QUOTING = ("auto", "csv", "none")


@dataclass
class Parsed:
    """Header plus (line, fields) rows; ``error`` is (line, message) when the parse broke off."""

    header: list[str]
    rows: list[tuple[int, list[str]]]
    error: tuple[int, str] | None = None

    def bad_widths(self) -> int:
        width = len(self.header)
        return sum(1 for _, f in self.rows if len(f) != width)


def _crlf(text: str) -> bool:
    """A file's line ends are CRLF when its header line ends so (writers use one terminator for every row);
    then a CR before each row's LF is part of the line end, elsewhere a CR is part of the text."""
    end = text.find("\n")
    return end > 0 and text[end - 1] == "\r"


def parse_none(text: str, delimiter: str) -> Parsed:
    """Split lines and fields; quotes are ordinary characters."""
    crlf = _crlf(text)
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    if not lines:
        return Parsed([], [])
    if crlf:
        lines = [line.removesuffix("\r") for line in lines]
    header = lines[0].split(delimiter)
    rows = [(i, line.split(delimiter)) for i, line in enumerate(lines[1:], start=2) if line != ""]
    return Parsed(header, rows)


def parse_csv(text: str, delimiter: str) -> Parsed:
    """Standard quoting, strict: a field that starts with a quote must be a closed quoted field ("" inside
    stands for one quote) followed by the delimiter or the line end. Only LF (or the file's CRLF) ends a
    row, so a bare CR inside an unquoted field is text, as pandas writes it."""
    crlf = _crlf(text)
    d = re.escape(delimiter)
    token = re.compile(rf'"((?:[^"]|"")*)"|([^{d}\n"][^{d}\n]*|)')
    rows: list[tuple[int, list[str]]] = []
    header: list[str] | None = None
    pos, n, line = 0, len(text), 1
    while pos < n:
        row_line, row_start, fields = line, pos, []
        while True:
            m = token.match(text, pos)
            if m is None or m.end() == pos and pos < n and text[pos] == '"':
                return Parsed(
                    header or [],
                    rows,
                    (
                        line + text.count("\n", row_start, pos),
                        "malformed quoted field (a quote that does not close a field)",
                    ),
                )
            quoted = m.group(1) is not None
            value = m.group(1).replace('""', '"') if quoted else m.group(2)
            pos = m.end()
            if pos < n and text.startswith(delimiter, pos):
                fields.append(value)
                pos += len(delimiter)
                continue
            if pos >= n or text[pos] == "\n":
                end = 1
            elif quoted and text.startswith("\r\n", pos):
                end = 2
            else:
                return Parsed(
                    header or [],
                    rows,
                    (line + text.count("\n", row_start, pos), "malformed quoted field (text after the closing quote)"),
                )
            if crlf and not quoted and value.endswith("\r"):
                value = value[:-1]
            fields.append(value)
            pos = min(pos + end, n) if pos < n else n
            break
        line = row_line + text.count("\n", row_start, pos)
        if header is None:
            header = fields
        elif fields != [""]:
            rows.append((row_line, fields))
    return Parsed(header or [], rows)


def _starts_quoted(text: str, delimiter: str) -> bool:
    return re.search(r"(?:^|[\n" + re.escape(delimiter) + r'])"', text) is not None


def _header_quoted(text: str, delimiter: str) -> bool:
    first = text.split("\n", 1)[0].removesuffix("\r")
    cells = first.split(delimiter)
    return bool(cells) and all(len(c) >= 2 and c.startswith('"') and c.endswith('"') for c in cells)


def choose(text: str, delimiter: str, quoting: str) -> tuple[Parsed, str]:
    """Parse ``text`` with the given quoting ('auto' decides); returns the parse and the quoting used."""
    if quoting not in QUOTING:
        raise ValueError(f"quoting must be one of {', '.join(QUOTING)}")
    if quoting == "none" or (quoting == "auto" and not _starts_quoted(text, delimiter)):
        return parse_none(text, delimiter), "none"
    quoted = parse_csv(text, delimiter)
    if quoting == "csv":
        return quoted, "csv"
    plain = parse_none(text, delimiter)
    if quoted.error is not None:
        return plain, "none"
    q_bad, p_bad = quoted.bad_widths(), plain.bad_widths()
    if q_bad != p_bad:
        return (quoted, "csv") if q_bad < p_bad else (plain, "none")
    if quoted.header == plain.header and [f for _, f in quoted.rows] == [f for _, f in plain.rows]:
        return plain, "none"
    if len(quoted.rows) != len(plain.rows):  # quoted fields span lines: rows do not pair up
        evidence = _header_quoted(text, delimiter) or '""' in text
    else:
        evidence = _header_quoted(text, delimiter) or any(
            '"' in c for (_, qf), (_, pf) in zip(quoted.rows, plain.rows) for c, p in zip(qf, pf) if c != p
        )
    return (quoted, "csv") if evidence else (plain, "none")
