"""The registry holds every declared metric, whatever module declares it.

``_registry`` imports every module of ``sklearn_rank_metrics._metrics`` but those that
read the registry (``READS_THE_REGISTRY``), so a new metric module registers without a
line there. These tests fail when a declaration escapes that mechanism: declared in a
module imported after the registry's snapshot, or in a module the registry skips.
"""

import importlib
import pkgutil

import sklearn_rank_metrics._metrics as metrics_package
from sklearn_rank_metrics._metrics._declaration import DECLARED
from sklearn_rank_metrics._metrics._registry import METRICS, READS_THE_REGISTRY

MODULES = [module.name for module in pkgutil.iter_modules(metrics_package.__path__)]


def test_every_declared_metric_is_in_the_registry():
    for name in MODULES:  # whatever the package's own imports
        importlib.import_module(f"sklearn_rank_metrics._metrics.{name}")
    missing = sorted(set(DECLARED) - set(METRICS))
    assert not missing, f"declared but not in the registry: {missing}"
    assert list(METRICS) == list(DECLARED)


def test_no_metric_is_declared_in_a_module_the_registry_skips():
    skipped = {f"sklearn_rank_metrics._metrics.{name}" for name in READS_THE_REGISTRY}
    declared_there = sorted(
        name for name, info in DECLARED.items() if info.function.__module__ in skipped
    )
    assert not declared_there, declared_there


def test_the_skipped_modules_exist():
    # a renamed module left in READS_THE_REGISTRY would be imported under its new name
    # before the registry exists: the skip list names real modules only
    assert READS_THE_REGISTRY <= set(MODULES)
