"""The metric catalogue, the alias table and the convention tables, built at build time.

Every row comes from the package's declarations, never from text kept by hand:

- the registry's metrics (``_metrics._registry.METRICS``: one
  :class:`~sklearn_rank_metrics._metrics._declaration.MetricInfo` per name, with
  its public function, flags and value range);
- the other tools' names (``_metrics._registry.ALIASES``), each translated by the
  package's own parser (:func:`~sklearn_rank_metrics._metrics._registry.parse_metric`);
- the conventions (``_metrics._conventions.CONVENTIONS``) and what each metric
  declares for a tool (``_metrics._conventions.PROVIDERS``).

The ``*_table`` functions return a header and rows of reStructuredText cells and
need no Sphinx (``tests/meta/test_docs.py`` calls them); the directives
``metric-catalogue``, ``alias-table`` and ``convention-table`` render them as list
tables on any page.
"""

from __future__ import annotations

import ast
import dataclasses
import inspect
import math
import textwrap
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

import sklearn_rank_metrics
from sklearn_rank_metrics._metrics import _aliases
from sklearn_rank_metrics._metrics._aliases import Alias
from sklearn_rank_metrics._metrics._conventions import (
    CONVENTIONS,
    PROVIDERS,
    Convention,
    Ordering,
)
from sklearn_rank_metrics._metrics._declaration import NON_KERNEL_PARAMETERS, MetricInfo
from sklearn_rank_metrics._metrics._registry import ALIASES, METRICS, MetricSpec, parse_metric

# the modules whose declarations the tables read
_DECLARATIONS = Path(inspect.getfile(Convention)).parent

Row = list[str]
Table = tuple[Row, list[Row]]

# Names another tool writes that no Alias declares: the package reads them by
# pattern (_aliases._special_name, _aliases._registry_name). Only the examples are
# written here; what each means is computed by the package's parser, and
# tests/meta/test_docs.py checks that every one still parses.
PATTERN_EXAMPLES: tuple[tuple[str, str], ...] = (
    ("trec_eval", "iprec_at_recall_0.50"),
    ("ir_measures", "IPrec(rel=2)@0.5"),
    ("ranx", "rbp.8"),
    ("ranx", "map@10-l2"),
    ("any", "NDCG@10"),
)

# what a user reads for each field of Ordering and each flag of Convention (a field
# without an entry is shown by its own name; a test checks that every one has one)
SETTING_LABELS: Mapping[str, str] = {
    "single_precision": "scores read as float32",
    "doc_id_order": "tied rows ordered by",
    "nonpositive_scores": "a row scored <= 0 is",
    "negative_labels_judged": "a negative label counts as judged",
    "minus_infinity_is_a_score": "``-inf`` is an ordinary score",
    "single_precision_weights": "query weights read as float32",
    "negative_labels_gain_zero": "a negative label has gain 0",
}


# what a setting's None means (from the docstring of Ordering), and how a text value
# reads after its label (a test checks that every optional field has an entry)
NONE_MEANS: Mapping[str, str] = {
    "doc_id_order": "input order",
    "nonpositive_scores": "an ordinary row",
}
VALUE_TEXT: Mapping[str, Callable[[str], str]] = {
    "doc_id_order": lambda order: f"document id, {order}",
    "nonpositive_scores": lambda meaning: meaning.replace("_", " "),
}


def setting_value(name: str, value: Any) -> str:
    """The value of a reading setting (a field of Ordering or a flag of Convention) as
    prose: ``None`` as what it means, a text value in words, a bool as a literal."""
    if value is None:
        return NONE_MEANS.get(name, "not set")
    if isinstance(value, str) and name in VALUE_TEXT:
        return VALUE_TEXT[name](value)
    return literal(value)


def literal(value: Any) -> str:
    """A value as inline code (``nan`` for NaN, ``None`` for None)."""
    if isinstance(value, float) and math.isnan(value):
        return "``nan``"
    return f"``{value!r}``"


