"""Where and how neural backends run: device, dtype and batch size, plus the API concurrency default.

Precedence, most specific first: spec options (``sentinel:PATH#device=cuda:1,dtype=bf16,batch=64``),
keyword arguments of the backend, global defaults (``gauntlet --device/--dtype/--batch-size/--concurrency``,
which set the environment variables below, so scripts and Ray workers see them too), then ``auto``:
cuda, then mps, then cpu; bf16 on a GPU that supports it natively (compute capability >= 8.0), else fp32.
CPU models use the cores free when they load (:func:`free_cores`; ``MTGAUNTLET_THREADS`` overrides it).
"""

from __future__ import annotations

import logging
import os
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from mtgauntlet.core.cache import parse_options
from mtgauntlet.errors import BackendUnavailable, GauntletError
from mtgauntlet.models.base import PLACEMENT_OPTIONS, SETTINGS, settings

log = logging.getLogger(__name__)

ENV = SETTINGS
RUNTIME_OPTIONS = ("device", "dtype", "batch")  # spec options that say where a model runs, not what it computes
DTYPE_NAMES = {
    "fp32": "fp32",
    "float32": "fp32",
    "float": "fp32",
    "fp16": "fp16",
    "float16": "fp16",
    "half": "fp16",
    "bf16": "bf16",
    "bfloat16": "bf16",
}
TORCH_DTYPES = {"fp32": "float32", "fp16": "float16", "bf16": "bfloat16"}
_DEVICE = re.compile(r"^(auto|cpu|mps|cuda(:\d{1,3})?)$")


def parse_device(value: str) -> str:
    v = str(value).strip().lower()
    if not _DEVICE.match(v):
        raise GauntletError(f"unknown device {value!r}: use auto, cpu, cuda, cuda:N or mps")
    return v


def parse_dtype(value: str) -> str:
    v = str(value).strip().lower()
    if v == "auto":
        return v
    if v not in DTYPE_NAMES:
        raise GauntletError(f"unknown dtype {value!r}: use auto, fp32, bf16 or fp16")
    return DTYPE_NAMES[v]


def parse_positive(value: Any, what: str) -> int:
    try:
        n = int(str(value).strip())
    except ValueError:
        n = 0
    if n < 1:
        raise GauntletError(f"{what} must be a positive integer, got {value!r}")
    return n


def _torch():
    try:
        import torch
    except ModuleNotFoundError:
        return None
    return torch


def cuda_device_count() -> int:
    torch = _torch()
    return torch.cuda.device_count() if torch is not None and torch.cuda.is_available() else 0


def mps_available() -> bool:
    torch = _torch()
    return bool(torch is not None and torch.backends.mps.is_available())


def cuda_bf16_native(device: str) -> bool:
    """True when the CUDA/ROCm device runs bf16 natively (not emulated)."""
    torch = _torch()
    if torch is None or not torch.cuda.is_available():
        return False
    index = int(device.partition(":")[2] or 0)
    with torch.cuda.device(index):
        try:
            return bool(torch.cuda.is_bf16_supported(including_emulation=False))
        except TypeError:  # older torch: no emulation flag
            return bool(torch.cuda.is_bf16_supported())


def resolve_device(
    requested: str = "auto",
    *,
    cuda_count: Callable[[], int] = cuda_device_count,
    mps: Callable[[], bool] = mps_available,
) -> str:
    """``auto`` -> ``cuda:0``, else ``mps``, else ``cpu``; an explicit device must exist here."""
    requested = parse_device(requested)
    if requested == "auto":
        if cuda_count() > 0:
            return "cuda:0"
        return "mps" if mps() else "cpu"
    if requested.startswith("cuda"):
        n, index = cuda_count(), int(requested.partition(":")[2] or 0)
        if n == 0:
            torch = _torch()
            build = f"torch {torch.__version__}" if torch is not None else "torch not installed"
            raise BackendUnavailable(
                f"device {requested!r} requested but no CUDA GPU is visible ({build}); use --device cpu or auto"
            )
        if index >= n:
            raise BackendUnavailable(f"device {requested!r} requested but only {n} CUDA GPU(s) are visible")
        return f"cuda:{index}"
    if requested == "mps" and not mps():
        raise BackendUnavailable("device 'mps' requested but Apple MPS is not available here; use --device cpu or auto")
    return requested


def resolve_dtype(requested: str, device: str, *, bf16_native: Callable[[str], bool] = cuda_bf16_native) -> str:
    """``auto`` -> bf16 on a GPU with native bf16, else fp32 (CPU, MPS, older GPUs)."""
    requested = parse_dtype(requested)
    if requested == "auto":
        return "bf16" if device.startswith("cuda") and bf16_native(device) else "fp32"
    if requested == "bf16" and device.startswith("cuda") and not bf16_native(device):
        raise BackendUnavailable(
            f"dtype bf16 requested but {device} has no native bf16 (compute capability < 8.0); use fp16 or fp32"
        )
    if requested != "fp32" and device == "cpu":
        log.warning("dtype %s on cpu is slower than fp32 and changes scores; meant for testing GPU settings", requested)
    return requested


@dataclass(frozen=True)
class Runtime:
    """A resolved placement: ``device`` such as ``cpu``/``cuda:0``/``mps``, ``dtype`` fp32/bf16/fp16, ``batch``."""

    device: str = "cpu"
    dtype: str = "fp32"
    batch: int = 16

    def torch_dtype(self):
        import torch

        return getattr(torch, TORCH_DTYPES[self.dtype])

    def info(self) -> dict[str, Any]:
        return {"device": self.device, "dtype": self.dtype, "batch": self.batch}


