"""Credentials in model specs (a URL's user info, a ``#key=`` option) reach the server and nothing else: not a
record, a signature, build.json, a validation report, a release (manifest, card, Croissant), an audit page, a
published repository, the answer cache, stdout or stderr. And price, pace and secret options do not change a record
(records name a model by its public spec, as the signature does). Real servers on 127.0.0.1 (tests/support/openai_server.py)."""

from __future__ import annotations

import base64
import io
import json
import subprocess

import pyarrow.parquet as pq
import pytest

from mtgauntlet.core.spec_public import redact_secrets
from mtgauntlet.models.registry import public_spec
from mtgauntlet.records import load_records
from tests.support.cli import invoke
from tests.support.openai_server import ScriptedServer
from tests.support.scripted_roles import qe_a, qe_b, qe_server_answer, seeded_editor, translate

PASSWORD = "Pw-7f3a9c2e51aa"  # planted: must appear nowhere but in the requests' Authorization headers
KEY = "sk-planted-91d0b6e4"
SECRETS = (PASSWORD.encode(), KEY.encode())
SEEDS = ["The dog barks at night.", "She sold the house in May."]


@pytest.fixture(autouse=True)
def _env(tmp_path, monkeypatch):
    monkeypatch.setenv("MTGAUNTLET_CACHE_DIR", str(tmp_path / "cache"))  # the answer cache is scanned as well
    for var in ("MTGAUNTLET_CONCURRENCY", "MTGAUNTLET_MAX_COST", "MTGAUNTLET_MAX_REQUESTS", "OPENAI_API_KEY"):
        monkeypatch.setenv(var, "")


def _with_userinfo(url: str) -> str:
    return url.replace("http://", f"http://alice:{PASSWORD}@", 1)


def _judge(messages) -> str:
    text = messages[-1]["content"].rsplit("\n\n", 1)[-1]
    return f"Reasoning: long words.\n[[[{min(120, 7 * len(text.split()))}, B2 (Upper Intermediate)]]]"


def _parquet_text(data: bytes) -> str:
    table = pq.read_table(io.BytesIO(data))
    meta = {
        k.decode("utf-8", "replace"): v.decode("utf-8", "replace") for k, v in (table.schema.metadata or {}).items()
    }
    return json.dumps([meta, table.to_pylist()], default=str, ensure_ascii=False)


def _leaks(root) -> list[str]:
    """Every file under ``root`` (bytes, Parquet decoded, git objects decompressed) that holds a planted secret."""
    found = []
    for path in sorted(p for p in root.rglob("*") if p.is_file()):
        data = path.read_bytes()
        texts = [data]
        if data[:4] == b"PAR1":
            texts.append(_parquet_text(data).encode())
        found += [f"{path.relative_to(root)}: {s.decode()}" for s in SECRETS if any(s in t for t in texts)]
    for repo in {p.parent for p in root.rglob("HEAD") if (p.parent / "objects").is_dir()}:  # git: compressed objects
        listing = subprocess.run(
            ["git", "-C", repo, "cat-file", "--batch-all-objects", "--batch-check"],
            check=True,
            capture_output=True,
            text=True,
        ).stdout.split()
        for oid, kind in zip(listing[::3], listing[1::3]):
            data = subprocess.run(["git", "-C", repo, "cat-file", "-p", oid], check=True, capture_output=True).stdout
            texts = [data, _parquet_text(data).encode()] if kind == "blob" and data[:4] == b"PAR1" else [data]
            found += [
                f"{repo.relative_to(root)} {kind} {oid}: {s.decode()}" for s in SECRETS if any(s in t for t in texts)
            ]
    return found


