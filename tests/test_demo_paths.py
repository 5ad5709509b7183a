"""`make demo` finds its recipe wherever the package sits: in a checkout, however shallow its path, or installed."""

from __future__ import annotations

import pytest

from mtgauntlet import demo


def test_the_checkouts_examples_are_found():
    assert (demo.examples_dir() / "demo.yaml").is_file()


def test_a_package_near_the_root_of_the_filesystem_is_a_clear_error_not_an_index_error(monkeypatch):
    monkeypatch.setattr(demo, "__file__", "/app/mtgauntlet/demo.py")  # parents: mtgauntlet, app, / (none beyond)
    monkeypatch.setattr(demo, "SHARE", demo.SHARE / "not-installed-here")
    with pytest.raises(SystemExit, match="examples/demo.yaml was not found"):
        demo.examples_dir()
