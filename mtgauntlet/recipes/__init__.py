"""Recipes: a release as a versioned YAML file (parsed and checked here; run by `gauntlet run`)."""
