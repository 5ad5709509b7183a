"""Device, dtype and batch options: parsing, ``auto`` resolution (real torch probes), precedence, cache keys,
and a tiny model really run in bf16 on this CPU. GPU runs skip with a reason when no GPU is visible."""

import pytest

from mtgauntlet.errors import BackendUnavailable, GauntletError
from mtgauntlet.models import registry, runtime
from mtgauntlet.models.runtime import Runtime, resolve_device, resolve_dtype, resolve_runtime
from tests.support import tiny_models

torch = pytest.importorskip("torch")
needs_cuda = pytest.mark.skipif(not torch.cuda.is_available(), reason="no CUDA GPU visible to torch here")


@pytest.fixture
def clean_env(monkeypatch):
    """No global defaults; whatever a test (or the CLI it runs) sets is undone afterwards."""
    for var in runtime.ENV.values():
        monkeypatch.setenv(var, "x")  # records the original state, so teardown restores it
        monkeypatch.delenv(var)
    return monkeypatch


def test_parsing_accepts_the_documented_forms_and_rejects_others():
    assert [runtime.parse_device(d) for d in ("auto", "CPU", "cuda", "cuda:1", "mps")] == [
        "auto",
        "cpu",
        "cuda",
        "cuda:1",
        "mps",
    ]
    assert [runtime.parse_dtype(d) for d in ("bf16", "bfloat16", "fp16", "half", "float32", "auto")] == [
        "bf16",
        "bf16",
        "fp16",
        "fp16",
        "fp32",
        "auto",
    ]
    for bad in ("gpu", "cuda:x", "cuda:", "tpu", "cpu;rm -rf"):
        with pytest.raises(GauntletError, match="unknown device"):
            runtime.parse_device(bad)
    with pytest.raises(GauntletError, match="unknown dtype"):
        runtime.parse_dtype("int8")
    for bad in ("0", "-4", "many"):
        with pytest.raises(GauntletError, match="positive integer"):
            runtime.parse_positive(bad, "batch")


def test_auto_follows_cuda_then_mps_then_cpu():
    assert resolve_device("auto", cuda_count=lambda: 2, mps=lambda: True) == "cuda:0"
    assert resolve_device("auto", cuda_count=lambda: 0, mps=lambda: True) == "mps"
    assert resolve_device("auto", cuda_count=lambda: 0, mps=lambda: False) == "cpu"
    assert resolve_device("cuda", cuda_count=lambda: 2, mps=lambda: False) == "cuda:0"
    assert resolve_device("cuda:1", cuda_count=lambda: 2, mps=lambda: False) == "cuda:1"
    with pytest.raises(BackendUnavailable, match="only 2 CUDA GPU"):
        resolve_device("cuda:2", cuda_count=lambda: 2, mps=lambda: False)
    # bf16 where the GPU runs it natively, fp32 elsewhere
    assert resolve_dtype("auto", "cuda:0", bf16_native=lambda d: True) == "bf16"
    assert resolve_dtype("auto", "cuda:0", bf16_native=lambda d: False) == "fp32"
    assert resolve_dtype("auto", "mps", bf16_native=lambda d: True) == "fp32"
    assert resolve_dtype("auto", "cpu") == "fp32"
    with pytest.raises(BackendUnavailable, match="no native bf16"):
        resolve_dtype("bf16", "cuda:0", bf16_native=lambda d: False)


def test_auto_with_the_real_torch_probes(clean_env):
    """What this machine's torch reports decides; on a CPU-only machine auto is cpu/fp32."""
    expected = "cuda:0" if torch.cuda.is_available() else ("mps" if torch.backends.mps.is_available() else "cpu")
    rt = resolve_runtime({})
    assert rt.device == expected
    if expected == "cpu":
        assert rt.dtype == "fp32"
        with pytest.raises(BackendUnavailable, match="no CUDA GPU is visible"):
            resolve_device("cuda")
    else:
        assert rt.dtype in ("bf16", "fp32")
    assert runtime.cuda_bf16_native("cuda:0") == (
        torch.cuda.is_available() and torch.cuda.get_device_capability(0) >= (8, 0)
    )


