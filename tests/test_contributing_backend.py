"""docs/contributing.md's "Add a paid translator backend" walkthrough, followed as written: its two code blocks go
into a temporary copy of the package (the new module, the one registry line), and the copy's new backend, speaking
to a local per-character billed translation API on 127.0.0.1, is estimated by ``--dry-run``, stopped by
``--max-cost``, resumed without paying a text twice, and counted in build.json and on the release card, its key in
none of them, with two files of the package touched and no ledger code copied."""

from __future__ import annotations

import csv
import json
import subprocess
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pyarrow.parquet as pq

from tests.support.cli import REPO
from tests.test_contributing import BLOCK, GUIDE, RUN_COMMANDS, _changed_files, _rows_with_units, _section

KEY = "ck-walkthrough-s3cr3t-key"
PRICE_IN = 20.0  # USD per 1M source characters


class CharAPI:
    """A translation API billed per source character: ``POST /translate`` answers the scripted translation of a
    known source (401 without the bearer key), and counts what it bills."""

    def __init__(self, translations: dict[str, str]):
        self.translations, self.billed, self.paid = translations, 0, {}
        api = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *a):
                pass

            def do_POST(self):
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                if self.headers.get("Authorization") != f"Bearer {KEY}" or self.path != "/translate":
                    return self._send(401, {"error": "unauthorized"})
                text = body["text"]
                api.billed += len(text)
                api.paid[text] = api.paid.get(text, 0) + 1
                assert (body["source"], body["target"]) == ("es", "en")
                self._send(200, {"translation": api.translations[text], "billed_characters": len(text)})

            def _send(self, code, payload):
                data = json.dumps(payload).encode("utf-8")
                self.send_response(code)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"

    def __enter__(self):
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        return self

    def __exit__(self, *exc):
        self.server.shutdown()
        self.server.server_close()


def follow_the_walkthrough(package: Path) -> None:
    """The block titled with the new module's path is that file; the registry block is a line added to REGISTRY
    after the ``bergamot`` line, as the guide says."""
    blocks = BLOCK.findall(_section(GUIDE.read_text(encoding="utf-8"), "Add a paid translator backend"))
    assert [title for title, _ in blocks] == ["mtgauntlet/models/chartr.py", "mtgauntlet/models/registry.py"]
    (module_path, module), (_, line) = blocks
    target = package.parent / module_path
    assert not target.exists()
    target.write_text(module, encoding="utf-8")
    registry = package / "models" / "registry.py"
    text = registry.read_text(encoding="utf-8")
    anchor = next(s for s in text.splitlines(keepends=True) if s.strip().startswith('"bergamot":'))
    registry.write_text(text.replace(anchor, anchor + line), encoding="utf-8")


