"""Mutation self-check: the cross-check suite must catch a deliberately broken metric.

Each mutation of ``tests/support/mutations.py`` plants one realistic bug in the package
(a discount of ``log2(i + 2)``, tie averaging dropped, a cutoff off by one, ...).
For each, ``test_cross_checks_catch_the_mutation`` runs the cross-check suite --
the comparisons with scikit-learn, trec_eval, ranx, LightGBM and XGBoost, and with
the slow independent reference implementation (``CROSS_CHECK_FILES``) -- in a
child pytest with ``-p tests.support.mutations`` and ``SRM_MUTATION=<name>``, and requires it to
*fail*: exit code 1 exactly. Exit code 0 means the mutation survived (a hole in the
cross-checks); 2 to 5 mean the harness itself is broken (interrupted, internal
error, usage error, nothing collected), which must not pass as "caught". The
child never sees this file (only the cross-check files are named), the ``CI``
variable is removed from its environment (the conftest's no-skip rule is about
peers, not mutants) and Hypothesis stores nothing in the project.

Speed. A full cross-check run takes about a minute, so each mutation first runs
its *probe*: the part of the suite known to catch it (one file and a ``-k``
selection, all inside ``CROSS_CHECK_FILES``: the mutation's own, else ``PROBES``,
else its metric's reference variants, see ``probe_of``). The probe is a subset of the
suite, so the probe failing proves the suite fails. The probes of one file run in
one child pytest (``-p tests.support.mutation_probes``; two children at a time, in a
thread pool, while the parent waits), which collects the file once and, mutation by
mutation, applies it, runs its selection up to the first failure, undoes it and
clears every cache, so no value outlives its mutation. The child reports, per
mutation, the exit code a run of that mutation alone would have had, and the rules
below hold per mutation. Should a probe pass (the tests changed), the whole suite
runs in a child of its own with ``-x`` (fastest-failing files first) and the case
still passes if the suite catches the mutation, with a warning that the probe is
stale; a probe that selects nothing or errors is a broken harness.

Guards against a self-check that checks nothing:

* ``test_mutation_changes_its_example``: in-process, each mutation is applied and
  undone around a small hand-computed example (the mutation's own, else its
  ``EXAMPLES`` entry); the value must differ under the mutation and come back
  exactly afterwards (a mutation that silently changes nothing, or an undo that
  leaks, fails here, in milliseconds).
* every registered metric has a mutation aimed at it, every mutation a probe, and
  the default probe (``-k <metric name>`` in the reference cross-check) selects
  tests of every registered metric.
* without ``SRM_MUTATION`` the plugin changes no code object, and a child run with
  the plugin loaded and no mutation passes; an unknown name is a usage error.

A mutation that survives is never deleted: it is marked ``xfail(strict=True)`` in
``SURVIVORS`` with the missing coverage as the reason (none at present).
"""

from __future__ import annotations

import json
import math
import os
import subprocess
import sys
import warnings
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import NamedTuple

import pytest
from _pytest.mark import KeywordMatcher
from _pytest.mark.expression import Expression

import sklearn_rank_metrics as srm
from sklearn_rank_metrics._metrics._registry import METRICS
from tests.support import mutation_probes, mutations
from tests.support.mutations import BOOSTERS, RANX, REFERENCE, SKLEARN, TREC, Example, Probe

TESTS = Path(__file__).resolve().parents[1]
ROOT = TESTS.parent
INF = math.inf

# Fastest-failing first: the scikit-learn checks import little and catch most
# mutations within seconds; ranx last (numba compiles its containers per process).
CROSS_CHECK_FILES = (SKLEARN, TREC, BOOSTERS, REFERENCE, RANX)
TIMEOUT = 900  # seconds for one child run (a probe child: per mutation); the full suite
# takes about one minute

pytestmark = pytest.mark.skipif(
    mutations.active_mutation() is not None,
    reason="a mutation is active in this process: the self-check needs the real package",
)


# ---------------------------------------------------------------------------
# Hand-made examples: the value without the mutation, and a call it changes.
# (A mutation entry may carry its own, ``mutations.Example``; these are the others.)
# ---------------------------------------------------------------------------

_ex = mutations._ex

LOG2_3 = math.log2(3)

