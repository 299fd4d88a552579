"""Run the user guide's code blocks as doctests (``--doctest-glob='*.rst'``).

Every page runs in a fresh temporary directory, so the files its examples write never
land in the repository; figures use matplotlib's Agg backend and are never shown;
scikit-learn's global configuration (metadata routing) is restored after each page.
"""

from __future__ import annotations

import pytest
import sklearn


@pytest.fixture(autouse=True)
def _page_in_a_temporary_directory(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    with sklearn.config_context():
        yield


@pytest.fixture(autouse=True, scope="session")
def _agg_backend():
    import matplotlib

    matplotlib.use("Agg")
