"""The commands that can reach a paid backend, as the fault matrix runs them (tests/models/test_paid_runs_matrix.py):
what each is given (every spec through one scripted server, told apart by model name, with a planted secret) and
where each records what it paid."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pyarrow.parquet as pq

from tests.support.cli import REPO, invoke
from tests.support.openai_server import ScriptedServer
from tests.support.scripted_roles import qe_a, qe_server_answer, seeded_editor, translate

PRICE = (20.0, 20.0)  # USD per 1M tokens
PASSWORD, KEY, ENV_KEY = "Pw-matrix-7c2d9e", "sk-matrix-41af09b3", "sk-env-matrix-93be"
SECRETS = (PASSWORD, KEY, ENV_KEY)
EDITOR = seeded_editor(fail_every=0)
QE = qe_server_answer(qe_a)
SEEDS = [f"The {w} report number {i} was read aloud." for i, w in enumerate(["annual", "budget", "audit", "safety"])]


def answer_any_role(messages, body):
    """One server for every role, told apart by the model name of the spec."""
    model = body.get("model")
    if model == "editor":
        return EDITOR(messages, body)
    if model == "mt":
        return translate(messages)
    if model == "qa":
        return QE(messages)
    if model == "bj":
        return '"error_modes": ["idioms", "terminology"],'
    text = messages[-1]["content"].rsplit("\n\n", 1)[-1]  # a difficulty judge
    return f"Reasoning: long words.\n[[[{min(120, 7 * len(text.split()))}, B2 (Upper Intermediate)]]]"


answer_any_role.wants_body = True


def _spec(srv: ScriptedServer, model: str, opts: str) -> str:
    url = srv.url.replace("http://", f"http://matrix:{PASSWORD}@")
    return f"openai:{model}@{url}#price={PRICE[0]:g}/{PRICE[1]:g},key={KEY},key_env=MATRIX_KEY{opts}"


# -- the commands: what each is given, and where it records what it paid ----------------------------------------------
def _write(path: Path, text: str) -> Path:
    path.write_text(text, encoding="utf-8")
    return path


def _pairs(tmp: Path) -> Path:
    rows = "".join(f"{s}\tFrase {i}.\ten-es\n" for i, s in enumerate(SEEDS * 3))
    return _write(tmp / "pairs.tsv", "src\ttgt\tlp\n" + rows)


def _judgments(tmp: Path) -> Path:
    rows = [f"en-de\t{i}\t{s}\tsys{k}\t{-(i % 3) - k}\tFalse\n" for i, s in enumerate(SEEDS * 2) for k in range(3)]
    return _write(tmp / "judgments.tsv", "lp\titem_id\tsrc\tsystem\tscore\tis_human_ref\n" + "".join(rows))


def _catalog(tmp: Path, sample: Path) -> Path:
    from tests.evaluation.workbench_sets import challenge_pairs, write_build
    from tests.support.release_helpers import cli

    releases = tmp / "releases"
    build = write_build(tmp / "builds" / "aces-like", "challenge_pair", challenge_pairs(sample, n=8))
    cli("release", build, "--name", "aces-like", "--version", "1.0.0", "--out", releases, "--license", "cc-by-4.0")
    return releases


def _breaker_set(tmp: Path) -> Path:
    """A zero-shot build made with a server of its own (not counted in the matrix's)."""
    seeds = _write(tmp / "zs-seeds.tsv", "text\n" + "".join(f"{s}\n" for s in SEEDS[:2]))
    with ScriptedServer(default=answer_any_role) as srv:
        spec = lambda m: f"openai:{m}@{srv.url}"  # noqa: E731
        r = invoke(
            [
                "build",
                "zeroshot",
                "--seeds",
                seeds,
                "--llm",
                spec("editor"),
                "--mt",
                "llm-as-translator:" + spec("mt"),
                "--qe",
                "llm-as-qe:" + spec("qa"),
                "--variant",
                "min",
                "--generations",
                "2",
                "--out",
                tmp / "zs",
            ]
        )
    assert r.exit_code == 0, r.output
    return tmp / "zs"


Args = Callable[[ScriptedServer, Path, str, str], list]  # (server, tmp, out, spec options) -> argv


def _build_breaker(builder: str, extra: list) -> Args:
    def args(srv, tmp, out, opts):
        seeds = _write(tmp / "seeds.tsv", "text\n" + "".join(f"{s}\n" for s in SEEDS))
        return [
            "build",
            builder,
            "--seeds",
            seeds,
            "--llm",
            _spec(srv, "editor", opts),
            "--mt",
            "llm-as-translator:" + _spec(srv, "mt", opts),
            "--qe",
            "llm-as-qe:" + _spec(srv, "qa", opts),
            *extra,
            "--out",
            tmp / out,
        ]

    return args


def _bandit(srv, tmp, out, opts):
    from tests.models.test_usage import _topic_corpus

    return [
        "build",
        "bandit",
        "--corpus",
        _topic_corpus(tmp),
        "--topic-column",
        "topic",
        "--min-words",
        "3",
        "--mt",
        "llm-as-translator:" + _spec(srv, "mt", opts),
        "--qe",
        "llm-as-qe:" + _spec(srv, "qa", opts),
        "--src-lang",
        "en",
        "--tgt-lang",
        "de",
        "--budget",
        "8",
        "--batch",
        "4",
        "--k",
        "2",
        "--out",
        tmp / out,
    ]


def _corpus_build(builder: str, role_flag: str, role: str, model: str, extra: list) -> Args:
    def args(srv, tmp, out, opts):
        common = ["--input", REPO / "mtgauntlet" / "data" / "sample_es_en.tsv", "--src-col", "es", "--src-lang", "es"]
        return ["build", builder, *common, role_flag, f"{role}:" + _spec(srv, model, opts), *extra, "--out", tmp / out]

    return args


COMMANDS: dict[str, tuple[Args, str]] = {  # command -> (its arguments, where it records its usage)
    "build mtbreaker": (
        _build_breaker("mtbreaker", ["--variant", "seeded+qe", "--steps", "2", "--no-language-guard"]),
        "build",
    ),
    "build zeroshot": (_build_breaker("zeroshot", ["--variant", "min", "--generations", "2"]), "build"),
    "build bandit": (_bandit, "build"),
    "build subset": (
        _corpus_build(
            "subset", "--estimator", "llm-judge-src", "j", ["--tgt-lang", "en", "--budget", "4", "--limit", "16"]
        ),
        "build",
    ),
    "build smaug": (
        _corpus_build(
            "smaug",
            "--translator",
            "llm-as-translator",
            "mt",
            ["--ref-col", "en", "--tgt-lang", "en", "--limit", "8", "--phenomena", "num,del"],
        ),
        "build",
    ),
    "score qe": (
        lambda srv, tmp, out, opts: [
            "score",
            "qe",
            "-i",
            _pairs(tmp),
            "-o",
            tmp / f"{out}.parquet",
            "--qe",
            "llm-as-qe:" + _spec(srv, "qa", opts),
        ],
        "score",
    ),
    "score difficulty": (
        lambda srv, tmp, out, opts: [
            "score",
            "difficulty",
            "-i",
            _pairs(tmp),
            "--src-lang",
            "en",
            "-o",
            tmp / f"{out}.parquet",
            "--estimator",
            "llm-judge-src:" + _spec(srv, "j", opts),
        ],
        "score",
    ),
    "evaluate metric": (
        lambda srv, tmp, out, opts: [
            "evaluate",
            "metric",
            "--releases",
            _catalog(tmp, REPO / "mtgauntlet" / "data" / "sample_es_en.tsv")
            if not (tmp / "releases").exists()
            else tmp / "releases",
            "-m",
            "llm-as-qe:" + _spec(srv, "qa", opts) + ",chrf",  # a spec with options, then another
            "--ci-resamples",
            "20",
            "--out",
            tmp / out,
        ],
        "results",
    ),
    "evaluate breaker": (
        lambda srv, tmp, out, opts: [
            "evaluate",
            "breaker",
            "--set",
            tmp / "zs" if (tmp / "zs").exists() else _breaker_set(tmp),
            "--judge",
            _spec(srv, "bj", opts),
        ],
        "none",
    ),
    "evaluate dec": (
        lambda srv, tmp, out, opts: [
            "evaluate",
            "dec",
            "-j",
            _judgments(tmp),
            "-e",
            "llm-judge-src:" + _spec(srv, "j", opts),
            "--out",
            tmp / out,
        ],
        "none",
    ),
}


def recorded_usage(where: str, tmp: Path, out: str) -> dict | None:
    """The usage the command recorded (per spec), or None where it records none."""
    if where == "build":
        return json.loads((tmp / out / "build.json").read_text())["usage"]
    if where == "score":
        path = tmp / f"{out}.parquet"
        if not path.exists():
            return None
        return json.loads(pq.read_schema(path).metadata[b"PANDAS_ATTRS"])["mtgauntlet.usage"]
    if where == "results":
        runs = json.loads((tmp / out / "manifest.json").read_text())["runs"]
        return runs[-1]["usage"]
    return None


def paid_commands() -> set[str]:
    """Every CLI command that takes --max-cost: the commands that can reach a paid backend."""
    from mtgauntlet.cli.main import command_tree

    def walk(cmd, path):
        subs = getattr(cmd, "commands", None)
        if subs:
            for name, sub in subs.items():
                yield from walk(sub, [*path, name])
        elif any("--max-cost" in getattr(p, "opts", ()) for p in cmd.params):
            yield " ".join(path)

    return set(walk(command_tree(), []))
