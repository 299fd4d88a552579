"""TREC files end to end against trec_eval 10, as the user waits for them (issue 46).

Builds trec_eval from the source archive given as an argument, writes a TREC run of
``--queries`` x ``--docs`` lines (``clueweb09-en0000-00000``-style docnos, scores
rounded to 3 decimals, so some tie) and qrels judging ``--judged`` documents a query
(two thirds of them in the run), then times, as whole processes (interpreter start
and imports included), alternating and ``--repeats`` times each:

- ``trec_eval -m map -m ndcg_cut.10 -m P.10 -m recip_rank -m bpref qrels run``;
- ``rank-metrics evaluate --qrels qrels --run run --metrics ... --format trec_eval``
  (as ``python -m sklearn_rank_metrics``);
- ``read_trec(qrels, run)`` and ``evaluate(data, metrics=...)`` in one script;
- ``python -c "import sklearn_rank_metrics"``: the floor the issue measures memory
  above.

Wall time is the median (min-max) of the runs; peak memory is the largest resident
set of the process (``os.wait4``'s ``ru_maxrss``). Linux counts in it the memory of
the forked parent before ``exec``: this script therefore imports nothing but the
standard library, writing the files and the machine lines in child processes, so
that floor (the ``import`` row shows it) stays a few MiB. Every number our two paths print
is checked equal to trec_eval's (4 decimals, as trec_eval prints them) before any
time is reported. ``--large`` adds MS MARCO dev's size (6,980 queries x 1,000).

The package's bytecode is compiled first (``python -m compileall``, into its
``__pycache__`` folders, which git ignores), as ``pip install`` does and as any first
import does unless ``PYTHONDONTWRITEBYTECODE`` is set: without it, each of our
processes would compile some fifty modules from source (about 0.1 s) that no
installed copy compiles.

    python benchmarks/bench_trec_files.py path/to/trec_eval-10.0.tar.gz [--repeats 3] [--large]
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time
from pathlib import Path

TREC_EVAL_MEASURES = ["map", "ndcg_cut.10", "P.10", "recip_rank", "bpref"]
OUR_NAMES = ["map", "ndcg_cut_10", "P_10", "recip_rank", "bpref"]


def build_trec_eval(archive: Path, folder: Path) -> Path:
    """``make`` trec_eval from its source archive; the path of the binary."""
    with tarfile.open(archive) as tar:
        tar.extractall(folder, filter="data")
    (source,) = [path.parent for path in folder.rglob("Makefile")]
    subprocess.run(["make"], cwd=source, check=True, capture_output=True)
    return source / "trec_eval"


def write_files(folder: Path, n_queries: int, n_docs: int, n_judged: int) -> tuple[Path, Path]:
    """The run and qrels files of ``trec_files.write_trec_files``, written in a child
    process (see the module docstring)."""
    subprocess.run(
        [sys.executable, __file__, "--write", str(folder), str(n_queries), str(n_docs),
         str(n_judged)],
        check=True,
    )
    return folder / "qrels.txt", folder / "run.txt"


def timed(command: list[str]) -> tuple[float, float, str]:
    """Wall seconds, peak resident MiB and standard output of one whole process."""
    with tempfile.TemporaryFile() as out:
        start = time.perf_counter()
        process = subprocess.Popen(command, stdout=out, stderr=subprocess.PIPE)
        _, status, usage = os.wait4(process.pid, 0)
        wall = time.perf_counter() - start
        process.returncode = os.waitstatus_to_exitcode(status)
        error = process.stderr.read().decode() if process.stderr else ""
        if process.returncode:
            raise RuntimeError(f"{command[0]} failed ({process.returncode}): {error}")
        out.seek(0)
        return wall, usage.ru_maxrss / 1024, out.read().decode()


def trec_eval_means(text: str) -> dict[str, float]:
    """``{measure: mean}`` of trec_eval's (or our trec_eval-format) ``all`` lines."""
    means = {}
    for line in text.splitlines():
        fields = line.split()
        if len(fields) == 3 and fields[1] == "all" and fields[0] not in ("runid", "num_q"):
            means[fields[0]] = float(fields[2])
    return means


API_SCRIPT = """
import json, sys
from sklearn_rank_metrics import evaluate, read_trec
data = read_trec(sys.argv[1], sys.argv[2])
print(json.dumps(evaluate(data, metrics=sys.argv[3].split(","))))
"""


def commands(trec_eval: Path, qrels: Path, run: Path) -> dict[str, list[str]]:
    python = sys.executable
    return {
        "trec_eval 10 (C)": [
            str(trec_eval), *(f"-m{m}" for m in TREC_EVAL_MEASURES), str(qrels), str(run)
        ],
        "rank-metrics evaluate (CLI)": [
            python, "-m", "sklearn_rank_metrics", "evaluate", "--qrels", str(qrels),
            "--run", str(run), "--metrics", *OUR_NAMES, "--format", "trec_eval",
        ],
        "read_trec + evaluate (API)": [
            python, "-c", API_SCRIPT, str(qrels), str(run), ",".join(OUR_NAMES)
        ],
        "import sklearn_rank_metrics": [python, "-c", "import sklearn_rank_metrics"],
    }