class PlacedModel:
    """Mixin of a backend that runs one model through its own library (COMET, sentence-transformers) where its
    spec's ``#device=..,dtype=..,batch=..`` options and the global defaults place it."""

    neural = True
    options: Mapping[str, str] | None = PLACEMENT_OPTIONS
    runtime: Runtime
    batch_size: int

    def _place(
        self, arg: str, *, default_batch: int, device: str | None, dtype: str | None, batch_size: int | None
    ) -> str:
        """Resolve the runtime of ``MODEL[#options]`` (and the batch size); returns MODEL."""
        model, opts = parse_options(arg)
        self.runtime = resolve_runtime(opts, default_batch=default_batch, device=device, dtype=dtype, batch=batch_size)
        self.batch_size = self.runtime.batch
        return model

    def _in_dtype(self, model: Any) -> Any:
        """``model`` (a torch module) in the runtime's dtype; as loaded in fp32."""
        return model if self.runtime.dtype == "fp32" else model.to(self.runtime.torch_dtype())

    def runtime_info(self) -> dict:
        return self.runtime.info()


defaults = settings  # the global defaults currently set (environment), e.g. ``{'device': 'cuda:1'}``


def set_defaults(
    *, device: str | None = None, dtype: str | None = None, batch: int | None = None, concurrency: int | None = None
) -> None:
    """Validate and publish global defaults (environment variables, inherited by workers)."""
    values = {
        "device": parse_device(device) if device else None,
        "dtype": parse_dtype(dtype) if dtype else None,
        "batch": parse_positive(batch, "--batch-size") if batch is not None else None,
        "concurrency": parse_positive(concurrency, "--concurrency") if concurrency is not None else None,
    }
    for key, value in values.items():
        if value is not None:
            os.environ[ENV[key]] = str(value)


def resolve_runtime(
    opts: Mapping[str, str] | None = None,
    *,
    default_batch: int = 16,
    device: str | None = None,
    dtype: str | None = None,
    batch: int | None = None,
) -> Runtime:
    """Spec options > keyword arguments > global defaults > auto."""
    opts, env = opts or {}, defaults()
    want_device = opts.get("device") or device or env.get("device") or "auto"
    want_dtype = opts.get("dtype") or dtype or env.get("dtype") or "auto"
    want_batch = opts.get("batch") or batch or env.get("batch") or default_batch
    dev = resolve_device(want_device)
    apply_cpu_threads(dev)
    return Runtime(device=dev, dtype=resolve_dtype(want_dtype, dev), batch=parse_positive(want_batch, "batch"))


def free_cores(cores: int | None = None, load: float | None = None) -> int:
    """CPU threads worth using now: the cores this process may run on (``os.sched_getaffinity``) minus the
    1-minute load average, at least 1; ``MTGAUNTLET_THREADS`` overrides it. A busy machine then slows a run
    in proportion instead of oversubscribing every core."""
    override = os.environ.get(ENV["threads"])
    if override:
        return parse_positive(override, ENV["threads"])
    if cores is None:
        try:
            cores = len(os.sched_getaffinity(0))
        except (AttributeError, OSError):  # not Linux
            cores = os.cpu_count() or 1
    if load is None:
        try:
            load = os.getloadavg()[0]
        except (AttributeError, OSError):
            load = 0.0
    return max(1, cores - round(load))


_TORCH_THREADS: list[int] = []


def apply_cpu_threads(device: str) -> int | None:
    """Set torch's intra-op thread count from :func:`free_cores` (once per process, CPU models only: the
    SmolLM2 GGUF path runs through torch too); returns the count set, or None."""
    if device != "cpu":
        return None
    if not _TORCH_THREADS:
        torch = _torch()
        if torch is None:
            return None
        _TORCH_THREADS.append(free_cores())
        torch.set_num_threads(_TORCH_THREADS[0])
    return _TORCH_THREADS[0]


def default_concurrency(fallback: int = 1) -> int:
    value = os.environ.get(ENV["concurrency"])
    return parse_positive(value, ENV["concurrency"]) if value else fallback


def strip_options(spec: str, names: tuple[str, ...]) -> str:
    """``spec`` without the ``#`` options named in ``names`` (the others kept in their order)."""
    head, sep, opts = spec.partition("#")
    if not sep:
        return spec
    kept = [p for p in opts.split(",") if p and p.partition("=")[0].strip() not in names]
    return head + ("#" + ",".join(kept) if kept else "")


def strip_runtime_options(spec: str) -> str:
    """``hf:m#device=cuda,batch=8,scale=100`` -> ``hf:m#scale=100``: placement does not change what is computed."""
    return strip_options(spec, RUNTIME_OPTIONS)


def signature_spec(value: Any) -> Any:
    """A model spec as a build signature (and a record) names it: :func:`~mtgauntlet.models.registry.public_spec`
    (``openai:m@u#price=1/2,json=1`` -> ``openai:m@u#json=1``; no pace, cost or secret options, no URL user info),
    so a build resumes when only the price, rate limits, batch mode or concurrency changed."""
    from mtgauntlet.models.registry import public_spec

    return public_spec(value)


def cache_namespace(spec: str, runtime: Runtime) -> str:
    """The output-cache key of a backend: its spec without placement options, plus the dtype when not fp32
    (bf16/fp16 change scores; device and batch size change them only in the last float bits)."""
    base = strip_runtime_options(spec)
    if runtime.dtype == "fp32":
        return base
    return f"{base}{',' if '#' in base else '#'}dtype={runtime.dtype}"