EXAMPLES = {
    # tied (relevant, irrelevant): mean DCG 1/2 + 1/2 / log2(3); input order gives 1
    "ties_average_as_input": _ex("ndcg", 0.5 + 0.5 / LOG2_3, srm.ndcg_score, [1, 0], [0.5, 0.5]),
    "ties_optimistic_pessimistic_swapped": _ex(
        "mrr", 1.0, srm.mean_reciprocal_rank_score, [0, 1], [0.5, 0.5], ties="optimistic"
    ),
    "ties_input_order_reversed": _ex(
        "mrr", 0.5, srm.mean_reciprocal_rank_score, [0, 1], [0.5, 0.5], ties="input"
    ),
    "cutoff_off_by_one": _ex("recall", 0.0, srm.recall_at_k_score, [0, 1], [0.9, 0.1], k=1),
    # the -inf row may not take rank 2
    "unretrieved_rows_take_ranks": _ex("dcg", 0.0, srm.dcg_score, [0, 1], [0.9, -INF]),
    # label 2 is relevant at level 2; with ">" the query has no relevant row
    "relevance_level_strict": _ex(
        "recall", 1.0, srm.recall_at_k_score, [2, 1], [0.9, 0.1], k=1, relevance_level=2
    ),
    # query 1: P@1 = 1 (weight 3); query 2: undefined, 0 (weight 1)
    "sample_weight_ignored": _ex(
        "p",
        0.75,
        srm.precision_at_k_score,
        [1, 0],
        [0.9, 0.1],
        [1, 2],
        k=1,
        sample_weight=[3.0, 1.0],
    ),
    "skip_policy_counts_zero": _ex(
        "p",
        1.0,
        srm.precision_at_k_score,
        [1, 0],
        [0.9, 0.1],
        [1, 2],
        k=1,
        replace_undefined_by="skip",
    ),
    "skipped_weights_in_total": _ex(
        "p",
        1.0,
        srm.precision_at_k_score,
        [1, 0],
        [0.9, 0.1],
        [1, 2],
        k=1,
        replace_undefined_by="skip",
    ),
    "discount_rank_plus_2": _ex("dcg", 1.0, srm.dcg_score, [1], [0.3]),
    "dcg_log_base_ignored": _ex(
        "dcg", 1 / math.log10(3), srm.dcg_score, [0, 1], [0.9, 0.1], log_base=10
    ),
    "jarvelin_discount_log_rank_plus_1": _ex(
        "dcg", 1 / LOG2_3, srm.dcg_score, [0, 0, 1], [0.9, 0.8, 0.1], discount="max(1,log(rank))"
    ),
    "cg_discounted": _ex("cg", 1.0, srm.dcg_score, [0, 0, 1], [0.9, 0.8, 0.1], discount="none"),
    "exponential_gain_as_linear": _ex("dcg", 3.0, srm.dcg_score, [2], [0.5], gain="exponential"),
    "exponential_gain_without_minus_one": _ex(
        "dcg", 3 / LOG2_3, srm.dcg_score, [0, 2], [0.9, 0.1], gain="exponential"
    ),
    # ideal DCG of both relevant rows, the unretrieved one included
    "ideal_dcg_retrieved_only": _ex(
        "ndcg", 1 / (1 + 1 / LOG2_3), srm.ndcg_score, [1, 1], [0.9, -INF]
    ),
    # two positive levels in the worst order: DCG 1 + 2/log2(3), ideal 2 + 1/log2(3)
    "ideal_dcg_sorted_ascending": _ex(
        "ndcg", (1 + 2 / LOG2_3) / (2 + 1 / LOG2_3), srm.ndcg_score, [1, 2], [0.9, 0.1]
    ),
    "ndcg_top_k_ideal_unsorted": _ex(
        "ndcg", 1 / LOG2_3, srm.ndcg_score, [0, 1, 0], [0.9, 0.8, 0.1], k=2, ideal="top_k"
    ),
    # R(2) = (2**2 - 1) / 2**2
    "err_stop_probability_linear_gain": _ex(
        "err", 0.75, srm.expected_reciprocal_rank_score, [2], [0.5], max_grade=2
    ),
    # three tied rows, R = 1/4, 3/4, 0: the mean ERR over the 6 orders is 155/288
    "err_ties_subset_mean_weights": _ex(
        "err", 155 / 288, srm.expected_reciprocal_rank_score, [1, 2, 0], [0.5] * 3, max_grade=2
    ),
    "n_relevant_retrieved_only": _ex("recall", 0.5, srm.recall_at_k_score, [1, 1], [0.9, -INF]),
    "ap_n_relevant_as_min_k": _ex(
        "map", 0.5, srm.mean_average_precision_score, [1, 1], [0.9, 0.8], k=1
    ),
    "ap_min_k_ignores_k": _ex(
        "map",
        1.0,
        srm.mean_average_precision_score,
        [1, 1],
        [0.9, 0.8],
        k=1,
        denominator="min(k,n_relevant)",
    ),
    # three tied rows, two relevant, k=2: orders RRN, RNR, NRR give AP 1, 1, 1/2
    "ap_top_k_straddling_block_pairs": _ex(
        "map",
        5 / 6,
        srm.mean_average_precision_score,
        [1, 1, 0],
        [0.5, 0.5, 0.5],
        k=2,
        denominator="n_relevant_in_top_k",
    ),
    "reciprocal_rank_plus_one": _ex("mrr", 0.5, srm.mean_reciprocal_rank_score, [0, 1], [0.9, 0.1]),
    # one relevant row among three tied ones: (1 + 1/2 + 1/3) / 3
    "mrr_tie_probability": _ex(
        "mrr", 11 / 18, srm.mean_reciprocal_rank_score, [1, 0, 0], [0.5, 0.5, 0.5]
    ),
    "precision_denominator_n_retrieved": _ex(
        "p", 0.2, srm.precision_at_k_score, [1, 0], [0.9, 0.1], k=5
    ),
    "hits_ties_not_averaged": _ex("p", 0.5, srm.precision_at_k_score, [0, 1], [0.5, 0.5], k=1),
    # the best row alone: 3 / log2(2)
    "idcg_ignores_the_cutoff": _ex("idcg", 3.0, srm.idcg_score, [1, 3, 2], [0.9, 0.5, 0.1], k=1),
    # R = 2 relevant rows, one of them unretrieved: 1 hit in min(R, 1) ranks, / R
    "rprec_cutoff_reaches_unretrieved_rows": _ex(
        "rprec", 0.5, srm.r_precision_score, [1, 1], [0.9, -INF]
    ),
    # R = 2, N = 3: the second relevant row has 3 non-relevant rows above it, capped at
    # R = 2: (1 - 1/2) + (1 - 2/2) over 2 relevant rows
    "bpref_count_not_capped_at_r": _ex(
        "bpref", 0.25, srm.bpref_score, [0, 1, 0, 0, 1], [0.9, 0.8, 0.7, 0.6, 0.5], ties="input"
    ),
    # relevant at ranks 2 and 3: IP(0) = max(1/2, 2/3), not the precision 1/2 at rank 2
    "iprec_not_interpolated": _ex(
        "iprec", 2 / 3, srm.interpolated_precision_score, [0, 1, 1], [0.9, 0.8, 0.7]
    ),
    # (1, 1, 0) tied: IP(0) is 1, 1 and 2/3 for the non-relevant row at rank 3, 2, 1
    "iprec_ties_fixed_up_chance": _ex(
        "iprec", 8 / 9, srm.interpolated_precision_score, [1, 1, 0], [0.5, 0.5, 0.5]
    ),
    # relevant at rank 2 only: IP = 1/2 at every level, so 11 * 0.5 / 11
    "eleven_point_divided_by_ten": _ex(
        "11pt_avg", 0.5, srm.eleven_point_precision_score, [0, 1], [0.9, 0.1]
    ),
    # two rows retrieved, both judged: Judged@5 = 2 / min(5, 2)
    "judged_divided_by_k": _ex("judged", 1.0, srm.judged_at_k_score, [1, 0], [0.9, 0.8], k=5),
    # one relevant row at rank 1: (1 - p) p^0 = 0.2 for p = 0.8
    "rbp_weight_starts_at_p": _ex("rbp", 0.2, srm.rbp_score, [1], [0.5]),
    # two relevant rows, one not retrieved: num_rel counts both
    "num_rel_counts_retrieved_only": _ex(
        "num_rel", 2.0, srm.retrieval_count_score, [1, 1], [0.9, -INF], count="relevant"
    ),
    "num_ret_counts_unretrieved_rows": _ex(
        "num_ret", 1.0, srm.retrieval_count_score, [1, 1], [0.9, -INF], count="retrieved"
    ),
    "num_rel_ret_ignores_the_cutoff": _ex(
        "num_rel_ret", 1.0, srm.retrieval_count_score, [1, 1], [0.9, 0.8], k=1
    ),
    "recall_divided_by_k": _ex(
        "recall", 0.5, srm.recall_at_k_score, [1, 1, 0], [0.9, 0.8, 0.1], k=1
    ),
    # (1 + 4) * 1 / (4 * 2 + 1)
    "fbeta_beta_not_squared": _ex(
        "fbeta", 5 / 9, srm.fbeta_at_k_score, [1, 0, 1], [0.9, 0.8, 0.1], k=1, beta=2.0
    ),
    # 2 * 1 / (2 + 2)
    "f1_without_one_plus_beta2": _ex(
        "f1", 0.5, srm.fbeta_at_k_score, [1, 0, 1], [0.9, 0.8, 0.1], k=2
    ),
    "hit_rate_counts_rank_k_plus_1": _ex(
        "hit_rate", 0.0, srm.hit_rate_score, [0, 1], [0.9, 0.1], k=1
    ),
    # hits 1 + 1 over relevant rows 1 + 2 (the mean of the recalls 1 and 1/2 is 3/4)
    "hit_rate_micro_unweighted": _ex(
        "hit_rate",
        2 / 3,
        srm.hit_rate_score,
        [1, 0, 1, 1],
        [0.9, 0.1, 0.2, 0.8],
        [1, 1, 2, 2],
        k=1,
        average="micro",
    ),
    "auc_tied_pairs_count_zero": _ex("gauc", 0.5, srm.group_roc_auc_score, [1, 0], [0.5, 0.5]),
    # AUC 1 (1 positive, 2 negatives) and 1/2 (2 positives, 1 negative): (1 + 1) / 3
    "gauc_positives_weight_uses_negatives": _ex(
        "gauc",
        2 / 3,
        srm.group_roc_auc_score,
        [1, 0, 0, 1, 1, 0],
        [0.9, 0.1, 0.2, 0.1, 0.9, 0.5],
        [1, 1, 1, 2, 2, 2],
        query_weight="positives",
    ),
    # AUC 1 with 3 rows (one unretrieved) and AUC 0 with 2 rows: 3 / 5
    "gauc_rows_weight_retrieved_only": _ex(
        "gauc",
        0.6,
        srm.group_roc_auc_score,
        [1, 0, 0, 1, 0],
        [0.9, 0.1, -INF, 0.1, 0.9],
        [1, 1, 1, 2, 2],
        query_weight="rows",
    ),
}

