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
