"""Content-addressed cache of model outputs (SQLite), keyed by backend spec + method + params + input.

Re-runs and resumed builds do not pay twice for the same model call. Location:
``$MTGAUNTLET_CACHE_DIR/outputs.sqlite`` (default ``~/.cache/mtgauntlet``); ``MTGAUNTLET_CACHE=off``
disables it. Only deterministic calls should be cached (greedy decoding, or a fixed seed in params).
"""

from __future__ import annotations

import hashlib
import json
import os
import sqlite3
import threading
from collections.abc import Callable, Collection, Sequence
from pathlib import Path
from typing import Any

from mtgauntlet.errors import GauntletError

_LOCK = threading.Lock()
_CONN: dict[str, sqlite3.Connection] = {}


def cache_path() -> Path | None:
    if os.environ.get("MTGAUNTLET_CACHE", "on").lower() in ("off", "0", "no", "false"):
        return None
    base = Path(os.environ.get("MTGAUNTLET_CACHE_DIR", Path.home() / ".cache" / "mtgauntlet"))
    return base / "outputs.sqlite"


def _conn() -> sqlite3.Connection | None:
    path = cache_path()
    if path is None:
        return None
    key = str(path)
    if key not in _CONN:
        path.parent.mkdir(parents=True, exist_ok=True)
        con = sqlite3.connect(key, timeout=30, check_same_thread=False)
        con.execute("PRAGMA journal_mode=WAL")
        con.execute("PRAGMA synchronous=NORMAL")  # each answer is committed as it arrives: durable past a kill
        con.execute("CREATE TABLE IF NOT EXISTS outputs (key TEXT PRIMARY KEY, value TEXT NOT NULL)")
        _CONN[key] = con
    return _CONN[key]


def make_key(spec: str, method: str, params: Any, item: Any) -> str:
    blob = json.dumps([spec, method, params, item], sort_keys=True, ensure_ascii=False, default=str)
    return hashlib.sha256(blob.encode("utf-8")).hexdigest()


def lookup(spec: str, method: str, params: Any, items: Sequence[Any]) -> tuple[list[str], dict[str, Any]]:
    """(key of each item, cached values by key); nothing is found when the cache is off or ``spec`` is empty."""
    keys = [make_key(spec, method, params, it) for it in items]
    con = _conn()
    found: dict[str, Any] = {}
    if con is None or not spec:
        return keys, found
    with _LOCK:
        for i in range(0, len(keys), 500):
            chunk = keys[i : i + 500]
            q = f"SELECT key, value FROM outputs WHERE key IN ({','.join('?' * len(chunk))})"
            found.update({k: json.loads(v) for k, v in con.execute(q, chunk)})
    return keys, found


def store(spec: str, pairs: Sequence[tuple[str, Any]]) -> None:
    """Write (key, value) pairs; safe from several threads (one lock) and processes (SQLite WAL)."""
    con = _conn()
    if con is None or not spec or not pairs:
        return
    with _LOCK:
        con.executemany(
            "INSERT OR REPLACE INTO outputs (key, value) VALUES (?, ?)",
            [(k, json.dumps(v, ensure_ascii=False)) for k, v in pairs],
        )
        con.commit()


def missing_indices(keys: Sequence[str], found: dict[str, Any]) -> list[int]:
    """Positions of the first occurrence of each key not in ``found`` (each distinct input is computed once)."""
    seen: set[str] = set()
    out = []
    for i, k in enumerate(keys):
        if k not in found and k not in seen:
            seen.add(k)
            out.append(i)
    return out


def cached_map(
    spec: str, method: str, params: Any, items: Sequence[Any], compute: Callable[[list[Any]], list[Any]]
) -> list[Any]:
    """Return ``compute(items)`` element-wise, computing only the items not cached yet."""
    if _conn() is None or not spec:
        return list(compute(list(items)))
    keys, found = lookup(spec, method, params, items)
    missing = missing_indices(keys, found)
    if missing:
        values = list(compute([items[i] for i in missing]))
        if len(values) != len(missing):
            raise RuntimeError(f"{spec}.{method} returned {len(values)} results for {len(missing)} inputs")
        store(spec, [(keys[i], v) for i, v in zip(missing, values)])
        for i, v in zip(missing, values):
            found[keys[i]] = v
    return [found[k] for k in keys]


def parse_options(arg: str) -> tuple[str, dict[str, str]]:
    """'path#file=x.gguf,labels=a+b' -> ('path', {'file': 'x.gguf', 'labels': 'a+b'}); an option given twice is
    an error (which one would win is a guess). Which options a backend knows: its class's ``options``
    (``registry.options_of``)."""
    main, sep, opts = arg.partition("#")
    out: dict[str, str] = {}
    if sep:
        for part in opts.split(","):
            if part:
                k, _, v = part.partition("=")
                if k.strip() in out:
                    raise GauntletError(f"spec {arg!r}: option #{k.strip()} is given twice")
                out[k.strip()] = v.strip()
    return main, out


def take_options(arg: str, names: Collection[str]) -> tuple[str, dict[str, str]]:
    """A wrapper's own ``#`` options taken out of the spec it wraps: ``('openai:m@u#json=1,spans=1', {'spans'})``
    -> ``('openai:m@u#json=1', {'spans': '1'})``; the other options stay as written, for the wrapped backend."""
    main, sep, opts = arg.partition("#")
    parse_options(arg)  # an option given twice is an error here too
    keep, own = [], {}
    for part in opts.split(",") if sep else ():
        key, _, value = part.partition("=")
        if key.strip() in names:
            own[key.strip()] = value.strip()
        elif part:
            keep.append(part)
    return main + ("#" + ",".join(keep) if keep else ""), own


def flag_option(value: str | None, name: str, spec: str) -> bool:
    """A ``#name=1`` / ``#name=0`` option (absent: off; ``#name`` alone: on); anything else is a one-line error."""
    if value is None or value.lower() in ("0", "false", "no", "off"):
        return False
    if value.lower() in ("", "1", "true", "yes", "on"):
        return True
    raise GauntletError(f"spec {spec!r}: #{name}={value!r} must be 1 or 0")
