"""`gauntlet audit`: pages of real builds (SMAUG, subset, bandit, a release; MT-breaker in the slow suite)
checked against `gauntlet validate`, the DuckDB catalog and the records; a real browser loads them offline."""

from __future__ import annotations

import io
import json
import re
import sys
from html import unescape
from html.parser import HTMLParser
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from mtgauntlet.models import registry
from mtgauntlet.records import load_records
from tests.support.cli import invoke
from tests.support.headless_chromium import chromium, load_page

SECTIONS = ("overview", "validation", "quality", "search", "examples", "methods", "diff")


def gauntlet(*args: str) -> str:
    r = invoke(list(args))
    assert r.exit_code == 0, r.output
    return r.output


@pytest.fixture(scope="module")
def builds(tmp_path_factory, sample_path):
    out = tmp_path_factory.mktemp("audit-builds")
    s = str(sample_path)
    smaug = [
        "build",
        "smaug",
        "--input",
        s,
        "--src-col",
        "es",
        "--ref-col",
        "en",
        "--src-lang",
        "es",
        "--tgt-lang",
        "en",
        "--translator",
        "apertium",
    ]
    gauntlet(*smaug, "--seed", "13", "--out", str(out / "smaug13"))
    gauntlet(*smaug, "--seed", "14", "--out", str(out / "smaug14"))
    gauntlet(
        "build",
        "subset",
        "--input",
        s,
        "--src-col",
        "es",
        "--src-lang",
        "es",
        "--tgt-lang",
        "en",
        "--estimator",
        "length",
        "--budget",
        "8",
        "--out",
        str(out / "subset"),
    )
    gauntlet(
        "build",
        "bandit",
        "--corpus",
        s,
        "--text-column",
        "en",
        "--topic-column",
        "domain",
        "--min-words",
        "5",
        "--budget",
        "12",
        "--k",
        "2",
        "--cap",
        "4",
        "--src-lang",
        "en",
        "--tgt-lang",
        "es",
        "--qe",
        "qe#fast",
        "--out",
        str(out / "bandit"),
    )
    gauntlet(
        "release",
        str(out / "smaug13"),
        str(out / "subset"),
        "--name",
        "audit-demo",
        "--version",
        "1.0.0",
        "--out",
        str(out / "releases"),
    )
    gauntlet("validate", str(out / "smaug13"), "--report", str(out / "rep-smaug"))
    gauntlet("validate", str(out / "subset"), "--report", str(out / "rep-subset"))
    gauntlet(
        "release",
        str(out / "smaug13"),
        str(out / "subset"),
        "--name",
        "audit-demo",
        "--version",
        "1.1.0",
        "--out",
        str(out / "validated"),
        "--report",
        str(out / "rep-smaug"),
        "--report",
        str(out / "rep-subset"),
        "--audit",
    )
    return out


@pytest.fixture(scope="module")
def pages(builds):
    """Each page written once: SMAUG seed 14 against seed 13 (CLI), the release, the subset and bandit builds."""
    p = {
        "smaug": builds / "smaug.html",
        "release": builds / "release.html",
        "subset": builds / "subset.html",
        "bandit": builds / "bandit.html",
    }
    out = gauntlet("audit", str(builds / "smaug14"), "--against", str(builds / "smaug13"), "--out", str(p["smaug"]))
    assert f"audit report: {p['smaug']}" in out
    from mtgauntlet.cards.audit import write_audit

    shown = "releases/name=audit-demo/version=1.0.0"  # as a release writing it from its temp dir would say
    assert write_audit(release_dir(builds), p["release"], location=shown) == p["release"]
    write_audit(builds / "subset", p["subset"])
    write_audit(builds / "bandit", p["bandit"])
    return {k: v.read_text(encoding="utf-8") for k, v in p.items()}


def release_dir(builds: Path) -> Path:
    return builds / "releases" / "name=audit-demo" / "version=1.0.0"