# Mutations of shared code (ranking, ties, cutoff, relevance, aggregation); the
# others are aimed at the metric their example calls.
CROSS_CUTTING = {
    "ties_average_as_input",
    "ties_optimistic_pessimistic_swapped",
    "ties_input_order_reversed",
    "cutoff_off_by_one",
    "unretrieved_rows_take_ranks",
    "relevance_level_strict",
    "sample_weight_ignored",
    "skip_policy_counts_zero",
    "skipped_weights_in_total",
}


# ---------------------------------------------------------------------------
# Probes: where in the cross-check suite each mutation is caught first
# (a mutation entry may carry its own, ``mutations.Probe``; these are the others)
# ---------------------------------------------------------------------------

PROBES = {
    "ties_average_as_input": Probe(SKLEARN, "test_ndcg_2d_with_ties_matches_sklearn"),
    "ties_optimistic_pessimistic_swapped": Probe(
        SKLEARN, "test_tie_modes_match_sklearn_on_the_realised_order"
    ),
    "ties_input_order_reversed": Probe(SKLEARN, "test_ignore_ties_true_on_tied_real_sample"),
    "cutoff_off_by_one": Probe(SKLEARN, "test_ndcg_2d_with_ties_matches_sklearn"),
    "unretrieved_rows_take_ranks": Probe(SKLEARN, "test_unretrieved_rows_against_sklearn_dcg"),
    "relevance_level_strict": Probe(SKLEARN, "test_group_roc_auc_matches_per_query_sklearn"),
    "sample_weight_ignored": Probe(
        SKLEARN, "test_ndcg_2d_with_ties_and_sample_weight_matches_sklearn"
    ),
    "skip_policy_counts_zero": Probe(SKLEARN, "test_group_roc_auc_matches_per_query_sklearn"),
    "skipped_weights_in_total": Probe(SKLEARN, "test_group_roc_auc_matches_per_query_sklearn"),
    "discount_rank_plus_2": Probe(SKLEARN, "test_ndcg_2d_with_ties_matches_sklearn"),
    "dcg_log_base_ignored": Probe(SKLEARN, "test_dcg_2d_with_ties_matches_sklearn"),
    "jarvelin_discount_log_rank_plus_1": Probe(REFERENCE, "jarvelin"),
    "cg_discounted": Probe(REFERENCE, "dcg-cg or ndcg-no_discount"),
    "exponential_gain_as_linear": Probe(BOOSTERS, "test_lightgbm_ndcg"),
    "exponential_gain_without_minus_one": Probe(BOOSTERS, "test_lightgbm_ndcg"),
    "ideal_dcg_retrieved_only": Probe(SKLEARN, "test_unretrieved_rows_against_sklearn_dcg"),
    "ideal_dcg_sorted_ascending": Probe(SKLEARN, "test_ndcg_2d_with_ties_matches_sklearn"),
    "ndcg_top_k_ideal_unsorted": Probe(REFERENCE, "ideal_top_k"),
    "err_stop_probability_linear_gain": Probe(REFERENCE, "err"),
    "err_ties_subset_mean_weights": Probe(REFERENCE, "err and average"),
    "n_relevant_retrieved_only": Probe(
        SKLEARN, "test_map_with_unretrieved_rows_against_average_precision"
    ),
    "ap_n_relevant_as_min_k": Probe(TREC, "test_matches_trec_eval and map_cut"),
    "ap_min_k_ignores_k": Probe(BOOSTERS, "test_lightgbm_map"),
    "ap_top_k_straddling_block_pairs": Probe(REFERENCE, "n_rel_in_top_k"),
    "reciprocal_rank_plus_one": Probe(TREC, "test_matches_trec_eval and recip_rank"),
    "mrr_tie_probability": Probe(REFERENCE, "mrr and average"),
    "precision_denominator_n_retrieved": Probe(TREC, "test_matches_trec_eval and P_3"),
    "hits_ties_not_averaged": Probe(REFERENCE, "test_metric_against_reference and precision"),
    "recall_divided_by_k": Probe(SKLEARN, "test_top_k_accuracy_equals_hit_rate_and_recall"),
    "rprec_cutoff_reaches_unretrieved_rows": Probe(TREC, "test_matches_trec_eval and Rprec"),
    "bpref_count_not_capped_at_r": Probe(REFERENCE, "test_metric_against_reference and bpref"),
    "iprec_not_interpolated": Probe(TREC, "test_matches_trec_eval and iprec"),
    "iprec_ties_fixed_up_chance": Probe(REFERENCE, "iprec and average"),
    "eleven_point_divided_by_ten": Probe(TREC, "test_matches_trec_eval and 11pt"),
    "judged_divided_by_k": Probe(REFERENCE, "test_metric_against_reference and judged"),
    "rbp_weight_starts_at_p": Probe(REFERENCE, "test_metric_against_reference and rbp"),
    "num_rel_counts_retrieved_only": Probe(TREC, "test_matches_trec_eval and num_rel"),
    "num_ret_counts_unretrieved_rows": Probe(TREC, "test_matches_trec_eval and num_ret"),
    "num_rel_ret_ignores_the_cutoff": Probe(REFERENCE, "test_metric_against_reference"),
    "idcg_ignores_the_cutoff": Probe(SKLEARN, "test_idcg_is_scikit_learns_dcg"),
    "fbeta_beta_not_squared": Probe(REFERENCE, "fbeta"),
    "f1_without_one_plus_beta2": Probe(REFERENCE, "f1"),
    "hit_rate_counts_rank_k_plus_1": Probe(
        SKLEARN, "test_top_k_accuracy_equals_hit_rate_and_recall"
    ),
    "hit_rate_micro_unweighted": Probe(REFERENCE, "hit_rate-micro"),
    "auc_tied_pairs_count_zero": Probe(SKLEARN, "test_group_roc_auc_matches_per_query_sklearn"),
    "gauc_positives_weight_uses_negatives": Probe(
        SKLEARN, "test_group_roc_auc_matches_per_query_sklearn"
    ),
    "gauc_rows_weight_retrieved_only": Probe(REFERENCE, "gauc-rows"),
}

