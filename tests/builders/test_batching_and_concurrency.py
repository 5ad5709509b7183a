"""Batching across items and concurrent API calls (issue #16 items 2-3): MT-breaker advances a shard's trajectories
step by step, zero-shot generates a shard together, the LLM roles and the bandit's LLM sampler send lists through
chat_many. Records must not depend on the shard size, the order of items in a batch or --concurrency; a resumed
build equals an uninterrupted one. Real OpenAI-compatible servers on 127.0.0.1 (tests/support/openai_server.py) play the
editor (a seeded sampler: its answer depends only on the conversation and the seed), translator and QE judges;
the output cache is off so that every run really asks the servers."""

import hashlib
import json

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from mtgauntlet.builders.base import Item
from mtgauntlet.builders.mtbreaker import MTBreakerBuilder
from mtgauntlet.builders.options.breaker import MTBreakerOptions, ZeroShotOptions
from mtgauntlet.builders.zeroshot import ZeroShotBuilder
from mtgauntlet.core.builds import item_rng
from mtgauntlet.models import registry
from mtgauntlet.options import options_of
from mtgauntlet.records import load_records
from tests.support.cli import invoke
from tests.support.openai_server import ScriptedServer
from tests.support.scripted_roles import QE_FAILS_ON, qe_a, qe_server_answer, scripted_stack, seeded_editor, translate

SEEDS = [
    "The dog barks at night.",
    "Tax law is complicated for small firms.",
    "She sold the house in May.",
    "Rain is expected tomorrow across the north.",
    "The committee approved the budget.",
    "He plays the violin every Sunday morning.",
    "Prices rose sharply last quarter.",
]
COMPARED = (
    "id",
    "text",
    "seed",
    "method",
    "trajectory",
    "qe_score",
    "llm_failures",
    "truncated",
    "mt_failures",
    "qe_failures",
)


@pytest.fixture(autouse=True)
def _no_cache(monkeypatch):
    monkeypatch.setenv("MTGAUNTLET_CACHE", "off")  # every run asks the servers
    monkeypatch.delenv("MTGAUNTLET_CONCURRENCY", raising=False)


@pytest.fixture(scope="module")
def _stack():
    with scripted_stack(editor_fn=seeded_editor(), latency=0.02) as s:
        yield s


@pytest.fixture()
def stack(_stack):
    _stack["reset"]()
    for srv in _stack["servers"].values():
        srv.max_in_flight = 0
    return _stack


def _seeds_file(tmp_path, seeds=SEEDS):
    path = tmp_path / "seeds.tsv"
    path.write_text("text\n" + "".join(f"{s}\n" for s in seeds), encoding="utf-8")
    return path


def _rows(out):
    return sorted(({k: r[k] for k in COMPARED} for r in load_records(out).to_pylist()), key=lambda r: r["id"])


def _by_item(builder, items, batches):
    """Process ``items`` in the given batches (lists of positions, any order); results keyed by item index."""
    out = {}
    for batch in batches:
        chosen = [items[i] for i in batch]
        for it, res in zip(chosen, builder.process_batch(chosen, [item_rng(13, it.index) for it in chosen])):
            out[it.index] = (res.records, res.rejected, res.skipped)
    return out


def test_mtbreaker_batches_give_the_records_of_single_items(stack, monkeypatch):
    monkeypatch.setenv("MTGAUNTLET_CONCURRENCY", "4")  # backends load with it: several requests of a list at once
    b = MTBreakerBuilder(
        options_of(
            MTBreakerOptions,
            variant="seeded+qe",
            llm=stack["llm"],
            mt=[stack["mt"]],
            qe=f"{stack['qe_a']},{stack['qe_b']}",
            steps=3,
            language_guard=False,
        )
    )
    items = [Item(i, {"src": s}) for i, s in enumerate(SEEDS)] + [Item(len(SEEDS), {"src": "  "})]
    alone = _by_item(b, items, [[i] for i in range(len(items))])
    assert all(s.max_in_flight == 1 for s in stack["servers"].values())  # one item: one request at a time
    asked = len(stack["servers"]["llm"].requests)
    together = _by_item(b, items, [list(range(len(items)))])
    reversed_ = _by_item(b, items, [list(reversed(range(len(items))))])
    assert together == alone == reversed_
    assert all(stack["servers"][k].max_in_flight > 1 for k in ("llm", "mt", "qe_a", "qe_b"))
    records = [r for recs, _, _ in alone.values() for r in recs]
    assert len(records) == len(SEEDS) and alone[len(SEEDS)][2] == ["empty_seed"]
    # the runs are not trivial: unusable answers were retried, and failed translations/scores were kept, unselected
    assert asked > 3 * len(SEEDS)  # 3 steps per seed, plus retries of unusable answers
    assert any(r["mt_failures"] for r in records) and any(r["qe_failures"] for r in records)
    assert len({tuple(s["source"] for s in r["trajectory"]) for r in records}) == len(SEEDS)


