"""The parts of ``benchmarks/bench_peers.py``, one job per module.

- :mod:`.data`: the data sets (series, sizes, rows) and the conversions several peers share;
- :mod:`.names`: our metric names in each peer tool, the one table;
- :mod:`.impls`: one adapter class per implementation (lower bounds, ours, each peer);
- :mod:`.checks`: each peer's value against ours under the settings that reproduce it;
- :mod:`.timing`: the interleaved timings and the skip projections;
- :mod:`.memory`: peak extra memory, one fresh subprocess per call;
- :mod:`.report`: the Markdown report;
- :mod:`.command`: the command line of ``bench_peers.py``.

Import the modules with ``benchmarks/`` on ``sys.path`` (as running
``python benchmarks/bench_peers.py`` puts it), which also makes ``machine`` importable.
"""

import os
from pathlib import Path

# Idle OpenMP threads (XGBoost, LightGBM, torch) sleep instead of busy-waiting: with
# the default spin, they keep burning the cores for a while after their call and slow
# whatever is timed next (measured: evaluate 0.100 s after LightGBM vs 0.085 s with
# passive waiting, LightGBM itself unchanged). Read when each OpenMP runtime starts,
# so it is set here, before any module of this package imports a peer; an explicit
# setting wins.
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")

BENCHMARKS = Path(__file__).resolve().parent.parent
# the entry point, which the memory cases and the AVX2 rerun run again in a subprocess
SCRIPT = BENCHMARKS / "bench_peers.py"
