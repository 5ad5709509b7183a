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


# Test tiers: `make test-fast` runs `-m "not slow and not e2e"`. A module whose tests run whole builds, releases,
# recipes or the docs site through the CLI or the API (seconds each) is end to end; its tests get the `e2e` marker
# here, in one place. Unit tests of a module stay fast: put them in a module not listed here.
E2E_MODULES = {
    "test_api_building", "test_api_recipes", "test_api_releasing", "test_api_tour", "test_audit",
    "test_breaker_batching", "test_card_integrity", "test_catalog_cli", "test_cli_conventions", "test_cli_hands",
    "test_contributing", "test_docs", "test_embedded_defaults", "test_engines", "test_examples",
    "test_input_integrity", "test_integrity_inputs", "test_integrity_releases", "test_recipe_integrity",
    "test_recipes", "test_release_all_kinds", "test_release_provenance", "test_releases", "test_smaug_stability",
    "test_smaug_long_lines", "test_ray_cleanup", "test_wheel", "test_usage", "test_model_paths", "test_training",
    "test_batch_api", "test_stability", "test_independence",
}


# single end-to-end tests (over ~4 s each on this 2-core machine) in modules that are otherwise fast: module::test
E2E_TESTS = {
    "test_validators::test_embedding_diversity_flores_vs_near_duplicates",
    "test_validators::test_lm_naturalness_ranks_demetr_mt_above_word_shuffled",
    "test_validators::test_pairwise_chrf_equals_sacrebleu_on_200_flores",
    "test_validators::test_validate_report_rules_and_gx",
    "test_breaker_table2::test_evaluate_breaker_lm_naturalness_is_the_embedded_lm_score",
    "test_breaker_table2::test_one_table2_row_per_qe_metric",
    "test_bandit::test_real_search_on_flores_resumes_identically",
    "test_bandit::test_cli_bandit_end_to_end_without_apertium",
    "test_bandit::test_simulation_kernel_budget_cap_and_quality",
    "test_bandit::test_eps_greedy_finds_best_of_50_arms_with_300_pulls",
    "test_mtbreaker::test_cli_build_resumes_without_repeating_calls",
    "test_mtbreaker::test_cli_mtbreaker_zeroshot_and_evaluate_end_to_end",
    "test_smaug_insertion_lang::test_build_insertions_are_in_the_target_language",
    "test_smaug::test_smaug_x_to_en_parallel_samples",
    "test_smaug::test_model_backed_build_with_required_nli",
    "test_smaug::test_smaug_on_newstest_es_en_with_apertium",
    "test_smaug_fidelity::test_ne_types_default_all_and_names_option_stated",
    "test_smaug_fidelity::test_card_and_audit_page_show_every_failure_counter",
    "test_readers::test_judgment_readers_against_pandas",
    "test_readers::test_parallel_samples_direction_and_filter",
    "test_api_misc::test_diversity_and_grammar_return_what_the_cli_prints",
    "test_api_misc::test_simulate_and_models_equal_the_cli_json",
    "test_independence::test_apertium_translation_of_a_row_does_not_depend_on_the_batch",
    "test_difficulty::test_shipped_qe_loads_and_prefers_the_faithful_translation",
    "test_runner::test_resume_after_sigkill_equals_uninterrupted",
}


def pytest_collection_modifyitems(config, items):
    for item in items:
        module = item.module.__name__.rsplit(".", 1)[-1] if item.module is not None else ""
        if module in E2E_MODULES or f"{module}::{getattr(item, 'originalname', item.name)}" in E2E_TESTS:
            item.add_marker(pytest.mark.e2e)


# Tests write under tmp_path, never into the checkout: a run that leaves a new file at the repository root (as
# `in.tsv` and `stderr` once were) fails, naming it.
_ROOT_AT_START: set[str] = set()
_ROOT_LITTER_ALLOWED = {".pytest_cache", "__pycache__", ".coverage"}


def pytest_sessionstart(session):
    _ROOT_AT_START.update(os.listdir(REPO))


def pytest_sessionfinish(session, exitstatus):
    litter = sorted(set(os.listdir(REPO)) - _ROOT_AT_START - _ROOT_LITTER_ALLOWED)
    if litter:
        reporter = session.config.pluginmanager.get_plugin("terminalreporter")
        if reporter is not None:
            reporter.write_line(f"\nerror: the tests left {', '.join(litter)} in {REPO}: write under tmp_path", red=True)
        session.exitstatus = pytest.ExitCode.TESTS_FAILED
