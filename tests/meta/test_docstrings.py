"""Every public docstring documents exactly the parameters of its signature, in order.

In the spirit of scikit-learn's ``sklearn/tests/test_docstring_parameters.py``, without
numpydoc: a small parser below reads the numpydoc sections. Checked, for every public
callable (the functions of ``__all__``, the ``__init__`` of every public class, with its
parameters documented in the class docstring, its public methods defined in this
package, the public functions of ``sklearn_rank_metrics.dask`` and
``sklearn_rank_metrics.spark``):

- the "Parameters" section lists the signature's parameters (without ``self``/``cls``),
  in the signature's order; ``*args`` / ``**kwargs`` are documented as ``*args`` /
  ``**kwargs``; an entry ``a, b : type`` documents ``a`` then ``b``;
- dataclass-like classes (dataclasses and named tuples) document their public fields
  (no leading underscore), in order, under "Parameters" or, failing that, "Attributes";
- the module-level functions that return something have a "Returns" section;
- no ``[[name]]`` marker of ``fill_doc`` (``sklearn_rank_metrics._engine._docs``) is
  left in any public docstring, and no module but that one writes a ``__doc__``.
"""

from __future__ import annotations

import ast
import dataclasses
import inspect
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any, NamedTuple

import pytest

import sklearn_rank_metrics
import sklearn_rank_metrics.dask
import sklearn_rank_metrics.spark

PACKAGE = "sklearn_rank_metrics"

# a marker ``fill_doc`` did not replace, e.g. ``[[sample_weight]]``; a doctest's 2-D
# array (``np.array([[1.0], [2.0]])``) opens with ``[[`` too but is no marker
LEFTOVER_MARKER = re.compile(r"\[\[\s*[A-Za-z_][\w-]*\s*\]\]")


# ----------------------------------------------------------------------------- parser


def docstring_sections(doc: str | None) -> dict[str, list[str]]:
    """The numpydoc sections of ``doc``: header -> the names its entries document.

    A section is a header line followed by a line of dashes; it runs to the next such
    header. Its entries are the lines at the header's own indentation, of the form
    ``name : type``, ``name1, name2 : type`` or a bare ``name`` / ``name1, name2``
    (numpydoc allows the type to be left out); ``*args`` and ``**kwargs`` keep their
    stars. The description lines, indented further, are not entries.
    """
    lines = inspect.cleandoc(doc or "").splitlines()
    headers = [
        i
        for i in range(len(lines) - 1)
        if lines[i].strip()
        and set(lines[i + 1].strip()) == {"-"}
        and _indent(lines[i]) == _indent(lines[i + 1])
    ]
    sections: dict[str, list[str]] = {}
    for position, start in enumerate(headers):
        end = headers[position + 1] if position + 1 < len(headers) else len(lines)
        base = _indent(lines[start])
        names: list[str] = []
        for line in lines[start + 2 : end]:
            if not line.strip():
                continue
            if _indent(line) < base:  # dedented text: the section is over
                break
            if _indent(line) == base:
                entry = line.strip().split(":", 1)[0]
                names.extend(name.strip() for name in entry.split(","))
        sections.setdefault(lines[start].strip(), names)
    return sections


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip(" "))


# ----------------------------------------------------------------------- the callables


class Case(NamedTuple):
    """One docstring to check against the names it must document."""

    name: str  # the test id, e.g. "MetricAtKDisplay.from_predictions"
    doc: str | None  # the docstring that documents the parameters
    expected: list[str]  # the names, in order
    section: str  # "Parameters", or "Parameters or Attributes" for dataclass fields
    needs_returns: bool


def signature_names(function: Callable, *, drop_first: bool = False) -> list[str]:
    """The parameter names of ``function`` as a docstring writes them, in order."""
    parameters = list(inspect.signature(function).parameters.values())
    if drop_first:  # self (or cls) of a method taken from the class __dict__
        parameters = parameters[1:]
    prefix = {inspect.Parameter.VAR_POSITIONAL: "*", inspect.Parameter.VAR_KEYWORD: "**"}
    return [prefix.get(parameter.kind, "") + parameter.name for parameter in parameters]


def function_case(name: str, function: Callable, *, module_level: bool) -> Case:
    returns = inspect.signature(function).return_annotation
    returns_something = returns not in (None, "None", type(None))
    return Case(
        name,
        function.__doc__,
        signature_names(function),
        "Parameters",
        needs_returns=module_level and returns_something,
    )


def dataclass_fields(cls: type) -> list[str] | None:
    """The public fields of a dataclass or named tuple in order; None for other classes."""
    if dataclasses.is_dataclass(cls):
        names = [field.name for field in dataclasses.fields(cls)]
    elif issubclass(cls, tuple) and hasattr(cls, "_fields"):
        names = list(cls._fields)
    else:
        return None
    return [name for name in names if not name.startswith("_")]