# Mutations the cross-check suite does not catch: name -> the missing coverage.
SURVIVORS: dict[str, str] = {}


def example_of(name: str) -> Example | None:
    """Mutation ``name``'s example: its entry's own, else the one in ``EXAMPLES``."""
    own = mutations.MUTATIONS[name].example
    return own if own is not None else EXAMPLES.get(name)


def probe_of(name: str) -> Probe | None:
    """Mutation ``name``'s probe: its entry's own, else ``PROBES``'s.

    An entry that carries its example and no probe is probed on its metric's
    variants in the reference cross-check (``mutations.default_probe``).
    """
    mutation = mutations.MUTATIONS[name]
    if mutation.probe is not None:
        return mutation.probe
    if name in PROBES:
        return PROBES[name]
    if mutation.example is not None:
        return mutations.default_probe(mutation.example.metric)
    return None


def _probe(name: str) -> Probe:
    probe = probe_of(name)
    if probe is None:
        raise KeyError(f"mutation {name!r} has no probe (test_every_mutation_has_...)")
    return probe


# ---------------------------------------------------------------------------
# Running the suite in a child pytest
# ---------------------------------------------------------------------------


class Run(NamedTuple):
    args: list[str]
    returncode: int
    output: str

    def tail(self, lines=40) -> str:
        return "\n".join(self.output.splitlines()[-lines:])

    def describe(self) -> str:
        return f"pytest {' '.join(self.args)} -> exit code {self.returncode}\n{self.tail()}"


