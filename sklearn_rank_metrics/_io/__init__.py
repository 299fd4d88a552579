"""Readers that turn the formats users have into flat ``(y_true, y_score, group)`` rows.

* :func:`read_letor`: LETOR / SVMlight files with ``qid:`` (scikit-learn's loader);
* :func:`read_trec`, :func:`read_trec_qrels`, :func:`read_trec_run`: TREC qrels and
  runs, or the nested dicts of pytrec_eval and ranx (defined in ``_trec.py``);
* :func:`read_table`: CSV, TSV and Parquet tables or DataFrames, by column, and
  :meth:`RankingData.from_frame`: any DataFrame narwhals reads, by column (defined in
  ``_frames.py``; several score columns give several runs);
* :func:`read_recommendations`: ranked lists of item ids against relevant items;
* :func:`align_trec_runs`, :func:`align_recommendations`: several runs (recommenders)
  on the same rows, to compare them.

Every reader returns a :class:`RankingData`. A judged document that the system did
not return gets the score ``-inf`` (the package's data model): it counts toward the
query's relevant documents and ideal DCG, never toward a rank position.
Malformed input raises ``ValueError`` (``TypeError`` for wrong types) naming the file
and the first bad line (a frame: the column, the parameter and the row); nothing is
repaired or guessed silently. pandas, pyarrow and narwhals are imported inside the
functions that need them, never at import time.
"""

# the façade's names, re-exported explicitly (``name as name``)
from ._aligned import AlignedRuns as AlignedRuns
from ._aligned import align_recommendations as align_recommendations
from ._aligned import align_trec_runs as align_trec_runs
from ._letor import read_letor as read_letor
from ._ranking_data import RankingData as RankingData
from ._recommendations import read_recommendations as read_recommendations
from ._tables import read_table as read_table
from ._trec import read_trec as read_trec
from ._trec import read_trec_qrels as read_trec_qrels
from ._trec import read_trec_run as read_trec_run
