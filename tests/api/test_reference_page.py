"""The Python API reference as mkdocs builds it (issue #34.15): every function shows ``progress=`` in its signature,
every docstring section renders as a section (Verification's attributes, score's one return value), each method's
and kind's own options are listed, and the site has a site_url (so its sitemap lists the pages)."""

from __future__ import annotations

import html
import inspect
import os
import re
import subprocess
import sys

import pytest

import mtgauntlet as mg
from tests.support.cli import REPO


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    pytest.importorskip("mkdocstrings")
    out = tmp_path_factory.mktemp("site")
    proc = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "-q", "-f", str(REPO / "mkdocs.yml"), "-d", str(out)],
        capture_output=True,
        text=True,
        timeout=600,
        env={**os.environ, "PYTHONPATH": str(REPO), "NO_MKDOCS_2_WARNING": "1"},
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    return out


def _sections(page: str) -> dict[str, str]:
    """Each documented object's HTML, by its dotted path."""
    starts = [(m.start(), m.group(1)) for m in re.finditer(r'<h[23] id="(mtgauntlet\.[\w.]+)"', page)]
    return {
        name: page[at : (starts[i + 1][0] if i + 1 < len(starts) else len(page))] for i, (at, name) in enumerate(starts)
    }


def _text(fragment: str) -> str:
    return html.unescape(re.sub(r"<[^>]+>", "", fragment))


def test_api_reference_shows_progress_sections_and_every_options_function(site):
    page = (site / "reference" / "api" / "index.html").read_text(encoding="utf-8")
    sections = _sections(page)
    functions = {
        name: getattr(mg, name)
        for name in mg.__all__
        if inspect.isfunction(getattr(mg, name, None)) and name not in ("query_table",)
    }
    for name, fn in functions.items():
        where = f"{fn.__module__}.{name}"
        assert where in sections, f"{where} is not in the API reference"
        assert re.search(r"progress: bool( \| None)? = False", _text(sections[where])), f"{where}: progress= not shown"
    for method in ("subset", "smaug", "mtbreaker", "zeroshot", "bandit"):
        assert "budget" in _text(sections.get(f"mtgauntlet.api.building.build_{method}", "")) or method != "subset"
        assert f"mtgauntlet.api.building.build_{method}" in sections
    for kind in ("metric", "dec", "breaker", "bandit"):
        assert f"mtgauntlet.api.evaluating.evaluate_{kind}" in sections
    assert {
        "mtgauntlet.api.scoring.score_difficulty",
        "mtgauntlet.api.scoring.score_qe",
        "mtgauntlet.api.simulating.simulate_bandit",
    } <= set(sections)
    for where, body in sections.items():
        text = _text(body)
        # a section griffe could not parse stays plain text: "Attributes:" followed by "name: ..." lines
        assert not re.search(r"(Attributes|Args|Returns|Raises):\s*\n\s*\w+: ", text), where
        returns = body.split("Returns:", 1)[1].split("</table>", 1)[0] if "Returns:" in body else ""
        assert returns.count('class="doc-section-item"') <= 1, f"{where}: its return value split into rows"
    verification = _text(sections["mtgauntlet.api.results.Verification"])
    assert 'print("\\n".join(check.problems))' in verification


def test_the_site_has_a_url_and_its_sitemap_lists_the_pages(site):
    sitemap = (site / "sitemap.xml").read_text(encoding="utf-8")
    assert sitemap.count("<loc>") >= 10 and "reference/api/" in sitemap
