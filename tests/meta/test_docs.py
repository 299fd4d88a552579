"""The documentation covers every public name, and its generated tables every metric.

No Sphinx runs here (CI builds the site separately, with warnings as errors):

- ``docs/api/*.rst`` is read as text: the names under each ``.. autosummary::``
  directive, qualified by the ``.. currentmodule::`` before it, must be exactly the
  package's ``__all__`` and the ``__all__`` of ``sklearn_rank_metrics.dask`` and
  ``sklearn_rank_metrics.spark``;
- the table functions of the Sphinx extension ``docs/_ext/rank_metrics_tables.py``
  (importable without Sphinx) must give a row to every registry metric, every alias
  and every convention, with values checked against what the tools are known to
  do, not against the tables themselves.
"""

from __future__ import annotations

import dataclasses
import importlib.util
import math
import re
import sys
from pathlib import Path

import pytest

import sklearn_rank_metrics
import sklearn_rank_metrics.dask
import sklearn_rank_metrics.spark
from sklearn_rank_metrics._metrics._conventions import CONVENTIONS, Convention, Ordering
from sklearn_rank_metrics._metrics._declaration import MetricInfo
from sklearn_rank_metrics._metrics._registry import ALIASES, METRICS

DOCS = Path(__file__).resolve().parents[2] / "docs"


