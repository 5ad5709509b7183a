"""The metric workbench: every pair and human-judgment set of a catalog scored by every metric, the scores stored
and sealed with their metric's signature, and the field's statistics as a leaderboard (``gauntlet evaluate metric
--out``; docs/workbench.md).

* :mod:`.sets`: which sets of the catalog, and the items a metric reads from them (with their content keys);
* :mod:`.metrics`: a metric spec or callable as a batch scorer with an exact signature;
* :mod:`.scoring`: only what is new scored, chunk by chunk, locally or on Ray;
* :mod:`.store`: the results folder, sealed like a release;
* :mod:`.leaderboard`: the statistics of one metric on one set.
"""
