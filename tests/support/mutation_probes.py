"""Probe several mutations in one pytest process: apply, run the probe, undo, next.

Loaded with ``-p tests.support.mutation_probes`` (the repository root on ``PYTHONPATH``)
and the environment variable ``SRM_MUTATION_PLAN`` naming a JSON file::

    {"mutations": [{"name": "cutoff_off_by_one", "select": "test_ndcg_2d"}, ...],
     "result": "/path/of/the/result.json"}

(a ``name`` null is a control run: the selection without any mutation)

the plugin takes over pytest's run loop. The named files are collected once; then,
for each mutation in turn, it applies the mutation (``tests/support/mutations.py``),
clears every ``functools`` cache of the package and of the test modules (so no value
computed under one mutation, or without it, is reused under another: what a fresh
process would recompute), runs the items its ``-k`` expression selects until the first
failure (``-x`` per mutation), undoes the mutation and checks that every function of
the package has its original code again.

Per mutation it writes what a child pytest run for that mutation alone would have
said, as its exit code: 1 some selected test failed (caught), 0 all passed
(survived), 5 nothing selected, 4 the mutation cannot be applied (its text is no
longer in the package source), 3 the undo left a function changed. A collection
error interrupts the whole run before any mutation (pytest's exit code 2, and no
result file), as it would have for each child.

Hypothesis runs without its example database and without shrinking, as under the
single-mutation plugin.
"""

from __future__ import annotations

import inspect
import json
import os
import sys
from pathlib import Path
from typing import Any

import pytest
from _pytest.mark import KeywordMatcher
from _pytest.mark.expression import Expression

from tests.support import mutations

PLAN_VAR = "SRM_MUTATION_PLAN"
CAUGHT, SURVIVED, UNDO_LEAKED, NOT_APPLIED, NOTHING_SELECTED = 1, 0, 3, 4, 5
CACHED_MODULES = (mutations.PACKAGE, "tests.")


def package_code() -> dict[str, Any]:
    """Every function's code object in the package's modules (methods included)."""
    code = {}
    for module_name, module in list(sys.modules.items()):
        if module is None or not module_name.startswith(mutations.PACKAGE):
            continue
        for attribute, value in vars(module).items():
            owners = [(attribute, value)]
            if inspect.isclass(value):
                owners += [(f"{attribute}.{key}", item) for key, item in vars(value).items()]
            for name, item in owners:
                if inspect.isfunction(item):
                    code[f"{module_name}.{name}"] = item.__code__
    return code


def clear_caches() -> int:
    """Clear every ``functools`` cache of the package's and the tests' modules."""
    cleared = 0
    for module_name, module in list(sys.modules.items()):
        if module is None or not module_name.startswith(CACHED_MODULES):
            continue
        for value in list(vars(module).values()):
            if callable(getattr(value, "cache_clear", None)) and hasattr(value, "cache_info"):
                value.cache_clear()
                cleared += 1
    return cleared


def selected(items: list[pytest.Item], expression: str) -> list[pytest.Item]:
    """The items ``pytest -k expression`` would run."""
    compiled = Expression.compile(expression)
    return [item for item in items if compiled.evaluate(KeywordMatcher.from_item(item))]


class _Recorder:
    """Counts the reports of the items run for the current mutation."""

    def __init__(self) -> None:
        self.failed: list[str] = []

    @pytest.hookimpl
    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        if report.failed:
            self.failed.append(f"{report.nodeid} ({report.when}): {_last_line(report)}")


def _last_line(report: pytest.TestReport) -> str:
    """The failure's message (its first line), else the report's last line."""
    crash = getattr(report.longrepr, "reprcrash", None)
    lines = (crash.message if crash is not None else str(report.longrepr)).strip().splitlines()
    if not lines:
        return ""
    return lines[0] if crash is not None else lines[-1]


def _run_items(items: list[pytest.Item], recorder: _Recorder) -> int:
    """Run items (each with full teardown) until the first failure; how many ran."""
    ran = 0
    for item in items:
        item.config.hook.pytest_runtest_protocol(item=item, nextitem=None)
        ran += 1
        if recorder.failed:
            break
    return ran


def _apply(session: pytest.Session, name: str | None):
    """Plant mutation ``name`` (None: a control run, nothing) and say so; its undo."""
    if name is None:
        return lambda: None
    undo = mutations.MUTATIONS[name].apply()
    reporter = session.config.pluginmanager.get_plugin("terminalreporter")
    if reporter is not None:
        description = mutations.MUTATIONS[name].description
        reporter.write_line(f"mutation {name!r} is active: {description}")
    return undo


def probe(session: pytest.Session, name: str | None, select: str, recorder: _Recorder) -> dict:
    """Apply one mutation, run its probe, undo it: the result of this mutation.

    ``name`` None is a control: the same selection without any mutation (it must pass,
    also after other mutations were applied and undone).
    """
    result: dict[str, Any] = {"name": name, "select": select, "applied": False}
    items = selected(session.items, select)
    result["selected"] = len(items)
    original = package_code()
    try:
        undo = _apply(session, name)
    except mutations.MutationError as error:
        return {**result, "returncode": NOT_APPLIED, "error": str(error)}
    result["applied"] = name is not None
    recorder.failed.clear()
    try:
        clear_caches()
        result["ran"] = _run_items(items, recorder)
    finally:
        undo()
        clear_caches()
    result["failures"] = list(recorder.failed)
    # (a module first imported meanwhile adds functions: only the ones before count)
    after = package_code()
    if any(after.get(function) is not code for function, code in original.items()):
        return {**result, "returncode": UNDO_LEAKED, "error": "undo left a function changed"}
    if not items:
        return {**result, "returncode": NOTHING_SELECTED}
    return {**result, "returncode": CAUGHT if recorder.failed else SURVIVED}


def _plan() -> dict | None:
    path = os.environ.get(PLAN_VAR, "").strip()
    return json.loads(Path(path).read_text()) if path else None


def pytest_configure(config: pytest.Config) -> None:
    plan = _plan()
    if plan is None:
        return
    if mutations.active_mutation() is not None:
        raise pytest.UsageError(f"{PLAN_VAR} and {mutations.ENV_VAR} exclude each other.")
    names = [entry["name"] for entry in plan["mutations"]]
    unknown = [name for name in names if name is not None and name not in mutations.MUTATIONS]
    if unknown:
        raise pytest.UsageError(f"{PLAN_VAR} names unknown mutations: {', '.join(unknown)}.")
    mutations._quiet_hypothesis()


@pytest.hookimpl(tryfirst=True)
def pytest_runtestloop(session: pytest.Session) -> bool | None:
    plan = _plan()
    if plan is None or session.config.option.collectonly:
        return None  # pytest's own loop
    if session.testsfailed:
        raise session.Interrupted(f"{session.testsfailed} error(s) during collection")
    recorder = _Recorder()
    session.config.pluginmanager.register(recorder, "srm-mutation-probe-recorder")
    results: list[dict[str, Any]] = []
    for entry in plan["mutations"]:
        if results and results[-1]["returncode"] == UNDO_LEAKED:
            results.append(
                {
                    **entry,
                    "applied": False,
                    "returncode": UNDO_LEAKED,
                    "error": "not probed: the undo of an earlier mutation leaked",
                }
            )
            continue
        results.append(probe(session, entry["name"], entry["select"], recorder))
    Path(plan["result"]).write_text(json.dumps(results, indent=1))
    return True
