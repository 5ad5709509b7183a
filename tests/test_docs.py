"""Keep the README, the documentation site and --help true: every option of every command has a help text and is
documented, every environment variable the package reads is documented, help shows flags as flags, the README is
a short front page whose links resolve, and the site builds with `mkdocs build --strict` (offline)."""

from __future__ import annotations

import re
import subprocess
import sys

import pytest

from mtgauntlet.cli import introspect
from tests.support.cli import REPO, invoke

README = (REPO / "README.md").read_text(encoding="utf-8")
DOCS = "\n".join(p.read_text(encoding="utf-8") for p in sorted((REPO / "docs").rglob("*.md")))
CLI_PAGE = REPO / "docs" / "reference" / "cli.md"


def _commands():
    return list(introspect.all_commands())


def test_every_option_has_help_text():
    missing = [
        f"gauntlet {' '.join(path)} {p.opts[0]}"
        for path, cmd in _commands()
        for p in cmd.params
        if getattr(p, "param_type_name", "") == "option" and not (p.help or "").strip()
    ]
    assert not missing, "options without help text:\n" + "\n".join(missing)


def test_command_reference_page_is_generated_from_the_cli():
    from mtgauntlet.cli.reference import BEGIN, END, reference

    page = CLI_PAGE.read_text(encoding="utf-8")
    assert BEGIN in page and END in page, f"{CLI_PAGE} has no generated command reference"
    current = page[page.index(BEGIN) : page.index(END) + len(END)]
    assert current == reference(), (
        f"{CLI_PAGE}'s command reference is out of date: run "
        "`python -m mtgauntlet.cli.reference --write docs/reference/cli.md`"
    )


def test_every_option_is_documented():
    prose = DOCS.replace(CLI_PAGE.read_text(encoding="utf-8"), "")  # explained in a page, not only listed
    listed = CLI_PAGE.read_text(encoding="utf-8")
    missing = sorted(
        {
            f"{' '.join(path)}: {o}"
            for path, cmd in _commands()
            for p in cmd.params
            if getattr(p, "param_type_name", "") == "option"
            for o in p.opts
            if o.startswith("--") and o != "--help" and not re.search(re.escape(o) + r"(?![\w-])", listed)
        }
    )
    assert not missing, "options missing from the command reference:\n" + "\n".join(missing)
    assert prose.strip(), "the docs have no pages besides the command reference"


def test_every_command_is_documented():
    missing = [
        " ".join(path)
        for path, _ in _commands()
        if f"gauntlet {' '.join(path)}" not in DOCS and not (path[-1] == "records" and "gauntlet validate PATH" in DOCS)
    ]
    assert not missing, "commands missing from docs/: " + ", ".join(missing)


def test_every_environment_variable_is_documented():
    names = set()
    for f in (REPO / "mtgauntlet").rglob("*.py"):
        names |= set(re.findall(r"\bMTGAUNTLET_[A-Z_]+\b", f.read_text(encoding="utf-8")))
    missing = sorted(n for n in names if n not in DOCS)
    assert not missing, f"environment variables missing from docs/: {missing}"


def test_readme_is_a_short_front_page_with_the_two_commands_first():
    assert len(README.encode("utf-8")) <= 12 * 1024, f"README.md is {len(README.encode())} bytes (at most 12 KB)"
    first = [line for line in README.splitlines() if line.strip()][:4]
    assert first[0] == "# mtgauntlet" and first[1] == "```bash"
    assert first[2].startswith("make demo") and first[3].startswith("make test")
    ci = (REPO / ".ci" / "run").read_text(encoding="utf-8")
    assert re.search(r"^make test$", ci, re.M), ".ci/run must call exactly the README's test command"
    for target in re.findall(r"\]\(([^)#]+)(?:#[^)]*)?\)", README):
        if "://" not in target:
            assert (REPO / target).exists(), f"README links to {target}, which does not exist"


def test_every_docs_page_is_in_the_navigation():
    nav = (REPO / "mkdocs.yml").read_text(encoding="utf-8")
    pages = sorted(str(p.relative_to(REPO / "docs")) for p in (REPO / "docs").rglob("*.md"))
    missing = [p for p in pages if p not in nav]
    assert not missing, f"docs pages not in mkdocs.yml nav: {missing}"


def test_site_builds_strict_offline(tmp_path):
    pytest.importorskip("mkdocs")
    pytest.importorskip("mkdocstrings")
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "mkdocs",
            "build",
            "--strict",
            "-q",
            "-f",
            str(REPO / "mkdocs.yml"),
            "-d",
            str(tmp_path / "site"),
        ],
        capture_output=True,
        text=True,
        timeout=600,
        env={**__import__("os").environ, "NO_MKDOCS_2_WARNING": "1"},
    )
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-5000:]
    assert (tmp_path / "site" / "reference" / "api" / "index.html").exists()
    api = (tmp_path / "site" / "reference" / "api" / "index.html").read_text(encoding="utf-8")
    assert "mtgauntlet.api.building.build" in api  # the API reference is generated from the docstrings


def test_help_shows_flags_as_flags():
    for path, _ in _commands():
        r = invoke([*path, "--help"] if path[-1] != "records" else ["validate", "--help"])
        assert r.exit_code == 0, (path, r)
        assert "<bool>" not in r.stdout, path
        assert not re.search(r"--(skip-bad|overwrite|json|dry-run) / --no-", r.stdout), path
