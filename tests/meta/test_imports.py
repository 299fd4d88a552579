"""Importing the package: lazy public names, no global state, Ctrl-C while loading.

``sklearn_rank_metrics/__init__.py`` imports each public name from its private module
on first use (PEP 562). These tests check what that must keep: ``__all__``, ``dir()``,
``from ... import name`` and ``import *``, the modules pickles name; what it buys (the
package and the command line's entry load nothing heavy; a metric loads no statistics,
readers, displays or scorers; no timing is asserted); that importing changes no global
state; and that the command line, interrupted while it is still importing, exits as
it does when interrupted during its work (one line, status 130, no traceback).
"""

from __future__ import annotations

import ast
import os
import pickle
import re
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

import sklearn_rank_metrics
from sklearn_rank_metrics import __main__ as entry
from sklearn_rank_metrics import _cli

ROOT = Path(__file__).resolve().parents[2]
INIT = ROOT / "sklearn_rank_metrics" / "__init__.py"


def _fresh(code: str) -> subprocess.CompletedProcess:
    """``code`` in a new interpreter that imports this checkout."""
    return subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)], capture_output=True, text=True,
        env={**os.environ, "PYTHONPATH": str(ROOT)}, check=False,
    )


def _type_checking_imports() -> dict[str, str]:
    """``{name: module}`` of the imports under ``if TYPE_CHECKING:`` in ``__init__``."""
    tree = ast.parse(INIT.read_text())
    block = next(
        node for node in tree.body
        if isinstance(node, ast.If) and getattr(node.test, "id", None) == "TYPE_CHECKING"
    )
    return {
        alias.name: "." * node.level + (node.module or "")
        for node in block.body if isinstance(node, ast.ImportFrom)
        for alias in node.names
    }


# --------------------------------------------------------------------------- the names


def test_every_public_name_has_one_lazy_module_and_one_typed_import():
    lazy = sklearn_rank_metrics._MODULE_OF
    assert sorted(lazy) == sorted(sklearn_rank_metrics.__all__)
    assert _type_checking_imports() == lazy  # the same name from the same module


@pytest.mark.parametrize("name", sklearn_rank_metrics.__all__)
def test_each_name_is_what_its_module_defines_and_pickles_by_that_module(name):
    value = getattr(sklearn_rank_metrics, name)
    module = sys.modules.get(f"sklearn_rank_metrics{sklearn_rank_metrics._MODULE_OF[name]}")
    assert module is not None and getattr(module, name) is value
    assert value.__module__.startswith("sklearn_rank_metrics._")  # a private module
    assert pickle.loads(pickle.dumps(value)) is value  # classes and functions by reference


def test_unknown_names_and_dir():
    with pytest.raises(AttributeError, match="module 'sklearn_rank_metrics' has no attribute"):
        sklearn_rank_metrics.ndcg  # noqa: B018
    assert not hasattr(sklearn_rank_metrics, "read_trec_runs")
    assert set(sklearn_rank_metrics.__all__) <= set(dir(sklearn_rank_metrics))


def test_a_fresh_import_loads_nothing_heavy_and_lists_every_name():
    # before the lazy __init__: NumPy, SciPy and scikit-learn at import (~1.5 s CPU)
    completed = _fresh("""
        import sys
        import sklearn_rank_metrics as m
        heavy = sorted(n for n in ("numpy", "scipy", "sklearn", "pandas") if n in sys.modules)
        assert not heavy, heavy
        assert set(m.__all__) <= set(dir(m)), "dir() lists names not yet loaded"
        namespace = {}
        exec("from sklearn_rank_metrics import *", namespace)
        assert {n for n in namespace if not n.startswith("__")} == set(m.__all__)
        print("ok")
    """)
    assert completed.stdout == "ok\n", completed.stderr


