"""Load a recipe's YAML safely: bounded in size, nesting and alias expansion, strict about keys and tags.

A YAML alias may point at a node that itself holds aliases, so a dozen lines can expand into billions of
nodes ("billion laughs"), and an anchor may contain an alias to itself (a recursive structure). Before any
Python object is built the document's node graph is walked once, counting every node as the document
would expand: too many nodes, too deep a nesting, a recursive alias, a duplicate mapping key or a tag
other than YAML's plain ones (``!!python/object``…) is one :class:`InputError` naming the file and line.
Bytes that are not UTF-8 are one error naming the line too.
"""

from __future__ import annotations

from typing import Any

from mtgauntlet.errors import InputError

MAX_BYTES = 1 << 20  # a recipe is a page of YAML, not a data file
MAX_NODES = 100_000  # nodes of the document as its aliases expand
MAX_DEPTH = 64  # nesting of mappings and sequences
PLAIN_TAGS = {
    f"tag:yaml.org,2002:{t}" for t in ("str", "int", "float", "bool", "null", "map", "seq", "timestamp", "merge")
}


def _decode(data: bytes, file: str) -> str:
    if len(data) > MAX_BYTES:
        raise InputError(f"{len(data)} bytes: larger than a recipe may be ({MAX_BYTES} bytes)", file=file)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        raise InputError(f"not UTF-8 text (byte 0x{data[exc.start]:02x})", file=file, line=line) from None


def _check(root, file: str) -> dict[tuple, int]:
    """Walk the node graph as it expands (bounded); the line of every mapping key and sequence item by path."""
    import yaml

    lines: dict[tuple, int] = {}
    count = 0
    open_nodes: set[int] = set()  # nodes on the current path: meeting one again is a recursive alias

    def fail(message: str, node) -> InputError:
        return InputError(message, file=file, line=node.start_mark.line + 1)

    def walk(node, path: tuple, depth: int) -> None:
        nonlocal count
        count += 1
        if count > MAX_NODES:
            raise fail(f"the document expands to more than {MAX_NODES} nodes (YAML aliases); write it out", node)
        if depth > MAX_DEPTH:
            raise fail(f"nested deeper than {MAX_DEPTH} levels", node)
        if node.tag not in PLAIN_TAGS:
            raise fail(f"YAML tag {node.tag!r} is not allowed (plain YAML values only)", node)
        if not isinstance(node, (yaml.MappingNode, yaml.SequenceNode)):
            return
        if id(node) in open_nodes:
            raise fail("recursive YAML alias (a node that contains itself)", node)
        open_nodes.add(id(node))
        if isinstance(node, yaml.MappingNode):
            seen: dict[Any, int] = {}
            for k, v in node.value:
                if isinstance(k, yaml.ScalarNode) and k.tag != "tag:yaml.org,2002:merge":
                    if (k.tag, k.value) in seen:
                        raise fail(f"duplicate key '{k.value}' (first on line {seen[(k.tag, k.value)]})", k)
                    seen[(k.tag, k.value)] = k.start_mark.line + 1
                walk(k, path, depth + 1)
                key = path + (k.value,)
                lines.setdefault(key, k.start_mark.line + 1)
                walk(v, key, depth + 1)
        else:
            for i, v in enumerate(node.value):
                lines.setdefault(path + (i,), v.start_mark.line + 1)
                walk(v, path + (i,), depth + 1)
        open_nodes.discard(id(node))

    walk(root, (), 0)
    return lines


def load_yaml(data: bytes, file: str) -> tuple[Any, dict[tuple, int]]:
    """The YAML document in ``data`` (safe, bounded) plus the line of every mapping key, by key path."""
    import yaml

    text = _decode(data, file)
    loader = yaml.SafeLoader(text)
    try:
        node = loader.get_single_node()
        if node is None:
            return {}, {}
        lines = _check(node, file)
        return loader.construct_document(node), lines
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        problem = " ".join(str(getattr(exc, "problem", None) or exc).split())
        raise InputError(f"invalid YAML ({problem})", file=file, line=mark.line + 1 if mark else None) from None
    finally:
        loader.dispose()