def test_public_spec_keeps_what_is_computed_and_drops_cost_pace_and_credentials():
    spec = f"llm-as-qe:openai:m@http://alice:{PASSWORD}@h:1/v1#key={KEY},price=1/2,json=1,timeout=9,key_env=K,retries=2"
    assert public_spec(spec) == "llm-as-qe:openai:m@http://h:1/v1#json=1,retries=2"
    assert public_spec("hf:m#tokenizer=t,max_tokens=5,api_token=x,batch=8") == "hf:m#tokenizer=t,max_tokens=5"
    assert public_spec(["bergamot:en-pt#batch=4>apertium:pt-es", "qe#fast", 3]) == [
        "bergamot:en-pt>apertium:pt-es",
        "qe#fast",
        3,
    ]
    assert public_spec("column=a#price=1") == "column=a#price=1"  # not a spec: as it was
    line = redact_secrets(f"spec 'openai:m@http://alice:{PASSWORD}@h/v1#key={KEY},json=1' failed; then {KEY} again")
    assert PASSWORD not in line and KEY not in line
    assert line == "spec 'openai:m@http://***@h/v1#key=***,json=1' failed; then *** again"
    assert (
        redact_secrets("GET http://h/v1?api_key=abc&x=1 max_tokens=5") == "GET http://h/v1?api_key=***&x=1 max_tokens=5"
    )


def test_errors_raised_to_python_callers_mask_the_credentials(tmp_path, sample_path):
    import mtgauntlet as mg

    with pytest.raises(mg.GauntletError) as caught:
        mg.build(
            "subset",
            input=sample_path,
            src_col="es",
            src_lang="es",
            budget=4,
            out=tmp_path / "b",
            estimator=f"nosuch:m@http://alice:{PASSWORD}@h/v1#key={KEY}",
        )
    assert "nosuch:m@http://***@h/v1#key=***" in str(caught.value)
    assert PASSWORD not in str(caught.value) and KEY not in str(caught.value)


def test_a_price_or_secret_option_changes_no_record_and_no_id(tmp_path, sample_path):
    with ScriptedServer(default=_judge) as srv:
        outs = {}
        for name, opts in (("plain", ""), ("paid", f"#price=1/2,timeout=30,concurrency=2,key={KEY}")):
            r = invoke(
                [
                    "build",
                    "subset",
                    "--input",
                    sample_path,
                    "--src-col",
                    "es",
                    "--src-lang",
                    "es",
                    "--tgt-lang",
                    "en",
                    "--estimator",
                    f"llm-judge-src:openai:j@{srv.url}{opts}",
                    "--budget",
                    "5",
                    "--out",
                    tmp_path / name,
                ]
            )
            assert r.exit_code == 0, r
            outs[name] = load_records(tmp_path / name).to_pylist()
            for rec in outs[name]:
                rec.pop("created_at", None)
    assert outs["paid"] == outs["plain"] and len(outs["plain"]) == 5  # same estimator column, so the same ids
    assert {r["estimator"] for r in outs["paid"]} == {f"llm-judge-src:openai:j@{srv.url}"}
    signatures = [json.loads((tmp_path / n / "build.json").read_text())["signature"] for n in ("plain", "paid")]
    assert signatures[0] == signatures[1]


