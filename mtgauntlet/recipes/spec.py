"""Recipe files: a whole release (its builds, validation, audit and publishing) as one versioned YAML file,
parsed into typed dataclasses before any work starts.

A build entry uses exactly the names of its CLI command's options (``src-lang`` or ``src_lang``), so a
recipe is the commands written down; the option definitions are those of the Python API functions a run calls,
which take exactly the commands' options (passed in as :class:`OptionDef` tables:
:mod:`mtgauntlet.recipes.options`). Every error — an unknown key, a wrong type,
a missing input file — names the recipe file, the line and the key.

Example::

    recipe: 1
    release: {name: demo-es-en, version: 0.1.0, license: cc-by-sa-4.0, description: "..."}
    builds:
      smaug:
        builder: smaug
        input: data/sample_es_en.tsv
        src-lang: es
        tgt-lang: en
        src-col: es
        ref-col: en
        translator: apertium
    validate: {rules: rules.yaml}
    audit: true
    publish: {repo: file:../hub}
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from mtgauntlet.errors import GauntletError, InputError
from mtgauntlet.fileio import sha256_file  # noqa: F401  (re-exported for recipe users)
from mtgauntlet.recipes.yaml_load import load_yaml

RECIPE_VERSION = 1
INPUT_OPTIONS = ("input", "seeds", "corpus", "topics", "judgments")  # options that name input files
STEP_PATH_OPTIONS = ("rules", "against")  # step options that name existing files or folders
RUNNER_OWNED = ("out", "overwrite")  # set by `gauntlet run`, never by the recipe
_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,63}")


def resolve_in(folder: Path, value: str) -> Path:
    """A recipe's path ``value`` (``~`` expanded), relative ones against the recipe's ``folder``."""
    path = Path(value).expanduser()
    return path if path.is_absolute() else folder / path


@dataclass(frozen=True)
class OptionDef:
    """One option as a recipe sees it (read from the signature of the API function: recipes.options)."""

    name: str  # dash form, e.g. "src-lang"
    type: str  # "str" | "int" | "float" | "bool"
    default: Any = None
    required: bool = False
    multiple: bool = False
    min: float | None = None
    max: float | None = None
    off: str | None = None  # the negative flag of a bool option that defaults to true ("no-language-guard")
    choices: tuple[str, ...] | None = None  # the values it takes, where the declaration names them


PROVENANCE_FIELDS = ("license", "name", "url", "citation", "license_name", "license_link", "hub_id")


@dataclass
class ReleaseSpec:
    name: str
    version: str
    license: str | None = None
    description: str | None = None
    pretty_name: str | None = None
    license_name: str | None = None
    license_link: str | None = None
    url: str | None = None
    creator: list[str] | None = None
    provenance: dict[str, dict[str, str]] | None = None  # DATASET -> {license: ID, name: ..., url: ...}

    def provenance_statements(self) -> list[str]:
        """``provenance`` as the release's ``DATASET:FIELD=VALUE`` statements (``--provenance``)."""
        return [
            f"{dataset}:{key}={value}"
            for dataset, fields in (self.provenance or {}).items()
            for key, value in fields.items()
        ]


@dataclass
class BuildSpec:
    id: str
    builder: str
    options: dict[str, Any]  # user-given options, dash names, typed
    line: int | None = None
    sha256: dict[str, str] = field(default_factory=dict)  # pinned input hashes: option name -> sha256

    def inputs(self) -> dict[str, str]:
        return {k: v for k, v in self.options.items() if k in INPUT_OPTIONS and isinstance(v, str)}


@dataclass
class StepSpec:
    """validate / publish / audit: options of that CLI command."""

    options: dict[str, Any] = field(default_factory=dict)


@dataclass
class Recipe:
    path: Path
    release: ReleaseSpec
    builds: list[BuildSpec]
    validate: StepSpec | None = None
    audit: StepSpec | None = None
    publish: StepSpec | None = None
    origin: str | None = None  # a resolved recipe: the folder of the recipe it was made from (see resolve_path)
    lines: dict[tuple, int] = field(default_factory=dict, repr=False)  # line of each key, by key path

    def error(self, message: str, *path) -> InputError:
        """An error naming this recipe's file, the line of ``path`` and the key."""
        return _Where(str(self.path), self.lines).error(message, *path)

    @property
    def base(self) -> Path:
        return self.path.parent

    def resolve_path(self, value: str) -> Path:
        """Every path of a recipe (inputs, rules, against, publish's file:PATH) is relative to its folder."""
        return resolve_in(self.base, value)

    def step_options(self, step: str) -> dict[str, Any]:
        """A step's options with every path resolved against the recipe's folder."""
        spec = getattr(self, step)
        out = dict(spec.options) if spec is not None else {}
        for key, value in out.items():
            if key in STEP_PATH_OPTIONS and isinstance(value, str):
                out[key] = str(self.resolve_path(value))
            elif key == "repo" and isinstance(value, str) and value.startswith("file:") and value[5:]:
                out[key] = "file:" + str(self.resolve_path(value[5:]))
        return out