def _child_environment(storage, **variables):
    env = dict(os.environ)
    env.pop("CI", None)  # the conftest's every-peer-installed rule is not what is tested
    env.pop(mutations.ENV_VAR, None)
    env.pop(mutation_probes.PLAN_VAR, None)
    env.update({name: value for name, value in variables.items() if value is not None})
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), env.get("PYTHONPATH")]))
    env["HYPOTHESIS_STORAGE_DIRECTORY"] = str(storage)
    return env


def run_suite(args, mutation, storage):
    """Run ``pytest -x`` with the mutations plugin on ``args`` in a child process."""
    env = _child_environment(storage, **{mutations.ENV_VAR: mutation})
    return _run_child(["-x", "-p", "tests.support.mutations", *args], env)


def run_plan(file, entries, storage):
    """Run the probe plugin's plan ``entries`` on ``file`` in one child: (run, results)."""
    plan = {"mutations": entries, "result": str(storage / "result.json")}
    (storage / "plan.json").write_text(json.dumps(plan))
    env = _child_environment(storage, **{mutation_probes.PLAN_VAR: str(storage / "plan.json")})
    args = ["-p", "tests.support.mutation_probes", "--tb=short", file]
    run = _run_child(args, env, timeout=TIMEOUT * len(entries))
    result_file = storage / "result.json"
    return run, json.loads(result_file.read_text()) if result_file.is_file() else []