def test_a_planted_secret_reaches_no_file_and_no_output(tmp_path, sample_path):
    seeds = tmp_path / "seeds.tsv"
    seeds.write_text("text\n" + "".join(f"{s}\n" for s in SEEDS), encoding="utf-8")
    outputs: list[str] = []

    def run(*args, code=0):
        r = invoke([str(a) for a in args])
        outputs.append(r.output)
        assert r.exit_code == code, r
        return r

    servers = [
        ScriptedServer(default=_judge),
        ScriptedServer(default=seeded_editor()),
        ScriptedServer(default=translate),
        ScriptedServer(default=qe_server_answer(qe_a)),
        ScriptedServer(default=qe_server_answer(qe_b)),
    ]
    for s in servers:
        s.__enter__()
    try:
        judge, editor, mt, qa, qb = servers
        # user info and a key (user info wins: basic auth); user info alone; a key alone
        estimator = f"llm-judge-src:openai:j@{_with_userinfo(judge.url)}#key={KEY},price=1/2"
        llm = f"openai:editor@{_with_userinfo(editor.url)}#price=2.5/10"
        breaker = [
            "build",
            "mtbreaker",
            "--seeds",
            seeds,
            "--variant",
            "seeded+qe",
            "--steps",
            "2",
            "--llm",
            llm,
            "--mt",
            f"llm-as-translator:openai:mt@{mt.url}#key={KEY}",
            "--qe",
            f"llm-as-qe:openai:qa@{_with_userinfo(qa.url)},llm-as-qe:openai:qb@{qb.url}#key={KEY}",
            "--no-language-guard",
            "--out",
            tmp_path / "breaker",
        ]
        run(*breaker, "--dry-run")
        run(
            "-v",
            "build",
            "subset",
            "--input",
            sample_path,
            "--src-col",
            "es",
            "--src-lang",
            "es",
            "--tgt-lang",
            "en",
            "--estimator",
            estimator,
            "--budget",
            "5",
            "--out",
            tmp_path / "subset",
        )
        run(*breaker)
        scored = run(
            "score",
            "difficulty",
            "-i",
            seeds,
            "--src-col",
            "text",
            "--src-lang",
            "en",
            "--estimator",
            f"{estimator},batch=1,poll=0.05",
            "-o",
            tmp_path / "scored.parquet",
        )  # the Batch API's state
        assert f"scored with llm-judge-src:openai:j@{judge.url}" in scored.stdout
        basic = "Basic " + base64.b64encode(f"alice:{PASSWORD}".encode()).decode()
        bearer = f"Bearer {KEY}"
        for server, auth in ((judge, basic), (editor, basic), (mt, bearer), (qa, basic), (qb, bearer)):
            sent = [r for r in server.requests if r["path"] == "/v1/chat/completions"]
            assert sent and {r["headers"].get("Authorization") for r in sent} == {auth}
        assert any(r["path"] == "/v1/batches" for r in judge.requests)
        run(
            "build",
            "smaug",
            "--input",
            sample_path,
            "--src-col",
            "es",
            "--ref-col",
            "en",
            "--src-lang",
            "es",
            "--tgt-lang",
            "en",
            "--limit",
            "6",
            "--phenomena",
            "num,del",
            "--translator",
            f"llm-as-translator:openai:mt@{_with_userinfo(mt.url)}#key={KEY},price=1/1",
            "--out",
            tmp_path / "smaug",
        )
        # failures quote the spec: the error line masks the credentials
        r = run(
            "build",
            "subset",
            "--input",
            sample_path,
            "--src-col",
            "es",
            "--src-lang",
            "es",
            "--estimator",
            f"llm-judge-src:openai:j@{_with_userinfo('http://127.0.0.1:9/v1')}#key={KEY},retries=0",
            "--out",
            tmp_path / "refused",
            code=2,
        )
        assert r.stderr.splitlines()[-1].startswith("error: http://127.0.0.1:9/v1/chat/completions: request failed")
        r = run(
            "build",
            "subset",
            "--input",
            sample_path,
            "--src-col",
            "es",
            "--src-lang",
            "es",
            "--estimator",
            f"llm-judge-src:openai:j@ftp://alice:{PASSWORD}@h/v1#key={KEY}",
            "--out",
            tmp_path / "bad",
            code=2,
        )
        assert (
            r.stderr == "error: spec 'openai:j@ftp://***@h/v1#key=***': 'ftp://h/v1' is not an http(s) URL; write "
            "openai:<model>@http://host:port/v1\n"
        )
    finally:
        for s in servers:
            s.__exit__(None, None, None)
    builds = ("subset", "breaker", "smaug")
    for build in builds:
        run("validate", tmp_path / build, "--report", tmp_path / "reports" / build)
    run(
        "release",
        *(tmp_path / b for b in builds),
        "--name",
        "secrets",
        "--version",
        "0.1.0",
        "--audit",
        "--out",
        tmp_path / "releases",
        *(a for b in builds for a in ("--report", tmp_path / "reports" / b)),
    )
    release = tmp_path / "releases" / "name=secrets" / "version=0.1.0"
    run("audit", release, "--out", tmp_path / "audit.html")
    run("publish", release, "--repo", f"file:{tmp_path / 'hub.git'}")
    run("query", "--releases", tmp_path / "releases", "SELECT * FROM selected_text")
    # the public specs are there (a release still says which models made it) ...
    card = (release / "README.md").read_text(encoding="utf-8")
    assert f"llm-judge-src:openai:j@{judge.url}" in card
    estimators = {r["estimator"] for r in load_records(tmp_path / "subset").to_pylist()}
    assert estimators == {f"llm-judge-src:openai:j@{judge.url}"}
    origins = {r["good_origin"] for r in load_records(tmp_path / "smaug").to_pylist()}
    assert origins == {f"translator:llm-as-translator:openai:mt@{mt.url}"}
    assert (tmp_path / "hub.git").is_dir() and (tmp_path / "cache").is_dir()
    # ... and the planted secrets are nowhere
    assert _leaks(tmp_path) == []
    assert [s for s in SECRETS if any(s.decode() in out for out in outputs)] == []


