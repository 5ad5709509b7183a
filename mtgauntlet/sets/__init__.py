"""Public challenge sets and human-judgment sets in and out, in the field's formats (``gauntlet import`` /
``gauntlet export``): each format has a reader (and a writer) in :mod:`mtgauntlet.sets.formats`."""
