"""Publish a release to the Hugging Face Hub: one atomic commit (with ``parent_commit``) of the release
files + card, then the immutable tag ``vX.Y.Z`` on that commit; refused when the tag exists.

The token comes only from the environment (HF_TOKEN) or ``huggingface-cli login``, read by huggingface_hub
itself; mtgauntlet never reads, prints or writes it. ``--repo file:PATH`` publishes to a local git
repository with the same semantics (:mod:`mtgauntlet.releases.local_hub`).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from mtgauntlet.errors import GauntletError
from mtgauntlet.releases.release import RELEASE_MANIFEST, verify_release
from mtgauntlet.releases.version import Version

KEEP_REMOTE = {".gitattributes"}


@dataclass
class PublishPlan:
    repo_id: str
    tag: str
    parent_commit: str | None
    operations: list[Any]
    commit_message: str
    remote_checked: bool
    commit: str | None = None  # set once published

    def describe(self) -> str:
        lines = [f"repo: {self.repo_id} (dataset)", f"parent_commit: {self.parent_commit or '(new branch)'}"
                 + ("" if self.remote_checked else "  [remote not reachable: tag and parent not checked]"),
                 f"commit message: {self.commit_message}", f"tag: {self.tag}", "operations:"]
        for op in self.operations:
            name = type(op).__name__
            if name == "CommitOperationAdd":
                lines.append(f"  add    {op.path_in_repo}  <- {op.path_or_fileobj}")
            else:
                lines.append(f"  delete {op.path_in_repo}")
        return "\n".join(lines)


def make_api(repo: str):
    """(api, repo_id): HfApi for ORG/NAME, LocalGitHub for file:PATH."""
    if repo.startswith("file:"):
        from mtgauntlet.releases.local_hub import LocalGitHub

        path = repo[len("file:"):]
        return LocalGitHub(path), path
    from huggingface_hub import HfApi

    if repo.count("/") != 1:
        raise GauntletError(f"--repo must be ORG/NAME (or file:PATH), got {repo!r}")
    return HfApi(), repo


def plan_publish(release: str | Path, repo: str, api=None, branch: str = "main") -> PublishPlan:
    from huggingface_hub import CommitOperationAdd, CommitOperationDelete

    root = Path(release)
    problems = verify_release(root)
    if problems:
        raise GauntletError(f"{root}: release does not verify; not publishing:\n  " + "\n  ".join(problems))
    manifest = json.loads((root / RELEASE_MANIFEST).read_text(encoding="utf-8"))
    version = Version.parse(manifest["version"])
    if api is None:
        api, repo = make_api(repo)
    tag = version.tag
    parent, remote_files, checked = None, [], False
    try:
        refs = api.list_repo_refs(repo, repo_type="dataset")
        checked = True
    except Exception as exc:  # offline, missing repo, no permission
        if type(exc).__name__ not in ("RepositoryNotFoundError", "OfflineModeIsEnabled", "ConnectionError",
                                      "LocalEntryNotFoundError", "HfHubHTTPError", "GauntletError") \
                and "offline" not in str(exc).lower():
            raise
        refs = None
    if refs is not None:
        if any(t.name == tag for t in refs.tags):
            raise GauntletError(f"{repo}: tag {tag} already exists; releases are immutable, publish a new version")
        parent = next((b.target_commit for b in refs.branches if b.name == branch), None)
        if parent:
            remote_files = api.list_repo_files(repo, revision=parent, repo_type="dataset")
    local = sorted(p.relative_to(root).as_posix() for p in root.rglob("*") if p.is_file())
    ops = [CommitOperationAdd(path_in_repo=rel, path_or_fileobj=str(root / rel)) for rel in local]
    ops += [CommitOperationDelete(path_in_repo=f) for f in sorted(remote_files) if f not in local and f not in KEEP_REMOTE]
    return PublishPlan(repo, tag, parent, ops, f"Release {manifest['name']} {version}", checked)


def publish(release: str | Path, repo: str, *, dry_run: bool = False, api=None, branch: str = "main") -> PublishPlan:
    if api is None:
        api, repo = make_api(repo)
    if not dry_run:
        api.create_repo(repo, repo_type="dataset", exist_ok=True)
    plan = plan_publish(release, repo, api=api, branch=branch)
    if dry_run:
        return plan
    if not plan.remote_checked:
        raise GauntletError(f"{repo}: the Hub is not reachable (offline?); nothing was published")
    info = api.create_commit(repo_id=repo, operations=plan.operations, commit_message=plan.commit_message,
                             repo_type="dataset", parent_commit=plan.parent_commit, revision=branch)
    api.create_tag(repo, tag=plan.tag, revision=info.oid, repo_type="dataset", tag_message=plan.commit_message)
    plan.commit = info.oid
    return plan
