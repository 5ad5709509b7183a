"""``python -m mtgauntlet.validators [--write docs/validation.md]``: print the table of registered validator rules,
or write it into the page between its markers."""

from __future__ import annotations

import sys
from pathlib import Path

from mtgauntlet.validators.registry import docs_table, with_docs_table

if sys.argv[1:2] == ["--write"] and len(sys.argv) == 3:
    path = Path(sys.argv[2])
    path.write_text(with_docs_table(path.read_text(encoding="utf-8")), encoding="utf-8")
else:
    print(docs_table())
