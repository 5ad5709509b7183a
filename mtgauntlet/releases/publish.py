"""Publish a release to the Hugging Face Hub: one atomic commit (with ``parent_commit``) of exactly the
files the release manifest lists (plus the manifest), then the immutable tag ``vX.Y.Z`` on that commit;
refused when the tag exists with other files or the release does not verify (a changed, missing or extra file);
publishing a release whose tag already holds exactly its files does nothing (``already_published``).

What is uploaded is exactly what was verified: each file is copied into a private folder while it is
hashed, the copy is uploaded, and a file whose bytes no longer match the manifest (changed between
``verify`` and the upload) stops the publish before anything is created.

The token comes only from the environment (HF_TOKEN) or ``huggingface-cli login``, read by huggingface_hub
itself; mtgauntlet never reads, prints or writes it. ``--repo file:PATH`` publishes to a local git
repository with the same semantics (:mod:`mtgauntlet.releases.local_hub`).
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import re
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from mtgauntlet.errors import GauntletError
from mtgauntlet.releases.manifest import RELEASE_MANIFEST, read_manifest_bytes, verify_release
from mtgauntlet.releases.version import Version, check_name

KEEP_REMOTE = {".gitattributes"}
_REPO_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,95}/[A-Za-z0-9][A-Za-z0-9._-]{0,95}")


@dataclass
class PublishPlan:
    repo_id: str
    tag: str
    parent_commit: str | None
    operations: list[Any]
    commit_message: str
    remote: str  # "ok", "missing" (created on publish) or "unreachable"
    remote_error: str = ""
    commit: str | None = None  # set once published
    manifest_sha256: str = ""  # of the manifest bytes the plan was made from
    already_published: bool = False  # the tag already holds exactly these files: nothing to send

    @property
    def remote_checked(self) -> bool:
        return self.remote != "unreachable"

    def describe(self) -> str:
        state = {
            "ok": "",
            "missing": "  [repository does not exist yet: publishing creates it]",
            "unreachable": f"  [remote not reachable ({self.remote_error}): tag and parent not checked]",
        }
        if self.already_published:
            return (
                f"repo: {self.repo_id} (dataset)\ntag: {self.tag} already holds exactly this release (commit "
                f"{self.commit}): nothing to publish"
            )
        lines = [
            f"repo: {self.repo_id} (dataset)",
            f"parent_commit: {self.parent_commit or '(new branch)'}" + state[self.remote],
            f"commit message: {self.commit_message}",
            f"tag: {self.tag}",
            "operations:",
        ]
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

        path = repo[len("file:") :]
        if not path:
            raise GauntletError("--repo file:PATH needs a path")
        return LocalGitHub(path), path
    from huggingface_hub import HfApi

    if not _REPO_ID.fullmatch(repo):
        raise GauntletError(f"--repo must be ORG/NAME (or file:PATH), got {repo!r}")
    return HfApi(), repo


def _one_line(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    return f"{type(exc).__name__}: {text[0] if text else ''}".strip(": ")


def _remote_state(api, repo: str):
    """("ok", refs, "") | ("missing", None, "") | ("unreachable", None, why); other errors propagate."""
    from mtgauntlet.releases.local_hub import RepositoryMissing

    try:
        return "ok", api.list_repo_refs(repo, repo_type="dataset"), ""
    except RepositoryMissing:
        return "missing", None, ""
    except GauntletError:
        raise
    except Exception as exc:  # offline, DNS, refused connection, HTTP errors: nothing can be checked
        if type(exc).__name__ == "RepositoryNotFoundError":
            return "missing", None, ""
        return "unreachable", None, _one_line(exc)


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
        return (lfs.get("sha256") if isinstance(lfs, dict) else getattr(lfs, "sha256", None)) == sha256
    return getattr(remote, "blob_id", None) == git_blob_id(local)


def tag_holds(api, repo: str, tag: str, root: Path, manifest: dict[str, Any]) -> bool:
    """True when ``tag`` of ``repo`` holds exactly the release's files (the manifest's files and the manifest,
    the same bytes) and nothing else (``.gitattributes`` aside)."""
    remote = {
        f.path: f
        for f in api.list_repo_tree(repo, revision=tag, recursive=True, repo_type="dataset")
        if hasattr(f, "blob_id")
    }
    local = {f["path"]: f["sha256"] for f in manifest["files"]}
    local[RELEASE_MANIFEST] = hashlib.sha256((root / RELEASE_MANIFEST).read_bytes()).hexdigest()
    if set(remote) - KEEP_REMOTE != set(local):
        return False
    return all(_same_file(remote[rel], root / rel, sha) for rel, sha in local.items())


def plan_publish(release: str | Path, repo: str, api=None, branch: str = "main") -> PublishPlan:
    """Check the release (it must verify) and the remote; the operations upload exactly the manifest's files."""
    from huggingface_hub import CommitOperationAdd, CommitOperationDelete

    root = Path(release)
    manifest, raw = read_manifest_bytes(root)
    problems = verify_release(root)
    if problems:
        raise GauntletError(
            f"{root}: release does not verify ({len(problems)} problem(s), first: {problems[0]}); "
            "not publishing (run gauntlet verify for the list)"
        )
    version = Version.parse(manifest["version"])
    check_name(manifest["name"])
    if api is None:
        api, repo = make_api(repo)
    state, refs, why = _remote_state(api, repo)
    parent, remote_files = None, []
    message = f"Release {manifest['name']} {version}"
    if refs is not None:
        tagged = next((t for t in refs.tags if t.name == version.tag), None)
        if tagged is not None and tag_holds(api, repo, version.tag, root, manifest):
            return PublishPlan(
                repo,
                version.tag,
                None,
                [],
                message,
                state,
                why,
                commit=tagged.target_commit,
                manifest_sha256=hashlib.sha256(raw).hexdigest(),
                already_published=True,
            )
        if tagged is not None:
            raise GauntletError(
                f"{repo}: tag {version.tag} already exists and holds other files; releases are "
                "immutable, publish a new version"
            )
        parent = next((b.target_commit for b in refs.branches if b.name == branch), None)
        if parent:
            remote_files = api.list_repo_files(repo, revision=parent, repo_type="dataset")
    local = [f["path"] for f in manifest["files"]] + [RELEASE_MANIFEST]
    ops: list[CommitOperationAdd | CommitOperationDelete] = [
        CommitOperationAdd(path_in_repo=rel, path_or_fileobj=str(root / rel)) for rel in local
    ]
    keep = set(local) | KEEP_REMOTE
    ops += [CommitOperationDelete(path_in_repo=f) for f in sorted(remote_files) if f not in keep]
    return PublishPlan(
        repo, version.tag, parent, ops, message, state, why, manifest_sha256=hashlib.sha256(raw).hexdigest()
    )


