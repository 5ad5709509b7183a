"""docs/contributing.md's "Add a builder" walkthrough, followed as written: its code blocks go into a temporary copy
of the repository (the new module, the one registration line), and the copy's registry-wide tests — the method's
example built through ``mg.build`` and ``gauntlet build`` alike, its dry run, its card text, its command's options
equal to its recipe table and API keywords — and the layer tests pass there, with the new method among them and two
files of the package touched."""

from __future__ import annotations

from tests.support.walkthrough import follow, passed, repo_copy, run_tests

REGISTRY_WIDE = "tests/builders/test_methods.py::test_every_method_builds_its_example_alike_through_the_api_and_the_cli"


def test_the_builder_walkthrough_adds_a_method_in_one_module_and_one_line(tmp_path):
    root = repo_copy(tmp_path)
    changed = follow(root, "Add a builder", '"bandit":')
    assert changed == ["builders/copynoise.py", "builders/methods.py"]

    run = run_tests(
        root,
        tmp_path,
        "tests/builders/test_methods.py",
        "tests/test_layers.py",
        "tests/api/test_parity_with_cli.py",
        "-k",
        "method or build or recipe or layers or imports or lines",
    )
    assert run.returncode == 0, run.stdout[-4000:] + run.stderr[-2000:]
    assert passed(run, f"{REGISTRY_WIDE}[copynoise]")  # the new method, by its own example
    assert passed(
        run,
        "tests/api/test_parity_with_cli.py::test_api_parameters_cli_options_and_recipe_tables_are_the_declaration[build copynoise]",
    )
    assert passed(run, "tests/test_layers.py::test_recipe_option_tables_read_from_the_api_are_the_cli_options")