@pytest.mark.parametrize("variant", ["min", "history"])
def test_zeroshot_batches_give_the_records_of_single_items(stack, variant):
    options = options_of(
        ZeroShotOptions, variant=variant, llm=stack["llm"], mt=[stack["mt"]], qe=stack["qe_a"], generations=3
    )
    make = lambda: ZeroShotBuilder(options)  # noqa: E731
    items = [Item(i, {"src": s}) for i, s in enumerate(SEEDS[:5])]
    alone = _by_item(make(), items, [[i] for i in range(len(items))])
    together = _by_item(make(), items, [list(range(len(items)))])
    assert together == alone
    recs = [r for recs, _, _ in alone.values() for r in recs]
    failed = [rej for _, rej, _ in alone.values() if rej]
    per_item = 3 if variant == "min" else 1
    assert (
        len(recs) >= 3
        and len(recs) + len(failed) == 5
        and all(rej[0] in ("llm_failed", "mt_failed", "qe_failed") for rej in failed)
    )
    assert all(len(r["trajectory"]) + r["llm_failures"] == per_item for r in recs)
    if variant == "history":  # each prompt lists the texts chosen for the items before it
        first_prompts = [r["body"]["messages"][0]["content"] for r in stack["servers"]["llm"].requests]
        assert recs[0]["text"] in first_prompts[-1]


def test_cli_shard_size_and_concurrency_give_identical_records(stack, tmp_path):
    seeds = _seeds_file(tmp_path)
    common = [
        "build",
        "mtbreaker",
        "--seeds",
        seeds,
        "--llm",
        stack["llm"],
        "--mt",
        stack["mt"],
        "--qe",
        f"{stack['qe_a']},{stack['qe_b']}",
        "--steps",
        "3",
        "--no-language-guard",
    ]
    one = invoke([*common, "--shard-size", "1", "--out", tmp_path / "one"])
    assert one.exit_code == 0, one
    assert stack["servers"]["llm"].max_in_flight == 1
    llm = stack["servers"]["llm"]
    llm.script = [("status", 429, {"Retry-After": "1"})]  # the server throttles the first request of the next build
    many = invoke([*common, "--shard-size", "5", "--concurrency", "8", "--out", tmp_path / "many"])
    assert many.exit_code == 0, many
    assert llm.script == [] and llm.max_in_flight > 1
    assert _rows(tmp_path / "many") == _rows(tmp_path / "one")
    m1, m8 = (json.loads((tmp_path / d / "build.json").read_text()) for d in ("one", "many"))
    assert m1["signature"] == m8["signature"] and (m1["shard_size"], m8["shard_size"]) == (1, 5)
    assert m1["runtime"]["llm"][stack["llm"]]["concurrency"] == 1
    assert m8["runtime"]["llm"][stack["llm"]]["concurrency"] == 8
    assert m8["runtime"]["qe"]["openai:qa@" + stack["servers"]["qe_a"].url]["concurrency"] == 8
    # a plain re-run of a finished build adopts its shard size and changes nothing
    again = invoke([*common, "--out", tmp_path / "one"])
    assert again.exit_code == 0, again
    assert _rows(tmp_path / "one") == _rows(tmp_path / "many")


