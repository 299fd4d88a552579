"""The user guide's Spark examples run on the suite's Spark session and print what they show.

The Spark part of ``docs/user_guide/beyond_one_machine.rst`` lives in
``spark_examples.inc``, which that page includes. Its suffix keeps it out of pytest's
``--doctest-glob='*.rst'`` run, which would start a JVM in whichever pytest-xdist
worker collected it; this test runs its doctests here instead, in the ``spark`` group,
where ``SparkSession.builder.getOrCreate()`` returns the suite's one session.
"""

from __future__ import annotations

import doctest
import io
from pathlib import Path

import pytest

GUIDE = Path(__file__).resolve().parents[2] / "docs" / "user_guide"
EXAMPLES = GUIDE / "spark_examples.inc"

pytestmark = [
    pytest.mark.xdist_group("spark"),
    pytest.mark.filterwarnings("ignore:PySpark does not yet fully support pandas:FutureWarning"),
    pytest.mark.filterwarnings("ignore:The copy keyword is deprecated"),
]


def test_the_guide_shows_the_spark_examples_this_test_runs():
    page = (GUIDE / "beyond_one_machine.rst").read_text()
    assert ".. include:: spark_examples.inc" in page


def test_guide_spark_examples_print_what_they_show(spark, tmp_path, monkeypatch):
    text = EXAMPLES.read_text()
    assert ".stop()" not in text  # the suite's session must outlive the examples
    monkeypatch.chdir(tmp_path)
    test = doctest.DocTestParser().get_doctest(text, {}, EXAMPLES.name, str(EXAMPLES), 0)
    assert len(test.examples) >= 20
    assert any("RankingMetricEvaluator(" in example.source for example in test.examples)
    report = io.StringIO()
    runner = doctest.DocTestRunner(
        optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE
    )
    result = runner.run(test, out=report.write, clear_globs=False)
    assert result.failed == 0, report.getvalue()
    assert result.attempted == len(test.examples)
    # the CrossValidator example shows a choice: its two settings score differently,
    # and the model kept is the one with the higher mean (issue 44, item 9)
    model, grid = test.globs["model"], test.globs["search"].getEstimatorParamMaps()
    scores = [float(value) for value in model.avgMetrics]
    assert len(scores) == 2 and abs(scores[0] - scores[1]) > 0.01, scores
    chosen = grid[scores.index(max(scores))]
    tree = test.globs["tree"]
    assert model.bestModel.getMaxDepth() == chosen[tree.maxDepth]
