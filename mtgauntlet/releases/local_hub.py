"""A local git repository with the Hub's commit and tag semantics (``--repo file:PATH``).

Implements the few ``HfApi`` methods publishing uses — list_repo_refs, list_repo_files, list_repo_tree,
create_repo, create_commit (with ``parent_commit`` compare-and-swap) and create_tag (refusing existing
tags) — with git plumbing, so a release can be mirrored to any git remote, and publishing is testable offline.

PATH may be a bare repository (created by the first publish) or an existing repository with a work
tree; commits are built in a private index with ``update-index --index-info`` (adds and removals alike),
which needs no work tree, so a version that removes or renames files publishes like on the Hub.
"""

from __future__ import annotations

import os
import subprocess
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from mtgauntlet.errors import GauntletError


class RepositoryMissing(GauntletError):
    """The repository does not exist yet (publishing creates it)."""


@dataclass
class Ref:
    name: str
    ref: str
    target_commit: str


@dataclass
class Refs:
    branches: list[Ref] = field(default_factory=list)
    tags: list[Ref] = field(default_factory=list)


@dataclass
class CommitInfo:
    oid: str
    commit_message: str


@dataclass
class TreeFile:
    path: str
    blob_id: str
    lfs: None = None


class LocalGitHub:
    def __init__(self, path: str | Path):
        self.path = Path(path)

    def _git(self, *args: str, env: dict | None = None, input: bytes | None = None) -> str:
        res = subprocess.run(
            ["git", "-C", str(self.path), *args],
            capture_output=True,
            input=input,
            env={
                **os.environ,
                "GIT_AUTHOR_NAME": "mtgauntlet",
                "GIT_AUTHOR_EMAIL": "mtgauntlet@localhost",
                "GIT_COMMITTER_NAME": "mtgauntlet",
                "GIT_COMMITTER_EMAIL": "mtgauntlet@localhost",
                **(env or {}),
            },
        )
        if res.returncode != 0:
            raise GauntletError(f"git {' '.join(args[:2])} failed in {self.path}: {res.stderr.decode().strip()}")
        return res.stdout.decode().strip()

    def exists(self) -> bool:
        """Whether PATH holds a git repository; a PATH that exists but is not one is an error."""
        if self.path.is_dir() and ((self.path / "HEAD").is_file() or (self.path / ".git").exists()):
            return True
        if self.path.exists() and (not self.path.is_dir() or any(self.path.iterdir())):
            raise GauntletError(
                f"{self.path}: exists and is not a git repository (file:PATH must be a git repository or a new path)"
            )
        return False

    def create_repo(self, repo_id: str = "", repo_type: str = "dataset", exist_ok: bool = True, **_):
        if self.exists():
            if not exist_ok:
                raise GauntletError(f"{self.path}: repository exists")
            return
        res = subprocess.run(["git", "init", "--bare", "-q", "-b", "main", str(self.path)], capture_output=True)
        if res.returncode != 0:
            raise GauntletError(f"git init failed in {self.path}: {res.stderr.decode().strip().splitlines()[-1]}")

    def delete_repo(self, repo_id: str = "", repo_type: str = "dataset", **_):
        """Remove a repository this session created (a publish that failed before its first commit)."""
        import shutil

        shutil.rmtree(self.path, ignore_errors=True)

    def list_repo_refs(self, repo_id: str = "", repo_type: str = "dataset", **_) -> Refs:
        if not self.exists():
            raise RepositoryMissing(f"{self.path}: no repository yet")
        out = self._git("for-each-ref", "--format=%(refname) %(objectname) %(*objectname)")
        refs = Refs()
        for line in out.splitlines():
            parts = line.split()
            name, obj = parts[0], parts[1]
            target = parts[2] if len(parts) > 2 else obj  # annotated tags: the commit they point to
            if name.startswith("refs/heads/"):
                refs.branches.append(Ref(name[len("refs/heads/") :], name, obj))
            elif name.startswith("refs/tags/"):
                refs.tags.append(Ref(name[len("refs/tags/") :], name, target))
        return refs

    def list_repo_files(
        self, repo_id: str = "", revision: str | None = None, repo_type: str = "dataset", **_
    ) -> list[str]:
        if not revision:
            return []
        out = self._git("ls-tree", "-r", "--name-only", revision)
        return out.splitlines() if out else []

    def list_repo_tree(
        self, repo_id: str = "", revision: str | None = None, recursive: bool = True, repo_type: str = "dataset", **_
    ) -> list[TreeFile]:
        """The files at ``revision`` with their git blob ids (as HfApi.list_repo_tree; no LFS here)."""
        out = self._git("ls-tree", "-r", "-z", revision or "HEAD")
        files = []
        for entry in filter(None, out.split("\0")):
            meta, path = entry.split("\t", 1)
            files.append(TreeFile(path, meta.split()[2]))
        return files

    def create_commit(
        self,
        repo_id: str,
        operations,
        commit_message: str,
        repo_type: str = "dataset",
        parent_commit: str | None = None,
        revision: str = "main",
        **_,
    ) -> CommitInfo:
        branch = f"refs/heads/{revision}"
        current = next((b.target_commit for b in self.list_repo_refs().branches if b.name == revision), None)
        if parent_commit != current:
            raise GauntletError(
                f"{revision} moved: expected parent {parent_commit}, found {current} (someone "
                "committed meanwhile); publish again"
            )
        with tempfile.TemporaryDirectory() as tmp:
            env = {"GIT_INDEX_FILE": str(Path(tmp) / "index")}
            if current:
                self._git("read-tree", current, env=env)
            entries = []
            for op in operations:
                kind = type(op).__name__
                path = op.path_in_repo
                if any(c in path for c in "\t\n\0") or path.startswith("/") or ".." in path.split("/"):
                    raise GauntletError(f"refusing to publish the path {path!r}")
                if kind == "CommitOperationAdd":
                    src = op.path_or_fileobj
                    data = Path(src).read_bytes() if isinstance(src, (str, Path)) else src.read()
                    blob = self._git("hash-object", "-w", "--stdin", input=data)
                    entries.append(f"100644 {blob}\t{path}")
                elif kind == "CommitOperationDelete":
                    entries.append(f"0 {'0' * 40}\t{path}")  # mode 0 removes the entry; no work tree needed
                else:
                    raise GauntletError(f"unsupported operation {kind}")
            if entries:
                self._git("update-index", "--index-info", env=env, input=("\n".join(entries) + "\n").encode())
            tree = self._git("write-tree", env=env)
        args = ["commit-tree", tree, "-m", commit_message] + (["-p", current] if current else [])
        commit = self._git(*args)
        # compare-and-swap: fails if the branch moved since `current` was read
        self._git("update-ref", branch, commit, current or "0" * 40)
        return CommitInfo(oid=commit, commit_message=commit_message)

    def create_tag(
        self,
        repo_id: str,
        tag: str,
        revision: str,
        repo_type: str = "dataset",
        tag_message: str | None = None,
        exist_ok: bool = False,
        **_,
    ):
        if any(t.name == tag for t in self.list_repo_refs().tags):
            if exist_ok:
                return
            raise GauntletError(f"tag {tag} already exists in {self.path}: tags are immutable")
        self._git("tag", "-a", tag, revision, "-m", tag_message or tag)
