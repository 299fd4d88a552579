"""The one local Spark session of the test suite (``local[2]``, small and quiet).

Spark tests take the ``spark`` fixture of ``tests/conftest.py`` and carry
``pytest.mark.xdist_group("spark")``: the test command runs pytest-xdist with
``--dist loadgroup``, so every Spark test runs in one worker and one JVM starts.
A machine without Java fails the fixture with what to install, never with Spark's
``JAVA_GATEWAY_EXITED``.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import warnings

JAVA_HINT = (
    "Spark tests need a Java 17 or 21 runtime on the PATH (or JAVA_HOME): on Debian or "
    "Ubuntu, apt-get install openjdk-17-jre-headless"
)


def check_java() -> str:
    """The ``java -version`` line, or a RuntimeError saying what to install."""
    home = os.environ.get("JAVA_HOME")
    java = os.path.join(home, "bin", "java") if home else shutil.which("java")
    if not java or not os.path.exists(java):
        raise RuntimeError(JAVA_HINT)
    done = subprocess.run([java, "-version"], capture_output=True, text=True, timeout=60)
    if done.returncode != 0:
        raise RuntimeError(f"{JAVA_HINT} ({java} -version failed: {done.stderr.strip()})")
    return (done.stderr or done.stdout).splitlines()[0]


def start_session():
    """A ``local[2]`` SparkSession whose Python workers run this interpreter."""
    check_java()
    # the workers must import this environment's NumPy, pandas and the package
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    os.environ.setdefault("PYSPARK_DRIVER_PYTHON", sys.executable)
    os.environ.setdefault("SPARK_LOCAL_IP", "127.0.0.1")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)  # pyspark 4.3 on pandas 3
        from pyspark.sql import SparkSession

        session = (
            SparkSession.builder.master("local[2]")
            .appName("sklearn_rank_metrics tests")
            .config("spark.ui.enabled", "false")
            .config("spark.ui.showConsoleProgress", "false")
            .config("spark.sql.shuffle.partitions", "4")
            .config("spark.default.parallelism", "2")
            .config("spark.sql.execution.arrow.pyspark.enabled", "true")
            .config("spark.driver.memory", "1g")
            .getOrCreate()
        )
    session.sparkContext.setLogLevel("ERROR")
    return session