def method_cases(cls: type) -> list[Case]:
    """The public methods of ``cls`` (and its bases) that this package defines."""
    cases: list[Case] = []
    seen: set[str] = set()
    for klass in cls.__mro__:
        for attribute, value in vars(klass).items():
            if attribute.startswith("_") or attribute in seen:
                continue
            seen.add(attribute)
            function = getattr(value, "__func__", value)
            if not inspect.isfunction(function):
                continue  # a property, a field default, sklearn's set_fit_request
            if not function.__module__.startswith(PACKAGE):
                continue
            expected = signature_names(function, drop_first=not isinstance(value, staticmethod))
            # a method without parameters needs no Parameters section
            if not expected and "Parameters" not in docstring_sections(function.__doc__):
                continue
            cases.append(
                Case(
                    f"{cls.__name__}.{attribute}",
                    function.__doc__,
                    expected,
                    "Parameters",
                    needs_returns=False,
                )
            )
    return cases


def class_cases(cls: type) -> list[Case]:
    if issubclass(cls, (Warning, BaseException)):
        # a warning category or an error takes the message; users filter or catch it,
        # never construct it
        return []
    fields = dataclass_fields(cls)
    if fields is not None:
        init = Case(cls.__name__, cls.__doc__, fields, "Parameters or Attributes", False)
    else:
        init = Case(
            cls.__name__, cls.__doc__, signature_names(cls), "Parameters", needs_returns=False
        )
    return [init, *method_cases(cls)]


def public_cases() -> list[Case]:
    cases: list[Case] = []
    for name in sklearn_rank_metrics.__all__:
        obj = getattr(sklearn_rank_metrics, name)
        if inspect.isclass(obj):
            cases.extend(class_cases(obj))
        else:
            cases.append(function_case(name, obj, module_level=True))
    for module, prefix in ((sklearn_rank_metrics.dask, "dask."),
                           (sklearn_rank_metrics.spark, "spark.")):
        for name in module.__all__:
            obj = getattr(module, name)
            if inspect.isclass(obj):
                cases.extend(class_cases(obj))
            else:
                cases.append(function_case(prefix + name, obj, module_level=True))
    return cases


CASES = public_cases()


# --------------------------------------------------------------------------- checking


def docstring_problems(case: Case) -> list[str]:
    """What is wrong with ``case.doc``; empty when it matches the signature."""
    problems: list[str] = []
    sections = docstring_sections(case.doc)
    if case.section == "Parameters":
        header = "Parameters"
    else:  # dataclass-like: Parameters if the class has that section, else Attributes
        header = "Parameters" if "Parameters" in sections else "Attributes"
    documented = sections.get(header, [])
    if documented != case.expected:
        where = f"its {header} section" if header in sections else f"no {header} section"
        lines = [
            f"{case.name}: the docstring ({where}) does not list the "
            + ("public dataclass fields" if case.section != "Parameters" else "signature"),
            f"  expected:   {case.expected}",
            f"  documented: {documented}",
        ]
        missing = [name for name in case.expected if name not in documented]
        extra = [name for name in documented if name not in case.expected]
        if missing:
            lines.append(f"  not documented: {missing}")
        if extra:
            lines.append(f"  documented but not in the signature: {extra}")
        if not missing and not extra:
            lines.append("  same names, different order (or a name documented twice)")
        problems.append("\n".join(lines))
    if case.needs_returns and "Returns" not in sections:
        problems.append(f"{case.name}: no Returns section")
    leftovers = LEFTOVER_MARKER.findall(case.doc or "")
    if leftovers:
        problems.append(f"{case.name}: fill_doc markers left in the docstring: {leftovers}")
    return problems


@pytest.mark.parametrize("case", CASES, ids=[case.name for case in CASES])
def test_docstring_matches_signature(case: Case) -> None:
    problems = docstring_problems(case)
    assert not problems, "\n".join(problems)


def _public_docstrings() -> dict[str, str | None]:
    """Every public docstring: modules, functions, classes and their package methods."""
    docs: dict[str, str | None] = {
        PACKAGE: sklearn_rank_metrics.__doc__,
        f"{PACKAGE}.dask": sklearn_rank_metrics.dask.__doc__,
        f"{PACKAGE}.spark": sklearn_rank_metrics.spark.__doc__,
    }
    for module, prefix in (
        (sklearn_rank_metrics, ""),
        (sklearn_rank_metrics.dask, "dask."),
        (sklearn_rank_metrics.spark, "spark."),
    ):
        for name in module.__all__:
            obj: Any = getattr(module, name)
            docs[prefix + name] = obj.__doc__
            if inspect.isclass(obj):
                for attribute, value in vars(obj).items():
                    function = getattr(value, "__func__", value)
                    if (
                        not attribute.startswith("_")
                        and inspect.isfunction(function)
                        and function.__module__.startswith(PACKAGE)
                    ):
                        docs[f"{name}.{attribute}"] = function.__doc__
    return docs


