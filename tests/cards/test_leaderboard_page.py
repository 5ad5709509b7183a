"""The leaderboard page of a results folder opens offline in headless Chromium: no request but the file, no error,
tables and plots of every set, the numbers of the leaderboard view, and a hostile metric name shown as text."""

from __future__ import annotations

import io
import json
import os
from html.parser import HTMLParser
from pathlib import Path

import pytest

import mtgauntlet as mg
from tests.evaluation.workbench_sets import make_catalog
from tests.support.cli import invoke
from tests.support.headless_chromium import chromium, load_page

HOSTILE = "<img src=x onerror=\"document.title='pwned'\">"


def _hostile_metric():
    def metric(src, hyp, ref, src_lang, tgt_lang):
        return [float(len(h)) for h in hyp]

    metric.__qualname__ = HOSTILE
    return metric


@pytest.fixture(scope="module")
def page(tmp_path_factory, sample_path, shared_data):
    root = tmp_path_factory.mktemp("lbpage")
    releases = make_catalog(root, sample_path, shared_data)
    results = root / "results"
    r = invoke(
        ["evaluate", "metric", "--releases", releases, "-m", "chrf,bleu", "--out", results, "--ci-resamples", "50"]
    )
    assert r.exit_code == 0, r.output
    mg.evaluate("metric", releases=releases, metric=_hostile_metric(), out=results, ci_resamples=20)
    out = root / "leaderboard.html"
    r = invoke(["leaderboard", "--results", results, "--releases", releases, "--out", out, "--json"])
    assert r.exit_code == 0, r.output
    assert json.loads(r.stdout)["out"] == str(out)
    return out, releases, results


class _Tags(HTMLParser):
    def __init__(self):
        super().__init__()
        self.tags: list[tuple[str, dict]] = []

    def handle_starttag(self, tag, attrs):
        self.tags.append((tag, dict(attrs)))


def test_the_page_is_self_contained_and_escapes_names(page):
    out, _, _ = page
    html = out.read_text(encoding="utf-8")
    parser = _Tags()
    parser.feed(html)
    assert not [t for t, _ in parser.tags if t in ("img", "script", "link", "iframe")]
    assert not [
        a for _, attrs in parser.tags for k, a in attrs.items() if k in ("src", "href") and a and not a.startswith("#")
    ]
    assert "&lt;img src=x onerror=" in html and HOSTILE not in html


@pytest.mark.skipif(chromium() is None, reason="chromium not installed")
def test_the_page_opens_offline_in_headless_chromium(page, tmp_path):
    from PIL import Image, ImageStat

    out, releases, results = page
    js = {
        "svg": "document.querySelectorAll('svg').length",
        "sections": "Array.from(document.querySelectorAll('main section h2')).map(h => h.textContent)",
        "acc": "(() => { const c = document.querySelector('td[data-metric=\"chrf|all|accuracy\"]'); "
        "return c ? JSON.parse(c.dataset.value) : null; })()",
        "title": "document.title",
    }
    run = load_page(out, evaluate=js)
    assert run.errors == []
    assert run.requests == [out.resolve().as_uri()]  # the file itself, nothing else
    assert run.values["title"] == "Metric leaderboard"  # the hostile name ran nothing
    assert run.values["svg"] >= 3  # one chart per set at least
    assert any("smaug-sample" in s for s in run.values["sections"])
    assert any("wmt23-mqm-ende" in s for s in run.values["sections"])
    df = mg.query(
        "SELECT value FROM leaderboard WHERE metric = 'chrf' AND set = 'aces-like' AND statistic = "
        "'accuracy' AND phenomenon = 'all' AND lp = 'all'",
        releases=releases,
        results=results,
    )
    assert run.values["acc"] == pytest.approx(float(df["value"][0]))
    img = Image.open(io.BytesIO(run.screenshot)).convert("L")
    assert ImageStat.Stat(img).stddev[0] > 20  # not blank
    shot = Path(os.environ.get("MTGAUNTLET_SCREENSHOT_DIR", tmp_path)) / "leaderboard.png"
    shot.write_bytes(run.screenshot)


def test_the_page_shows_the_blind_spot_matrix_clusters_and_system_scores(page):
    out, releases, results = page
    html = out.read_text(encoding="utf-8")
    assert "Blind spots: accuracy per phenomenon and metric" in html
    df = mg.query(
        "SELECT phenomenon, value, ci_low, ci_high, cluster FROM leaderboard WHERE metric = 'chrf' "
        "AND set = 'aces-like' AND statistic = 'accuracy' AND lp = 'all' ORDER BY phenomenon",
        releases=releases,
        results=results,
    )
    row = df.iloc[0]
    at = html.index(f'data-key="{row["phenomenon"]}|chrf|accuracy"')
    cell = html[html.rindex("<td", 0, at) : html.index("</td>", at)]
    assert f"{row['value']:.3f}" in cell and f"[{row['ci_low']:.3f}, {row['ci_high']:.3f}]" in cell
    assert f"#{int(row['cluster'])}" in cell and "background: hsl(" in cell  # the cluster, coloured by value
    assert "sys_pearson (corpus)" in html and "sys_pearson (mean)" in html  # chrF's two system scores
