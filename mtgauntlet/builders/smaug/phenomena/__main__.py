"""``python -m mtgauntlet.builders.smaug.phenomena [--write docs/methods/smaug.md]``: print the phenomenon table, or
write it into the page between its markers."""

from __future__ import annotations

import sys
from pathlib import Path

from mtgauntlet.builders.smaug.phenomena import docs_table, with_docs_table

if sys.argv[1:2] == ["--write"] and len(sys.argv) == 3:
    path = Path(sys.argv[2])
    path.write_text(with_docs_table(path.read_text(encoding="utf-8")), encoding="utf-8")
else:
    print(docs_table())
