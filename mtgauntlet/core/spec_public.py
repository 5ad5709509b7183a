"""What of a model spec may be written out: the *public* form of a spec, and secrets redacted from any text.

A spec such as ``openai:m@http://alice:S3CRET@host/v1#key=sk-1,price=1/2,json=1`` carries three kinds of
things: what is computed (the backend, the model, the URL's host and path, ``#json=1``), how a run goes (its price,
pace, batch mode, timeouts) and how it gets in (user info in a URL, a ``key=``-like option). Records, signatures,
build.json, release manifests and cards name a model by :func:`public_spec` (``openai:m@http://host/v1#json=1``):
a change of price or pace does not change a record, and a credential is never published. The backend itself is
loaded from the full spec, so it still connects with the credential. :func:`redact_secrets` masks credentials in
free text (error messages, log lines, warnings), including the values of secrets seen in this process.

Which option is which is declared once, by the backend classes (``Backend.options`` in :mod:`.base`: option name
-> one of the kinds below); :func:`mtgauntlet.models.registry.public_spec` reads those declarations and applies
:func:`public_form`. An option a backend does not declare that looks like a credential (:data:`SECRET_NAME`:
``api_key``, ``token``, ``password``, ...) is a secret all the same. This module imports nothing of the package.
"""

from __future__ import annotations

import re
import threading
import urllib.parse
from collections.abc import Callable, Mapping
from typing import Any

# the kinds of spec options; kinds in DROPPED never reach a record, a signature or a published file
ANSWER = "answer"  # changes what is computed (``#json=1``, ``#retries=2``, a model file): kept
PLACE = "place"  # where a model runs (``#device``, ``#dtype``): kept here, stripped for caches by models.runtime
COST = "cost"  # what a run costs, never what it answers (``#price``, the Batch API)
PACE = "pace"  # how fast it goes (``#rpm``, ``#concurrency``, a batch size, a timeout)
ACCESS = "access"  # how to get in (``#key_env``: the name of the variable holding the key)
SECRET = "secret"  # a credential (``#key``): never written anywhere, masked in messages
KINDS = (ANSWER, PLACE, COST, PACE, ACCESS, SECRET)
DROPPED = frozenset({COST, PACE, ACCESS, SECRET})
# a word of the name (``_``/``-`` separated) says credential: ``api_key``, ``access_token``; not ``max_tokens``
SECRET_NAME = re.compile(
    r"(?i)(^|[_-])(api_?key|key|token|secret|password|passwd|pwd|auth|credentials?|bearer|cookie)"
    r"($|[_-])"
)
MASK = "***"
_MIN_REMEMBERED = 4  # shorter secret values are masked where they stand, not wherever they occur
_USERINFO = re.compile(r"(?i)\b([a-z][a-z0-9+.-]*://)([^/?#\s'\"<>]*)@")
# an option where a spec, a URL query or a quoted/listed value has one (``#key=``, ``,token=``, ``'key=``, `` key=``)
_OPTION = re.compile(r"(?:(?<=[#,?&;'\"\s(])|^)([A-Za-z_][\w-]*)=([^,#&;\s'\"|<>()\[\]{}]*)")
_SPEC_HEAD = re.compile(r"^[a-z][a-z0-9_-]*[:#]")
_SEEN: set[str] = set()
_LOCK = threading.Lock()


def option_kind(name: str, declared: Mapping[str, str] | None = None) -> str:
    """The kind of option ``name`` as ``declared`` (a backend's option table) says, else ``secret`` when the name
    looks like a credential, else ``answer`` (kept)."""
    name = name.strip().lower()
    if declared and name in declared:
        return declared[name]
    if name.endswith("_env"):  # ``key_env``: the name of the variable that holds the key, not the key
        return ACCESS
    return SECRET if SECRET_NAME.search(name) else ANSWER


def is_secret_option(name: str, declared: Mapping[str, str] | None = None) -> bool:
    return option_kind(name, declared) == SECRET


def split_userinfo(url: str) -> tuple[str, tuple[str, str] | None]:
    """``http://alice:pw@host/v1`` -> (``http://host/v1``, (``alice``, ``pw``)), percent-decoded; (url, None)
    when the URL carries no user info. The credential is remembered, so :func:`redact_secrets` masks it."""
    match = _USERINFO.search(url)
    if not match:
        return url, None
    user, _, password = match.group(2).partition(":")
    _remember(match.group(2), password or user)
    return url[: match.start(2)] + url[match.end() :], (urllib.parse.unquote(user), urllib.parse.unquote(password))


