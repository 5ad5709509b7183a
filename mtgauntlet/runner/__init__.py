"""The build runner: shards, resume, atomic writes, manifest, signature."""

from mtgauntlet.runner.build_runner import BuildRunner, BuildSummary, item_rng
__all__ = ["BuildRunner", "BuildSummary", "item_rng"]