def _number(value: float) -> str:
    if value == math.inf:
        return "∞"
    if value == -math.inf:
        return "-∞"
    return f"{value:g}"


def value_range(info: MetricInfo) -> str:
    """The declared range of the per-query values at the default parameters."""
    low, high = info.value_range(info.defaults)
    closing = ")" if math.isinf(high) else "]"
    opening = "(" if math.isinf(low) else "["
    return f"{opening}{_number(low)}, {_number(high)}{closing}"


def function_cell(function: Callable) -> str:
    """The public function, linked to its API page (plain code if it is not public)."""
    name = function.__name__
    if name in sklearn_rank_metrics.__all__:
        return f":func:`~sklearn_rank_metrics.{name}`"
    return f"``{name}``"


def summary_line(function: Callable) -> str:
    """The first line of the function's docstring."""
    doc = inspect.getdoc(function) or ""
    return doc.strip().splitlines()[0] if doc.strip() else ""


def metric_parameters(info: MetricInfo) -> str:
    """The parameters a metric name takes (``name(param=value)``), with their defaults."""
    defaults = info.defaults
    own = [
        f"``{name}={defaults[name]!r}``"
        for name in inspect.signature(info.function).parameters
        if name in defaults
        and name not in NON_KERNEL_PARAMETERS
        and name != "k"
        and name not in info.fixed_params
    ]
    cell = ", ".join(own) if own else "none"
    if info.fixed_params:
        fixed = ", ".join(f"``{name}={value!r}``" for name, value in info.fixed_params.items())
        cell += f"; fixes {fixed}"
    return cell


def metric_reads(info: MetricInfo) -> str:
    """What a metric reads besides the ranking: grades or relevance, judgments."""
    parameters = inspect.signature(info.function).parameters
    parts = []
    if info.graded:
        parts.append("graded labels (gains)")
    elif "relevance_level" in parameters:
        parts.append("relevant or not (``relevance_level``)")
    rule = info.reads_judgments
    if rule is True:
        parts.append("which rows were judged (``judged=``)")
    elif rule:
        when = " or ".join(
            f"``{name}`` in {', '.join(repr(value) for value in values)}" for name, values in rule
        )
        parts.append(f"which rows were judged (``judged=``) when {when}")
    if info.always_defined:
        parts.append("defined for every query")
    else:
        parts.append(
            f"undefined for a query without a {info.undefined_without.replace('_', '-')} row"
        )
    return "; ".join(parts)


def metric_aggregate(info: MetricInfo) -> str:
    """How the per-query values are summarised, and the direction."""
    total = MetricSpec(info, dict(info.fixed_params)).total
    summary = "sum over queries" if total else "mean over queries"
    direction = "higher is better" if info.greater_is_better else "lower is better"
    return f"{summary}; {direction}"


def catalogue_table(metrics: Mapping[str, MetricInfo] = METRICS) -> Table:
    """One row per registry name: what ``evaluate``, the scorers and the CLI read."""
    header = [
        "Name",
        "Function",
        "Description",
        "Parameters (defaults)",
        "Range",
        "Summary",
        "Reads",
        "Cutoff",
    ]
    rows = []
    for name, info in metrics.items():
        rows.append(
            [
                f"``{name}``",
                function_cell(info.function),
                summary_line(info.function),
                metric_parameters(info),
                value_range(info),
                metric_aggregate(info),
                metric_reads(info),
                f"``{name}@k``" if info.takes_k else "none",
            ]
        )
    return header, rows


def alias_table(tool: str | None = None) -> Table:
    """One row per declared name of another tool, with the registry text it reads as."""
    header = ["Tool", "Name", "Example", "Reads as", "Cutoff", "Fixes", "Tool parameters"]
    rows = []
    for alias in ALIASES:
        if tool is not None and alias.tool != tool:
            continue
        rows.append(
            [
                alias.tool,
                f"``{alias.base}``",
                f"``{alias.example}``",
                f"``{parse_metric(alias.example)}``",
                alias.cutoff,
                ", ".join(f"``{key}={value}``" for key, value in alias.params) or "none",
                tool_parameters(alias),
            ]
        )
    return header, rows