def run_probes(file, names, storage):
    """The probes of ``names`` (all in ``file``), in one child: (its run, result by name)."""
    entries = [{"name": name, "select": _probe(name).select} for name in names]
    run, results = run_plan(file, entries, storage)
    return run, {result["name"]: result for result in results}


def _run_child(args, env, timeout=TIMEOUT):
    command = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *args]
    try:
        done = subprocess.run(
            command,
            cwd=ROOT,
            env=env,
            capture_output=True,
            text=True,
            timeout=timeout,
            check=False,
        )
    except subprocess.TimeoutExpired as error:
        pytest.fail(f"pytest {' '.join(args)} took more than {timeout} s:\n{error.stdout}")
    return Run(list(args), done.returncode, done.stdout + done.stderr)


def check_probe(run, result, mutation):
    """The child applied the mutation and probed it; the exit code of that probe."""
    assert run.returncode in (0, 1), f"the probe run is broken:\n{run.describe()}"
    assert result is not None, f"the probe run reports nothing on {mutation!r}:\n{run.describe()}"
    assert result["applied"], f"the probe did not apply the mutation: {result}\n{run.describe()}"
    check_header(run, mutation)
    return result["returncode"]


def check_header(run, mutation):
    marker = f"mutation {mutation!r} is active"
    assert marker in run.output, f"the plugin did not apply the mutation:\n{run.describe()}"


def _cases():
    for name in mutations.MUTATIONS:
        marks = []
        if name in SURVIVORS:
            marks.append(pytest.mark.xfail(strict=True, reason=SURVIVORS[name]))
        yield pytest.param(name, marks=marks, id=name)


# One probe child per file, two at a time (the parent waits meanwhile), started at the
# first mutation test for every mutation test the session selected; the files with the
# most probes (and the slowest collection) first.
PARALLEL_PROBES = max(1, min(2, os.cpu_count() or 1))
PROBE_ORDER = (REFERENCE, SKLEARN, TREC, BOOSTERS, RANX)


