"""Run the user guide's code blocks as doctests (``--doctest-glob='*.rst'``).

Every page runs in a fresh temporary directory, so the files its examples write never
land in the repository; figures use matplotlib's Agg backend and are never shown;
scikit-learn's global configuration (metadata routing) is restored after each page.
"""

from __future__ import annotations

import pytest
import sklearn

# pages whose printed numbers depend on how GroupKFold assigns queries to folds
FOLD_DEPENDENT_PAGES = {"model_selection.rst"}


def _sklearn_version() -> tuple[int, int]:
    major, minor = sklearn.__version__.split(".")[:2]
    return int(major), int(minor)


@pytest.fixture(autouse=True)
def _page_in_a_temporary_directory(request, tmp_path, monkeypatch):
    if request.node.name in FOLD_DEPENDENT_PAGES and _sklearn_version() < (1, 9):
        pytest.skip(
            "The page's numbers come from scikit-learn >= 1.9, whose GroupKFold breaks "
            "ties between equal-sized queries stably; older versions build other folds."
        )
    monkeypatch.chdir(tmp_path)
    with sklearn.config_context():
        yield


@pytest.fixture(autouse=True, scope="session")
def _agg_backend():
    import matplotlib

    matplotlib.use("Agg")