def check_equal(outputs: dict[str, str]) -> None:
    """Our two paths print trec_eval's numbers (to its 4 decimals)."""
    import json

    tool = trec_eval_means(outputs["trec_eval 10 (C)"])
    tool = {name.replace(".", "_"): value for name, value in tool.items()}
    cli = trec_eval_means(outputs["rank-metrics evaluate (CLI)"])
    api = json.loads(outputs["read_trec + evaluate (API)"])
    for name in OUR_NAMES:
        expected = tool[name]
        for path, value in (("CLI", cli.get(name)), ("API", api.get(name))):
            if value is None or abs(value - expected) > 5e-5:
                raise AssertionError(f"{path} {name} = {value}, trec_eval {expected}")


def race(trec_eval: Path, qrels: Path, run: Path, repeats: int) -> None:
    lines = sum(1 for _ in run.open()), sum(1 for _ in qrels.open())
    print(f"\n### {lines[0]:,} run lines, {lines[1]:,} qrels lines "
          f"({run.stat().st_size / 2**20:.0f} + {qrels.stat().st_size / 2**20:.0f} MiB)\n")
    runs: dict[str, list[tuple[float, float]]] = {}
    outputs: dict[str, str] = {}
    for _ in range(repeats):  # alternating: a drift of the machine hits every row
        for name, command in commands(trec_eval, qrels, run).items():
            wall, peak, out = timed(command)
            runs.setdefault(name, []).append((wall, peak))
            outputs[name] = out
    check_equal(outputs)
    print("numbers: CLI and API equal trec_eval's on every measure\n")
    tool_wall = statistics.median(w for w, _ in runs["trec_eval 10 (C)"])
    tool_peak = max(p for _, p in runs["trec_eval 10 (C)"])
    floor = max(p for _, p in runs["import sklearn_rank_metrics"])
    print("| command | wall s, median (min-max) | x trec_eval | peak MiB | "
          "peak above import / trec_eval's peak |")
    print("|---|---|---|---|---|")
    for name, figures in runs.items():
        walls = [w for w, _ in figures]
        peak = max(p for _, p in figures)
        above = "" if name.startswith(("trec_eval", "import")) else (
            f"{(peak - floor) / tool_peak:.2f}"
        )
        print(f"| {name} | {statistics.median(walls):.2f} ({min(walls):.2f}-{max(walls):.2f})"
              f" | {statistics.median(walls) / tool_wall:.2f} | {peak:.0f} | {above} |")


def compile_package() -> None:
    """Write the package's bytecode, as an install does (see the module's docstring)."""
    where = subprocess.run(
        [sys.executable, "-c", "import os, sklearn_rank_metrics as m; "
         "print(os.path.dirname(m.__file__))"],
        check=True, capture_output=True, text=True,
    ).stdout.strip()
    env = {key: value for key, value in os.environ.items()
           if key != "PYTHONDONTWRITEBYTECODE"}
    subprocess.run([sys.executable, "-m", "compileall", "-q", where], check=True, env=env)
    print(f"- bytecode: compiled beforehand in {where} (python -m compileall)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("trec_eval_source", type=Path, help="trec_eval-10.0.tar.gz")
    parser.add_argument("--queries", type=int, default=1000)
    parser.add_argument("--docs", type=int, default=1000)
    parser.add_argument("--judged", type=int, default=300)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--large", action="store_true", help="also 6,980 queries x 1,000")
    args = parser.parse_args()
    machine = [sys.executable, "-c", "from machine import machine_lines; "
               "print(chr(10).join(machine_lines()))"]
    subprocess.run(machine, check=True, cwd=Path(__file__).resolve().parent)
    compile_package()
    sys.stdout.flush()
    folder = Path(tempfile.mkdtemp())
    try:
        trec_eval = build_trec_eval(args.trec_eval_source.resolve(), folder / "build")
        sizes = [args.queries] + ([6980] if args.large else [])
        for n_queries in sizes:
            qrels, run = write_files(folder, n_queries, args.docs, args.judged)
            race(trec_eval, qrels, run, args.repeats)
            qrels.unlink()
            run.unlink()
    finally:
        shutil.rmtree(folder)


if __name__ == "__main__":
    if sys.argv[1:2] == ["--write"]:
        from trec_files import write_trec_files

        write_trec_files(Path(sys.argv[2]), *map(int, sys.argv[3:6]))
    else:
        main()
