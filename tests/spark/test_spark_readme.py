"""The README's Spark example runs on the suite's Spark session and prints what it shows.

tests/meta/test_readme.py runs the ```python blocks in a fresh interpreter; the Spark
block is a ```py block so that that run starts no JVM. This test runs it here, where
``SparkSession.builder.getOrCreate()`` returns the suite's session.
"""

from __future__ import annotations

import contextlib
import io
import re
from pathlib import Path

import pytest

README = Path(__file__).resolve().parents[2] / "README.md"
SECTION = "### Spark: `sklearn_rank_metrics.spark`"

pytestmark = [
    pytest.mark.xdist_group("spark"),
    pytest.mark.filterwarnings("ignore:PySpark does not yet fully support pandas:FutureWarning"),
    pytest.mark.filterwarnings("ignore:The copy keyword is deprecated"),
]


def spark_example() -> tuple[str, str]:
    text = README.read_text()
    section = text[text.index(SECTION):]
    found = re.search(r"```py\n(.*?)```\n\n```text\n(.*?)```", section, re.S)
    assert found, "the Spark section has a ```py block followed by its ```text output"
    return found.group(1), found.group(2)


def test_readme_spark_example_prints_what_it_shows(spark):
    code, expected = spark_example()
    assert ".stop()" not in code  # the suite's session must outlive the example
    output = io.StringIO()
    with contextlib.redirect_stdout(output):
        exec(compile(code, "README.md (Spark example)", "exec"), {"__name__": "readme"})
    assert output.getvalue() == expected
