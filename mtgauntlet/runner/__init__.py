"""The build runner: shards, resume, atomic writes, manifest, signature."""

from mtgauntlet.core.builds import item_rng
from mtgauntlet.runner.build_runner import BuildRunner
from mtgauntlet.runner.build_summary import BuildSummary

__all__ = ["BuildRunner", "BuildSummary", "item_rng"]
