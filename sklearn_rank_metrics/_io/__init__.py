"""Readers that turn the formats users have into flat ``(y_true, y_score, group)`` rows.

* :func:`read_letor`: LETOR / SVMlight files with ``qid:`` (scikit-learn's loader);
* :func:`read_trec`, :func:`read_trec_qrels`, :func:`read_trec_run`: TREC qrels and
  runs, or the nested dicts of pytrec_eval and ranx (defined in ``_trec.py``);
* :func:`read_table`: CSV, TSV and Parquet tables or pandas DataFrames, by column;
* :func:`read_recommendations`: ranked lists of item ids against relevant items;
* :func:`align_trec_runs`, :func:`align_recommendations`: several runs (recommenders)
  on the same rows, to compare them.

Every reader returns a :class:`RankingData`. A judged document that the system did
not return gets the score ``-inf`` (the package's data model): it counts toward the
query's relevant documents and ideal DCG, never toward a rank position.
Malformed input raises ``ValueError`` (``TypeError`` for wrong types) naming the file
and the first bad line; nothing is repaired or guessed silently. pandas and pyarrow
are imported inside the functions that need them, never at import time.
"""

from ._aligned import AlignedRuns, align_recommendations, align_trec_runs
from ._letor import read_letor
from ._ranking_data import RankingData
from ._recommendations import read_recommendations
from ._tables import read_table
from ._trec import read_trec, read_trec_qrels, read_trec_run

__all__ = [
    "AlignedRuns",
    "RankingData",
    "align_recommendations",
    "align_trec_runs",
    "read_letor",
    "read_recommendations",
    "read_table",
    "read_trec",
    "read_trec_qrels",
    "read_trec_run",
]
