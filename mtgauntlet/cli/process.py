"""What the `gauntlet` process sets for itself: a fresh interpreter that runs one command and exits
(:func:`mtgauntlet.cli.main.main`). Nothing here runs when the package is imported, or when `run` is called in a
notebook or a test: a library does not change its host's interpreter.

- Cyclic garbage collection. A command keeps many long-lived objects (a catalog's items, score rows); with Python's
  default thresholds (a young collection every 700 new containers, a full one every so often) the collector walks
  them again and again: 0.8 s of a 30,000-pair `evaluate metric` run. The process collects young objects every
  ``YOUNG_EVERY`` new containers instead (cyclic garbage lives a little longer; reference counting frees the rest at
  once), and freezes what is left when the command ends, so that the interpreter's last collection does not walk
  it all once more (0.9 s after the same run) before it exits. What a reference cycle still holds then is not
  finalised by a collection: files, connections and writers are closed by the code that opens them, not left to
  the collector.
"""

from __future__ import annotations

import gc

YOUNG_EVERY = 100_000  # new container objects between two young collections (Python's default: 700)


def tune_collector() -> None:
    """Fewer cyclic collections for the rest of the process."""
    young, middle, old = gc.get_threshold()
    gc.set_threshold(max(young, YOUNG_EVERY), max(middle, 50), max(old, 100))


def skip_last_collection() -> None:
    """The objects alive now are left out of every later collection, the interpreter's last one included."""
    gc.freeze()