class Attrs(HTMLParser):
    """Every start tag's attributes, in order."""

    def __init__(self, html: str):
        super().__init__()
        self.tags: list[tuple[str, dict[str, str | None]]] = []
        self.feed(html)

    def handle_starttag(self, tag, attrs):
        self.tags.append((tag, dict(attrs)))

    def values(self, attr: str) -> dict[str, list]:
        out: dict[str, list] = {}
        for _, a in self.tags:
            if a.get(attr) is not None and "data-value" in a:
                out.setdefault(a[attr], []).append(json.loads(a["data-value"]))
        return out


def search_entries(html: str) -> list[dict]:
    """The page's embedded record index (what its search box searches)."""
    m = re.search(r'<script type="application/json" id="search-index">(.*?)</script>', html, re.S)
    return json.loads(m.group(1))


def query(root: Path, sql: str) -> list[dict]:
    return json.loads(gauntlet("query", "--releases", str(root), "--format", "json", sql))


def external_refs(html: str) -> list[str]:
    """Every reference the page makes that does not stay inside it (anchors and data: URIs stay inside)."""
    attrs = Attrs(html).tags
    refs = [v for _, a in attrs for k, v in a.items() if k in ("src", "href", "action", "srcset", "poster") and v]
    refs += re.findall(r"url\(\s*['\"]?([^)'\"]*)", "".join(re.findall(r"<style>(.*?)</style>", html, re.S)))
    refs += [v for _, a in attrs for k, v in a.items() if k == "style" and v and "url(" in v]
    bad = [r for r in refs if not r.startswith(("#", "data:"))]
    # no attribute but data-* (values: a source name may be a URL) mentions another location either
    return bad + [
        v for _, a in attrs for k, v in a.items() if v and not k.startswith("data-") and re.search(r"(?:https?:)?//", v)
    ]


def executable_scripts(html: str) -> int:
    """<script> elements the browser runs (the record index is a JSON data block)."""
    return sum(1 for t, a in Attrs(html).tags if t == "script" and a.get("type") != "application/json")


def section_ids(html: str) -> set[str]:
    return {a.get("id") for t, a in Attrs(html).tags if t == "section"}


def test_every_section_that_applies(pages):
    assert section_ids(pages["smaug"]) == {"overview", "validation", "quality", "search", "examples", "diff"}
    assert section_ids(pages["release"]) == {"overview", "validation", "quality", "search", "examples", "methods"}
    assert section_ids(pages["subset"]) == {"overview", "validation", "quality", "search", "examples", "methods"}
    assert section_ids(pages["bandit"]) == {"overview", "validation", "quality", "search", "examples", "methods"}
    for html in pages.values():
        assert "@media print" in html and executable_scripts(html) == 1 and "<link" not in html
        assert external_refs(html) == [] and 'href="#' in html
    assert "mean QE at step" not in pages["bandit"] and "bandit search curve" in pages["bandit"]
    assert "difficulty of the subset against its corpus" in pages["subset"]


def test_diff_lists_exactly_the_ids_that_differ(builds, pages):
    new = set(load_records(builds / "smaug14").column("id").to_pylist())
    old = set(load_records(builds / "smaug13").column("id").to_pylist())
    assert new != old and new & old  # the seeds change some records, not all
    rows = [a for t, a in Attrs(pages["smaug"]).tags if t == "tr" and "data-diff" in a]
    listed = {change: {a["data-id"] for a in rows if a["data-diff"] == change} for change in ("added", "removed")}
    replaced = {(a["data-old-id"], a["data-id"]) for a in rows if a["data-diff"] == "replaced"}
    assert replaced  # other seeds pick other edits of the same sentence and phenomenon
    assert listed["added"] | {n for _, n in replaced} == new - old
    assert listed["removed"] | {o for o, _ in replaced} == old - new
    assert not listed["added"] & {n for _, n in replaced} and not listed["removed"] & {o for o, _ in replaced}
    assert not [a for a in rows if a["data-diff"] == "changed"]  # same id = same content here
    # each pair: the old record and its replacement share source item and phenomenon, and no other record does
    recs = {r["id"]: r for b in ("smaug13", "smaug14") for r in load_records(builds / b).to_pylist()}
    for o, n in replaced:
        item = (recs[o]["source_id"], recs[o]["phenomenon"])
        assert item == (recs[n]["source_id"], recs[n]["phenomenon"])
        assert [r for r in old - new if (recs[r]["source_id"], recs[r]["phenomenon"]) == item] == [o]
        assert [r for r in new - old if (recs[r]["source_id"], recs[r]["phenomenon"]) == item] == [n]
    counts = Attrs(pages["smaug"]).values("data-diff-count")
    assert counts["smaug_pair:added"] == [len(listed["added"])] and counts["smaug_pair:unchanged"] == [len(new & old)]
    assert counts["smaug_pair:replaced"] == [len(replaced)]
    old_v, new_v = Attrs(pages["smaug"]).values("data-old"), Attrs(pages["smaug"]).values("data-new")
    assert old_v["overview:smaug_pair · records"][0] == len(old) and new_v["overview:smaug_pair · records"][0] == len(
        new
    )


