"""Writing a release directory: staged beside its target, renamed into place when complete.

* One writer per release name at a time: an exclusive ``flock`` on the ``name=NAME`` directory.
* Holding that lock, any ``.version=*.tmp`` folder left there is the remains of a killed release (a
  live writer would hold the lock), so it is removed before the new release starts.
* Directories are created with the process umask like any other file writer (``tempfile.mkdtemp``
  would make them 0700, unreadable to other users and services).
"""

from __future__ import annotations

import contextlib
import logging
import os
import shutil
from collections.abc import Iterator
from pathlib import Path

from mtgauntlet.atomic import atomic_dir
from mtgauntlet.errors import GauntletError

log = logging.getLogger(__name__)


@contextlib.contextmanager
def _name_lock(folder: Path) -> Iterator[None]:
    try:
        import fcntl
    except ImportError:  # no flock (Windows): no concurrent-writer protection, no stale cleanup
        yield
        return
    fd = os.open(folder, os.O_RDONLY)
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise GauntletError(
                f"{folder}: another release of this name is being written; try again when it has finished"
            ) from None
        yield
    finally:
        os.close(fd)  # closing the descriptor releases the lock


def remove_stale_staging(folder: Path) -> list[Path]:
    """Remove the staging folders of killed releases in ``folder`` (call with the name lock held)."""
    stale = sorted(p for p in folder.glob(".version=*.tmp") if p.is_dir())
    for p in stale:
        shutil.rmtree(p, ignore_errors=True)
        log.warning("removed %s, left by an interrupted release", p)
    return stale


def _umask() -> int:
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


@contextlib.contextmanager
def staged_release_dir(target: Path) -> Iterator[Path]:
    """Yield an empty staging directory; on success it becomes ``target`` (never overwritten)."""
    target = Path(target)
    target.parent.mkdir(parents=True, exist_ok=True)  # the umask applies
    with _name_lock(target.parent):
        remove_stale_staging(target.parent)
        if target.exists():
            raise GauntletError(
                f"{target} already exists: releases are immutable; release a changed build as a new version"
            )
        with atomic_dir(target) as tmp:  # .version=X.Y.Z.<random>.tmp, renamed into place on success
            os.chmod(tmp, 0o777 & ~_umask())  # mkdtemp makes it 0700
            yield tmp
