"""The CLI's own option definitions as plain tables, read from the click commands typer makes: for the command
reference (``python -m mtgauntlet.cli.reference``) and the tests that hold the API, recipes and CLI to the same
options. (Recipes read their tables from the API functions: :mod:`mtgauntlet.recipes.options`.)"""

from __future__ import annotations

from mtgauntlet.recipes.spec import OptionDef


def root_command():
    from mtgauntlet.cli.main import command_tree

    return command_tree()


def command(*path: str):
    """The click command at ``path`` (e.g. 'build', 'smaug'), or None."""
    cmd = root_command()
    for part in path:
        cmd = getattr(cmd, "commands", {}).get(part)
        if cmd is None:
            return None
    return cmd


def _type(param) -> str:
    bare = getattr(param, "bare_type", None)
    name = bare() if callable(bare) else getattr(getattr(param, "type", None), "name", "str")
    name = str(name).lower()
    return {"integer": "int", "boolean": "bool", "text": "str", "string": "str"}.get(
        name, name if name in ("int", "float", "bool") else "str"
    )


def options(*path: str, exclude: tuple[str, ...] = ("help",)) -> dict[str, OptionDef] | None:
    """Option table of a command: dash name -> OptionDef (arguments and excluded names left out)."""
    cmd = command(*path)
    if cmd is None or not hasattr(cmd, "params"):
        return None
    out = {}
    for p in cmd.params:
        if getattr(p, "param_type_name", "option") != "option" or p.name in exclude:
            continue
        long = next((o for o in p.opts if o.startswith("--")), p.opts[0])
        name = long.lstrip("-")
        if name in exclude:
            continue
        off = next((o.lstrip("-") for o in getattr(p, "secondary_opts", []) if o.startswith("--")), None)
        out[name] = OptionDef(
            name=name,
            type="bool" if getattr(p, "is_flag", False) else _type(p),
            default=p.default,
            required=bool(p.required),
            multiple=bool(p.multiple),
            min=getattr(p, "min", None),
            max=getattr(p, "max", None),
            off=off,
        )
    return out


def all_commands():
    """(path, click command) for every leaf command of the CLI."""

    def walk(cmd, path):
        subs = getattr(cmd, "commands", None)
        if subs:
            for name, sub in subs.items():
                yield from walk(sub, (*path, name))
        else:
            yield path, cmd

    yield from walk(root_command(), ())


def declared_commands():
    """(path, click command, options dataclass, names of its CLI-only options) for every leaf command made from an
    options dataclass (`mtgauntlet.cli.declared.command`)."""
    for path, cmd in all_commands():
        made = getattr(cmd, "callback", None)
        cls = getattr(made, "options", None)
        if cls is not None:
            yield path, cmd, cls, getattr(made, "printing", ())
