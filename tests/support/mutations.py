"""Deliberately broken metrics, for the mutation self-check of the cross-check tests.

A *mutation* is one realistic bug planted in the package: a discount of
``log2(i + 2)``, tie averaging dropped, a cutoff off by one, a denominator taken
from the wrong count... ``MUTATIONS`` maps its name to ``(description, apply)``;
``apply()`` plants the bug in the running process and returns a function that
removes it again. ``test_mutation_selfcheck.py`` runs the cross-check suite once per
mutation and requires it to fail, so a cross-check that silently stopped checking
anything would be noticed.

How a bug is planted
--------------------
Every mutation is a small source edit of one or more functions (or methods) of the
package, written as ``(module, "function" or "Class.method", old text, new text)``.
The function's source is read with ``inspect``, ``old`` must occur in it exactly
once (otherwise ``apply`` raises ``MutationError``: the package changed and the
mutation must be updated; it never fails silently), it is replaced by ``new``, the
result is compiled in the module's own globals and the *code object* of the
original function is swapped for the edited one (``function.__code__``).
Swapping the code in place, rather than rebinding a name, reaches every holder of
the function at once: modules that imported it by name (``from ._graded
import discount_table``), the metric registry's ``MetricInfo.per_query`` entries,
methods alike, so no reference can keep the unmutated version.
Undoing puts the original code object back.

Its example and its probe
-------------------------
The self-check (``tests/meta/test_mutation_selfcheck.py``) wants, per mutation, a
hand-computed *example* the mutation changes (``Example``, made with ``_ex``: the
registered metric it is aimed at, the value without the mutation, the call) and a
*probe*, the part of the cross-check suite that catches it (``Probe``: a file and a
``-k`` selection). An entry may carry both (``_m(..., example=_ex(...))``), so a new
metric's mutation is one entry in this file; its probe defaults to the metric's
variants in the reference cross-check, ``Probe(REFERENCE, <metric name>)``
(``default_probe``). The older entries keep theirs in the self-check's ``EXAMPLES``
and ``PROBES``.

As a pytest plugin
------------------
Loaded with ``-p tests.support.mutations`` (the repository root on ``PYTHONPATH``), this module
reads the environment variable ``SRM_MUTATION`` in ``pytest_configure``, before any
test module is imported, and applies the named mutation for the whole session. An
unknown name, or a mutation whose text is no longer in the package source, is a
usage error (exit code 4). Unset or empty, the plugin changes nothing. While a
mutation is active, Hypothesis runs without its example database (a mutant's
failures must not be replayed by later, honest runs) and without shrinking (only
*whether* the suite fails matters, and shrinking is slow), and the report header
and the terminal summary name the mutation.
"""

from __future__ import annotations

import importlib
import inspect
import os
import textwrap
from collections.abc import Callable
from typing import NamedTuple

import numpy as np
import pytest

import sklearn_rank_metrics as srm

ENV_VAR = "SRM_MUTATION"
PACKAGE = "sklearn_rank_metrics"


class MutationError(RuntimeError):
    """A mutation cannot be applied: its target text is not (exactly once) in the source."""


class Edit(NamedTuple):
    module: str  # submodule of the package, e.g. "_kernels._graded"
    target: str  # "function" or "Class.method"
    old: str  # text that must occur exactly once in the target's source
    new: str


class Example(NamedTuple):
    """A hand-made example: the value without the mutation, and a call it changes."""

    metric: str  # the registered metric (``METRICS`` name) the example calls
    compute: Callable[[], float]
    expected: float  # hand-computed, without the mutation


# the cross-check files a probe can name (the self-check runs them all)
SKLEARN = "tests/crosscheck/test_crosscheck_sklearn.py"
TREC = "tests/crosscheck/test_crosscheck_trec_eval.py"
BOOSTERS = "tests/crosscheck/test_crosscheck_boosters.py"
REFERENCE = "tests/crosscheck/test_against_reference.py"
RANX = "tests/crosscheck/test_crosscheck_ranx.py"


