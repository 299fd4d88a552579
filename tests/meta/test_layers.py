"""The package's floor plan, checked from the source: a graph of allowed imports.

Each private folder is one layer. ``ALLOWED`` declares, per layer, the layers its
modules may import (besides their own folder): a graph that must have no cycle, so the
layers stay a partial order without a layer seeing every layer below it (``_io`` may not
read ``_metrics``). The top-level modules (the command line, the public ``dask`` and
``spark`` modules, the demo, ``__init__``) sit above every folder. The imports are read
with :mod:`ast` from the files (module level and inside functions alike), so a lazy
import inside a function counts as well. Within a folder, and among the top-level
modules, the imports must form no cycle.
"""

from __future__ import annotations

import ast
from graphlib import CycleError, TopologicalSorter
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[2] / "sklearn_rank_metrics"

# layer -> the layers it may import: the one declaration of the floor plan
ALLOWED: dict[str, frozenset[str]] = {
    "_engine": frozenset(),  # validate once, sort once
    "_render": frozenset({"_engine"}),  # one renderer per output format
    "_kernels": frozenset({"_engine"}),  # formulas: RankedGroups in, one value per query out
    "_metrics": frozenset({"_engine", "_kernels", "_render"}),  # metric functions, evaluate
    "_sampled": frozenset({"_engine"}),  # sampled-negative metrics
    "_io": frozenset({"_engine"}),  # readers and synthetic data
    "_model_selection": frozenset({"_engine", "_kernels", "_metrics"}),  # scorers, ranker
    "_stats": frozenset({"_engine", "_metrics", "_render"}),  # resampling, compare, report
    "_plot": frozenset({"_engine", "_metrics", "_stats"}),  # displays
    # Dask and Spark: the call, the partitions' work, the means from their sums
    "_distributed": frozenset({"_engine", "_metrics", "_io", "_stats"}),
}
LAYERS = tuple(ALLOWED)
TOP = "top level"  # __init__, __main__, _cli, demo, dask, spark, _spark_*, _version
# declared before its folder exists (empty when every layer is there)
NOT_YET_CREATED: frozenset[str] = frozenset()


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
    assert folders <= set(LAYERS), f"undeclared layers: {sorted(folders - set(LAYERS))}"
    assert set(LAYERS) - folders <= NOT_YET_CREATED, sorted(set(LAYERS) - folders)
    for folder in folders:
        assert (PACKAGE / folder / "__init__.py").is_file(), folder


def test_the_allowed_imports_form_no_cycle():
    assert all(below <= set(LAYERS) for below in ALLOWED.values())
    assert all(layer not in below for layer, below in ALLOWED.items())
    try:
        tuple(TopologicalSorter(ALLOWED).static_order())
    except CycleError as error:  # pragma: no cover - the failure message
        pytest.fail(f"the allowed imports form a cycle: {' -> '.join(error.args[1])}")


def _may_import(here: str, there: str) -> bool:
    return here in (there, TOP) or there in ALLOWED[here]


def _upward_imports(path: Path) -> list[str]:
    """The imports of ``path`` that no edge of ``ALLOWED`` permits."""
    here = _layer(_module_name(path))
    return [
        f"line {line}: {'.'.join(module) or 'sklearn_rank_metrics'} ({_layer(module)})"
        for line, module in _imports(path)
        if not _may_import(here, _layer(module))
    ]


@pytest.mark.parametrize("path", FILES, ids=lambda p: str(p.relative_to(PACKAGE)))
def test_a_module_imports_only_its_folder_and_the_layers_below(path):
    wrong = _upward_imports(path)
    assert not wrong, f"{path.relative_to(PACKAGE)} imports what its layer may not: {wrong}"


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


# the public modules of the distributed backends: doors into _distributed
DOORS = ("dask.py", "spark.py")


