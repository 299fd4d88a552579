"""A whole frame passed where flat rows go, with nothing naming its columns, is refused.

A hurried user hands the frame they hold to the function: ``evaluate(df)``. Which
column is the label, the score, the query? Guessing would be a silent wrong number,
so every entry point refuses with the two spellings that name the columns. A frame of
labels next to a frame of scores (scikit-learn's 2-D form) is not such a call.
"""

import duckdb
import numpy as np
import pandas as pd
import polars as pl
import pyarrow as pa
import pytest
from sklearn.metrics import ndcg_score as sklearn_ndcg_score

from sklearn_rank_metrics import compare, evaluate, ndcg_score, ranking_report

ROWS = pd.DataFrame({"qid": [1, 1, 2, 2], "label": [1, 0, 0, 1], "score": [0.1, 0.2, 0.3, 0.4]})

FRAMES = {
    "pandas": lambda: ROWS,
    "polars": lambda: pl.from_pandas(ROWS),
    "polars lazy": lambda: pl.from_pandas(ROWS).lazy(),
    "pyarrow": lambda: pa.Table.from_pandas(ROWS, preserve_index=False),
    "duckdb": lambda: duckdb.from_df(ROWS),
}
CALLS = {
    "evaluate": lambda frame: evaluate(frame, metrics=["ndcg@2"]),
    "ndcg_score": lambda frame: ndcg_score(frame),
    "compare": lambda frame: compare(frame),
    "ranking_report": lambda frame: ranking_report(frame),
}


@pytest.mark.parametrize("library", FRAMES)
def test_a_frame_alone_is_refused_by_every_entry_point(library):
    for name, call in CALLS.items():
        with pytest.raises(TypeError) as raised:
            call(FRAMES[library]())
        message = str(raised.value)
        assert message.startswith(f"{name} got a "), message
        assert "RankingData.from_frame(frame, y_true=" in message
        assert f"{name}(frame['label'], frame['score'], frame['qid']" in message


def test_frames_of_labels_and_scores_are_scikit_learns_2d_form():
    labels = pd.DataFrame([[3, 0, 1], [0, 2, 1]])
    scores = pd.DataFrame([[0.2, 0.9, 0.1], [0.5, 0.4, 0.3]])
    expected = sklearn_ndcg_score(labels.to_numpy(), scores.to_numpy())
    assert ndcg_score(labels, scores) == pytest.approx(expected, rel=1e-12)
    assert ndcg_score(np.asarray(labels), np.asarray(scores)) == pytest.approx(expected)