class Probe(NamedTuple):
    """Where in the cross-check suite a mutation is caught first."""

    file: str  # one of the cross-check files above
    select: str  # a -k expression within it

    def args(self) -> list[str]:
        return [self.file, "-k", self.select]


def default_probe(metric: str) -> Probe:
    """The probe of a mutation that names none: its metric's reference variants.

    The reference cross-check's variants come from the registry, and each variant id
    starts with its metric's name, so ``-k <metric name>`` selects them.
    """
    return Probe(REFERENCE, metric)


class Mutation(NamedTuple):
    description: str
    apply: Callable[[], Callable[[], None]]  # plants the bug, returns the undo function
    example: Example | None = None  # None: in the self-check's EXAMPLES
    probe: Probe | None = None  # None: in the self-check's PROBES, else default_probe


def _resolve(edit: Edit):
    module = importlib.import_module(f"{PACKAGE}.{edit.module}")
    owner, _, name = edit.target.rpartition(".")
    holder = getattr(module, owner) if owner else module
    function = inspect.getattr_static(holder, name)
    if not inspect.isfunction(function):
        raise MutationError(f"{edit.module}.{edit.target} is not a plain function.")
    return module, function


def _essence(code) -> tuple:
    """What a code object computes: instructions, constants, names (not positions)."""
    return (code.co_code, code.co_consts, code.co_names, code.co_varnames)


def _compile_function(source: str, module, code):
    """Compile one function's (dedented) source in its module's globals; its code."""
    # keep the line numbers of the original file in tracebacks
    padded = "\n" * (code.co_firstlineno - 1) + source
    compiled = compile(
        padded,
        code.co_filename,
        "exec",
        flags=annotations.compiler_flag,  # the __future__ feature imported above
        dont_inherit=True,
    )
    namespace: dict = {}
    exec(compiled, vars(module), namespace)  # our own edit of the package source
    return namespace[code.co_name].__code__


def _mutated_code(edits: list[Edit]):
    """The code object of one target with every ``old`` text replaced by its ``new``."""
    module, function = _resolve(edits[0])
    where = f"{edits[0].module}.{edits[0].target}"
    code = function.__code__
    source = textwrap.dedent(inspect.getsource(function))
    if source.lstrip().startswith("@"):
        raise MutationError(f"{where} is decorated; mutate its kernel.")
    edited = source
    for edit in edits:
        count = edited.count(edit.old)
        if count != 1:
            raise MutationError(
                f"{where}: the text to mutate occurs {count} times (must be once): "
                f"{edit.old!r}. Update the mutation to the current source."
            )
        edited = edited.replace(edit.old, edit.new)
    new_code = _compile_function(edited, module, code)
    if new_code.co_freevars != code.co_freevars:
        raise MutationError(f"{where}: closures cannot be mutated.")
    # compare with the unedited source compiled the same way (bytecode details differ
    # between the import system's compilation and ``compile``)
    if _essence(new_code) == _essence(_compile_function(source, module, code)):
        raise MutationError(f"{where}: the edit compiles to the same code.")
    return function, new_code


def _applier(*edits: Edit) -> Callable[[], Callable[[], None]]:
    def apply() -> Callable[[], None]:
        # compile every edit first, so a broken mutation changes nothing
        by_target: dict[tuple[str, str], list[Edit]] = {}
        for edit in edits:
            by_target.setdefault((edit.module, edit.target), []).append(edit)
        planned = [_mutated_code(group) for group in by_target.values()]
        originals = [(function, function.__code__) for function, _ in planned]
        for function, new_code in planned:
            function.__code__ = new_code

        def undo() -> None:
            for function, code in reversed(originals):
                function.__code__ = code

        return undo

    return apply