def test_no_leftover_fill_doc_marker() -> None:
    leftovers = {
        name: LEFTOVER_MARKER.findall(doc)
        for name, doc in _public_docstrings().items()
        if doc and LEFTOVER_MARKER.search(doc)
    }
    assert not leftovers, f"fill_doc markers left in public docstrings: {leftovers}"


def test_checker_reports_a_missing_parameter() -> None:
    def documented_badly(y_true, y_score, group=None, *, k=None, **params):
        """A local function whose docstring forgets ``k``.

        Parameters
        ----------
        y_true, y_score : array-like
            Labels and scores.
        group : array-like, default=None
            Query ids.
        **params
            Passed on.

        Returns
        -------
        score : float
        """

    case = function_case("documented_badly", documented_badly, module_level=True)
    assert case.expected == ["y_true", "y_score", "group", "k", "**params"]
    problems = docstring_problems(case)
    assert len(problems) == 1, problems
    assert "not documented: ['k']" in problems[0]
    assert "documented: ['y_true', 'y_score', 'group', '**params']" in problems[0]

    # the same docstring with k documented passes: the checker is not always failing
    documented_badly.__doc__ = documented_badly.__doc__.replace(
        "    **params\n", "    k : int, default=None\n            Cutoff.\n        **params\n"
    )
    assert (
        docstring_problems(function_case("documented_badly", documented_badly, module_level=True))
        == []
    )


def test_evaluate_docstring_lists_exactly_the_registered_metric_names():
    from sklearn_rank_metrics._metrics._registry import METRICS

    doc = " ".join(sklearn_rank_metrics.evaluate.__doc__.split())
    listed = re.search(r"name among ``([^`]*)``", doc)
    assert listed is not None, "evaluate's docstring lost its list of metric names"
    names = [name.strip() for name in listed.group(1).split(",")]
    assert sorted(names) == sorted(METRICS), (names, sorted(METRICS))


def test_fill_doc_refuses_a_marker_without_a_fragment():
    from sklearn_rank_metrics._metrics._base import fill_doc

    def metric(k=None):
        """Docstring.

        Parameters
        ----------
        [[k]]
        """

    def typo(k=None):
        """[[no_such_fragment]]"""

    assert "[[k]]" not in fill_doc(metric).__doc__
    with pytest.raises(ValueError, match=r"marker \[\[no_such_fragment\]\]"):
        fill_doc(typo)


def test_engine_fill_doc_fills_markers_in_order_and_refuses_leftovers():
    from sklearn_rank_metrics._engine._docs import fill_doc

    def method():
        """Returns a [[returned]]."""

    # a fragment may hold the marker of a later one (the displays' [[display]])
    filled = fill_doc(method, {"returned": "[[display]] object", "display": "MetricAtKDisplay"})
    assert filled is method
    assert method.__doc__ == "Returns a MetricAtKDisplay object."

    def typo():
        """[[returned]] [[no_such_fragment]]"""

    with pytest.raises(ValueError, match=r"typo has the marker \[\[no_such_fragment\]\]"):
        fill_doc(typo, {"returned": "a value"})


def _docstring_writes(path: Path) -> list[int]:
    """The lines of ``path`` that write a ``__doc__`` (``f.__doc__ = ...``, ``setattr``)."""
    lines = []
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        targets: list[Any] = []
        if isinstance(node, ast.Assign):
            targets = node.targets
        elif isinstance(node, (ast.AugAssign, ast.AnnAssign)):
            targets = [node.target]
        if any(isinstance(t, ast.Attribute) and t.attr == "__doc__" for t in targets) or (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Name)
            and node.func.id == "setattr"
            and any(isinstance(a, ast.Constant) and a.value == "__doc__" for a in node.args)
        ):
            lines.append(node.lineno)
    return lines


def test_fill_doc_is_the_one_routine_that_writes_docstrings():
    """Docstring text is shared through ``_engine._docs.fill_doc`` alone: no module
    writes a ``__doc__`` by hand (a second templating routine, without its check)."""
    package = Path(sklearn_rank_metrics.__file__).parent
    writes = {
        str(path.relative_to(package)): lines
        for path in sorted(package.rglob("*.py"))
        if (lines := _docstring_writes(path))
    }
    assert list(writes) == ["_engine/_docs.py"], writes
