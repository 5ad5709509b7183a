"""Recipes: a release as a versioned YAML file (parsed and checked here; run by `gauntlet run`).

``running.py`` holds ``mg.run`` and ``reproducing.py`` ``mg.reproduce``: the recipe runner sits above the API it
calls, so the API never imports it (``mtgauntlet/__init__.py`` maps the two names there)."""