def test_resume_after_an_interrupted_shard_equals_an_uninterrupted_build(tmp_path):
    seeded = seeded_editor()
    poisoned = {"on": True}

    def editor(messages, body):  # the server fails for one item's conversation while "poisoned"
        if poisoned["on"] and any("POISON" in m["content"] for m in messages):
            return ("status", 500)
        return seeded(messages, body)

    editor.wants_body = True

    seeds = _seeds_file(tmp_path, SEEDS[:4] + ["The POISON pill was bitter."] + SEEDS[4:])
    with scripted_stack(editor_fn=editor) as s:
        common = [
            "build",
            "mtbreaker",
            "--seeds",
            seeds,
            "--llm",
            s["llm"] + "#retries=0",
            "--mt",
            s["mt"],
            "--qe",
            s["qe_a"],
            "--steps",
            "2",
            "--no-language-guard",
            "--shard-size",
            "3",
            "--concurrency",
            "4",
        ]
        cut = invoke([*common, "--out", tmp_path / "cut"])
        assert cut.exit_code == 2 and "HTTP 500" in cut.stderr and "Traceback" not in cut.stderr
        assert [p.name for p in (tmp_path / "cut" / "data").glob("part-*")] == ["part-00000000-00000003.parquet"]
        poisoned["on"] = False
        s["servers"]["llm"].requests.clear()
        resumed = invoke([*common, "--out", tmp_path / "cut"])
        assert resumed.exit_code == 0, resumed
        asked = [m["content"] for r in s["servers"]["llm"].requests for m in r["body"]["messages"]]
        assert not any(seed in text for seed in SEEDS[:3] for text in asked)  # the finished shard was not redone
        full = invoke([*common, "--out", tmp_path / "full"])
        assert full.exit_code == 0, full
    assert _rows(tmp_path / "cut") == _rows(tmp_path / "full") and len(_rows(tmp_path / "full")) == 8


def test_cli_zeroshot_concurrency_gives_identical_records(stack, tmp_path):
    seeds = _seeds_file(tmp_path, SEEDS[:5])
    common = [
        "build",
        "zeroshot",
        "--seeds",
        seeds,
        "--llm",
        stack["llm"],
        "--mt",
        stack["mt"],
        "--qe",
        stack["qe_a"],
        "--variant",
        "min",
        "--generations",
        "3",
    ]
    one = invoke([*common, "--shard-size", "1", "--out", tmp_path / "one"])
    assert one.exit_code == 0, one
    many = invoke([*common, "--concurrency", "6", "--out", tmp_path / "many"])
    assert many.exit_code == 0, many
    assert stack["servers"]["llm"].max_in_flight > 1 and stack["servers"]["mt"].max_in_flight > 1
    assert _rows(tmp_path / "many") == _rows(tmp_path / "one")
    assert json.loads((tmp_path / "many" / "build.json").read_text())["shard_size"] == 16


def test_llm_roles_send_their_prompts_as_one_concurrent_list():
    with (
        ScriptedServer(default=qe_server_answer(qe_a), latency=0.05) as q,
        ScriptedServer(default=translate, latency=0.05) as t,
    ):
        qe = registry.load("qe", f"llm-as-qe:openai:q@{q.url}#concurrency=4")
        mt = registry.load("translator", f"llm-as-translator:openai:t@{t.url}#concurrency=4")
        sources = [f"Sentence number {i} is here." for i in range(7)] + [f"The ruling stands {QE_FAILS_ON}."]
        hyps = mt.translate(sources, "en", "de")
        assert hyps == [s.upper() for s in sources] and 1 < t.max_in_flight <= 4 and len(t.requests) == 8
        scores = qe.score(sources, hyps, "en", "de")
        assert 1 < q.max_in_flight <= 4
        assert scores[:7] == [pytest.approx(qe_a(s, h), abs=0.05) for s, h in zip(sources, hyps)][:7]
        assert scores[7] is None and qe.failures["unparseable_score"] == 1
        # first every prompt greedily, then only the unparsed one again (temperature 0.7, seeds 1 and 2)
        sent = [(r["body"]["temperature"], r["body"].get("seed")) for r in q.requests]
        assert sorted(sent[:8]) == [(0.0, 0)] * 8 and sent[8:] == [(0.7, 1), (0.7, 2)]
        assert [qe.score([s], [h], "en", "de")[0] for s, h in zip(sources, hyps)] == scores  # same one by one


def _snippets(messages, body):
    """A search-grounded sampler: three snippets per topic, chosen by (topic, seed)."""
    topic = messages[-1]["content"].split("topics about ", 1)[1].split(" in English", 1)[0]
    h = hashlib.sha256(f"{topic}:{body.get('seed')}".encode()).hexdigest()
    texts = [
        f"Notes on {topic} number {int(h[i : i + 4], 16) % 50} discuss the matter at some length today, and the "
        "committee expects to publish its written findings on the question next spring"
        for i in (0, 4, 8)
    ]
    return json.dumps(
        {"extracted_snippets": [{"text": x, "source_url": f"http://example.com/{i}"} for i, x in enumerate(texts)]}
    )


