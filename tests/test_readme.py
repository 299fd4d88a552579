"""The README's metric table names every registered metric and every public function."""

import re
from pathlib import Path

import pytest

import sklearn_rank_metrics
from sklearn_rank_metrics._metrics._registry import METRICS

README = (Path(__file__).resolve().parents[1] / "README.md").read_text()


@pytest.mark.parametrize("name", sorted(METRICS))
def test_registered_name_is_in_readme_table(name):
    assert re.search(rf"`{name}(@k)?`", README), f"README table lacks {name!r}"


@pytest.mark.parametrize("function", sorted(sklearn_rank_metrics.__all__))
def test_public_function_is_in_readme(function):
    assert f"`{function}" in README or f"{function}(" in README, function