def _load_extension():
    path = DOCS / "_ext" / "rank_metrics_tables.py"
    spec = importlib.util.spec_from_file_location("rank_metrics_tables", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault("rank_metrics_tables", module)
    spec.loader.exec_module(module)
    return module


tables = _load_extension()

_DIRECTIVE = re.compile(r"^\.\. (?P<name>[a-z-]+)::\s*(?P<argument>\S*)\s*$")


def autosummary_names(text: str) -> list[str]:
    """Fully qualified names listed by the autosummary directives of an rst text."""
    names: list[str] = []
    module = ""
    in_autosummary = False
    for line in text.splitlines():
        directive = _DIRECTIVE.match(line)
        if directive is not None:
            in_autosummary = directive["name"] == "autosummary"
            if directive["name"] == "currentmodule":
                module = directive["argument"]
            continue
        if not in_autosummary:
            continue
        if line and not line[0].isspace():
            in_autosummary = False  # the directive's block ended
            continue
        entry = line.strip()
        if not entry or entry.startswith(":"):
            continue  # blank line or a directive option (:toctree:)
        name = entry.lstrip("~")
        names.append(name if name.startswith("sklearn_rank_metrics.") else f"{module}.{name}")
    return names


def _documented() -> list[str]:
    names: list[str] = []
    for path in sorted((DOCS / "api").glob("*.rst")):
        names.extend(autosummary_names(path.read_text(encoding="utf-8")))
    return names


def _public() -> set[str]:
    return {
        f"{module.__name__}.{name}"
        for module in (sklearn_rank_metrics, sklearn_rank_metrics.dask, sklearn_rank_metrics.spark)
        for name in module.__all__
    }


def test_the_parser_reads_modules_options_and_block_ends():
    text = """
.. currentmodule:: pkg

.. autosummary::
   :toctree: generated/

   first
   ~second

Heading
=======

   not_listed

.. currentmodule:: pkg.sub

.. autosummary::
   third
"""
    assert autosummary_names(text) == ["pkg.first", "pkg.second", "pkg.sub.third"]


def test_every_public_name_has_an_api_entry_and_nothing_else():
    documented = _documented()
    assert len(documented) == len(set(documented)), "a name is listed twice"
    assert set(documented) - _public() == set(), "an API entry names no public object"
    assert _public() - set(documented) == set(), "a public name has no API entry"


def test_the_api_covers_the_distributed_modules():
    # the dask and spark modules have their own __all__, which the API page follows
    documented = set(_documented())
    assert "sklearn_rank_metrics.dask.evaluate_per_query" in documented
    assert "sklearn_rank_metrics.spark.RankingMetricEvaluator" in documented
    assert "sklearn_rank_metrics.spark.per_query_values" in documented


def _cells(table):
    header, rows = table
    assert rows, "the table has no row"
    assert all(len(row) == len(header) for row in rows)
    return header, rows


def _column(table, title):
    header, rows = _cells(table)
    index = header.index(title)
    return [row[index] for row in rows]


def test_the_catalogue_lists_every_registry_metric_once():
    names = _column(tables.catalogue_table(), "Name")
    assert names == [f"``{name}``" for name in METRICS]
    assert len(set(names)) == len(METRICS)


def test_the_catalogue_links_each_metric_to_its_function_page():
    rows = dict(zip(_column(tables.catalogue_table(), "Name"),
                    _column(tables.catalogue_table(), "Function"), strict=True))
    assert rows["``ndcg``"] == ":func:`~sklearn_rank_metrics.ndcg_score`"
    assert rows["``cg``"] == ":func:`~sklearn_rank_metrics.dcg_score`"
    assert rows["``f1``"] == ":func:`~sklearn_rank_metrics.fbeta_at_k_score`"
    assert rows["``num_rel``"] == ":func:`~sklearn_rank_metrics.retrieval_count_score`"


def _catalogue_row(name):
    header, rows = _cells(tables.catalogue_table())
    (row,) = [row for row in rows if row[0] == f"``{name}``"]
    return dict(zip(header, row, strict=True))


def test_the_catalogue_rows_say_what_each_metric_is():
    ndcg = _catalogue_row("ndcg")
    assert ndcg["Range"] == "[0, 1]"
    assert ndcg["Cutoff"] == "``ndcg@k``"
    assert "``gain='linear'``" in ndcg["Parameters (defaults)"]
    assert "graded" in ndcg["Reads"]
    assert ndcg["Summary"] == "mean over queries; higher is better"
    dcg = _catalogue_row("dcg")
    assert dcg["Range"] == "[0, ∞)"  # a sum of gains has no upper bound
    cg = _catalogue_row("cg")  # DCG without discount: the name fixes it
    assert cg["Parameters (defaults)"].endswith("fixes ``discount='none'``")
    assert "discount=" not in cg["Parameters (defaults)"].split(";")[0]
    assert _catalogue_row("rprec")["Cutoff"] == "none"  # R-precision's cutoff is R
    assert _catalogue_row("num_rel_ret")["Summary"].startswith("sum over queries")
    assert _catalogue_row("fallout")["Summary"].endswith("lower is better")
    assert "judged" in _catalogue_row("bpref")["Reads"]
    assert "judged" not in _catalogue_row("map")["Reads"]
    assert "``part``" in _catalogue_row("rbp")["Reads"]  # judged only for some parts


def test_the_catalogue_follows_the_registry_it_is_given():
    # a metric declared tomorrow gets its row without any edit of the docs
    info = METRICS["p"]
    extra = dataclasses.replace(info, name="p_new", takes_k=False)
    header, rows = tables.catalogue_table({"p_new": extra})
    assert [row[0] for row in rows] == ["``p_new``"]
    assert dict(zip(header, rows[0], strict=True))["Cutoff"] == "none"


def test_the_alias_table_lists_every_alias_once():
    table = tables.alias_table()
    pairs = list(zip(_column(table, "Tool"), _column(table, "Name"), strict=True))
    assert pairs == [(alias.tool, f"``{alias.base}``") for alias in ALIASES]
    assert len(set(pairs)) == len(ALIASES)


@pytest.mark.parametrize(
    ("example", "reads_as"),
    [
        # what trec_eval, ir_measures and ranx compute under these names
        ("``P_10``", "``p@10``"),
        ("``ndcg_cut_10``", "``ndcg@10``"),
        ("``recip_rank``", "``mrr``"),
        ("``ndcg_burges@10``", "``ndcg(gain=exponential)@10``"),
        ("``Rprec(rel=2)``", "``rprec(relevance_level=2)``"),
        ("``mapk@10``", "``map(denominator=min(k,n_relevant))@10``"),
        # ir_measures' NumRet(rel=2) counts retrieved rows of grade >= 2: num_rel_ret
        ("``NumRet(rel=2)``", "``num_rel_ret(relevance_level=2)``"),
    ],
)
def test_the_alias_table_reads_each_example_as_the_tool_means_it(example, reads_as):
    table = tables.alias_table()
    rows = dict(zip(_column(table, "Example"), _column(table, "Reads as"), strict=True))
    assert rows[example] == reads_as


def test_the_alias_table_translates_the_tools_parameters():
    table = tables.alias_table("ir_measures")
    rows = dict(zip(_column(table, "Name"), _column(table, "Tool parameters"), strict=True))
    # ir_measures' nDCG(dcg='exp-log2') is the exponential gain 2**y - 1
    assert "``'exp-log2'`` → ``'exponential'``" in rows["``nDCG``"]
    assert "given ``rel``, the name reads as ``num_rel_ret``" in rows["``NumRet``"]
    assert rows["``AP``"] == "``rel`` → ``relevance_level``"


def test_the_alias_table_filters_by_tool():
    tools = set(_column(tables.alias_table("trec_eval"), "Tool"))
    assert tools == {"trec_eval"}
    patterns = _column(tables.pattern_table("ranx"), "Example")
    assert "``rbp.8``" in patterns
    assert "``iprec_at_recall_0.50``" not in patterns


def test_the_names_read_by_pattern_parse_as_the_tools_mean_them():
    table = tables.pattern_table()
    rows = dict(zip(_column(table, "Example"), _column(table, "Reads as"), strict=True))
    assert len(rows) == len(tables.PATTERN_EXAMPLES)
    assert rows["``iprec_at_recall_0.50``"] == "``iprec(recall=0.5)``"
    assert rows["``rbp.8``"] == "``rbp(graded=True)``"  # ranx: p = 0.8 (the default)
    assert rows["``map@10-l2``"] == "``map(relevance_level=2)@10``"


def test_the_convention_table_has_a_column_per_convention():
    header, rows = _cells(tables.convention_table())
    assert header[1:] == [f"``{name}``" for name in CONVENTIONS]
    settings = {row[0]: dict(zip(header[1:], row[1:], strict=True)) for row in rows}
    # trec_eval keeps the run's order of tied rows (by docno), scikit-learn averages
    assert settings["``ties``"]["``trec_eval``"] == "``'input'``"
    assert settings["``ties``"]["``sklearn``"] == "``'average'``"
    # LightGBM and XGBoost use the exponential gain 2**y - 1
    assert settings["``gain``"]["``lightgbm``"] == "``'exponential'``"
    assert settings["scores read as float32"]["``xgboost``"] == "``True``"
    assert settings["scores read as float32"]["``trec_eval``"] == "``False``"
    every_parameter = {name for convention in CONVENTIONS.values() for name in convention.params}
    assert {f"``{name}``" for name in every_parameter} <= set(settings)


def test_the_convention_summary_says_what_each_tool_changes():
    header, rows = _cells(tables.convention_summary())
    assert [row[0] for row in rows] == [f"``{name}``" for name in CONVENTIONS]
    reading = {row[0]: row[3] for row in rows}
    # trec_eval 10 reads scores as double, trec_eval 9 (pytrec_eval) and XGBoost as float
    assert "scores read as float32" not in reading["``trec_eval``"]
    assert "scores read as float32: ``True``" in reading["``pytrec_eval``"]
    assert "scores read as float32: ``True``" in reading["``xgboost``"]
    # trec_eval breaks ties by docno descending, MLlib takes the list (doc id) order
    assert "tied rows ordered by: document id, descending" in reading["``trec_eval``"]
    assert "tied rows ordered by: document id, ascending" in reading["``spark``"]
    parameters = {row[0]: row[2] for row in rows}
    assert "``ties='average'``" in parameters["``sklearn``"]
    assert "``gain='exponential'``" in parameters["``lightgbm``"]


def test_every_setting_has_a_label():
    fields = [field.name for field in dataclasses.fields(Ordering)]
    fields += [
        field.name
        for field in dataclasses.fields(Convention)
        if field.name not in ("name", "description", "params", "ordering")
    ]
    assert sorted(fields) == sorted(tables.SETTING_LABELS)


def test_the_per_metric_table_shows_what_a_metric_declares_for_a_tool():
    header, rows = _cells(tables.provider_table(["lightgbm"]))
    assert {row[1] for row in rows} == {"``lightgbm``"}
    by_function = {row[0]: row[2] for row in rows}
    # LightGBM's MAP divides by min(k, relevant) and scores an empty query 1
    assert "``'min(k,n_relevant)'``" in by_function[
        ":func:`~sklearn_rank_metrics.mean_average_precision_score`"
    ]
    ir_measures = dict((row[0], row[3]) for row in tables.provider_table(["ir_measures"])[1])
    # ir_measures' nDCG exp-log2 comes from gdeval (double precision, ties by docno
    # descending): a rule on the parameters, spelt out in words
    gdeval, otherwise = ir_measures[":func:`~sklearn_rank_metrics.ndcg_score`"].split("\n\n")
    assert gdeval.startswith("When ``gain='exponential'``: scores read as float32: ``False``")
    assert "tied rows ordered by: document id, descending" in gdeval
    assert otherwise == "Otherwise: the convention's reading."
    # RR@k comes from the msmarco provider (double precision, ties by docno ascending)
    msmarco = ir_measures[":func:`~sklearn_rank_metrics.mean_reciprocal_rank_score`"]
    assert msmarco.startswith("When a cutoff ``k`` is given: scores read as float32: ``False``")
    assert "tied rows ordered by: document id, ascending" in msmarco
    with pytest.raises(ValueError, match="unknown conventions"):
        tables.convention_table(["trec-eval"])


def _convention_cells() -> list[str]:
    """Every cell of the three convention tables (the reference page's)."""
    cells = []
    for table in (tables.convention_summary(), tables.convention_table(), tables.provider_table()):
        header, rows = table
        cells.extend([*header, *(cell for row in rows for cell in row)])
    return cells


def test_the_convention_tables_read_as_prose_not_python():
    cells = _convention_cells()
    assert not [cell for cell in cells if "params" in cell or "lambda" in cell]
    # a reading's None is said in words ("input order"); None stays only as the value
    # of a parameter a convention sets (relevance_level=None: any positive label)
    readings = [row[3] for row in tables.convention_summary()[1]]
    readings += [row[3] for row in tables.provider_table()[1]]
    _, side_by_side = tables.convention_table()
    readings += [cell for row in side_by_side if not row[0].startswith("``") for cell in row]
    readings += [cell for row in tables.provider_table()[1] for cell in row]
    assert not [cell for cell in readings if "None" in cell]
    parameters = [row for row in side_by_side if row[0].startswith("``")]
    assert [row[0] for row in parameters if "``None``" in row] == ["``relevance_level``"]
    summary = [cell for row in tables.convention_summary()[1] for cell in row]
    assert not [cell for cell in summary if "None" in cell.replace("relevance_level=None", "")]
    # the cells where None was meant: torchmetrics' targets, ranx's input order
    torchmetrics = {row[0]: row[3] for row in tables.provider_table(["torchmetrics"])[1]}
    assert "tied rows ordered by: input order" in torchmetrics[
        ":func:`~sklearn_rank_metrics.recall_at_k_score`"
    ]
    assert "a row scored <= 0 is: not returned" in torchmetrics[
        ":func:`~sklearn_rank_metrics.recall_at_k_score`"
    ]


def test_every_optional_setting_says_what_none_means():
    optional = [
        field.name for field in dataclasses.fields(Ordering) if "None" in str(field.type)
    ]
    assert optional and sorted(optional) == sorted(tables.NONE_MEANS)


def test_the_side_by_side_table_leaves_out_a_reading_no_convention_changes():
    _, rows = tables.convention_table()
    labels = [row[0] for row in rows]
    # no convention reads a row scored <= 0 specially; torchmetrics' metrics do
    assert tables.SETTING_LABELS["nonpositive_scores"] not in labels
    assert tables.SETTING_LABELS["single_precision"] in labels
    note = tables.uniform_readings()
    assert "a row scored <= 0 is an ordinary row" in note
    assert "torchmetrics" in note
    # one convention alone: every reading is shown, no note
    _, alone = tables.convention_table(["ranx"])
    assert tables.SETTING_LABELS["nonpositive_scores"] in [row[0] for row in alone]
    assert tables.uniform_readings(["ranx"]) == ""


def _rule_gain(params):
    return Ordering(doc_id_order="descending") if params.get("gain") != "binary" else None


_RULES = {"k": lambda params: Ordering() if params["k"] is None else None}


def test_a_rule_on_the_parameters_is_shown_in_words():
    cell = tables._ordering_cell(_rule_gain)
    first, second = cell.split("\n\n")
    assert first.startswith("Unless ``gain='binary'``: ")
    assert "document id, descending" in first
    assert second == "Otherwise: the convention's reading."
    # a lambda inside a literal, and params["k"]
    assert tables._ordering_cell(_RULES["k"]).startswith(
        "When a cutoff ``k`` is not given: scores read as float32: ``False``"
    )
    unreadable = tables._ordering_cell(lambda params: Ordering() if params else None)
    assert unreadable == "depends on the metric's parameters (see the function's page)"


def test_list_table_keeps_one_cell_per_column():
    lines = tables.list_table((["a", "b"], [["x", "multi\nline"], ["", "z"]]))
    assert lines[:2] == [".. list-table::", "   :header-rows: 1"]
    items = [line for line in lines if line.strip().startswith(("* -", "- "))]
    assert items == [
        "   * - a", "     - b", "   * - x", "     - multi line", "   * -  ", "     - z"
    ]


def test_literal_and_range_cells():
    assert tables.literal(math.nan) == "``nan``"
    assert tables.literal("input") == "``'input'``"
    assert tables.value_range(METRICS["ndcg"]) == "[0, 1]"
    assert isinstance(METRICS["ndcg"], MetricInfo)


@pytest.mark.parametrize(
    ("page", "directive"),
    [
        ("metrics.rst", ".. metric-catalogue::"),
        ("aliases.rst", ".. alias-table::"),
        ("conventions.rst", ".. convention-table::"),
    ],
)
def test_each_reference_page_uses_its_directive(page, directive):
    assert directive in (DOCS / "reference" / page).read_text(encoding="utf-8")


def test_the_extension_is_enabled_and_the_pages_are_reachable():
    conf = (DOCS / "conf.py").read_text(encoding="utf-8")
    assert '"rank_metrics_tables"' in conf
    index = (DOCS / "index.rst").read_text(encoding="utf-8")
    for entry in ("user_guide/index", "auto_examples/index", "api/index", "reference/index"):
        assert re.search(rf"^   {re.escape(entry)}$", index, re.MULTILINE), entry
    reference = (DOCS / "reference" / "index.rst").read_text(encoding="utf-8")
    for page in ("metrics", "aliases", "conventions"):
        assert re.search(rf"^   {page}$", reference, re.MULTILINE), page
