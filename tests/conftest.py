import os
from pathlib import Path

import pytest

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
os.environ.setdefault("HF_DATASETS_OFFLINE", "1")

REPO = Path(__file__).resolve().parents[1]
SHARED_DATA = Path(os.environ.get("MTGAUNTLET_SHARED_DATA", REPO.parent / "shared" / "data"))
SAMPLE = REPO / "mtgauntlet" / "data" / "sample_es_en.tsv"
TESTS = REPO / "tests"


@pytest.fixture(autouse=True, scope="session")
def _isolated_output_cache(tmp_path_factory):
    """Model-output cache in a temp dir: tests never read results cached by earlier runs."""
    os.environ["MTGAUNTLET_CACHE_DIR"] = str(tmp_path_factory.mktemp("model-cache"))
    yield


@pytest.fixture(autouse=True)
def _entry_point_undone():
    """A test that calls the command line's entry point (`main()`) in this process: what main() sets for a process
    that runs one command and exits (mtgauntlet.core.one_command, the collector's thresholds, frozen objects) is
    undone after it, so that the next test of the worker runs as the API's callers do."""
    import gc

    from mtgauntlet.core import one_command

    state, threshold, frozen = dict(one_command._STATE), gc.get_threshold(), gc.get_freeze_count()
    yield
    one_command._STATE.update(state)
    gc.set_threshold(*threshold)
    if gc.get_freeze_count() > frozen:
        gc.unfreeze()


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
        report.longrepr = (
            f"skipped for something `make setup` installs ({reason}); with "
            "MTGAUNTLET_STRICT_SKIPS=1 that is a failure: fix the set-up or the test"
        )


# Test tiers: `make test-fast` runs `-m "not slow and not e2e"`. A module whose tests run whole builds, releases,
# recipes or the docs site through the CLI or the API (seconds each) is end to end; its tests get the `e2e` marker
# here, in one place, by path under tests/. Unit tests of a module stay fast: put them in a module not listed here.
E2E_MODULES = {
    "api/test_building.py",
    "api/test_releasing.py",
    "api/test_tour_example.py",
    "builders/smaug/test_long_lines.py",
    "builders/smaug/test_stability.py",
    "builders/test_batching_and_concurrency.py",
    "builders/test_model_backed_paths.py",
    "builders/test_row_stability.py",
    "cards/test_audit_page.py",
    # paid runs killed and re-run against local servers, and the adversarial round (each test is quick; together
    # about three minutes of waiting on servers and subprocesses)
    "models/test_paid_runs_killed.py",
    "models/test_paid_runs_matrix.py",  # issue #40's fault matrix over every paid command (a few minutes)
    "models/test_paid_runs_adversarial.py",
    "models/test_spec_secrets.py",
    # the workbench over whole catalogs (releases built, scored, a SIGKILL-ed run resumed) and whole-set imports
    "evaluation/test_workbench.py",
    "evaluation/test_workbench_guards.py",
    "evaluation/test_workbench_spans.py",
    "sets/test_import_human.py",
    "sets/test_import_pairs.py",
    "sets/test_export_sealed.py",
    "test_contributing_backend.py",
    "test_contributing_metric.py",  # a copy of the repository and its registry-wide tests (numba compiles there)
    "test_contributing_builder.py",
    "builders/test_methods.py",
    "cards/test_dataset_card.py",
    "cli/test_error_style.py",
    "cli/test_flags_and_progress.py",
    "cli/test_query.py",
    "api/test_reference_page.py",  # builds the whole docs site (mkdocstrings) once for its tests
    "engines/test_builders_on_ray.py",  # whole builds on a local Ray cluster against the local engine
    "cards/test_leaderboard_page.py",  # a catalog released, scored by the workbench, its page written
    "corpora/test_ids_as_written.py",
    "corpora/test_texts_byte_for_byte.py",
    "engines/test_local_and_ray.py",
    "engines/test_ray_watchdog.py",
    "models/test_embedded.py",
    "models/test_openai_batch.py",
    "models/test_row_independence.py",
    "models/test_usage.py",
    "recipes/test_integrity.py",
    "recipes/test_python_api.py",
    "recipes/test_run_and_reproduce.py",
    "releases/test_every_kind_loads.py",
    "releases/test_provenance.py",
    "releases/test_release.py",
    "releases/test_release_and_catalog_integrity.py",
    "test_contributing.py",
    "test_docs.py",
    "test_examples.py",
    "test_wheel.py",
    "training/test_training.py",
}


