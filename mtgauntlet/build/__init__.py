from mtgauntlet.build.runner import BuildRunner, BuildSummary, load_records

__all__ = ["BuildRunner", "BuildSummary", "load_records"]