_snippets.wants_body = True


def test_bandit_llm_sampler_and_scoring_are_concurrent_with_identical_pulls(stack, tmp_path):
    tax = tmp_path / "tax.yaml"
    tax.write_text("law:\n  - tax law\n  - prison law\nmusic:\n  - baroque music\n  - folk music\n", encoding="utf-8")
    with ScriptedServer(default=_snippets, latency=0.02) as sampler:
        common = [
            "build",
            "bandit",
            "--topics",
            tax,
            "--sampler",
            "llm",
            "--llm",
            f"openai:s@{sampler.url}",
            "--mt",
            stack["mt"],
            "--qe",
            stack["qe_a"],
            "--algorithm",
            "eps-greedy",
            "--batch",
            "4",
            "--budget",
            "10",
            "--k",
            "2",
            "--cap",
            "2",
        ]
        pulls = {}
        for n in ("1", "4"):
            sampler.max_in_flight = stack["servers"]["mt"].max_in_flight = 0
            r = invoke([*common, "--concurrency", n, "--out", tmp_path / n])
            assert r.exit_code == 0, r
            assert (sampler.max_in_flight > 1) == (n == "4") and (stack["servers"]["mt"].max_in_flight > 1) == (
                n == "4"
            )
            pulls[n] = [
                (p["step"], p["topic"], p["text"], p["difficulty"], p["phase"])
                for p in sorted(
                    pa.concat_tables(
                        [pq.read_table(f) for f in sorted((tmp_path / n / "pulls").glob("part-*.parquet"))]
                    ).to_pylist(),
                    key=lambda p: p["step"],
                )
            ]
    assert pulls["4"] == pulls["1"]
    sampled = [p[2] for p in pulls["1"] if p[4] != "exhausted"]
    assert len(sampled) == len(set(sampled)) == 10  # without replacement, within a step too
    m = json.loads((tmp_path / "4" / "build.json").read_text())
    assert m["runtime"]["sampler"][f"openai:s@{sampler.url}"]["concurrency"] == 4


def _flaky_snippets(messages, body):
    """As :func:`_snippets`, but about one (topic, seed) in three gets an unparseable answer (retried, counted)."""
    topic = messages[-1]["content"].split("topics about ", 1)[1].split(" in English", 1)[0]
    if int(hashlib.sha256(f"{topic}:{body.get('seed')}".encode()).hexdigest(), 16) % 3 == 0:
        return "I searched but found nothing usable."
    return _snippets(messages, body)


_flaky_snippets.wants_body = True


def test_bandit_sampler_counts_survive_a_resume(stack, tmp_path):
    """The LLM sampler's failures and retries in build.json are those of the whole search: a search stopped by its
    budget (exit 3) and resumed counts exactly what one uninterrupted run counts (issue #30.8)."""
    tax = tmp_path / "tax.yaml"
    tax.write_text("law:\n  - tax law\n  - prison law\nmusic:\n  - baroque music\n  - folk music\n", encoding="utf-8")
    with ScriptedServer(default=_flaky_snippets) as sampler:
        common = [
            "build",
            "bandit",
            "--topics",
            tax,
            "--sampler",
            "llm",
            "--llm",
            f"openai:s@{sampler.url}",
            "--mt",
            stack["mt"],
            "--qe",
            stack["qe_a"],
            "--algorithm",
            "eps-greedy",
            "--budget",
            "12",
            "--k",
            "2",
            "--cap",
            "3",
        ]
        assert invoke([*common, "--out", tmp_path / "whole"]).exit_code == 0
        stopped = invoke([*common, "--max-requests", "9", "--out", tmp_path / "resumed"])
        assert stopped.exit_code == 3, stopped
        assert invoke([*common, "--out", tmp_path / "resumed"]).exit_code == 0
    whole, resumed = (json.loads((tmp_path / d / "build.json").read_text())["counts"] for d in ("whole", "resumed"))
    assert whole["sampler_failures"] > 0 and whole["sampler_retries"] > 0
    assert {k: resumed[k] for k in ("sampler_failures", "sampler_retries", "pulls")} == {
        k: whole[k] for k in ("sampler_failures", "sampler_retries", "pulls")
    }