def tool_parameters(alias: Alias) -> str:
    """The tool's parameter names and ours, their values translated, and a retargeting."""
    parts = []
    for theirs, ours in alias.tool_params:
        text = f"``{theirs}`` → ``{ours}``"
        values = _aliases._VALUES.get((theirs, ours))
        if values:
            text += " (" + ", ".join(f"``{a!r}`` → ``{b!r}``" for a, b in values.items()) + ")"
        parts.append(text)
    for theirs, target in alias.retarget:
        parts.append(f"given ``{theirs}``, the name reads as ``{target}``")
    return "; ".join(parts) or "none"


def pattern_table(tool: str | None = None) -> Table:
    """Names the package reads by pattern (no declared alias): each example and its reading."""
    header = ["Tool", "Example", "Reads as"]
    rows = [
        [example_tool, f"``{example}``", f"``{parse_metric(example)}``"]
        for example_tool, example in PATTERN_EXAMPLES
        if tool is None or example_tool in (tool, "any")
    ]
    return header, rows


def _ordering_fields() -> list[str]:
    return [field.name for field in dataclasses.fields(Ordering)]


def _flag_fields() -> list[str]:
    skip = {"name", "description", "params", "ordering"}
    return [field.name for field in dataclasses.fields(Convention) if field.name not in skip]


def _parameter_names(conventions: Iterable[Convention]) -> list[str]:
    names: list[str] = []
    for convention in conventions:
        names.extend(name for name in convention.params if name not in names)
    return names


def _selected(names: Sequence[str] | None) -> list[Convention]:
    if names is None:
        return list(CONVENTIONS.values())
    unknown = [name for name in names if name not in CONVENTIONS]
    if unknown:
        raise ValueError(f"unknown conventions {unknown}; known: {list(CONVENTIONS)}")
    return [CONVENTIONS[name] for name in names]


def _reading_rows(conventions: Sequence[Convention]) -> list[tuple[str, list[Any]]]:
    """(setting name, its value under each convention) for every reading setting."""
    rows = [
        (name, [getattr(convention.ordering, name) for convention in conventions])
        for name in _ordering_fields()
    ]
    rows += [
        (name, [getattr(convention, name) for convention in conventions]) for name in _flag_fields()
    ]
    return rows


def _uniform(values: list[Any], conventions: Sequence[Convention]) -> bool:
    """One value under every convention shown (more than one): a row that tells nothing."""
    return len(conventions) > 1 and all(value == values[0] for value in values)


def convention_table(names: Sequence[str] | None = None) -> Table:
    """One column per convention, one row per parameter or reading it sets.

    A reading that is the same under every convention shown is left out (see
    :func:`uniform_readings`).
    """
    conventions = _selected(names)
    header = ["Setting", *(f"``{convention.name}``" for convention in conventions)]
    rows = []
    for name in _parameter_names(conventions):
        rows.append(
            [
                f"``{name}``",
                *(
                    literal(convention.params[name]) if name in convention.params else "not set"
                    for convention in conventions
                ),
            ]
        )
    for name, values in _reading_rows(conventions):
        if not _uniform(values, conventions):
            rows.append([SETTING_LABELS.get(name, name), *(setting_value(name, v) for v in values)])
    return header, rows


def _metric_overrides(name: str, default: Any) -> list[str]:
    """The tools for which some metric declares ``name`` other than ``default``."""
    tools: list[str] = []
    for providers in PROVIDERS.values():
        for tool, provider in providers.items():
            for ordering in _possible_orderings(provider.ordering):
                if getattr(ordering, name, default) != default and tool not in tools:
                    tools.append(tool)
    return tools