def test_a_metric_loads_no_statistics_readers_displays_or_scorers():
    completed = _fresh("""
        import sys
        from sklearn_rank_metrics import ndcg_score
        assert ndcg_score([1, 0, 2, 0], [0.3, 0.2, 0.9, 0.1], [1, 1, 2, 2]) == 1.0
        layers = {n.split(".")[1] for n in sys.modules if n.startswith("sklearn_rank_metrics.")}
        print(sorted(layers))
    """)
    assert completed.returncode == 0, completed.stderr
    assert completed.stdout == "['_engine', '_kernels', '_metrics', '_version']\n"


def test_the_metrics_and_the_command_line_need_no_scikit_learn_or_scipy_stats():
    # scikit-learn is imported by estimators (scorers, GroupedRanker) and when an
    # UndefinedMetricWarning is raised, never by a metric; importing it costs over a
    # second of CPU (`import sklearn` pulls scipy.stats and pandas too)
    completed = _fresh("""
        import sys
        from sklearn_rank_metrics import evaluate, ndcg_score
        ndcg_score([1, 0, 2, 0], [0.3, 0.2, 0.9, 0.1], [1, 1, 2, 2])
        evaluate([1, 0, 2, 0], [0.3, 0.2, 0.9, 0.1], [1, 1, 2, 2], metrics=["map", "err@2"])
        import sklearn_rank_metrics._cli
        print(sorted(n for n in ("sklearn", "scipy", "pandas") if n in sys.modules))
    """)
    assert completed.stdout == "[]\n", completed.stderr


def test_reading_and_evaluating_trec_files_imports_no_scipy_or_pandas(tmp_path):
    # the command line's path: TREC files read by the NumPy reader, evaluated under
    # trec_eval's convention; scipy.special is imported by the few functions that
    # use it (tied-block expectations, the t-test, BCa intervals), pandas by none
    (tmp_path / "q").write_text("1 0 a 1\n1 0 b 0\n2 0 c 2\n")
    (tmp_path / "r").write_text("1 Q0 a 1 0.5 x\n1 Q0 b 2 0.4 x\n2 Q0 c 1 0.9 x\n")
    completed = _fresh(f"""
        import sys
        from sklearn_rank_metrics._cli import main
        assert main(["evaluate", "--qrels", {str(tmp_path / "q")!r}, "--run",
                     {str(tmp_path / "r")!r}, "--metrics", "map", "ndcg_cut_10"]) == 0
        print(sorted(n for n in ("sklearn", "scipy", "pandas") if n in sys.modules))
    """)
    assert completed.stdout.endswith("[]\n"), completed.stdout + completed.stderr


def test_the_command_line_entry_loads_nothing_heavy_before_its_handler():
    completed = _fresh("""
        import sys
        from sklearn_rank_metrics.__main__ import main
        print(sorted(n for n in ("numpy", "sklearn", "sklearn_rank_metrics._cli")
                     if n in sys.modules))
    """)
    assert completed.stdout == "[]\n", completed.stderr


def test_importing_every_name_changes_no_global_state():
    # the libraries the package imports are loaded first: their own settings are theirs
    completed = _fresh("""
        import logging, signal, sys, warnings
        import numpy as np, scipy.special, scipy.stats, sklearn, sklearn.base, narwhals

        def state():
            return (
                list(warnings.filters), warnings.showwarning, warnings.formatwarning,
                sklearn.get_config(), np.geterr(), np.get_printoptions(),
                sys.excepthook, sys.displayhook, signal.getsignal(signal.SIGINT),
                logging.getLogger().handlers[:], logging.getLogger().level,
                sorted(logging.Logger.manager.loggerDict),
            )

        before = state()
        import sklearn_rank_metrics as m
        for name in m.__all__:
            getattr(m, name)
        import sklearn_rank_metrics._cli
        after = state()
        assert after == before, [(a, b) for a, b in zip(before, after) if a != b]
        print("ok")
    """)
    assert completed.stdout == "ok\n", completed.stderr


