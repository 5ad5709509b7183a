"""`python -m mtgauntlet.validators.compile_kernels` (run by `make test` and `make demo` before the tests): every
compiled entry point a metric calls is compiled for the types the real calls use."""

from __future__ import annotations

import subprocess
import sys

from mtgauntlet.validators import lexical_kernels, tokenize_kernels
from mtgauntlet.validators.compile_kernels import compile_all


def test_every_entry_point_is_compiled_for_the_types_of_real_calls():
    assert compile_all() > 0
    for kernel in (lexical_kernels.chrf_pairs, lexical_kernels.bleu_pairs):
        assert kernel.signatures, kernel  # compiled (numba installed: a dependency)
    assert any(getattr(f, "signatures", None) for f in vars(tokenize_kernels).values())


def test_the_module_runs_as_a_command():
    out = subprocess.run(
        [sys.executable, "-m", "mtgauntlet.validators.compile_kernels"], capture_output=True, text=True, check=True
    ).stdout
    assert out.startswith("compiled kernels ready in ")
