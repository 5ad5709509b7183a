"""Whether a release is already published: its tag exists and holds exactly the release's files, byte for
byte (so a recipe run again after publishing does nothing new, and a tag holding anything else is still
refused by `gauntlet publish`)."""

from __future__ import annotations

from pathlib import Path

from mtgauntlet.releases.manifest import read_manifest, verify_release
from mtgauntlet.releases.publish import make_api, tag_holds
from mtgauntlet.releases.version import Version


def tag_holds_release(release: str | Path, repo: str) -> bool:
    """True when ``repo``'s tag for this release's version holds exactly its files (the manifest's files and
    the manifest, same bytes) and the release verifies; False otherwise (publishing then decides)."""
    root = Path(release)
    manifest = read_manifest(root)
    if verify_release(root):
        return False
    tag = Version.parse(manifest["version"]).tag
    api, repo_id = make_api(repo)
    try:
        if not any(t.name == tag for t in api.list_repo_refs(repo_id, repo_type="dataset").tags):
            return False
        return tag_holds(api, repo_id, tag, root, manifest)
    except Exception:  # a missing repository, an unreachable remote: `gauntlet publish` says what it is
        return False
