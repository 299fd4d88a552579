"""Time our ranking metrics side by side with the tools people use instead.

Run (from the repository root, with the ``bench`` extra installed)::

    python benchmarks/bench_peers.py                      # full run, see "Files" below
    python benchmarks/bench_peers.py --quick              # small sizes only, prints the tables
    python benchmarks/bench_peers.py --output somewhere.md
    python benchmarks/bench_peers.py --quick --limit-dispatch baseline  # NumPy without AVX2

Files: the full run writes ``benchmarks/RESULTS-<level>.md``, ``<level>`` being the
highest SIMD level NumPy dispatches to in the run (``avx512``, ``avx2`` or
``baseline``, from ``machine.dispatch_level``; the header gives the CPU model and
NumPy's SIMD extensions as ``np.show_runtime()`` reports them). Where NumPy dispatches
to AVX-512, the full run then runs itself again in a subprocess with
``NPY_DISABLE_CPU_FEATURES`` set to the found AVX-512 targets and writes
``RESULTS-avx2.md`` too, labelled as limited in its header (``--no-avx2-rerun``: not).
``--limit-dispatch avx2|baseline`` sets that variable and re-executes the script, to
time a lower level on any machine (``--output`` names the file; with ``--output`` the
AVX2 rerun writes ``<name>-avx2.md``). ``--quick`` writes no file unless ``--output``
is given, and never reruns. ``benchmarks/RESULTS.md`` is an older report, from before
the files per level (its booster columns on shuffled ids, timed with a slower grouping
of their rows, are removed; ``TARGETS-<level>.md`` has the current booster figures).

Every timed call goes end to end from flat NumPy arrays ``(y_true, y_score, qid)``,
including the conversions each tool needs (data frames, padding, dicts, tensors,
DMatrix/Dataset, sorting rows by query). In one process, the calls on one data set
run interleaved in rounds, each in a new seeded random order, and the tables give
medians and the ratio to one ``np.argsort(y_score)`` of the same data. Peak extra
memory is measured in a fresh subprocess per (implementation, size). A peer that is
not installed, has no such metric, or would take too long (projected from the next
smaller size) is reported in the tables with the reason, never dropped silently. The
warm-up (imports, first calls, ranx's numba JIT: 45 s on 2 cores with numba's cache
cold, 8 s warm) is timed apart; the time budget for the peers starts after it.
"""

# The code lives in the package benchmarks/peers/ (one module per job: data, peer names,
# adapters, value checks, timing, memory, report, command line); this file is its entry
# point, and its docstring the --help text.

from peers.command import main

if __name__ == "__main__":
    main(__doc__)