def test_numbers_equal_validate_and_catalog(builds, pages):
    rel = release_dir(builds)
    report = json.loads(gauntlet("validate", str(rel), "--json"))
    page = Attrs(pages["release"])
    metrics, rules = page.values("data-metric"), page.values("data-rule")
    for kind, entry in report["kinds"].items():
        for name, value in entry["metrics"].items():
            assert metrics[f"{kind}:{name}"] and all(v == value for v in metrics[f"{kind}:{name}"]), (kind, name)
    assert {r["kind"] + ":" + r["metric"]: [r["status"]] for r in report["rules"]} == rules
    quality = page.values("data-quality")
    assert quality["smaug_pair:embedding_diversity"] == [
        report["kinds"]["smaug_pair"]["metrics"]["embedding_diversity"]
    ]
    bad = load_records(rel, "smaug_pair").column("bad").to_pylist()  # SMAUG's bad hypotheses are English
    for estimator, key in (("rarity", "word_rarity"), ("syntax", "syntax_complexity")):
        scores = registry.load("difficulty", estimator).difficulty(bad, src_lang="en")
        assert quality[f"smaug_pair:{key}"][0] == pytest.approx(sum(scores) / len(scores), rel=1e-12)
    counts = page.values("data-count")
    for row in query(builds / "releases", "SELECT phenomenon, count(*) AS n FROM smaug_pair GROUP BY ALL"):
        assert counts[f"smaug_pair:phenomenon:{row['phenomenon']}"] == [row["n"]]
    for row in query(builds / "releases", "SELECT domain, count(*) AS n FROM selected_text GROUP BY ALL"):
        assert counts[f"selected_text:domain:{row['domain']}"] == [row["n"]]
    (n,) = query(builds / "releases", "SELECT count(*) AS n FROM smaug_pair")
    assert counts["smaug_pair:records:all"] == [n["n"]]
    # the SMAUG negation records were built without NLI: each is listed as "not checked", as DuckDB finds them
    (nc,) = query(
        builds / "releases",
        "SELECT count(*) AS n FROM smaug_pair WHERE len(list_filter(checks, "
        "lambda c: c.name = 'nli_contradiction' AND c.value IS NULL)) > 0",
    )
    assert nc["n"] > 0
    assert page.values("data-flag-count")["smaug_pair:build check nli_contradiction was not run"] == [nc["n"]]


def test_release_overview_states_licence_and_sources_from_the_card(builds, pages):
    from huggingface_hub import DatasetCard

    html = pages["release"]
    card = DatasetCard.load(release_dir(builds) / "README.md").data
    assert card.license and f'{card.license} <span class="note">(from the card)' in html
    assert all(src in html for src in card.source_datasets)
    assert "<dd>release at releases/name=audit-demo/version=1.0.0</dd>" in html
    assert "builder:smaug|src:es|tgt:en" in html and "builder:subset|src:es" in html
    assert "pull log" not in html  # no bandit in this release