def _m(
    description: str, *edits: Edit, example: Example | None = None, probe: Probe | None = None
) -> Mutation:
    return Mutation(description, _applier(*edits), example, probe)


def _ex(metric: str, expected: float, function: Callable[..., float], *args, **kwargs) -> Example:
    """An example; flat rows without ids are one query, said explicitly (group=zeros).

    The measures that read judgments are told every row was judged unless the
    example gives its own mask.
    """
    if len(args) == 2 and "group" not in kwargs and np.ndim(args[0]) == 1:
        kwargs["group"] = np.zeros(len(args[0]))
    if metric in ("bpref", "judged") or kwargs.get("part") in ("residual", "upper"):
        kwargs.setdefault("judged", True)
    return Example(metric, lambda: function(*args, **kwargs), expected)


# ---------------------------------------------------------------------------
# The mutations. Cross-cutting ones first, then one or more per registered metric.
# A new entry carries its example (and its probe, unless the default one catches it).
# ---------------------------------------------------------------------------

MUTATIONS: dict[str, Mutation] = {
    # -- cross-cutting: ranking, ties, cutoff, relevance, aggregation ----------------
    "ties_average_as_input": _m(
        'ties="average" computed as ties="input": tie averaging dropped',
        Edit(
            "_engine._ranked_groups",
            "RankedGroups.arrangement",
            "arrangement = Arrangement(\n"
            "            self.n_rows, self.sorted_labels, "
            "partial(_run_starts, tied_rows, self.n_rows)\n"
            "        )",
            "arrangement = Arrangement(self.n_rows, self.sorted_labels)",
        ),
    ),
    "ties_optimistic_pessimistic_swapped": _m(
        'ties="optimistic" puts the lower labels first, "pessimistic" the higher',
        Edit(
            "_engine._ranked_groups",
            "RankedGroups._order_within_tie_blocks",
            'sign = -1.0 if ties == "optimistic" else 1.0',
            'sign = -1.0 if ties == "pessimistic" else 1.0',
        ),
    ),
    "ties_input_order_reversed": _m(
        'ties="input" keeps tied rows in reverse input order',
        Edit(
            "_engine._ranked_groups",
            "RankedGroups.arrangement",
            'elif tied_rows is not None and not (ties == "input" and self.input_order_in_ties):',
            "elif tied_rows is not None:",
        ),
        Edit(
            "_engine._ranked_groups",
            "RankedGroups._order_within_tie_blocks",
            "keys = [self.order[tied]]",
            "keys = [-self.order[tied]]",
        ),
    ),
    "cutoff_off_by_one": _m(
        "the cutoff k admits k + 1 ranks (depth min(k + 1, n_retrieved))",
        Edit(
            "_engine._ranked_groups",
            "RankedGroups.depth",
            "np.minimum(self.n_retrieved, k)",
            "np.minimum(self.n_retrieved, k + 1)",
        ),
    ),
    "unretrieved_rows_take_ranks": _m(
        "-inf (unretrieved) rows occupy rank positions like retrieved rows",
        Edit(
            "_engine._ranked_groups",
            "RankedGroups.depth",
            "self.n_retrieved if k is None else np.minimum(self.n_retrieved, k)",
            "self.n_rows_per_query if k is None else np.minimum(self.n_rows_per_query, k)",
        ),
    ),
    "relevance_level_strict": _m(
        "relevant means y_true > relevance_level instead of >=",
        Edit(
            "_kernels._relevance",
            "is_relevant",
            "labels >= relevance_level",
            "labels > relevance_level",
        ),
    ),
    "sample_weight_ignored": _m(
        "the mean over queries ignores the query weights",
        Edit(
            "_metrics._aggregate",
            "_weighted_sum",
            "return float(np.sum(terms)), float(weights.sum()), terms",
            "return float(np.mean(values)) * float(weights.sum()), float(weights.sum()), terms",
        ),
    ),
    "skip_policy_counts_zero": _m(
        'replace_undefined_by="skip" scores undefined queries 0 instead of leaving them out',
        Edit(
            "_metrics._aggregate",
            "apply_policy",
            "values[undefined] = np.nan\n            skipped = undefined",
            "values[undefined] = 0.0",
        ),
    ),
    "skipped_weights_in_total": _m(
        "the weighted mean divides by the weights of the skipped queries too",
        Edit(
            "_metrics._aggregate",
            "weighted_mean",
            "    if skipped.any():\n",
            "    all_weights = weights\n    if skipped.any():\n",
        ),
        Edit(
            "_metrics._aggregate",
            "weighted_mean",
            "    weighted_sum, weight, terms = _weighted_sum(values, weights, uniform)\n",
            "    weighted_sum, weight, terms = _weighted_sum(values, weights, uniform)\n"
            "    weight = float(np.sum(all_weights))\n",
        ),
    ),
    # -- DCG / NDCG / CG ----------------------------------------------------------------
    "discount_rank_plus_2": _m(
        "discount 1 / log(rank + 2) instead of 1 / log(rank + 1)",
        Edit(
            "_kernels._graded",
            "discount_table",
            "np.log(log_base) / np.log(rank + 1)",
            "np.log(log_base) / np.log(rank + 2)",
        ),
    ),
    "dcg_log_base_ignored": _m(
        "the discount always uses log base 2, whatever log_base says",
        Edit(
            "_kernels._graded",
            "discount_table",
            "np.log(log_base) / np.log(rank + 1)",
            "np.log(2.0) / np.log(rank + 1)",
        ),
    ),
    "jarvelin_discount_log_rank_plus_1": _m(
        'discount "max(1,log(rank))" computed as max(1, log(rank + 1))',
        Edit(
            "_kernels._graded",
            "discount_table",
            "np.maximum(1.0, np.log(rank) / np.log(log_base))",
            "np.maximum(1.0, np.log(rank + 1) / np.log(log_base))",
        ),
    ),
    "cg_discounted": _m(
        'discount="none" (cumulative gain, "cg") is not recognised and falls to the '
        '"max(1,log(rank))" discount',
        Edit(
            "_kernels._graded",
            "discount_table",
            'if discount == "none":',
            'if discount == "None":',
        ),
    ),
    "exponential_gain_as_linear": _m(
        'gain="exponential" computed as the linear gain y',
        Edit(
            "_kernels._graded",
            "gain_values",
            "        return np.exp2(labels) - 1.0",
            "        return labels",
        ),
    ),
    "exponential_gain_without_minus_one": _m(
        'gain="exponential" computed as 2**y instead of 2**y - 1',
        Edit(
            "_kernels._graded",
            "gain_values",
            "np.exp2(labels) - 1.0",
            "np.exp2(labels)",
        ),
    ),
    "binary_gain_counts_label_zero": _m(
        'gain="binary" gives a row of label 0 gain 1 (y >= 0 instead of y > 0)',
        Edit(
            "_kernels._graded",
            "gain_values",
            "return (labels > 0).astype(np.float64)",
            "return (labels >= 0).astype(np.float64)",
        ),
        # labels 0, 1 at ranks 1, 2: (1/log2(3)) / 1
        example=_ex("ndcg", 1 / np.log2(3), srm.ndcg_score, [0, 1], [0.9, 0.8], gain="binary"),
        probe=Probe(REFERENCE, "ndcg-binary"),
    ),
    "ideal_dcg_retrieved_only": _m(
        "the ideal DCG ignores the unretrieved (-inf) rows",
        Edit(
            "_kernels._graded",
            "_label_level_counts",
            "labels = ranked.labels  # >= 0",
            "labels = np.where(ranked.in_cutoff(None), ranked.labels, 0.0)  # >= 0",
        ),
        Edit(
            "_kernels._graded",
            "_ideal_dcg",
            "gains = model.gains(ranked.labels, ranked.input_labels)",
            "gains = model.gains(ranked.labels, ranked.input_labels)"
            " * ranked.in_cutoff(None)",
        ),
    ),
    "ideal_dcg_sorted_ascending": _m(
        "the ideal DCG sorts the gains ascending (worst first) instead of descending",
        Edit(
            "_kernels._graded",
            "_ideal_dcg",
            'for level in np.argsort(-level_gains, kind="stable"):',
            # ascending among the positive gains; the zero gains still come last
            "for level in np.argsort(\n"
            '        np.where(level_gains > 0, level_gains, np.inf), kind="stable"\n'
            "    ):",
        ),
        Edit(
            "_kernels._graded",
            "_ideal_dcg",
            "gains = _sorted_descending_within_queries(gains, ranked.query_of_row)",
            "gains = gains[np.lexsort((gains, ranked.query_of_row))]",
        ),
    ),
    "ndcg_top_k_ideal_unsorted": _m(
        'ideal="top_k": the ideal DCG takes the top k rows in the model\'s order, unsorted',
        Edit(
            "_kernels._graded",
            "ideal_dcg_of_top_k",
            "gains = _sorted_descending_within_queries(gains, query)",
            "gains = gains",
        ),
    ),
    # -- ERR ----------------------------------------------------------------------------
    "err_stop_probability_linear_gain": _m(
        "ERR stop probability g / 2**max_grade instead of (2**g - 1) / 2**max_grade",
        Edit(
            "_kernels._graded",
            "stop_probability",
            "(np.exp2(labels) - 1.0) / np.exp2(max_grade)",
            "labels / np.exp2(max_grade)",
        ),
    ),
    "err_ties_subset_mean_weights": _m(
        'ERR ties="average": the row-by-row update of tied rows\' subset means keeps the '
        "old mean with weight (j - d + 1)/j instead of (j - d)/j",
        Edit(
            "_kernels._err_ties",
            "_subset_means_row_by_row",
            "current[:, 1:] *= (j - d) / j",
            "current[:, 1:] *= (j - d + 1) / j",
        ),
    ),
    # -- MAP ----------------------------------------------------------------------------
    "n_relevant_retrieved_only": _m(
        "n_relevant counts only retrieved rows: unretrieved (-inf) relevant rows forgotten",
        Edit(
            "_kernels._relevance",
            "n_relevant",
            'relevant_rows(ranked, "average", None, relevance_level, every_row=True)',
            'relevant_rows(ranked, "average", None, relevance_level, every_row=False)',
        ),
    ),
    "ap_n_relevant_as_min_k": _m(
        'AP denominator "n_relevant" computed as min(k, n_relevant)',
        Edit(
            "_kernels._binary",
            "average_precision",
            'if denominator == "min(k,n_relevant)" and k is not None:',
            "if k is not None:",
        ),
    ),
    "ap_min_k_ignores_k": _m(
        'AP denominator "min(k,n_relevant)" computed as n_relevant',
        Edit(
            "_kernels._binary",
            "average_precision",
            "limit = np.minimum(limit, k)",
            "limit = limit",
        ),
    ),
    "ap_top_k_straddling_block_pairs": _m(
        'AP "n_relevant_in_top_k" with a tie block across the cutoff: j**2 for j*(j-1) '
        "relevant pairs",
        Edit(
            "_kernels._binary",
            "_average_precision_over_retrieved",
            "* (j - 1)\n",
            "* j\n",
        ),
    ),
    # -- MRR ----------------------------------------------------------------------------
    "reciprocal_rank_plus_one": _m(
        "reciprocal rank 1 / (rank + 1) instead of 1 / rank",
        Edit(
            "_kernels._binary",
            "reciprocal_rank",
            "weights=probability / (blocks.start_rank[block] + t)",
            "weights=probability / (blocks.start_rank[block] + t + 1)",
        ),
        Edit(
            "_kernels._binary",
            "reciprocal_rank",
            "values[found] = 1.0 / (first_rank + 1)",
            "values[found] = 1.0 / (first_rank + 2)",
        ),
    ),
    "mrr_tie_probability": _m(
        'MRR ties="average": P(first relevant at offset t) normalised by C(m-1, r-1) '
        "instead of C(m, r)",
        Edit(
            "_kernels._binary",
            "reciprocal_rank",
            "comb_ratio(m - t, r - 1, m, r)",
            "comb_ratio(m - t, r - 1, m - 1, r - 1)",
        ),
    ),
    # -- P@k ----------------------------------------------------------------------------
    "precision_denominator_n_retrieved": _m(
        'precision denominator "k" computed as min(k, n_retrieved)',
        Edit(
            "_metrics._binary",
            "_precision_denominator",
            "return np.full(ranked.n_queries, float(k))",
            "return ranked.depth(k).astype(np.float64)",
        ),
    ),
    "hits_ties_not_averaged": _m(
        "hits@k (P, recall, F, micro hit rate) ignore the tie blocks: no expected value",
        Edit(
            "_kernels._relevance",
            "expected_hits",
            "weights=blocks.inside * r / blocks.size - fixed,",
            "weights=fixed - fixed,",
        ),
    ),
    # -- recall ---------------------------------------------------------------------------
    "recall_divided_by_k": _m(
        "recall@k divides the hits by k instead of by n_relevant",
        Edit(
            "_metrics._binary",
            "recall_per_query",
            "safe_divide(hits, relevance.n_relevant(ranked, relevance_level))",
            'safe_divide(hits, _precision_denominator(ranked, k, "k"))',
        ),
    ),
    # -- IDCG -------------------------------------------------------------------------------
    "idcg_ignores_the_cutoff": _m(
        "the ideal DCG sums every row instead of the first k",
        Edit(
            "_metrics._graded",
            "idcg_per_query",
            "lambda: ideal_dcg(ranked, k, GainModel(gain, discount, log_base))",
            "lambda: ideal_dcg(ranked, None, GainModel(gain, discount, log_base))",
        ),
    ),
    # -- R-precision ----------------------------------------------------------------------
    "rprec_cutoff_reaches_unretrieved_rows": _m(
        "R-precision looks at the first R rows even when fewer were retrieved",
        Edit(
            "_kernels._binary",
            "r_precision",
            "boundary = start + np.minimum(total.astype(np.intp), ranked.n_retrieved)",
            "boundary = start + total.astype(np.intp)",
        ),
    ),
    # -- bpref and Judged@k ----------------------------------------------------------------
    "bpref_count_not_capped_at_r": _m(
        "bpref subtracts n / min(N, R) without capping n at R",
        Edit(
            "_kernels._judged",
            "bpref",
            "expected_min = np.minimum(above, cap).astype(np.float64)",
            "expected_min = above.astype(np.float64)",
        ),
    ),
    "judged_divided_by_k": _m(
        "Judged@k divides by k instead of min(k, n_retrieved)",
        Edit(
            "_kernels._judged",
            "judged_at_k",
            "return safe_divide(expected, depth.astype(np.float64))",
            "return safe_divide(expected, np.full(ranked.n_queries, float(k or 1)))",
        ),
    ),
    "rbp_weight_starts_at_p": _m(
        "RBP weighs rank 1 with (1 - p) p instead of (1 - p)",
        Edit(
            "_kernels._rbp",
            "rbp",
            "(1.0 - p) * np.power(p, rank.astype(np.float64))",
            "(1.0 - p) * np.power(p, rank.astype(np.float64) + 1.0)",
        ),
    ),
    # -- interpolated precision -------------------------------------------------------------
    "iprec_not_interpolated": _m(
        "interpolated precision takes the precision at the c-th relevant row, not the best below",
        Edit(
            "_kernels._interpolated",
            "interpolated_precision",
            "values[defined] = best_below[at[defined]]",
            "values[defined] = precision[at[defined]]",
        ),
    ),
    "iprec_ties_fixed_up_chance": _m(
        "the tie expectation draws each row of a block as relevant with chance r / m, "
        "not (r - k) / (m - i)",
        Edit(
            "_kernels._interpolated",
            "_backward_passes",
            "up = np.clip((r[a, None] - states) / u, 0.0, 1.0)",
            "up = np.clip(r[a, None] / m[a, None] + 0.0 * states, 0.0, 1.0)",
        ),
    ),
    "eleven_point_divided_by_ten": _m(
        "11pt_avg divides the sum over its 11 levels by 10",
        Edit(
            "_metrics._interpolated",
            "eleven_point_per_query",
            "return PerQuery(mean / values.shape[1], total == 0)",
            "return PerQuery(mean / (values.shape[1] - 1), total == 0)",
        ),
    ),
    # -- counts ---------------------------------------------------------------------------
    "num_rel_counts_retrieved_only": _m(
        "num_rel counts only the retrieved relevant rows",
        Edit(
            "_metrics._counts",
            "counts_per_query",
            "values = relevance.n_relevant(ranked, relevance_level).astype(np.float64)",
            "values = np.array(relevance.expected_hits(ranked, ties, None, relevance_level))",
        ),
    ),
    "num_ret_counts_unretrieved_rows": _m(
        "num_ret counts the -inf rows as retrieved",
        Edit(
            "_metrics._counts",
            "counts_per_query",
            "values = ranked.depth(k).astype(np.float64)",
            "values = np.minimum(ranked.n_rows_per_query, k or 2**62).astype(np.float64)",
        ),
    ),
    "num_rel_ret_ignores_the_cutoff": _m(
        "num_rel_ret counts the relevant rows retrieved at any rank",
        Edit(
            "_metrics._counts",
            "counts_per_query",
            "values = np.array(relevance.expected_hits(ranked, ties, k, relevance_level))",
            "values = np.array(relevance.expected_hits(ranked, ties, None, relevance_level))",
        ),
    ),
    # -- F1 / F-beta ----------------------------------------------------------------------
    "fbeta_beta_not_squared": _m(
        "F-beta weighs recall by beta instead of beta**2",
        Edit("_metrics._binary", "fbeta_per_query", "scale = beta**2", "scale = beta"),
    ),
    "f1_without_one_plus_beta2": _m(
        "F-beta numerator beta**2 * hits instead of (1 + beta**2) * hits (F1 halved)",
        Edit(
            "_metrics._binary",
            "fbeta_per_query",
            "numerator = hits * (1 + scale)",
            "numerator = hits * scale",
        ),
    ),
    # -- fall-out -------------------------------------------------------------------------
    "fallout_non_relevant_retrieved_only": _m(
        "fall-out divides by the retrieved rows that are not relevant, not by every "
        "non-relevant row (the -inf ones left out)",
        Edit(
            "_kernels._fallout",
            "fallout",
            "n_non_relevant = ranked.n_rows_per_query - n_relevant(ranked, relevance_level)",
            "n_non_relevant = ranked.n_retrieved - n_relevant(ranked, relevance_level)",
        ),
        # non-relevant rows: at rank 1 and not retrieved (-inf): 1 of 2 in the top 1;
        # probe: the fallout variants of the reference cross-check (the default)
        example=_ex("fallout", 0.5, srm.fallout_at_k_loss, [0, 1, 0], [0.9, 0.8, -np.inf], k=1),
    ),
    # -- hit rate -------------------------------------------------------------------------
    "hit_rate_counts_rank_k_plus_1": _m(
        "hit rate@k also counts a relevant row at rank k + 1",
        Edit(
            "_kernels._binary",
            "hit",
            "values = (expected_hits(ranked, ties, k, relevance_level) > 0)",
            "values = (expected_hits(ranked, ties, k and k + 1, relevance_level) > 0)",
        ),
        Edit(
            "_kernels._binary",
            "hit",
            "    blocks = tied_blocks(ranked, ties, k)\n"
            "    first = _first_relevant_blocks(ranked, ties, k, relevance_level)\n",
            "    k = k and k + 1\n"
            "    blocks = tied_blocks(ranked, ties, k)\n"
            "    first = _first_relevant_blocks(ranked, ties, k, relevance_level)\n",
        ),
    ),
    "hit_rate_micro_unweighted": _m(
        'hit_rate average="micro" is the plain mean of recall (no n_relevant weights)',
        Edit(
            "_metrics._binary",
            "hit_rate_per_query",
            "return PerQuery(recall.values, recall.undefined, "
            "relevance.n_relevant(ranked, relevance_level))",
            "return PerQuery(recall.values, recall.undefined)",
        ),
    ),
    # -- group AUC ------------------------------------------------------------------------
    "auc_tied_pairs_count_zero": _m(
        "AUC counts a tied (relevant, non-relevant) pair as 0 instead of 1/2 "
        "(a positive row takes its block's last rank, not its mid-rank)",
        Edit("_kernels._binary", "roc_auc", "mid_rank *= 0.5", "mid_rank *= 1.0"),
    ),
    "gauc_positives_weight_uses_negatives": _m(
        'group AUC query_weight="positives" weighs queries by their negatives',
        Edit(
            "_metrics._auc",
            "roc_auc_per_query",
            '"positives": n_positive',
            '"positives": n_negative',
        ),
    ),
    "gauc_rows_weight_retrieved_only": _m(
        'group AUC query_weight="rows" counts only the retrieved rows of a query',
        Edit(
            "_metrics._auc",
            "roc_auc_per_query",
            '"rows": ranked.n_rows_per_query.astype(float)',
            '"rows": ranked.n_retrieved.astype(float)',
        ),
    ),
}