class _Where:
    def __init__(self, file: str, lines: dict[tuple, int]):
        self.file, self.lines = file, lines

    def error(self, message: str, *path) -> InputError:
        return InputError(
            message, file=self.file, line=self.lines.get(tuple(path)), field=".".join(str(p) for p in path) or None
        )


def _mapping(value, where: _Where, *path) -> dict:
    if not isinstance(value, dict):
        raise where.error(f"expected a mapping, got {type(value).__name__}", *path)
    return value


def _typed(value: Any, opt: OptionDef, where: _Where, *path) -> Any:
    """Check (and lightly coerce: int -> float) a value against an option's type and range."""
    if opt.multiple:
        values = value if isinstance(value, list) else [value]
        return [_typed(v, OptionDef(opt.name, opt.type, choices=opt.choices), where, *path) for v in values]
    if value is None:
        if opt.required:
            raise where.error("a value is required", *path)
        return None
    kinds = {"str": (str,), "int": (int,), "float": (int, float), "bool": (bool,)}[opt.type]
    if isinstance(value, bool) and opt.type != "bool" or not isinstance(value, kinds):
        if opt.type == "str" and isinstance(value, (int, float)) and not isinstance(value, bool):
            value = str(value)  # a version or id written without quotes
        else:
            raise where.error(f"expected {opt.type}, got {type(value).__name__} {value!r}", *path)
    if opt.type == "float":
        value = float(value)
    if opt.min is not None and value < opt.min or opt.max is not None and value > opt.max:
        raise where.error(f"{value!r} is outside [{opt.min}, {opt.max}]", *path)
    if opt.choices is not None and value not in opt.choices:
        raise where.error(f"{value!r} is not one of {', '.join(opt.choices)}", *path)
    return value


def _options(raw: dict, defs: Mapping[str, OptionDef], where: _Where, path: tuple, skip: tuple = ()) -> dict:
    out = {}
    for key, value in raw.items():
        if key in skip:
            continue
        name = str(key).replace("_", "-")
        if name in RUNNER_OWNED:
            raise where.error(f"'{key}' is set by `gauntlet run` (work directory), not by the recipe", *path, key)
        if name not in defs:
            known = ", ".join(sorted(d for d in defs if d not in RUNNER_OWNED))
            raise where.error(f"unknown key '{key}'; known: {known}", *path, key)
        out[name] = _typed(value, defs[name], where, *path, key)
    for name, d in defs.items():
        if d.required and name not in out and name not in RUNNER_OWNED:
            raise where.error(f"missing required key '{name}'", *path)
    return out