def uniform_readings(names: Sequence[str] | None = None) -> str:
    """The sentence under the side-by-side table: the readings it leaves out, because
    every convention shown reads the rows the same way there ("" when none)."""
    conventions = _selected(names)
    parts = []
    for name, values in _reading_rows(conventions):
        if not _uniform(values, conventions):
            continue
        text = f"{SETTING_LABELS.get(name, name)} {setting_value(name, values[0])}"
        tools = _metric_overrides(name, values[0])
        if tools:
            text += (
                f" (some metrics declare otherwise for {', '.join(tools)}: see "
                '"What a metric declares for a tool")'
            )
        parts.append(text)
    if not parts:
        return ""
    return "The same under every convention, so not shown: " + "; ".join(parts) + "."


def _non_default(instance: Any) -> list[str]:
    """``label: value`` of the fields of a dataclass instance that differ from their default."""
    return [
        f"{SETTING_LABELS.get(field.name, field.name)}: "
        f"{setting_value(field.name, getattr(instance, field.name))}"
        for field in dataclasses.fields(instance)
        if field.name in SETTING_LABELS and getattr(instance, field.name) != field.default
    ]


def convention_summary(names: Sequence[str] | None = None) -> Table:
    """One row per convention: what it reproduces, the parameters it sets, its reading.

    The reading lists what differs from a call without a convention (the fields'
    defaults).
    """
    header = ["Convention", "Reproduces", "Parameters it sets", "How it reads the rows"]
    rows = []
    for convention in _selected(names):
        params = ", ".join(f"``{name}={value!r}``" for name, value in convention.params.items())
        reading = _non_default(convention.ordering) + _non_default(convention)
        rows.append(
            [
                f"``{convention.name}``",
                convention.description,
                params or "none",
                "\n\n".join(reading) if reading else "as without a convention",
            ]
        )
    return header, rows


def describe_ordering(ordering: Ordering | None) -> str:
    """Every field of an Ordering in words (a provider's Ordering replaces the
    convention's whole); None, the convention's own."""
    if ordering is None:
        return "the convention's reading"
    return "; ".join(
        f"{SETTING_LABELS.get(field.name, field.name)}: "
        f"{setting_value(field.name, getattr(ordering, field.name))}"
        for field in dataclasses.fields(Ordering)
    )


# A rule ``lambda params: A if <test> else B`` is shown as "A when <test>, else B":
# the test is read from the source (the forms below), A and B by calling the rule with
# parameters that pass and fail the test, so the readings shown are the rule's own.
_MISSING = object()
PARAMETER_WORDS: Mapping[str, str] = {"k": "a cutoff ``k``"}


def _returned_expression(source: str) -> ast.expr | None:
    """What a rule returns: the body of its lambda, or of a one-return function."""
    try:
        tree = ast.parse(textwrap.dedent(source))
    except SyntaxError:
        tree = None
    if tree is not None and tree.body and isinstance(tree.body[0], ast.FunctionDef):
        last = tree.body[0].body[-1]
        return last.value if isinstance(last, ast.Return) else None
    # a lambda inside a call or a literal: parse from "lambda", dropping the closing
    # brackets and commas of what surrounds it
    text = source[source.find("lambda") :].rstrip()
    while text:
        try:
            node = ast.parse(text, mode="eval").body
        except SyntaxError:
            text = text[:-1].rstrip()
            continue
        return node.body if isinstance(node, ast.Lambda) else None
    return None


def _rule_test(rule: Callable) -> ast.expr | None:
    """The test of the conditional expression an ``ordering(params)`` rule returns."""
    try:
        source = inspect.getsource(rule)
    except (OSError, TypeError):
        return None
    returned = _returned_expression(source)
    return returned.test if isinstance(returned, ast.IfExp) else None


def _parameter_read(node: ast.expr) -> str | None:
    """``params.get("name")`` or ``params["name"]``: the parameter's name."""
    if (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr == "get"
        and len(node.args) == 1
        and isinstance(node.args[0], ast.Constant)
    ):
        return str(node.args[0].value)
    if isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Constant):
        return str(node.slice.value)
    return None