def _thick_door_parts(path: Path) -> list[str]:
    """What makes the door ``path`` more than a door: a definition that is not public
    (``__all__``), a public function that does not build the one call object
    (``distributed_call``), or a ``locals()`` relay."""
    tree = ast.parse(path.read_text(), str(path))
    public: set[str] = set()
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(
            isinstance(target, ast.Name) and target.id == "__all__" for target in node.targets
        ):
            public = set(ast.literal_eval(node.value))
    found = []
    for node in tree.body:
        if not isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            continue
        if node.name not in public:
            found.append(f"line {node.lineno}: {node.name} is defined here, not public")
            continue
        called = {
            call.func.id
            for call in ast.walk(node)
            if isinstance(call, ast.Call) and isinstance(call.func, ast.Name)
        }
        if isinstance(node, ast.FunctionDef) and "distributed_call" not in called:
            found.append(f"line {node.lineno}: {node.name} builds no distributed_call")
        if "locals" in called:
            found.append(f"line {node.lineno}: {node.name} relays locals()")
    return found


@pytest.mark.parametrize("door", DOORS)
def test_the_distributed_doors_only_build_the_call_and_hand_it_on(door):
    thick = _thick_door_parts(PACKAGE / door)
    assert not thick, f"{door} does more than a door (its work goes in _distributed/): {thick}"


def test_the_checks_can_fail(tmp_path, monkeypatch):
    # an upward import (a kernel reading the registry), written as the package does
    kernels = tmp_path / "_kernels"
    kernels.mkdir()
    bad = kernels / "_bad.py"
    bad.write_text("import numpy\n\ndef f():\n    from .._metrics._registry import METRICS\n")
    fine = kernels / "_fine.py"
    fine.write_text("from .._engine._segments import segment_rows\nfrom ._bad import f\n")
    # a layer below in the old total order, but no edge of the graph: a reader
    # reading the registry, a kernel rendering
    readers = tmp_path / "_io"
    readers.mkdir()
    sideways = readers / "_sideways.py"
    sideways.write_text("from .._metrics._registry import METRICS\n")
    rendering = kernels / "_rendering.py"
    rendering.write_text("from .._render import text\n")
    # the distributed room: it may not draw, and the metrics may not reach into it
    distributed = tmp_path / "_distributed"
    distributed.mkdir()
    drawing = distributed / "_drawing.py"
    drawing.write_text("from .._plot._base import RankingDisplay\nfrom ._plan import P\n")
    metrics = tmp_path / "_metrics"
    metrics.mkdir()
    upward = metrics / "_upward.py"
    upward.write_text("def f():\n    from .._distributed._plan import PartitionPlan\n")
    monkeypatch.setitem(globals(), "PACKAGE", tmp_path)
    assert _upward_imports(bad) == ["line 4: _metrics._registry (_metrics)"]
    assert _upward_imports(fine) == []
    assert _upward_imports(sideways) == ["line 1: _metrics._registry (_metrics)"]
    assert _upward_imports(rendering) == ["line 1: _render (_render)"]
    assert _upward_imports(drawing) == ["line 1: _plot._base (_plot)"]
    assert _upward_imports(upward) == ["line 2: _distributed._plan (_distributed)"]
    # a door with a helper of its own and a locals() relay (as dask.py and spark.py were)
    door = tmp_path / "spark.py"
    door.write_text(
        '__all__ = ["evaluate", "per_query_values"]\n'
        "def evaluate(df, metrics, *, y_true):\n"
        "    call = distributed_call(metrics, y_true=y_true)\n"
        "    return spark_means(df, call)\n"
        "def per_query_values(df, metrics, *, y_true):\n"
        "    return _collected(evaluate_per_query(**locals()))\n"
        "def _collected(table):\n"
        "    return table\n"
    )
    assert _thick_door_parts(door) == [
        "line 5: per_query_values builds no distributed_call",
        "line 5: per_query_values relays locals()",
        "line 7: _collected is defined here, not public",
    ]