def parse_recipe(
    path: str | Path,
    builder_options: Callable[[str], Mapping[str, OptionDef] | None],
    step_options: Mapping[str, Mapping[str, OptionDef]],
) -> Recipe:
    """Parse and check a recipe. ``builder_options(name)`` gives a builder's option table (None: no such
    builder); ``step_options`` those of 'validate', 'audit', 'publish' (keys a recipe may set there)."""
    p = Path(path)
    if not p.is_file():
        raise InputError("recipe file not found", file=str(p))
    data, lines = load_yaml(p.read_bytes(), str(p))
    where = _Where(str(p), lines)
    data = _mapping(data, where)
    known = {"recipe", "release", "builds", "validate", "audit", "publish", "origin"}
    for key in data:
        if key not in known:
            raise where.error(f"unknown key '{key}'; known: {', '.join(sorted(known))}", key)
    if data.get("recipe") != RECIPE_VERSION:
        raise where.error(f"'recipe: {RECIPE_VERSION}' (the recipe format version) is required", "recipe")
    release = _release_spec(_mapping(data.get("release"), where, "release"), where)
    _check_release_names(release, where)
    origin = data.get("origin")
    if origin is not None and not isinstance(origin, str):
        raise where.error(f"expected a string, got {type(origin).__name__}", "origin")
    builds_raw = _mapping(data.get("builds"), where, "builds")
    if not builds_raw:
        raise where.error("a recipe needs at least one build", "builds")
    builds = []
    for bid, entry in builds_raw.items():
        if not _ID.fullmatch(str(bid)):
            raise where.error("a build id is letters, digits, '.', '_' and '-' (it names a directory)", "builds", bid)
        entry = _mapping(entry, where, "builds", bid)
        builder = entry.get("builder")
        if not isinstance(builder, str) or (defs := builder_options(builder)) is None:
            raise where.error(f"unknown or missing builder {builder!r}", "builds", bid, "builder")
        options = _options(entry, defs, where, ("builds", bid), skip=("builder", "sha256"))
        pins = _mapping(entry.get("sha256", {}), where, "builds", bid, "sha256")
        for key, digest in pins.items():
            if key not in INPUT_OPTIONS or not (isinstance(digest, str) and re.fullmatch(r"[0-9a-f]{64}", digest)):
                raise where.error(
                    "sha256 pins map an input option (input, seeds, ...) to a 64-hex digest",
                    "builds",
                    bid,
                    "sha256",
                    key,
                )
        build = BuildSpec(
            id=str(bid),
            builder=builder,
            options=options,
            line=lines.get(("builds", bid)),
            sha256={str(k): v for k, v in pins.items()},
        )
        for key, value in build.inputs().items():
            full = resolve_in(p.parent, value)
            if not full.exists() and not value.startswith("hf:"):
                raise where.error(f"input not found: {full}", "builds", bid, _given_key(entry, key))
        builds.append(build)
    steps = {}
    for step in ("validate", "audit", "publish"):
        raw = data.get(step)
        if raw is None or raw is False:
            continue
        raw = {} if raw is True else _mapping(raw, where, step)
        steps[step] = StepSpec(_options(raw, step_options.get(step, {}), where, (step,)))
        for key in STEP_PATH_OPTIONS:
            named = steps[step].options.get(key)
            if isinstance(named, str) and not resolve_in(p.parent, named).exists():
                raise where.error(f"not found: {resolve_in(p.parent, named)}", step, _given_key(raw, key))
    return Recipe(path=p.resolve(), release=release, builds=builds, origin=origin, lines=lines, **steps)


RELEASE_KEYS = (
    "name",
    "version",
    "license",
    "description",
    "pretty-name",
    "license-name",
    "license-link",
    "url",
    "creator",
    "provenance",
)


def _text(value: Any, where: _Where, *path) -> str:
    if not isinstance(value, (str, int, float)) or isinstance(value, bool):
        raise where.error(f"expected a string, got {type(value).__name__}", *path)
    return str(value)


def _release_spec(rel: dict, where: _Where) -> ReleaseSpec:
    """``release:``: name, version and what the card and Croissant say (licence, creators, sources' provenance)."""
    values: dict[str, Any] = {}
    for key, value in rel.items():
        name = str(key).replace("_", "-")
        if name not in RELEASE_KEYS:
            raise where.error(f"unknown key '{key}'; known: {', '.join(RELEASE_KEYS)}", "release", key)
        if name == "creator":
            items = value if isinstance(value, list) else [value]
            value = [_text(v, where, "release", key) for v in items]
        elif name == "provenance":
            value = {
                str(ds): {
                    str(f).replace("-", "_"): _text(v, where, "release", key, ds, f)
                    for f, v in _mapping(fields, where, "release", key, ds).items()
                }
                for ds, fields in _mapping(value, where, "release", key).items()
            }
            for ds, fields in value.items():
                for f in fields:
                    if f not in PROVENANCE_FIELDS:
                        raise where.error(
                            f"unknown provenance field '{f}'; known: {', '.join(PROVENANCE_FIELDS)}", "release", key, ds
                        )
        else:
            value = _text(value, where, "release", key)
        values[name.replace("-", "_")] = value
    for key in ("name", "version"):
        if key not in values:
            raise where.error(f"missing required key '{key}'", "release")
    release = ReleaseSpec(**values)
    if release.provenance:
        from mtgauntlet.cards.licenses import parse_statements

        try:
            parse_statements(release.provenance_statements())
        except GauntletError as exc:
            raise where.error(str(exc), "release", _given_key(rel, "provenance")) from None
    return release


def _given_key(raw: dict, name: str) -> str:
    """The key as the recipe spelled it (``src_lang`` or ``src-lang``), for its line number."""
    return next((k for k in raw if str(k).replace("_", "-") == name.replace("_", "-")), name)


def _check_release_names(release: ReleaseSpec, where: _Where) -> None:
    """The release's name and version name folders: refused here, before anything is written."""
    from mtgauntlet.releases.version import Version, check_name

    for key, check in (("name", check_name), ("version", Version.parse)):
        try:
            check(getattr(release, key))
        except GauntletError as exc:
            raise where.error(str(exc), "release", key) from None