KindsOf = Callable[[str], Mapping[str, str]]  # one spec (a pivot leg) -> its backend's declared option kinds


def public_form(value: Any, kinds_of: KindsOf) -> Any:
    """A model spec as records, signatures and published files name it: no user info in its URLs and none of
    the options whose kind (``kinds_of(spec)``) is in :data:`DROPPED` (``openai:m@http://u:p@h/v1#price=1/2,key=s,
    json=1`` -> ``openai:m@http://h/v1#json=1``). Lists and tuples are mapped; a string not written as a spec (no
    backend name before a ``:`` or ``#``) only loses URL user info; anything else comes back as it was. A spec
    without such parts comes back unchanged. The values of secret options are remembered for
    :func:`redact_secrets`."""
    if isinstance(value, (list, tuple)):
        return type(value)(public_form(v, kinds_of) for v in value)
    if not isinstance(value, str):
        return value
    return ">".join(_public_part(part, kinds_of) for part in value.split(">"))  # pivots: bergamot:en-pt>apertium:pt-es


def _public_part(spec: str, kinds_of: KindsOf) -> str:
    spec, _ = _strip_all_userinfo(spec)
    head, sep, opts = spec.partition("#")
    if not sep or not _is_spec(spec):
        return spec
    declared = kinds_of(spec)
    kept = []
    for part in opts.split(","):
        name, eq, val = part.partition("=")
        kind = option_kind(name, declared)
        if kind == SECRET and eq:
            _remember(val.strip())
        if part and kind not in DROPPED:
            kept.append(part)
    return head + ("#" + ",".join(kept) if kept else "")


def _strip_all_userinfo(text: str) -> tuple[str, bool]:
    found = False
    while True:
        stripped, cred = split_userinfo(text)
        if cred is None:
            return text, found
        text, found = stripped, True


def _is_spec(value: str) -> bool:
    """Written as a spec: a backend name (``openai``, ``llm-as-qe``) before the first ``:`` or ``#``. Judged by
    the form, not by the registry, so that this module imports nothing of the package (no import cycles)."""
    return _SPEC_HEAD.match(value) is not None


def redact_secrets(text: Any) -> str:
    """``text`` with every credential masked as ``***``: URL user info (``http://***@host``), the values of
    ``key=``-like spec options (``#key=***``) and any secret value seen in this process's specs. For error
    messages, log lines and warnings; text without secrets comes back unchanged."""
    text = str(text)
    if "@" in text:

        def userinfo(m: re.Match) -> str:
            user, _, password = m.group(2).partition(":")
            _remember(m.group(2), password or user)
            return f"{m.group(1)}{MASK}@"

        text = _USERINFO.sub(userinfo, text)
    if "=" in text:

        def option(m: re.Match) -> str:
            if not is_secret_option(m.group(1)) or not m.group(2) or m.group(2) == MASK:
                return m.group(0)
            _remember(m.group(2))
            return f"{m.group(1)}={MASK}"

        text = _OPTION.sub(option, text)
    with _LOCK:
        seen = sorted(_SEEN, key=len, reverse=True)
    for secret in seen:
        if secret in text:
            text = text.replace(secret, MASK)
    return text


def redact_json(value: Any) -> Any:
    """:func:`redact_secrets` over every string of a JSON-like value, keys included (a build manifest, usage)."""
    if isinstance(value, str):
        return redact_secrets(value)
    if isinstance(value, dict):
        return {redact_json(k): redact_json(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [redact_json(v) for v in value]
    return value


def remember_secret(value: str | None) -> None:
    """Mask ``value`` (a key read from the environment, say) in every text :func:`redact_secrets` sees from now on:
    a server that quotes the key back in an error body does not get it printed."""
    if value:
        _remember(value)


def _remember(*values: str) -> None:
    with _LOCK:
        for value in values:
            for form in {value, urllib.parse.unquote(value)}:
                if len(form) >= _MIN_REMEMBERED and form != MASK:
                    _SEEN.add(form)
