"""The package's floor plan, checked from the source: every folder imports only below it.

Each private folder is one layer. A module may import modules of its own folder and
of the folders listed *before* its folder in ``LAYERS``; the top-level modules (the
command line, Dask, the demo, ``__init__``) sit above every folder. The imports are
read with :mod:`ast` from the files (module level and inside functions alike), so a
lazy import inside a function counts as well. Within a folder, and among the top-level
modules, the imports must form no cycle.
"""

from __future__ import annotations

import ast
from graphlib import CycleError, TopologicalSorter
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[2] / "sklearn_rank_metrics"

# bottom to top: the one declaration of the allowed order
LAYERS = (
    "_engine",  # validate once, sort once
    "_kernels",  # formulas: RankedGroups in, one value per query out
    "_metrics",  # public metric functions, registry, evaluate, the pipeline
    "_sampled",  # sampled-negative metrics
    "_io",  # readers and synthetic data
    "_model_selection",  # scorers, GroupedRanker
    "_stats",  # several models: resampling, compare, report
    "_plot",  # displays
)
TOP = "top level"  # __init__, __main__, _cli, demo, dask, _dask_partitions, _version


def _module_name(path: Path) -> tuple[str, ...]:
    parts = path.relative_to(PACKAGE).with_suffix("").parts
    return parts[:-1] if parts[-1] == "__init__" else parts


def _imports(path: Path) -> list[tuple[int, tuple[str, ...]]]:
    """(line, imported module as package-relative parts) of every in-package import."""
    here = _module_name(path)
    package = here if path.name == "__init__.py" else here[:-1]
    found = []
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = package[: len(package) - (node.level - 1)]
                if node.level - 1 > len(package):
                    raise AssertionError(f"{path}: import above the package")
            elif node.module and node.module.split(".")[0] == "sklearn_rank_metrics":
                base = ()
                node_module = node.module.split(".")[1:]
                found.append((node.lineno, tuple(node_module)))
                continue
            else:
                continue
            module = tuple(base) + tuple((node.module or "").split(".") if node.module else ())
            if node.module is None:  # from . import name: name may be a module
                for alias in node.names:
                    candidate = module + (alias.name,)
                    exists = PACKAGE.joinpath(*candidate).with_suffix(".py").exists() or (
                        PACKAGE.joinpath(*candidate, "__init__.py").exists()
                    )
                    found.append((node.lineno, candidate if exists else module))
            else:
                found.append((node.lineno, module))
        elif isinstance(node, ast.Import):
            for alias in node.names:
                parts = alias.name.split(".")
                if parts[0] == "sklearn_rank_metrics":
                    found.append((node.lineno, tuple(parts[1:])))
    return found


def _layer(module: tuple[str, ...]) -> str:
    return module[0] if module and module[0] in LAYERS else TOP


FILES = sorted(PACKAGE.rglob("*.py"))


def test_every_folder_is_a_declared_layer():
    folders = {p.name for p in PACKAGE.iterdir() if p.is_dir() and p.name != "__pycache__"}
    assert folders == set(LAYERS)
    for folder in folders:
        assert (PACKAGE / folder / "__init__.py").is_file(), folder


def _upward_imports(path: Path) -> list[str]:
    here = _layer(_module_name(path))
    rank = {layer: i for i, layer in enumerate((*LAYERS, TOP))}
    return [
        f"line {line}: {'.'.join(module) or 'sklearn_rank_metrics'} ({_layer(module)})"
        for line, module in _imports(path)
        if rank[_layer(module)] > rank[here]
    ]


@pytest.mark.parametrize("path", FILES, ids=lambda p: str(p.relative_to(PACKAGE)))
def test_a_module_imports_only_its_folder_and_the_layers_below(path):
    wrong = _upward_imports(path)
    assert not wrong, f"{path.relative_to(PACKAGE)} imports upward: {wrong}"


def test_the_imports_form_no_cycle():
    graph: dict[tuple[str, ...], set[tuple[str, ...]]] = {}
    for path in FILES:
        module = _module_name(path)
        graph.setdefault(module, set())
        for _, imported in _imports(path):
            if imported != module and imported != ():  # the package itself: __init__
                graph[module].add(imported)
    try:
        tuple(TopologicalSorter(graph).static_order())
    except CycleError as error:  # pragma: no cover - the failure message
        pytest.fail(f"import cycle: {' -> '.join('.'.join(m) for m in error.args[1])}")


def test_the_checks_can_fail(tmp_path, monkeypatch):
    # an upward import (a kernel reading the registry), written as the package does
    kernels = tmp_path / "_kernels"
    kernels.mkdir()
    bad = kernels / "_bad.py"
    bad.write_text("import numpy\n\ndef f():\n    from .._metrics._registry import METRICS\n")
    fine = kernels / "_fine.py"
    fine.write_text("from .._engine._segments import segment_rows\nfrom ._bad import f\n")
    monkeypatch.setitem(globals(), "PACKAGE", tmp_path)
    assert _upward_imports(bad) == ["line 4: _metrics._registry (_metrics)"]
    assert _upward_imports(fine) == []
