"""Every kernel module has its test module in ``tests/kernels``, which calls each kernel.

``sklearn_rank_metrics/_kernels/_<name>.py`` is tested by ``tests/kernels/test_<name>.py``:
that file imports the module (at module level or inside a test) and calls every public
function of it by name, so a kernel is checked directly against a hand computation or
a brute force, not only through the metric functions. Read with :mod:`ast` from the
files: a new kernel module, or a new public function in one, fails here until its tests
exist.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
KERNELS = ROOT / "sklearn_rank_metrics" / "_kernels"
KERNEL_TESTS = ROOT / "tests" / "kernels"
PACKAGE = "sklearn_rank_metrics._kernels"


def _public_functions(module: Path) -> set[str]:
    tree = ast.parse(module.read_text(encoding="utf-8"))
    return {
        node.name
        for node in tree.body
        if isinstance(node, ast.FunctionDef) and not node.name.startswith("_")
    }


def _imports_module(tree: ast.Module, stem: str) -> bool:
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            if node.module == f"{PACKAGE}.{stem}":
                return True
            if node.module == PACKAGE and any(alias.name == stem for alias in node.names):
                return True
        if isinstance(node, ast.Import) and any(
            alias.name == f"{PACKAGE}.{stem}" for alias in node.names
        ):
            return True
    return False


def _called_names(tree: ast.Module) -> set[str]:
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            function = node.func
            if isinstance(function, ast.Name):
                names.add(function.id)
            elif isinstance(function, ast.Attribute):
                names.add(function.attr)
    return names


def untested(module: Path, tests: Path) -> list[str]:
    """What ``tests`` leaves untested of the kernel ``module`` (empty: nothing)."""
    if not tests.exists():
        return [f"{module.name} has no test module {tests.name}"]
    tree = ast.parse(tests.read_text(encoding="utf-8"))
    if not _imports_module(tree, module.stem):
        return [f"{tests.name} does not import {PACKAGE}.{module.stem}"]
    called = _called_names(tree)
    return [
        f"{tests.name} never calls {module.stem}.{name}"
        for name in sorted(_public_functions(module) - called)
    ]


MODULES = sorted(path for path in KERNELS.glob("_*.py") if path.name != "__init__.py")


def test_the_kernel_modules_are_found():
    assert {path.stem for path in MODULES} >= {"_binary", "_graded", "_relevance", "_tie_blocks"}


@pytest.mark.parametrize("module", MODULES, ids=[path.stem for path in MODULES])
def test_every_kernel_has_its_test_module_calling_it(module):
    tests = KERNEL_TESTS / f"test_{module.stem.lstrip('_')}.py"
    assert untested(module, tests) == []


def test_the_check_can_fail(tmp_path):
    module = tmp_path / "_widget.py"
    module.write_text("def area(x): ...\n\ndef volume(x): ...\n\ndef _helper(): ...\n")
    tests = tmp_path / "test_widget.py"
    assert untested(module, tests) == ["_widget.py has no test module test_widget.py"]
    tests.write_text("def test_area():\n    area(1)\n")
    assert untested(module, tests) == [f"test_widget.py does not import {PACKAGE}._widget"]
    tests.write_text(f"from {PACKAGE} import _widget\n\ndef test_area():\n    _widget.area(1)\n")
    assert untested(module, tests) == ["test_widget.py never calls _widget.volume"]
    tests.write_text(
        f"from {PACKAGE}._widget import area, volume\n\ndef test_both():\n    area(volume(1))\n"
    )
    assert untested(module, tests) == []
