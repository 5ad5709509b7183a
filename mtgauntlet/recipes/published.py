"""Whether a release is already published: its tag exists and holds exactly the release's files, byte for
byte (so a recipe run again after publishing does nothing new, and a tag holding anything else is still
refused by `gauntlet publish`)."""

from __future__ import annotations

import hashlib
from pathlib import Path

from mtgauntlet.fileio import sha256_file
from mtgauntlet.releases.manifest import RELEASE_MANIFEST, read_manifest, verify_release
from mtgauntlet.releases.publish import KEEP_REMOTE, make_api
from mtgauntlet.releases.version import Version


def git_blob_id(path: Path) -> str:
    """The git object id of a file's bytes (what a Hub or git tree lists for a file not stored in LFS)."""
    digest = hashlib.sha1(f"blob {path.stat().st_size}\0".encode())
    with open(path, "rb") as fh:
        for chunk in iter(lambda: fh.read(1 << 20), b""):
            digest.update(chunk)
    return digest.hexdigest()


def _same_file(remote, local: Path, sha256: str) -> bool:
    lfs = getattr(remote, "lfs", None)
    if lfs is not None:
        return getattr(lfs, "sha256", None) == sha256
    return getattr(remote, "blob_id", None) == git_blob_id(local)


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
        remote = {f.path: f for f in api.list_repo_tree(repo_id, revision=tag, recursive=True, repo_type="dataset")
                  if hasattr(f, "blob_id")}
    except Exception:  # a missing repository, an unreachable remote: `gauntlet publish` says what it is
        return False
    local = {f["path"]: f["sha256"] for f in manifest["files"]}
    local[RELEASE_MANIFEST] = sha256_file(root / RELEASE_MANIFEST)
    if set(remote) - KEEP_REMOTE != set(local):
        return False
    return all(_same_file(remote[rel], root / rel, sha) for rel, sha in local.items())