def test_importing_changes_no_global_state():
    # the libraries it builds on are imported first (SciPy, for one, adds warning
    # filters when imported): what is checked is what importing this package adds
    code = (
        "import numpy, scipy.sparse, scipy.special, scipy.stats, sklearn.base, pandas\n"
        "import sklearn.utils, sklearn.model_selection, sklearn.metrics, dask.dataframe\n"
        "import random, sys; random.seed(0); expected = random.random(); random.seed(0)\n"
        "import numpy as np; np.seterr(all='warn'); before = np.geterr()\n"
        "import warnings; filters = list(warnings.filters)\n"
        "import sklearn_rank_metrics, sklearn_rank_metrics.dask\n"
        "assert random.random() == expected, 'random state advanced'\n"
        "assert np.geterr() == before and list(warnings.filters) == filters\n"
        "assert 'sklearn.datasets' not in sys.modules\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True, timeout=120)


# --------------------------------------------------------------------------- Ctrl-C


def test_the_entry_says_what_the_command_line_says_when_interrupted():
    assert (entry.PROGRAM, entry.EXIT_INTERRUPTED) == (_cli.PROGRAM, _cli.EXIT_INTERRUPTED)


# a sitecustomize that makes the import of one module wait (a minute at most) after
# saying so on stderr: the test sends Ctrl-C (SIGINT) then, while the command imports
SLOW_IMPORT = """
import os, sys, time

class SlowImport:
    def find_spec(self, name, path=None, target=None):
        if name == os.environ["SLOW_IMPORT"]:
            sys.meta_path.remove(self)
            sys.stderr.write(f"importing {name}\\n")
            sys.stderr.flush()
            time.sleep(60)
        return None

sys.meta_path.insert(0, SlowImport())
"""


def _console_script(directory: Path) -> Path:
    """The console script pip writes for pyproject.toml's ``rank-metrics`` entry point."""
    declared = re.search(  # [project.scripts] (tomllib is Python >= 3.11)
        r'^rank-metrics = "([\w.]+):(\w+)"$', (ROOT / "pyproject.toml").read_text(), re.M
    )
    assert declared is not None, "pyproject.toml declares no rank-metrics script"
    module, function = declared.groups()
    script = directory / "rank-metrics"
    script.write_text(
        f"import re\nimport sys\nfrom {module} import {function}\n"
        "if __name__ == '__main__':\n"
        "    sys.argv[0] = re.sub(r'(-script\\.pyw|\\.exe)?$', '', sys.argv[0])\n"
        f"    sys.exit({function}())\n"
    )
    return script


def _default_sigint():
    signal.signal(signal.SIGINT, signal.SIG_DFL)  # pytest-xdist's workers ignore it


# a dependency and the package's own metric registry, both imported at start-up
@pytest.mark.parametrize("module", ["numpy", "sklearn_rank_metrics._metrics._registry"])
@pytest.mark.parametrize("how", ["python -m", "console script"])
def test_ctrl_c_while_the_command_line_imports_exits_130_without_traceback(
    tmp_path, how, module
):
    (tmp_path / "sitecustomize.py").write_text(SLOW_IMPORT)
    command = (
        [sys.executable, "-m", "sklearn_rank_metrics"]
        if how == "python -m"
        else [sys.executable, str(_console_script(tmp_path))]
    )
    environment = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(tmp_path), str(ROOT)]),
        "SLOW_IMPORT": module,
    }
    process = subprocess.Popen(
        [*command, "--version"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        env=environment, preexec_fn=_default_sigint,
    )
    try:
        said = process.stderr.readline()  # blocks until the import waits
        assert said == f"importing {module}\n", said + process.stderr.read()
        process.send_signal(signal.SIGINT)
        out, err = process.communicate(timeout=60)
    finally:
        if process.poll() is None:
            process.kill()
            process.communicate()
    assert "Traceback" not in err, err
    assert (process.returncode, err, out) == (130, "rank-metrics: interrupted\n", "")
