import os
from pathlib import Path

import pytest

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
os.environ.setdefault("HF_DATASETS_OFFLINE", "1")

REPO = Path(__file__).resolve().parents[1]
SHARED_DATA = Path(os.environ.get("MTGAUNTLET_SHARED_DATA", REPO.parent / "shared" / "data"))
SAMPLE = REPO / "mtgauntlet" / "data" / "sample_es_en.tsv"


@pytest.fixture(autouse=True, scope="session")
def _isolated_output_cache(tmp_path_factory):
    """Model-output cache in a temp dir: tests never read results cached by earlier runs."""
    os.environ["MTGAUNTLET_CACHE_DIR"] = str(tmp_path_factory.mktemp("model-cache"))
    yield


@pytest.fixture(scope="session")
def shared_data() -> Path:
    if not SHARED_DATA.exists():
        pytest.skip(f"real data folder {SHARED_DATA} not present")
    return SHARED_DATA


@pytest.fixture(scope="session")
def sample_path() -> Path:
    return SAMPLE


# A test may skip only for what `make setup` could not provide on this machine (a Debian package where apt
# does not work, the ../shared data, a GPU). With MTGAUNTLET_STRICT_SKIPS=1 (set by `make test`), any other
# skip — a Python package that setup installs, or a system tool that setup recorded as installed — fails.
ALLOWED_SKIPS = ("apertium", "chromium", "grammalecte", "real data folder", "gpu", "cuda", "mps")


def _installed_components() -> set[str]:
    marker = REPO / ".venv" / ".setup-components"
    return set(marker.read_text().split()) if marker.exists() else set()


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    report = outcome.get_result()
    if not report.skipped or os.environ.get("MTGAUNTLET_STRICT_SKIPS") != "1" or hasattr(report, "wasxfail"):
        return
    reason = str(report.longrepr[-1] if isinstance(report.longrepr, tuple) else report.longrepr).lower()
    allowed = [a for a in ALLOWED_SKIPS if a in reason]
    if not allowed or any(a in _installed_components() for a in allowed):
        report.outcome = "failed"
        report.longrepr = (f"skipped for something `make setup` installs ({reason}); with "
                           "MTGAUNTLET_STRICT_SKIPS=1 that is a failure: fix the set-up or the test")