def test_precedence_spec_then_arguments_then_global_defaults(clean_env):
    assert resolve_runtime({}, default_batch=16) == Runtime("cpu", "fp32", 16)
    clean_env.setenv("MTGAUNTLET_BATCH_SIZE", "32")
    clean_env.setenv("MTGAUNTLET_DTYPE", "bf16")
    assert resolve_runtime({}) == Runtime("cpu", "bf16", 32)
    assert resolve_runtime({}, batch=8, dtype="fp32") == Runtime("cpu", "fp32", 8)
    assert resolve_runtime({"batch": "4", "dtype": "fp32"}, batch=8) == Runtime("cpu", "fp32", 4)
    with pytest.raises(GauntletError, match="positive integer"):
        resolve_runtime({"batch": "0"})


def test_root_options_set_the_environment_for_every_backend(clean_env, tmp_path):
    import os

    from tests.support.cli import invoke

    r = invoke(["--device", "cpu", "--dtype", "bf16", "--batch-size", "7", "--concurrency", "5", "models"])
    assert r.exit_code == 0, r.output
    assert (
        os.environ["MTGAUNTLET_DEVICE"],
        os.environ["MTGAUNTLET_DTYPE"],
        os.environ["MTGAUNTLET_BATCH_SIZE"],
        os.environ["MTGAUNTLET_CONCURRENCY"],
    ) == ("cpu", "bf16", "7", "5")
    r = invoke(["--device", "gpu", "models"])
    assert r.exit_code == 2 and r.stderr.startswith("error: ") and "unknown device 'gpu'" in r.stderr
    assert "Traceback" not in r.output


def test_placement_options_do_not_change_cache_keys_but_dtype_does():
    assert runtime.strip_runtime_options("hf:/m#device=cuda:1,scale=100,batch=8") == "hf:/m#scale=100"
    assert runtime.strip_runtime_options("sentinel:/x#device=cpu,dtype=bf16") == "sentinel:/x"
    assert runtime.cache_namespace("hf:/m#batch=8", Runtime("cuda:0", "fp32", 8)) == "hf:/m"
    assert runtime.cache_namespace("hf:/m#scale=100", Runtime("cpu", "bf16", 8)) == "hf:/m#scale=100,dtype=bf16"


@pytest.fixture(scope="module")
def regressor(tmp_path_factory):
    return tiny_models.classifier(tmp_path_factory.mktemp("dev") / "reg", 1)


def test_bf16_really_runs_and_is_cached_apart_from_fp32(regressor, clean_env):
    texts = ["The dog barks at the mailman.", "A cat sleeps.", "Maria visited Madrid in 2020."]
    fp32 = registry.load("difficulty", f"hf:{regressor}#dtype=fp32")
    bf16 = registry.load("difficulty", f"hf:{regressor}#dtype=bf16,batch=2")
    assert next(bf16.model.parameters()).dtype == torch.bfloat16
    assert bf16.runtime_info() == {"device": "cpu", "dtype": "bf16", "batch": 2, "truncated": 0, "oom_halvings": 0}
    a, b = fp32.difficulty(texts), bf16.difficulty(texts)
    assert a == pytest.approx(b, abs=0.05) and a != b  # bf16 changes the scores a little: not served from fp32's cache
    clean_env.setenv("MTGAUNTLET_DTYPE", "bf16")  # a global default reaches a backend loaded afterwards
    assert registry.load("difficulty", f"hf:{regressor}").runtime.dtype == "bf16"


@needs_cuda
def test_tiny_models_on_cuda_in_bf16(regressor, clean_env):
    cpu = registry.load("difficulty", f"hf:{regressor}#device=cpu,dtype=fp32")
    gpu = registry.load("difficulty", f"hf:{regressor}#device=cuda,dtype=auto")
    assert gpu.runtime.device == "cuda:0" and next(gpu.model.parameters()).is_cuda
    texts = ["The dog barks at the mailman."] * 5
    assert cpu.difficulty(texts) == pytest.approx(gpu.difficulty(texts), abs=0.05)