# ---------------------------------------------------------------------------
# The pytest plugin
# ---------------------------------------------------------------------------


def active_mutation() -> str | None:
    """The mutation named by ``SRM_MUTATION`` (None when unset or empty)."""
    return os.environ.get(ENV_VAR, "").strip() or None


def _quiet_hypothesis() -> None:
    """No example database (a mutant's failures must not persist) and no shrinking."""
    try:
        from hypothesis import Phase, settings
    except ImportError:  # pragma: no cover - hypothesis is in the test extra
        return
    settings.register_profile(
        "srm-mutation",
        database=None,
        phases=[phase for phase in Phase if phase not in (Phase.shrink, Phase.explain)],
    )
    settings.load_profile("srm-mutation")


def pytest_configure(config) -> None:
    name = active_mutation()
    if name is None:
        return
    if name not in MUTATIONS:
        raise pytest.UsageError(
            f"{ENV_VAR}={name!r} names no mutation; known: {', '.join(sorted(MUTATIONS))}."
        )
    try:
        MUTATIONS[name].apply()
    except MutationError as error:  # the package changed under the mutation
        raise pytest.UsageError(f"{ENV_VAR}={name!r}: {error}") from None
    _quiet_hypothesis()
    config.stash[_ACTIVE] = name


def _banner(config) -> str | None:
    name = config.stash.get(_ACTIVE, None)
    if name is None:
        return None
    return f"mutation {name!r} is active: {MUTATIONS[name].description}"


def pytest_report_header(config) -> str | None:
    return _banner(config)


def pytest_terminal_summary(terminalreporter, exitstatus, config) -> None:
    # also under -q, which hides the header
    banner = _banner(config)
    if banner is not None:
        terminalreporter.write_line(banner, yellow=True)


_ACTIVE = pytest.StashKey[str]()