def test_smaug_examples_show_the_changed_span(builds, pages):
    from mtgauntlet.cards.audit.markup import anchor

    html = pages["smaug"]
    shown = 0
    for rec in load_records(builds / "smaug14").to_pylist():
        start = html.find(f'id="{anchor("smaug_pair", rec["id"])}"')
        if start < 0 or rec["phenomenon"] not in ("ne", "num"):
            continue
        card = html[start : html.index("</article>", start)]
        assert [unescape(x) for x in re.findall(r"<del>(.*?)</del>", card)] == [rec["span_original"]]
        assert [unescape(x) for x in re.findall(r"<ins>(.*?)</ins>", card)] == [rec["span_replacement"]]
        shown += 1
    assert shown >= 6  # 5 sampled per phenomenon (ne and num)


def test_method_numbers(builds, pages):
    bandit = Attrs(pages["bandit"]).values("data-metric")
    for row in query(builds / "bandit", "SELECT topic, avg(difficulty) AS d FROM bandit_pull GROUP BY topic"):
        assert bandit[f"bandit:topic:{row['topic']}"][0] == pytest.approx(row["d"], rel=1e-9)  # the JSON output rounds
    assert "Search curve over 12 pulls" in pages["bandit"]
    manifest = json.loads((builds / "subset" / "build.json").read_text())
    subset = pages["subset"]
    corpus_row = subset[subset.index("<td>corpus (all scored texts)</td>") :]
    assert re.search(r">([\d,]+)</td>", corpus_row).group(1) == str(manifest["counts"]["items"])


def test_no_external_reference_and_everything_escaped(tmp_path):
    """Hostile texts come out escaped, and nothing in the page points outside it."""
    from mtgauntlet.cards.audit import write_audit
    from mtgauntlet.schema import record_id, to_table, utcnow

    evil = [
        '<script>alert("x")</script> <img src="https://evil.example/x.png"> style="background:url(//e.x/y)"',
        "a' onmouseover='alert(1)",
        "plain text of ordinary length for the diversity measures here",
    ]
    rows = []
    for i, t in enumerate(evil + [evil[2]]):
        r = {
            "text": t,
            "domain": "<b>news</b>",
            "estimator": "length",
            "difficulty": float(i),
            "rank": i + 1,
            "src_lang": "en",
            "tgt_lang": "es",
            "builder": "subset",
            "builder_version": "1",
            "created_at": utcnow(),
            "source_dataset": "https://evil.example/data",
            "source_id": str(i),
        }
        r["id"] = record_id("selected_text", r)
        rows.append(r)
    f = tmp_path / "evil.parquet"
    pq.write_table(to_table("selected_text", rows), f)
    page = write_audit(f, tmp_path / "evil.html").read_text(encoding="utf-8")
    index = search_entries(page)
    assert sorted(x for r in index for x in r["t"]) == sorted(evil + [evil[2]])  # every text, byte for byte
    assert page.count("</script>") == 2  # the page's script and the record index: no text closed either
    html = re.sub(r'<script type="application/json" id="search-index">.*?</script>', "", page, flags=re.S)
    assert "<script>alert" not in html and "&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;" in html
    assert "onmouseover='" not in html and executable_scripts(html) == 1 and "<b>news" not in html

    assert external_refs(html) == []
    assert "https://evil.example/data" in html  # shown as text (a source name), never as a link
    flags = {a["data-flag"] for t, a in Attrs(html).tags if t == "tr" and "data-flag" in a}
    assert "selected_text:duplicate id" in flags  # the repeated text has the same content id
    assert Attrs(html).values("data-rule")["selected_text:ids.duplicates"] == ["fail"]


def test_unknown_path_is_one_error_line(tmp_path, monkeypatch, capsys):
    from mtgauntlet.cli.main import main

    assert "--against" in gauntlet("audit", "--help")

    monkeypatch.setattr(sys, "argv", ["gauntlet", "audit", str(tmp_path / "nope"), "--out", str(tmp_path / "x.html")])
    with pytest.raises(SystemExit) as exc:
        main()
    assert exc.value.code == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err == [f"error: {tmp_path / 'nope'}: no such file or directory"]
    assert not (tmp_path / "x.html").exists()