@pytest.fixture(scope="module")
def probe_runs(request, tmp_path_factory):
    selected = [
        item.callspec.params["name"]
        for item in request.session.items
        if getattr(item, "originalname", None) == "test_cross_checks_catch_the_mutation"
    ]
    by_file = {
        file: [name for name in selected if _probe(name).file == file] for file in PROBE_ORDER
    }
    executor = ThreadPoolExecutor(PARALLEL_PROBES)
    futures = {
        file: executor.submit(run_probes, file, names, tmp_path_factory.mktemp(Path(file).stem))
        for file, names in by_file.items()
        if names
    }
    yield {name: futures[_probe(name).file] for name in selected}
    executor.shutdown(wait=True, cancel_futures=True)


@pytest.mark.parametrize("name", list(_cases()))
def test_cross_checks_catch_the_mutation(name, tmp_path, probe_runs):
    run, results = probe_runs[name].result()
    returncode = check_probe(run, results.get(name), name)
    assert returncode in (0, 1), f"the probe of {name!r} is broken: {results[name]}"
    if returncode == 1:
        return  # a part of the cross-check suite fails, so the suite fails
    suite = run_suite(list(CROSS_CHECK_FILES), name, tmp_path)
    check_header(suite, name)
    assert suite.returncode != 0, (
        f"mutation {name!r} ({mutations.MUTATIONS[name].description}) SURVIVED: "
        f"the whole cross-check suite passes with it.\n{suite.describe()}"
    )
    assert suite.returncode == 1, f"the cross-check run is broken:\n{suite.describe()}"
    warnings.warn(
        f"the probe {_probe(name)} no longer catches mutation {name!r} (the full suite "
        "does); update its probe (in its entry or PROBES) to keep the self-check fast.",
        UserWarning,
        stacklevel=1,
    )


def test_probe_child_restores_the_package_after_each_mutation(tmp_path):
    # two mutations caught by the same selection, each followed by a control run of
    # that selection without any mutation, in one child: the controls must pass
    select = "test_ndcg_2d_with_ties_matches_sklearn"
    names = ["cutoff_off_by_one", None, "discount_rank_plus_2", None]
    assert all(probe_of(name) == Probe(SKLEARN, select) for name in names if name is not None)
    run, results = run_plan(SKLEARN, [{"name": name, "select": select} for name in names], tmp_path)
    assert run.returncode == 1, run.describe()  # the two mutations fail their tests
    assert [result["name"] for result in results] == names, run.describe()
    assert [result["returncode"] for result in results] == [1, 0, 1, 0], results
    assert all(result["selected"] > 0 for result in results), results


def test_plugin_without_mutation_passes(tmp_path):
    args = [SKLEARN, "-k", "test_ndcg_2d_with_ties_matches_sklearn or test_group_roc_auc"]
    run = run_suite(args, None, tmp_path)
    assert run.returncode == 0, run.describe()
    assert "is active" not in run.output


# ---------------------------------------------------------------------------
# In-process checks of the mutations themselves (fast)
# ---------------------------------------------------------------------------


_package_code = mutation_probes.package_code


@pytest.mark.parametrize("name", list(mutations.MUTATIONS))
def test_mutation_changes_its_example(name):
    example = example_of(name)
    assert example is not None, f"mutation {name!r} has no example"
    before = example.compute()
    assert before == pytest.approx(example.expected, rel=1e-12, abs=1e-12)
    code_before = _package_code()
    undo = mutations.MUTATIONS[name].apply()
    out_of_range = None
    try:
        assert _package_code() != code_before
        try:
            mutated = example.compute()
        except RuntimeError as error:  # the aggregation layer's range check caught it
            out_of_range = str(error)
    finally:
        undo()
    assert _package_code() == code_before, "undo did not restore every function"
    assert example.compute() == before
    if out_of_range is not None:
        assert "outside the metric's range" in out_of_range, out_of_range
        return
    assert not (isinstance(mutated, float) and math.isnan(mutated)), "NaN: too crude a bug"
    assert mutated != pytest.approx(before, rel=1e-9, abs=1e-12), (
        f"mutation {name!r} does not change its example ({before})"
    )