def rule_condition(rule: Callable) -> tuple[str, dict, dict] | None:
    """The test of a rule in words, parameters that pass it and parameters that fail it.

    None when the rule is not one of the forms ``params.get(name) is [not] None`` or
    ``params.get(name) == value`` / ``!=``.
    """
    test = _rule_test(rule)
    if not isinstance(test, ast.Compare) or len(test.ops) != 1:
        return None
    name = _parameter_read(test.left)
    other = test.comparators[0]
    if name is None or not isinstance(other, ast.Constant):
        return None
    operator, value = test.ops[0], other.value
    given = {name: _MISSING if value is None else value}
    absent = {name: None}  # params.get(name) and params[name] alike
    words = PARAMETER_WORDS.get(name, f"``{name}``")
    if isinstance(operator, (ast.IsNot, ast.NotEq)) and value is None:
        return f"when {words} is given", given, absent
    if isinstance(operator, (ast.Is, ast.Eq)) and value is None:
        return f"when {words} is not given", absent, given
    if isinstance(operator, ast.Eq):
        return f"when ``{name}={value!r}``", given, absent
    if isinstance(operator, ast.NotEq):
        return f"unless ``{name}={value!r}``", absent, given
    return None


def _possible_orderings(rule: Any) -> list[Ordering]:
    """The Orderings a provider's rule can give (for the note under the side-by-side table)."""
    if isinstance(rule, Ordering):
        return [rule]
    if not callable(rule):
        return []
    condition = rule_condition(rule)
    if condition is None:
        return []
    return [ordering for ordering in (rule(condition[1]), rule(condition[2])) if ordering]


def _ordering_cell(rule: Any) -> str:
    if rule is None or isinstance(rule, Ordering):
        return describe_ordering(rule)
    condition = rule_condition(rule)
    if condition is None:
        return "depends on the metric's parameters (see the function's page)"
    text, passing, failing = condition
    return (
        f"{text[0].upper()}{text[1:]}: {describe_ordering(rule(passing))}.\n\n"
        f"Otherwise: {describe_ordering(rule(failing))}."
    )


def provider_table(names: Sequence[str] | None = None) -> Table:
    """What a metric declares for one tool, over the convention's settings."""
    selected = {convention.name for convention in _selected(names)}
    header = ["Function", "Convention", "Parameters", "Reading of the rows"]
    rows = []
    for function_name, providers in PROVIDERS.items():
        function = getattr(sklearn_rank_metrics, function_name, None)
        cell = function_cell(function) if function is not None else f"``{function_name}``"
        for tool, provider in providers.items():
            if tool not in selected:
                continue
            params = ", ".join(
                f"``{name}``: {literal(value)}" for name, value in provider.params.items()
            )
            rows.append(
                [
                    cell,
                    f"``{tool}``",
                    params or "the convention's parameters",
                    _ordering_cell(provider.ordering),
                ]
            )
    return header, rows


def list_table(table: Table, *, widths: str = "auto") -> list[str]:
    """A table as the lines of an rst ``list-table``.

    A blank line (``"\\n\\n"``) in a cell starts a new paragraph; other white space
    is collapsed.
    """
    header, rows = table
    lines = [".. list-table::", "   :header-rows: 1", f"   :widths: {widths}", ""]
    for row in [header, *rows]:
        for index, cell in enumerate(row):
            paragraphs = [" ".join(part.split()) for part in str(cell).split("\n\n")]
            paragraphs = [part for part in paragraphs if part] or [" "]
            lines.append(f"   {'*' if index == 0 else ' '} - {paragraphs[0]}")
            for paragraph in paragraphs[1:]:
                lines.extend(["", f"       {paragraph}"])
    return lines


def catalogue_display(table: Table) -> Table:
    """The catalogue in four columns that fit a page: the facts of a row as paragraphs."""
    header, rows = table
    shown = []
    for row in rows:
        cell = dict(zip(header, row, strict=True))
        name = cell["Name"]
        if cell["Cutoff"] != "none":
            name += f"\n\n{cell['Cutoff']}"
        description = (
            f"{cell['Description']}\n\n*Range* {cell['Range']}; {cell['Summary']}."
            f"\n\n*Reads* {cell['Reads']}."
        )
        shown.append([name, cell["Function"], description, cell["Parameters (defaults)"]])
    return ["Name", "Function", "Description", "Parameters (defaults)"], shown