def test_release_page_reads_the_attached_reports_and_the_models(builds):
    from mtgauntlet.cards.audit.markup import e

    rel = builds / "validated" / "name=audit-demo" / "version=1.1.0"
    html = (rel / "report.html").read_text(encoding="utf-8")
    said = Attrs(html).values("data-release-validation")
    assert said == {"smaug_pair": [True], "selected_text": [True]}  # both reports passed
    assert html.count("said: passed (failed rules: none)") == 2 and "said: FAILED" not in html
    manifest = json.loads((rel / "manifest.json").read_text())
    specs = {spec for b in manifest["builds"] for spec in (b.get("models") or {}).values()}
    assert specs and all(f"<td>{e(spec)}</td>" in html for spec in specs)
    assert "models: not stated" not in html


def test_bandit_pulls_are_diffed_by_content_and_name_their_source(builds, pages, tmp_path):
    from mtgauntlet.cards.audit import write_audit
    from mtgauntlet.cards.audit.source import open_source

    n = open_source(builds / "bandit").pulls.num_rows
    html = write_audit(builds / "bandit", tmp_path / "self.html", against=builds / "bandit").read_text()
    counts = Attrs(html).values("data-diff-count")
    assert n > 0 and counts["bandit_pull:unchanged"] == [n] and counts["bandit_pull:added"] == [0]
    assert "from ?" not in pages["bandit"] and "from sample_es_en item " in pages["bandit"]


def test_phenomenon_quality_and_metric_sensitivity(builds, tmp_path):
    import duckdb

    results = tmp_path / "chrf.json"
    r = invoke(["evaluate", "metric", "--set", str(builds / "smaug14"), "--metric", "chrf", "--json"])
    assert r.exit_code == 0, r.output
    results.write_text(r.stdout)  # stdout only: progress lines go to stderr
    page = tmp_path / "s.html"
    gauntlet("audit", str(builds / "smaug14"), "--metric-results", str(results), "--out", str(page))
    attrs = Attrs(page.read_text(encoding="utf-8"))
    per = attrs.values("data-phenomenon")
    files = str(builds / "smaug14" / "data" / "*.parquet")
    rows = duckdb.sql(
        f"SELECT phenomenon, count(*), avg(length(bad) / length(good)) FROM read_parquet('{files}') GROUP BY ALL"
    ).fetchall()
    assert rows
    for ph, count, ratio in rows:
        assert per[f"smaug_pair:{ph}:n"] == [count]
        assert per[f"smaug_pair:{ph}:length_ratio"][0] == pytest.approx(ratio, rel=1e-12)
        assert per[f"smaug_pair:{ph}:edit_distance"][0] >= 1  # a critical error changes at least one word
    sens = attrs.values("data-sensitivity")
    expected = json.loads(results.read_text())["results"]
    assert expected and len(sens) == 2 * len(expected)
    for r in expected:
        assert sens[f"chrf:{r['phenomenon']}:{r['lp']}:tau"] == [r["tau"]]
    bad = tmp_path / "bad.json"
    bad.write_text('{"results": [{"x": 1}]}')
    r = invoke(["audit", str(builds / "smaug14"), "--metric-results", str(bad), "--out", str(tmp_path / "b.html")])
    assert r.exit_code == 2 and "not the output of `gauntlet evaluate metric --json`" in r.output


def test_search_index_holds_every_record(builds, pages):
    index = search_entries(pages["smaug"])
    recs = load_records(builds / "smaug14").to_pylist()
    assert sorted(r["i"] for r in index) == sorted(r["id"] for r in recs)
    by_id = {r["i"]: r for r in index}
    for rec in recs:
        assert {rec["src"], rec["bad"], rec["good"]} <= set(by_id[rec["id"]]["t"])