def test_the_paid_translator_walkthrough_is_counted_capped_estimated_and_carded(tmp_path, shared_data):
    from tests.support.walkthrough import passed, repo_copy, run_tests

    package = repo_copy(tmp_path) / "mtgauntlet"
    follow_the_walkthrough(package)
    assert _changed_files(REPO / "mtgauntlet", package) == ["models/chartr.py", "models/registry.py"]

    rows = _rows_with_units(shared_data)  # FLORES es-en rows, most with numbers (the num phenomenon)
    corpus = tmp_path / "pairs.tsv"
    with corpus.open("w", encoding="utf-8", newline="") as f:
        writer = csv.DictWriter(f, ["es", "en"], delimiter="\t")
        writer.writeheader()
        writer.writerows(rows)
    sources = {r["es"]: "In short, " + r["en"][0].lower() + r["en"][1:] for r in rows}  # a translation, not the ref
    full_cost = sum(map(len, sources)) * PRICE_IN / 1e6
    with CharAPI(sources) as api:
        spec = f"chartr:{api.url}#key={KEY},price={PRICE_IN:g}/0"
        build = [
            "build",
            "smaug",
            "--input",
            str(corpus),
            "--src-col",
            "es",
            "--ref-col",
            "en",
            "--src-lang",
            "es",
            "--tgt-lang",
            "en",
            "--good-from",
            "translator",
            "--translator",
            spec,
            "--phenomena",
            "num",
            "--out",
            str(tmp_path / "b"),
        ]
        commands = [
            [*build, "--dry-run"],
            ["--max-cost", f"{full_cost / 3:.6f}", *build],  # a third of what the build costs: stopped
            ["--max-cost", "1", *build],  # resumed with a larger budget: only the texts not answered yet are paid
            [
                "release",
                str(tmp_path / "b"),
                "--name",
                "chartr",
                "--version",
                "0.1.0",
                "--out",
                str(tmp_path / "releases"),
            ],
        ]
        env = {
            "PYTHONPATH": str(package.parent),
            "PATH": "/usr/bin:/bin",
            "HF_HUB_OFFLINE": "1",
            "TRANSFORMERS_OFFLINE": "1",
            "HF_DATASETS_OFFLINE": "1",
            "HOME": str(tmp_path),
            "MTGAUNTLET_CACHE_DIR": str(tmp_path / "cache"),
        }
        proc = subprocess.run(
            [sys.executable, "-c", RUN_COMMANDS, json.dumps(commands)],
            capture_output=True,
            text=True,
            env=env,
            cwd=tmp_path,
            timeout=600,
        )
    assert proc.returncode == 0, proc.stderr[-3000:]
    ran = json.loads(proc.stdout.strip().splitlines()[-1])
    assert Path(ran["package"]).parent == package  # the copy ran, not the checkout
    dry, capped, built, released = ran["results"]
    shown = f"chartr:{api.url}#key=***,price=20/0"  # as the ledger, build.json and the card name the spec

    assert dry["code"] == 0, dry
    assert f"{shown}: {len(rows)} calls, ~{sum(map(len, sources))} input tokens" in dry["stdout"], dry
    assert f"at most ${full_cost:.4f}" in dry["stdout"]

    assert capped["code"] == 3 and "budget reached: --max-cost" in capped["stderr"], capped
    assert built["code"] == 0, built
    assert released["code"] == 0, released
    assert sorted(api.paid) == sorted(sources) and set(api.paid.values()) == {1}  # every text paid exactly once
    assert api.billed == sum(map(len, sources))

    manifest_text = (tmp_path / "b" / "build.json").read_text(encoding="utf-8")
    usage = json.loads(manifest_text)["usage"][shown]
    assert usage["requests"] == len(sources) and usage["input_tokens"] == api.billed
    assert abs(usage["cost_usd"] - full_cost) < 1e-9 and usage["price_per_1m"] == [PRICE_IN, 0.0]
    records = [r for f in sorted((tmp_path / "b" / "data").glob("*.parquet")) for r in pq.read_table(f).to_pylist()]
    assert records and all(r["good"] in sources.values() for r in records)  # the API's translations are the goods

    card = (tmp_path / "releases" / "name=chartr" / "version=0.1.0" / "README.md").read_text(encoding="utf-8")
    assert f"{len(sources)} requests, {api.billed} in / 0 out characters, ${full_cost:.4f}" in card
    published = [
        manifest_text,
        card,
        proc.stdout,
        proc.stderr,
        *(
            p.read_text(encoding="utf-8", errors="replace")
            for p in (tmp_path / "b").rglob("*")
            if p.is_file() and p.suffix in (".json", ".jsonl", ".md", ".txt")
        ),
    ]
    assert not [text for text in published if KEY in text]

    # the copy's registry-wide contract tests load the new entry by its own example, secrets kept out
    run = run_tests(package.parent, tmp_path, "tests/models/test_backend_contract.py", "-k", "chartr or undeclared")
    assert run.returncode == 0, run.stdout[-4000:] + run.stderr[-2000:]
    contract = "tests/models/test_backend_contract.py::test_"
    assert passed(run, f"{contract}every_registry_entry_loads_or_names_the_extra_to_install[chartr-translator]")
    assert passed(run, f"{contract}secret_options_stay_out_of_signatures[chartr-translator]")