def test_every_mutation_has_an_example_and_a_probe():
    names = set(mutations.MUTATIONS)
    assert {name for name in names if example_of(name) is None} == set()
    assert {name for name in names if probe_of(name) is None} == set()
    # in one place only: its entry or the dicts (no stale dict entry either)
    assert set(EXAMPLES) <= names and set(PROBES) <= names
    carried = {name for name, mutation in mutations.MUTATIONS.items() if mutation.example}
    assert carried.isdisjoint(EXAMPLES)
    probed = {name for name, mutation in mutations.MUTATIONS.items() if mutation.probe}
    assert probed.isdisjoint(PROBES)
    assert set(SURVIVORS) <= names
    assert CROSS_CUTTING <= names
    assert all(_probe(name).file in CROSS_CHECK_FILES for name in names)
    assert sorted(PROBE_ORDER) == sorted(CROSS_CHECK_FILES)  # every file's probes are run
    assert all((ROOT / file).is_file() for file in CROSS_CHECK_FILES)
    assert Path(__file__).name not in {Path(file).name for file in CROSS_CHECK_FILES}


def test_every_registered_metric_has_its_own_mutation():
    aimed = {
        example.metric
        for name in mutations.MUTATIONS
        if name not in CROSS_CUTTING and (example := example_of(name)) is not None
    }
    assert set(METRICS) <= aimed, f"no mutation aimed at {sorted(set(METRICS) - aimed)}"


def test_default_probe_selects_the_metrics_reference_variants():
    # the reference cross-check's variants come from the registry, and one of its
    # tests runs each variant alone under the variant's id: for every registered
    # metric, ``-k <its name>`` must select a test of its own variants there
    from tests.crosscheck import test_against_reference as reference_checks

    assert Path(reference_checks.__file__) == ROOT / REFERENCE
    test = reference_checks.test_defaults_are_average_ties_and_default_policy.__name__
    unselected = []
    for name in METRICS:
        probe = mutations.default_probe(name)
        assert probe.file == REFERENCE
        expression = Expression.compile(probe.select)
        own = [vid for vid, v in reference_checks.ALL_VARIANTS.items() if v.name == name]
        if not any(expression.evaluate(KeywordMatcher({f"{test}[{vid}]"})) for vid in own):
            unselected.append(name)
    assert unselected == [], f"-k <metric> selects no reference variant of {unselected}"


def test_no_mutation_without_the_environment_variable(monkeypatch):
    monkeypatch.delenv(mutations.ENV_VAR, raising=False)
    before = _package_code()
    mutations.pytest_configure(None)  # returns before touching the config
    assert _package_code() == before
    monkeypatch.setenv(mutations.ENV_VAR, "  ")
    mutations.pytest_configure(None)
    assert _package_code() == before


def test_unknown_mutation_is_a_usage_error(monkeypatch):
    monkeypatch.setenv(mutations.ENV_VAR, "no_such_mutation")
    with pytest.raises(pytest.UsageError, match="no_such_mutation"):
        mutations.pytest_configure(None)


def test_stale_mutation_text_raises():
    broken = mutations.Mutation(
        "a target text that is not in the source",
        mutations._applier(mutations.Edit("_kernels._graded", "discount_table", "np.nope", "np.x")),
    )
    before = _package_code()
    with pytest.raises(mutations.MutationError, match="occurs 0 times"):
        broken.apply()
    assert _package_code() == before
    # an edit that changes only the spelling, not the code, is no mutation
    equivalent = mutations._applier(
        mutations.Edit("_kernels._graded", "discount_table", "np.log(rank + 1)", "np.log(rank+1)")
    )
    with pytest.raises(mutations.MutationError, match="same code"):
        equivalent()
    assert _package_code() == before


def test_probe_plugin_without_a_plan_changes_nothing(monkeypatch):
    monkeypatch.delenv(mutation_probes.PLAN_VAR, raising=False)
    before = _package_code()
    mutation_probes.pytest_configure(None)  # returns before touching the config
    assert _package_code() == before


def test_probe_plan_naming_an_unknown_mutation_is_a_usage_error(tmp_path, monkeypatch):
    plan = {"mutations": [{"name": "no_such_mutation", "select": "x"}], "result": "unused"}
    (tmp_path / "plan.json").write_text(json.dumps(plan))
    monkeypatch.setenv(mutation_probes.PLAN_VAR, str(tmp_path / "plan.json"))
    monkeypatch.delenv(mutations.ENV_VAR, raising=False)
    with pytest.raises(pytest.UsageError, match="no_such_mutation"):
        mutation_probes.pytest_configure(None)


def test_probe_runs_clear_the_caches_of_the_tests():
    # a cached value computed under one mutation must not serve the next one
    from tests.support import qrels_data

    qrels_data.synthetic()
    assert qrels_data.synthetic.cache_info().currsize > 0
    assert mutation_probes.clear_caches() > 0
    assert qrels_data.synthetic.cache_info().currsize == 0
