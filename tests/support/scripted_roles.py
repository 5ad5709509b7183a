"""Deterministic LLM roles served over the real OpenAI-compatible protocol (tests/support/openai_server.py): a translator,
a QE judge and an editor, so that MT-breaker, zero-shot and the bandit run end to end without Apertium or
../shared/data. Texts containing a marker word make a role fail (an unparseable answer)."""

from __future__ import annotations

import hashlib
import re
import sys
from contextlib import ExitStack, contextmanager

from tests.support.openai_server import ScriptedServer

MT_FAILS_ON = "bamboozled"  # the translator answers garbage for sources with this word
QE_FAILS_ON = "notwithstanding"  # the QE judge answers garbage for sources with this word
EDIT_WORDS = ["quickly", "notwithstanding", "yesterday", "bamboozled", "irrevocably", "zeitgeist", "flummoxed"]


def _field(text: str, name: str) -> str:
    m = re.search(rf"{name}: \|\|\|(.*?)\|\|\|", text, re.S)
    return m.group(1) if m else ""


def words(text: str) -> int:
    return len(re.findall(r"\w+", text))


def translate(messages) -> str:
    """'Translation': the source upper-cased (language-agnostic, deterministic)."""
    source = messages[-1]["content"].rsplit("Source text: ", 1)[-1]
    if MT_FAILS_ON in source:
        return "Sorry, I cannot help with that."
    return f"<START OF TRANSLATION>{source.upper()}</END OF TRANSLATION>"


def qe_a(source: str, translation: str) -> float:
    return max(0.0, 96.0 - 2.0 * words(source))


def qe_b(source: str, translation: str) -> float:
    return max(0.0, 90.0 - 0.5 * len(source) % 17)


def qe_server_answer(fn):
    def answer(messages) -> str:
        prompt = messages[-1]["content"]
        source, translation = _field(prompt, "SOURCE"), _field(prompt, "TRANSLATION")
        if QE_FAILS_ON in source:
            return "The translation looks fine to me!"
        return f"Errors: none worth noting.\nSCORE |||{fn(source, translation):.1f}|||"

    return answer


def _edit(messages, word: str, opening: str) -> str:
    """The editor's answer: ``word`` appended to the latest SOURCE of the conversation, or a new text."""
    prompt = messages[-1]["content"]
    if "professional translator" in prompt or "Evaluate the quality" in prompt:
        raise AssertionError("the editor got a translation/QE prompt")
    sources = [m["content"] for m in messages if m["role"] == "assistant"]
    if not sources:
        return f"Here you go. SOURCE |||{opening} was kept in the county office {word}.|||"
    prev = _previous_source(sources[-1])
    return f"I made it harder. SOURCE |||{prev} {word}|||"


def _previous_source(answer: str) -> str:
    """The text of an earlier editor answer as the chat history keeps it: ``SOURCE |||x|||`` (plain answers, and
    seeds), or the JSON object of a structured answer (``#json=1``)."""
    m = re.search(r"\|\|\|(.*)\|\|\|", answer, re.S)
    if m:
        return m.group(1)
    import json

    try:
        return json.loads(answer)["source"]
    except (ValueError, KeyError, TypeError):
        return answer


def editor():
    """Appends one word per call to the latest SOURCE of the conversation (or starts a text); ``.calls[0] = 0``
    starts the word list again."""
    calls = [0]

    def answer(messages) -> str:
        word = EDIT_WORDS[calls[0] % len(EDIT_WORDS)]
        calls[0] += 1
        return _edit(messages, word, "The old ledger")

    answer.calls = calls
    return answer


def seeded_editor(fail_every: int = 4, words: list[str] = EDIT_WORDS):
    """An editor whose answer depends only on the conversation and the request's seed, as a real sampled LLM with a
    seed (so any batch size, order or concurrency gives the same records): it appends a word chosen by (seed,
    conversation) to the latest SOURCE, or starts a text; for about one seed in ``fail_every`` (0: never) it
    answers without a SOURCE (unusable: the builder asks again with the item's next seed). The conversation counts
    by what it says (earlier answers by their SOURCE text), so plain and JSON answers lead alike. The default ``words``
    include the markers that make the scripted translator and QE judge fail."""

    def answer(messages, body) -> str:
        # what the conversation says, not how the answers were formatted (plain SOURCE |||x||| or #json=1 JSON):
        # the same texts in either form get the same next edit
        said = [
            (m["role"], _previous_source(m["content"]) if m["role"] == "assistant" else m["content"]) for m in messages
        ]
        h = int(hashlib.sha256(f"{body.get('seed')}:{said}".encode()).hexdigest(), 16)
        if fail_every and h % fail_every == 0:
            return "I would rather not change anything."
        return _edit(messages, words[h // max(fail_every, 1) % len(words)], f"Ledger {h % 1000}")

    answer.wants_body = True
    return answer


@contextmanager
def scripted_stack(editor_fn=None, latency: float = 0.0):
    """Servers for the editor LLM, the translator and two QE judges (each answering after ``latency`` seconds);
    yields their specs."""
    editor_fn = editor_fn or editor()
    with ExitStack() as stack:
        llm = stack.enter_context(ScriptedServer(default=editor_fn, latency=latency))
        mt = stack.enter_context(ScriptedServer(default=translate, latency=latency))
        qa = stack.enter_context(ScriptedServer(default=qe_server_answer(qe_a), latency=latency))
        qb = stack.enter_context(ScriptedServer(default=qe_server_answer(qe_b), latency=latency))
        yield {
            "llm": f"openai:editor@{llm.url}",
            "mt": f"llm-as-translator:openai:mt@{mt.url}",
            "qe_a": f"llm-as-qe:openai:qa@{qa.url}",
            "qe_b": f"llm-as-qe:openai:qb@{qb.url}",
            "servers": {"llm": llm, "mt": mt, "qe_a": qa, "qe_b": qb},
            "reset": lambda: _reset(editor_fn, [llm, mt, qa, qb]),
        }


def _reset(editor_fn, servers) -> None:
    if hasattr(editor_fn, "calls"):
        editor_fn.calls[0] = 0
    for s in servers:
        s.requests.clear()
        s.script.clear()


def run_main(monkeypatch, capsys, *args: str) -> tuple[int, str, str]:
    """Run the real CLI entry point (mtgauntlet.cli.main:main) with these arguments; (exit code, stdout, stderr)."""
    from mtgauntlet.cli.main import main

    monkeypatch.setattr(sys, "argv", ["gauntlet", *args])
    code = 0
    try:
        main()
    except SystemExit as exc:
        code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
    out = capsys.readouterr()
    return code, out.out, out.err


def cli(*args) -> tuple[int, str, str]:
    """``gauntlet ARGS`` through the real entry point (tests/support/cli.py ``invoke``): (exit code, stdout, stderr)."""
    from tests.support.cli import invoke

    r = invoke(list(args))
    return r.exit_code, r.stdout, r.stderr