@pytest.mark.skipif(
    chromium() is None,
    reason="Debian's chromium is not installed (make setup installs it where "
    "apt works): the page is not checked in a real browser",
)
def test_page_in_a_real_browser_offline(builds, pages):
    from PIL import Image, ImageStat

    page = builds / "smaug.html"
    visible = "Array.from(document.querySelectorAll('.card')).filter(c => c.offsetParent !== null)"
    js = {
        "cards": "document.querySelectorAll('.card').length",
        "visible": f"{visible}.length",
        "filters_shown": "Array.from(document.querySelectorAll('.filters')).every(f => !f.hidden)",
        "after_click": "(() => { document.querySelector(\".filters button[data-group='ne']\").click(); return "
        f"{visible}.map(c => c.closest('.ex-group').dataset.group); }})()",
        "svg": "document.querySelectorAll('svg.chart').length",
    }
    index = search_entries(pages["smaug"])
    q = " ".join(index[0]["t"][0].split()[:2]).lower()  # two words of a record's source
    expected = [r["i"] for r in index if q in "\n".join([r["i"], r["g"], r["s"], *r["t"]]).lower()][:50]
    js["search"] = (
        "(() => { const b = document.getElementById('record-search'); b.value = " + json.dumps(q) + "; "
        "b.dispatchEvent(new Event('input')); return Array.from(document.querySelectorAll("
        "'#search-results li')).map(li => li.dataset.id); })()"
    )
    run = load_page(page, evaluate=js)
    assert run.errors == []
    assert run.requests == [page.resolve().as_uri()]  # the file itself, nothing else
    assert run.values["filters_shown"] and run.values["visible"] == run.values["cards"] > 0
    assert run.values["after_click"] and set(run.values["after_click"]) == {"ne"}
    assert expected and run.values["search"] == expected
    img = Image.open(io.BytesIO(run.screenshot)).convert("L")
    assert img.size == (1280, 2000) and ImageStat.Stat(img).stddev[0] > 20  # not blank
    off = load_page(page, scripts=False, evaluate={k: js[k] for k in ("cards", "visible", "filters_shown")})
    assert off.errors == [] and off.values["visible"] == off.values["cards"] and not off.values["filters_shown"]
    rel = load_page(builds / "release.html", evaluate={"svg": js["svg"]})
    assert rel.errors == [] and rel.values["svg"] >= 2 and len(rel.requests) == 1


@pytest.mark.slow
def test_mtbreaker_page_shows_trajectories_and_step_curve(tmp_path, sample_path):
    out = tmp_path / "mtb"
    gauntlet(
        "build",
        "mtbreaker",
        "--seeds",
        str(sample_path),
        "--column",
        "en",
        "--limit",
        "1",
        "--steps",
        "1",
        "--mt",
        "apertium",
        "--qe",
        "qe#fast",
        "--src-lang",
        "en",
        "--tgt-lang",
        "es",
        "--out",
        str(out),
    )
    gauntlet("audit", str(out), "--out", str(tmp_path / "mtb.html"))
    html = (tmp_path / "mtb.html").read_text(encoding="utf-8")
    assert section_ids(html) == {"overview", "validation", "quality", "search", "examples", "methods"}
    (rec,) = load_records(out).to_pylist()
    for step in rec["trajectory"]:
        assert f">{step['qe_mean']:.4g}<" in html
    assert html.count('<tr class="kept">') == 1 and "<title>MT-breaker mtbreaker-seeded step curve</title>" in html
    start_qe = Attrs(html).values("data-metric")["mtbreaker:mtbreaker-seeded:start_mean_qe"]
    assert start_qe == [rec["trajectory"][0]["qe_mean"]]


def test_a_build_page_shows_the_usage_its_manifest_records(builds, tmp_path):
    """A build folder's page states the API usage of its build.json, as a release's page does."""
    import shutil

    from mtgauntlet.cards.audit import write_audit

    build = tmp_path / "subset"
    shutil.copytree(builds / "subset", build)
    manifest = json.loads((build / "build.json").read_text(encoding="utf-8"))
    manifest["usage"] = {
        "openai:judge@http://127.0.0.1:1/v1": {
            "requests": 7,
            "input_tokens": 1234,
            "output_tokens": 56,
            "cost_usd": 0.0042,
        }
    }
    (build / "build.json").write_text(json.dumps(manifest), encoding="utf-8")
    html = unescape(write_audit(build, tmp_path / "page.html").read_text(encoding="utf-8"))
    assert "openai:judge@http://127.0.0.1:1/v1: 7 requests, 1234 in / 56 out tokens, $0.0042" in html
