"""This folder's tests run in their own environment, built by ``run`` next to this file.

That environment holds the package, narwhals at its declared floor, polars and pytest,
and neither pandas nor pyarrow (the tests check it). The main suite's environment has
pandas, so there these tests are not collected: ``.ci/run`` runs ``run`` after the
main suite.
"""

import importlib.util

collect_ignore_glob = [] if importlib.util.find_spec("pandas") is None else ["test_*.py"]
