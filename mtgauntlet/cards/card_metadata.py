"""The YAML metadata at the top of a release's dataset card (what the Hub and ``datasets`` read): languages,
licence, size category, source datasets, and each config with its ``dataset_info`` (features, splits, sizes)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pyarrow as pa

from mtgauntlet.cards.licenses import hub_source
from mtgauntlet.release_layout import hub_configs, kind_sort_key

# the Hub's size buckets (n<1K, 1K<n<10K, ..., 100B<n<1T, n>1T): a bucket holds n < its upper bound
SIZE_CATEGORIES = (
    (10**3, "n<1K"),
    (10**4, "1K<n<10K"),
    (10**5, "10K<n<100K"),
    (10**6, "100K<n<1M"),
    (10**7, "1M<n<10M"),
    (10**8, "10M<n<100M"),
    (10**9, "100M<n<1B"),
    (10**10, "1B<n<10B"),
    (10**11, "10B<n<100B"),
    (10**12, "100B<n<1T"),
)


def size_category(n: int) -> str:
    for bound, name in SIZE_CATEGORIES:
        if n < bound:
            return name
    return "n>1T"


def source_datasets(manifest: dict[str, Any]) -> list[str]:
    """The Hub's form: ``original`` for text written for the set, ``extended|<dataset>`` for each source."""
    out = [
        s.get("source_dataset") or hub_source(s["dataset"])
        for s in manifest["license"]["sources"]
        if s.get("source_dataset") or s["dataset"] != "(not recorded)"
    ]
    return list(dict.fromkeys(out)) or ["original"]


def release_summary(manifest: dict[str, Any]) -> str:
    """One paragraph naming the release: what `datasets` shows as a config's description."""
    kinds = sorted(manifest["kinds"], key=kind_sort_key)
    own = f" {manifest['description']}" if manifest.get("description") else ""
    return (
        f"mtgauntlet release {manifest['name']} {manifest['version']}: "
        + ", ".join(f"{manifest['rows'][k]} {k} records" for k in kinds)
        + "."
        + own
    )


ARROW_DTYPES = {"double": "float64", "float": "float32", "halffloat": "float16"}  # as `datasets` names them


def yaml_feature(t: pa.DataType) -> dict[str, Any]:
    """One column type as ``datasets`` writes it into a card's ``features`` (``Features._to_yaml_list``):
    ``{"dtype": "string"}``, ``{"list": "string"}``, ``{"list": [{"name": ..., "dtype": ...}]}``,
    ``{"struct": [...]}``."""
    if pa.types.is_list(t) or pa.types.is_large_list(t):
        inner = yaml_feature(t.value_type)
        key = "large_list" if pa.types.is_large_list(t) else "list"
        if list(inner) in (["dtype"], ["struct"]):
            return {key: next(iter(inner.values()))}
        return {key: inner}
    if pa.types.is_struct(t):
        return {"struct": [{"name": f.name, **yaml_feature(f.type)} for f in t]}
    return {"dtype": ARROW_DTYPES.get(str(t), str(t))}


def config_files(release: Path, config: dict[str, Any]) -> dict[str, list[Path]]:
    """The files of each split of a config: its ``data_files`` patterns matched in the release (``*`` stays
    inside one folder, as on the Hub)."""
    out: dict[str, list[Path]] = {}
    for entry in config["data_files"]:
        patterns = entry["path"] if isinstance(entry["path"], list) else [entry["path"]]
        out.setdefault(entry["split"], []).extend(sorted(f for p in patterns for f in release.glob(p)))
    return out


def config_info(
    release: Path, config: dict[str, Any], schema: pa.Schema, sizes: dict[Path, tuple[int, int]] | None = None
) -> dict[str, Any]:
    """``features``, ``splits`` (``num_bytes``: the Arrow size of the rows, ``num_examples``), ``download_size``
    (the Parquet files' bytes) and ``dataset_size`` of one config, as ``datasets`` computes them (what
    ``push_to_hub`` writes and the Hub viewer reads). ``sizes`` keeps each file's (Arrow bytes, rows) across
    configs, so a file is read once."""
    import pyarrow.parquet as pq

    sizes = {} if sizes is None else sizes
    splits = []
    download = 0
    for split, files in config_files(release, config).items():
        for f in files:
            if f not in sizes:
                table = pq.read_table(f)
                sizes[f] = (table.nbytes, table.num_rows)
        splits.append(
            {
                "name": split,
                "num_bytes": sum(sizes[f][0] for f in files),
                "num_examples": sum(sizes[f][1] for f in files),
            }
        )
        download += sum(f.stat().st_size for f in files)
    return {
        "features": [{"name": f.name, **yaml_feature(f.type)} for f in schema],
        "splits": splits,
        "download_size": download,
        "dataset_size": sum(s["num_bytes"] for s in splits),
    }


def dataset_configs(
    manifest: dict[str, Any], release: Path | None = None, schemas: dict[str, pa.Schema] | None = None
) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """(configs, dataset_info) for the card YAML: what `datasets.load_dataset` reads for each config (its
    version, a DatasetInfo description and citation naming the release) and, given the ``release`` folder with
    its data files and the ``schemas`` by kind, each config's features, splits and sizes (`config_info`)."""
    cfgs = [{**c, "version": manifest["version"]} for c in hub_configs(manifest["configs"])]
    summary = release_summary(manifest)
    infos = [
        {
            "config_name": c["config_name"],
            "description": f"{summary} Config {c['config_name']}: {c.get('description', '')}".strip(),
            "license": manifest["license"]["license"],
        }
        for c in cfgs
    ]
    if release is not None and schemas:
        sizes: dict[Path, tuple[int, int]] = {}
        for info, config in zip(infos, manifest["configs"]):
            info.update(config_info(release, config, schemas[config["kind"]], sizes))
    return cfgs, infos


def card_data(
    manifest: dict[str, Any],
    langs: list[str],
    pretty_name: str | None,
    release: Path | None = None,
    schemas: dict[str, pa.Schema] | None = None,
) -> dict[str, Any]:
    """The card's YAML metadata, in the order ``huggingface_hub.DatasetCardData`` writes it (written here with
    PyYAML, so a plain install without the ``hub`` extra can release)."""
    lic = manifest["license"]
    builders = sorted({b.get("builder") or "records" for b in manifest["builds"]})
    extra = {k: lic[k] for k in ("license_name", "license_link") if lic["license"] == "other" and lic.get(k)}
    cfgs, infos = dataset_configs(manifest, release, schemas)
    return {
        "language": langs,
        "license": lic["license"],
        "size_categories": [size_category(manifest["total_rows"])],
        "source_datasets": source_datasets(manifest),
        "task_categories": ["translation"],
        "pretty_name": pretty_name or manifest["name"],
        "tags": ["machine-translation", "challenge-set", "mtgauntlet", *builders],
        "configs": cfgs,
        "dataset_info": infos,
        **extra,
        "mtgauntlet": {
            "name": manifest["name"],
            "version": manifest["version"],
            "signatures": manifest["signatures"],
            "kinds": manifest["kinds"],
        },
    }


def card_yaml(data: dict[str, Any]) -> str:
    """The YAML block of a card (between the ``---`` lines), as ``huggingface_hub`` dumps it."""
    import yaml

    return yaml.safe_dump(data, allow_unicode=True, sort_keys=False).strip()