# single end-to-end tests (over ~4 s each on this 2-core machine) in modules that are otherwise fast: path::test
E2E_TESTS = {
    "builders/smaug/test_paper_fidelity.py::test_failed_good_translation_is_skipped_counted_and_in_the_card",
    "api/test_notebook_use.py::test_spacy_w095_reaches_no_stderr_from_the_cli_or_the_api",
    "api/test_checking_scoring_evaluating.py::test_evaluate_metric_equals_the_cli_json",
    "api/test_checking_scoring_evaluating.py::test_validate_returns_the_report_the_cli_prints_and_a_failed_rule_is_no_exception",
    "builders/bandit/test_bandit.py::test_figure3_eps_greedy_reaches_the_oracle_by_1_5_pulls_per_topic",
    "builders/smaug/test_phenomena.py::test_every_registered_phenomenon_builds_on_its_own_example",
    "api/test_checking_scoring_evaluating.py::test_diversity_and_grammar_return_what_the_cli_prints",
    "api/test_checking_scoring_evaluating.py::test_simulate_and_models_equal_the_cli_json",
    "builders/bandit/test_bandit.py::test_cli_bandit_end_to_end_without_apertium",
    "builders/bandit/test_bandit.py::test_eps_greedy_finds_best_of_50_arms_with_300_pulls",
    "builders/bandit/test_bandit.py::test_real_search_on_flores_resumes_identically",
    "builders/bandit/test_bandit.py::test_simulation_kernel_budget_cap_and_quality",
    "builders/smaug/test_insertion_language.py::test_build_insertions_are_in_the_target_language",
    "builders/smaug/test_paper_fidelity.py::test_card_and_audit_page_show_every_failure_counter",
    "builders/smaug/test_paper_fidelity.py::test_ne_types_default_all_and_names_option_stated",
    "builders/smaug/test_smaug.py::test_model_backed_build_with_required_nli",
    "builders/smaug/test_smaug.py::test_smaug_on_newstest_es_en_with_apertium",
    "builders/smaug/test_smaug.py::test_smaug_x_to_en_parallel_samples",
    "builders/test_mtbreaker.py::test_cli_build_resumes_without_repeating_calls",
    "builders/test_mtbreaker.py::test_cli_mtbreaker_zeroshot_and_evaluate_end_to_end",
    "corpora/test_readers.py::test_judgment_readers_against_pandas",
    "corpora/test_readers.py::test_parallel_samples_direction_and_filter",
    "evaluation/test_breaker_analysis.py::test_evaluate_breaker_lm_naturalness_is_the_embedded_lm_score",
    "evaluation/test_breaker_analysis.py::test_one_table2_row_per_qe_metric",
    "sets/test_import_spans.py::test_google_ted_spans_import_with_googles_scores",
    "sets/test_import_systems.py::test_wmt23_mqm_with_the_documented_command_has_wmts_systems",
    "models/test_difficulty.py::test_shipped_qe_loads_and_prefers_the_faithful_translation",
    "models/test_row_independence.py::test_apertium_translation_of_a_row_does_not_depend_on_the_batch",
    "runner/test_build_runner.py::test_resume_after_sigkill_equals_uninterrupted",
    "validators/test_validators.py::test_embedding_diversity_flores_vs_near_duplicates",
    "validators/test_validators.py::test_lm_naturalness_ranks_demetr_mt_above_word_shuffled",
    "validators/test_validators.py::test_pairwise_chrf_equals_sacrebleu_on_200_flores",
    "validators/test_sentence_lexical.py::test_real_flores_sentences_in_sixteen_languages_score_as_sacrebleu",
    "validators/test_sentence_lexical.py::test_two_thousand_random_pairs_score_as_sacrebleu",
    "validators/test_validators.py::test_validate_report_rules_and_gx",
}


def _test_file(item) -> str:
    """The test's module as a path under tests/ (`builders/smaug/test_stability.py`): the key of E2E_MODULES."""
    try:
        return Path(item.path).resolve().relative_to(TESTS).as_posix()
    except ValueError:
        return ""


def pytest_collection_modifyitems(config, items):
    for item in items:
        module = _test_file(item)
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
            reporter.write_line(
                f"\nerror: the tests left {', '.join(litter)} in {REPO}: write under tmp_path", red=True
            )
        session.exitstatus = pytest.ExitCode.TESTS_FAILED
