"""Keep README and --help true: every option of every command has a help text and is documented in the README,
every environment variable the package reads is documented, and help shows flags as flags."""

from __future__ import annotations

import re

from mtgauntlet.cli import introspect
from tests.cli import REPO, invoke

README = (REPO / "README.md").read_text(encoding="utf-8")


def _commands():
    return list(introspect.all_commands())


def test_every_option_has_help_text():
    missing = [f"gauntlet {' '.join(path)} {p.opts[0]}" for path, cmd in _commands() for p in cmd.params
               if getattr(p, "param_type_name", "") == "option" and not (p.help or "").strip()]
    assert not missing, "options without help text:\n" + "\n".join(missing)


def test_readme_command_reference_is_generated_from_the_cli():
    from mtgauntlet.cli.reference import BEGIN, END, reference

    assert BEGIN in README and END in README, "README.md has no generated command reference"
    current = README[README.index(BEGIN):README.index(END) + len(END)]
    assert current == reference(), ("README.md's command reference is out of date: run "
                                    "`python -m mtgauntlet.cli.reference --write README.md`")


def test_every_option_is_in_the_readme():
    missing = sorted({f"{' '.join(path)}: {o}" for path, cmd in _commands() for p in cmd.params
                      if getattr(p, "param_type_name", "") == "option"
                      for o in p.opts if o.startswith("--") and o != "--help"
                      and not re.search(re.escape(o) + r"(?![\w-])", README)})
    assert not missing, "options missing from README.md:\n" + "\n".join(missing)


def test_every_command_is_in_the_readme():
    missing = [" ".join(path) for path, _ in _commands() if f"gauntlet {' '.join(path)}" not in README
               and not (path[-1] == "records" and "gauntlet validate PATH" in README)]
    assert not missing, "commands missing from README.md: " + ", ".join(missing)


def test_every_environment_variable_is_in_the_readme():
    names = set()
    for f in (REPO / "mtgauntlet").rglob("*.py"):
        names |= set(re.findall(r"\bMTGAUNTLET_[A-Z_]+\b", f.read_text(encoding="utf-8")))
    missing = sorted(n for n in names if n not in README)
    assert not missing, f"environment variables missing from README.md: {missing}"


def test_help_shows_flags_as_flags():
    for path, _ in _commands():
        r = invoke([*path, "--help"] if path[-1] != "records" else ["validate", "--help"])
        assert r.exit_code == 0, (path, r)
        assert "<bool>" not in r.stdout, path
        assert not re.search(r"--(skip-bad|overwrite|json|dry-run) / --no-", r.stdout), path