def alias_display(table: Table) -> Table:
    """The alias table in four columns that fit a page: cutoff, fixes and parameters as notes."""
    header, rows = table
    shown = []
    for row in rows:
        cell = dict(zip(header, row, strict=True))
        notes = [f"cutoff: {cell['Cutoff']}"]
        if cell["Fixes"] != "none":
            notes.append(f"fixes {cell['Fixes']}")
        if cell["Tool parameters"] != "none":
            notes.append(f"parameters: {cell['Tool parameters']}")
        shown.append(
            [
                cell["Tool"],
                f"{cell['Name']}\n\n{cell['Example']}",
                cell["Reads as"],
                "\n\n".join(notes),
            ]
        )
    return ["Tool", "Name and example", "Reads as", "Notes"], shown


def _names_option(argument: str | None) -> list[str] | None:
    if argument is None:
        return None
    return [name.strip() for name in argument.split(",") if name.strip()]


def setup(app: Any) -> dict[str, Any]:
    """Register the three directives (Sphinx imports only here)."""
    from docutils.parsers.rst import directives
    from docutils.statemachine import StringList
    from sphinx.util.docutils import SphinxDirective

    class _TableDirective(SphinxDirective):
        has_content = False

        def tables(self) -> list[list[str]]:  # pragma: no cover - overridden
            raise NotImplementedError

        def run(self) -> list[Any]:
            from docutils import nodes

            # the tables change with the package's declarations: rebuild the page
            # when a metric module or this extension changes
            for path in (Path(__file__), *_DECLARATIONS.glob("*.py")):
                self.env.note_dependency(str(path))
            container = nodes.container()
            lines: list[str] = []
            for block in self.tables():
                lines.extend([*block, ""])
            source = self.get_source_info()[0]
            self.state.nested_parse(
                StringList(lines, source=source), self.content_offset, container
            )
            return container.children

    class MetricCatalogue(_TableDirective):
        """``.. metric-catalogue::``: every registry metric."""

        def tables(self) -> list[list[str]]:
            return [list_table(catalogue_display(catalogue_table()), widths="14 24 38 24")]

    class AliasTable(_TableDirective):
        """``.. alias-table::`` (``:tool: trec_eval`` for one tool's names)."""

        option_spec = {"tool": directives.unchanged}

        def tables(self) -> list[list[str]]:
            tool = self.options.get("tool")
            blocks = [list_table(alias_display(alias_table(tool)), widths="14 26 28 32")]
            patterns = pattern_table(tool)
            if patterns[1]:
                blocks.append(
                    [
                        "Names read by pattern rather than declared one by one "
                        "(the right column is what the parser makes of each example):",
                        "",
                        *list_table(patterns),
                    ]
                )
            return blocks

    class ConventionTable(_TableDirective):
        """``.. convention-table::``: one row per convention.

        ``:conventions: trec_eval, ranx`` for some; ``:side-by-side:`` for one column
        per convention; ``:per-metric:`` for what the metrics declare per tool.
        """

        option_spec = {
            "conventions": directives.unchanged,
            "per-metric": directives.flag,
            "side-by-side": directives.flag,
        }

        def tables(self) -> list[list[str]]:
            names = _names_option(self.options.get("conventions"))
            if "per-metric" in self.options:
                return [list_table(provider_table(names))]
            if "side-by-side" in self.options:
                note = uniform_readings(names)
                return [list_table(convention_table(names)), *([[note]] if note else [])]
            return [list_table(convention_summary(names), widths="14 34 26 26")]

    app.add_directive("metric-catalogue", MetricCatalogue)
    app.add_directive("alias-table", AliasTable)
    app.add_directive("convention-table", ConventionTable)
    return {"version": sklearn_rank_metrics.__version__, "parallel_read_safe": True}