def test_a_recipe_with_credentials_shows_and_releases_only_the_public_specs(tmp_path, sample_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "texts.tsv").write_text(sample_path.read_text(encoding="utf-8"), encoding="utf-8")
    with ScriptedServer(default=_judge) as judge:
        (tmp_path / "r.yaml").write_text(
            f"""\
recipe: 1
release:
  name: sec
  version: 0.1.0
builds:
  hardest:
    builder: subset
    input: texts.tsv
    src-col: es
    src-lang: es
    tgt-lang: en
    budget: 4
    estimator: "llm-judge-src:openai:j@{_with_userinfo(judge.url)}#key={KEY},price=1/2"
""",
            encoding="utf-8",
        )
        plan = invoke(["run", "r.yaml", "--work", "w", "--releases", "rel", "--dry-run"])
        assert plan.exit_code == 0 and "#key=***" in plan.output, plan
        done = invoke(["-v", "run", "r.yaml", "--work", "w", "--releases", "rel"])
        assert done.exit_code == 0, done
    resolved = (tmp_path / "rel" / "name=sec" / "version=0.1.0" / "recipe.yaml").read_text(encoding="utf-8")
    assert f"estimator: llm-judge-src:openai:j@{judge.url}\n" in resolved
    assert [s for s in SECRETS if s.decode() in plan.output + done.output] == []
    assert [leak for leak in _leaks(tmp_path) if not leak.startswith("r.yaml:")] == []  # the user's own recipe


def test_a_price_on_the_qe_or_mt_spec_changes_no_breaker_record(tmp_path):
    from tests.support.scripted_roles import scripted_stack

    seeds = tmp_path / "seeds.tsv"
    seeds.write_text("text\n" + "".join(f"{s}\n" for s in SEEDS), encoding="utf-8")
    outs = {}
    with scripted_stack(editor_fn=seeded_editor()) as s:
        for name, opts in (("plain", ""), ("paid", "#price=1/2")):  # a QE list is comma-separated: one option
            s["reset"]()
            r = invoke(
                [
                    "build",
                    "mtbreaker",
                    "--seeds",
                    seeds,
                    "--variant",
                    "seeded+qe",
                    "--steps",
                    "2",
                    "--llm",
                    s["llm"],
                    "--mt",
                    s["mt"] + opts,
                    "--qe",
                    f"{s['qe_a']}{opts},{s['qe_b']}",
                    "--no-language-guard",
                    "--out",
                    tmp_path / name,
                ]
            )
            assert r.exit_code == 0, r
            outs[name] = [
                {k: v for k, v in rec.items() if k != "created_at"} for rec in load_records(tmp_path / name).to_pylist()
            ]
    assert outs["paid"] == outs["plain"] and outs["plain"]
    assert outs["paid"][0]["target_models"] == [s["mt"]] and outs["paid"][0]["qe_models"] == [s["qe_a"], s["qe_b"]]
