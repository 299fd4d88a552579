"""
A TREC run-vs-run report
========================

The everyday job of an IR experiment: a qrels file, two runs, the numbers
``trec_eval`` prints, and which differences are real. This example writes a small
qrels file and two run files, reads them with
:func:`~sklearn_rank_metrics.read_trec_qrels` and
:func:`~sklearn_rank_metrics.read_trec_run`, puts the runs on the same rows with
:func:`~sklearn_rank_metrics.align_trec_runs`, and reports them with
:func:`~sklearn_rank_metrics.ranking_report` and
:func:`~sklearn_rank_metrics.compare` under trec_eval's measure names and conventions.
"""

# %%
# Writing the files
# -----------------
#
# A synthetic test collection: 40 topics with 30 judged documents each (grades 0, 1
# and 2). Two systems, "bm25" and "dense", return their top 20 documents per topic,
# and each also returns a few documents nobody judged (``u0``, ``u1``, ...), as real
# runs do. The "dense" system scores with less noise, except on topics 30 to 39,
# where it gets them backwards and ranks the relevant documents low. It does not
# answer topic 39 at all.
# The files are in the standard formats: ``topic iteration docno grade`` for the
# qrels, ``topic Q0 docno rank score tag`` for a run.

import shutil
import tempfile
from pathlib import Path

import matplotlib.pyplot as plt
import numpy as np

from sklearn_rank_metrics import (
    PerQueryDifferenceDisplay,
    PerQueryMetricDisplay,
    align_trec_runs,
    compare,
    ranking_report,
    read_trec_qrels,
    read_trec_run,
)

rng = np.random.default_rng(0)
folder = Path(tempfile.mkdtemp())
qrels_lines, run_lines = [], {"bm25": [], "dense": []}
for topic in range(40):
    grades = rng.choice([0, 0, 0, 1, 2], size=30)
    qrels_lines += [
        f"{topic} 0 d{doc} {grade}" for doc, grade in enumerate(grades)
    ]
    for system, noise in (("bm25", 1.5), ("dense", 0.8)):
        if system == "dense" and topic == 39:
            continue  # no answer for this topic
        signal = -grades if (system == "dense" and topic >= 30) else grades
        scores = np.concatenate(
            [signal + rng.normal(0, noise, 30), rng.normal(0, 1, 5)]
        )
        docnos = [f"d{doc}" for doc in range(30)] + [
            f"u{doc}" for doc in range(5)
        ]
        top = np.argsort(-scores)[:20]
        run_lines[system] += [
            f"{topic} Q0 {docnos[i]} {rank} {scores[i]:.4f} {system}"
            for rank, i in enumerate(top, start=1)
        ]

(folder / "qrels.txt").write_text("\n".join(qrels_lines) + "\n")
for system, lines in run_lines.items():
    (folder / f"{system}.run").write_text("\n".join(lines) + "\n")
print((folder / "dense.run").read_text().splitlines()[:3])

# %%
# Reading and aligning
# --------------------
#
# The readers give the nested dicts ``{topic: {docno: value}}`` that pytrec_eval and
# ranx use. Two runs return different documents, so each would give its own rows;
# ``align_trec_runs`` puts them on the same rows: per topic of the qrels, every
# document judged or returned by a run, scored ``-inf`` by a run that did not return
# it (it still counts as a relevant document the run missed). Every run is averaged
# over the topics of the qrels, as ``trec_eval -c`` does: a topic a run did not
# answer scores 0, rather than disappearing from its mean.

qrels = read_trec_qrels(folder / "qrels.txt")
runs = {
    system: read_trec_run(folder / f"{system}.run")
    for system in ("bm25", "dense")
}
print(f"qrels: {len(qrels)} topics, {sum(map(len, qrels.values()))} judgements")
for system, run in runs.items():
    print(
        f"{system}: {len(run)} topics answered, "
        f"{sum(map(len, run.values()))} lines"
    )
aligned = align_trec_runs(qrels, runs)
print(aligned)

# %%
# The report
# ----------
#
# Measure names can be trec_eval's (``map``, ``ndcg_cut_10``, ``P_10``,
# ``recip_rank``, ``bpref``). ``convention="trec_eval"`` sets what trec_eval decides:
# its tie order (document id descending), relevance as grade 1 or more, 0 for a topic
# without a relevant document. ``bpref`` reads which documents were judged, which the
# aligned rows carry: the unjudged ``u`` documents are skipped by bpref and read as
# non-relevant by every other measure.

measures = ["map", "ndcg_cut_10", "P_10", "recip_rank", "bpref"]
print(ranking_report(aligned, metrics=measures, convention="trec_eval"))

# %%
# Run against run
# ---------------
#
# :func:`~sklearn_rank_metrics.compare` tests each difference on the same topics
# (randomisation test, 10,000 sign patterns; bootstrap intervals in
# ``result.table``); ``correction="holm"`` adjusts the p-values for the family of
# comparisons of each metric (one here, so they do not change; with several runs
# against one baseline they would). ``result.to_markdown()`` and
# ``result.to_latex()`` give the same table for a paper.

result = compare(
    aligned,
    metrics=measures,
    baseline="bm25",
    convention="trec_eval",
    correction="holm",
    random_state=0,
)
print(result)

# %%
# Read the table with the win/tie/loss counts. The means of the two runs are close,
# and for most measures the randomisation test sees no difference (the p-values
# above), yet "dense" beats "bm25" on most topics. A mean difference near 0 can hide
# two groups of topics pulling in opposite directions, which the figure shows. On
# the left, the distribution of average precision over topics for each run
# (:class:`~sklearn_rank_metrics.PerQueryMetricDisplay`, as an empirical CDF: the
# fraction of topics at or below each AP): "dense" has a cluster of topics near 0.
# On the right, the per-topic difference, sorted
# (:class:`~sklearn_rank_metrics.PerQueryDifferenceDisplay`): many moderate gains,
# then fewer but larger losses: the topics where "dense" fails (30 to 39 by
# construction, the unanswered 39 among them), listed below the figure.
#
# The difference display ranks by two runs' scores, so it takes the aligned arrays
# rather than the ``AlignedRuns`` itself; ``doc_id=`` keeps trec_eval's tie order.

fig, (left, right) = plt.subplots(1, 2, figsize=(12, 4.5))
PerQueryMetricDisplay.from_predictions(
    aligned, metric="map", kind="ecdf", convention="trec_eval", ax=left
)
left.set_title("AP per topic, both runs")
difference = PerQueryDifferenceDisplay.from_predictions(
    aligned.y_true,
    aligned.scores["dense"],
    aligned.scores["bm25"],
    aligned.group,
    metric="map",
    name="dense",
    baseline_name="bm25",
    convention="trec_eval",
    doc_id=aligned.doc_id,
    ax=right,
)
right.set_title("AP difference per topic, dense - bm25")
fig.tight_layout()
losers = difference.query_ids[difference.differences < 0]
print(
    f"dense better on {difference.n_better} topics, "
    f"worse on {difference.n_worse}: "
    f"topics {sorted(losers.tolist(), key=int)}"
)

# %%
# The same from the command line, with the report's layout or trec_eval's own
# (``--format trec_eval``)::
#
#     rank-metrics evaluate --qrels qrels.txt --run bm25.run --run dense.run \
#         --metrics map ndcg_cut_10 P_10 recip_rank bpref --baseline bm25.run
#
# The means are the ones ``trec_eval -c`` prints for these files; the package's
# cross-check tests compare its measures with trec_eval's, pytrec_eval's and
# ir_measures' own output.
#
# The files were written to a temporary folder, removed now:

shutil.rmtree(folder)