def _copy_verified(src: Path, dest: Path, sha256: str) -> None:
    """Copy one file (never through a final symbolic link), hashing the bytes copied; refuse when they differ."""
    dest.parent.mkdir(parents=True, exist_ok=True)
    h = hashlib.sha256()
    try:
        fd = os.open(src, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0))
    except OSError as exc:
        raise GauntletError(f"{src}: cannot read it any more ({exc.strerror}); nothing was published") from None
    with os.fdopen(fd, "rb") as fh, open(dest, "wb") as out:
        for chunk in iter(lambda: fh.read(1 << 20), b""):
            h.update(chunk)
            out.write(chunk)
    if h.hexdigest() != sha256:
        raise GauntletError(
            f"{src}: changed after it was verified (sha256 {h.hexdigest()[:12]}…, manifest "
            f"{sha256[:12]}…); nothing was published"
        )


@contextlib.contextmanager
def verified_copy(release: Path, plan: PublishPlan) -> Iterator[Path]:
    """A private copy of exactly the bytes the plan verified: the manifest it was made from and every file
    it lists, each hashed while copied; the plan's uploads then read the copy."""
    from huggingface_hub import CommitOperationAdd

    with tempfile.TemporaryDirectory(prefix="mtgauntlet-publish-") as tmp:
        copy = Path(tmp)
        manifest, raw = read_manifest_bytes(release)
        if hashlib.sha256(raw).hexdigest() != plan.manifest_sha256:
            raise GauntletError(f"{release / RELEASE_MANIFEST}: changed after it was verified; nothing was published")
        for f in manifest["files"]:
            _copy_verified(release / f["path"], copy / f["path"], f["sha256"])
        (copy / RELEASE_MANIFEST).write_bytes(raw)
        shown = plan.operations
        plan.operations = [
            CommitOperationAdd(path_in_repo=op.path_in_repo, path_or_fileobj=str(copy / op.path_in_repo))
            if type(op).__name__ == "CommitOperationAdd"
            else op
            for op in shown
        ]
        try:
            yield copy
        finally:
            plan.operations = shown  # what the plan describes: the release's own paths


def publish(release: str | Path, repo: str, *, dry_run: bool = False, api=None, branch: str = "main") -> PublishPlan:
    """Publish (or, with ``dry_run``, only plan): nothing is created before the release and remote checks pass,
    and a repository created here is removed again when the commit fails."""
    if api is None:
        api, repo = make_api(repo)
    plan = plan_publish(release, repo, api=api, branch=branch)
    if dry_run or plan.already_published:  # publishing the same release again changes nothing
        return plan
    if plan.remote == "unreachable":
        raise GauntletError(f"{repo}: the remote is not reachable ({plan.remote_error}); nothing was published")
    with verified_copy(Path(release), plan):
        info = _commit_and_tag(api, repo, plan, branch)
    plan.commit = info.oid
    return plan


def _commit_and_tag(api, repo: str, plan: PublishPlan, branch: str):
    created = False
    try:
        if plan.remote == "missing":
            api.create_repo(repo, repo_type="dataset", exist_ok=False)
            created = True
        info = api.create_commit(
            repo_id=repo,
            operations=plan.operations,
            commit_message=plan.commit_message,
            repo_type="dataset",
            parent_commit=plan.parent_commit,
            revision=branch,
        )
    except Exception as exc:
        if created:
            with contextlib.suppress(Exception):
                api.delete_repo(repo, repo_type="dataset")
        if isinstance(exc, GauntletError):
            raise
        raise GauntletError(f"{repo}: publishing failed, nothing was published ({_one_line(exc)})") from None
    try:
        api.create_tag(repo, tag=plan.tag, revision=info.oid, repo_type="dataset", tag_message=plan.commit_message)
    except GauntletError:
        raise
    except Exception as exc:
        raise GauntletError(
            f"{repo}: committed {info.oid} but tagging {plan.tag} failed ({_one_line(exc)}); tag that commit by hand"
        ) from None
    return info
