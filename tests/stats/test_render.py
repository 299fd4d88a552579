"""The output layer: every renderer escapes the user text of a Table for its format,
and writes Verbatim cells and Marks its own way. Expected texts written by hand."""

import json
import math
from pathlib import Path

import pytest

from sklearn_rank_metrics._render import FORMATS, _csv, _json, _latex, _markdown, _text, render
from sklearn_rank_metrics._render._table import Marks, Table, Verbatim

PACKAGE = Path(__file__).resolve().parents[2] / "sklearn_rank_metrics"

# a user name with something special in every format, a number, a marker
TABLE = Table(
    ["", "run", "p_1"],
    [
        [Verbatim("a"), "x|y\n$", (Verbatim("-0.50"), Marks("bc", letters=True))],
        [Verbatim("b"), "-z", (Verbatim("0.25"), Marks("2-4,7", letters=False))],
    ],
    left=2,
)


def test_text():
    # widths 1, 6 (x|y\\n$ shown with its escape), 12 (0.25 (2-4,7)); two spaces apart
    assert _text.render("cap\ttion", [TABLE]) == "\n".join([
        "cap\\ttion",
        "",
        " " + "  " + "run   " + "  " + " " * 9 + "p_1",
        "a" + "  " + "x|y\\n$" + "  " + " " * 5 + "-0.50ᵇᶜ",
        "b" + "  " + "-z    " + "  " + "0.25 (2-4,7)",
    ])


def test_markdown():
    assert _markdown.render("# cap", [TABLE]) == (
        "\\# cap\n"
        "\n"
        "|  | run | p\\_1 |\n"
        "| --- | --- | ---: |\n"
        "| a | x\\|y \\$ | -0.50ᵇᶜ |\n"  # a Verbatim number keeps its sign unescaped
        "| b | \\-z | 0.25 (2-4,7) |"
    )


def test_latex():
    assert _latex.render("50% & more", [TABLE, TABLE]).splitlines() == [
        r"% \usepackage{booktabs}",
        r"\begin{table}",
        r"\centering",
        r"\caption{50\% \& more}",
        *[
            *[r"\begin{tabular}{llr}", r"\toprule", r" & run & p\_1 \\", r"\midrule",
              r"a & x\textbar{}y \$ & -0.50$^{bc}$ \\",
              r"b & -z & 0.25\textsuperscript{2--4,7} \\",
              r"\bottomrule", r"\end{tabular}"],
            r"\medskip", "",
            *[r"\begin{tabular}{llr}", r"\toprule", r" & run & p\_1 \\", r"\midrule",
              r"a & x\textbar{}y \$ & -0.50$^{bc}$ \\",
              r"b & -z & 0.25\textsuperscript{2--4,7} \\",
              r"\bottomrule", r"\end{tabular}"],
        ],
        r"\end{table}",
    ]


def test_render_dispatches_and_refuses_an_unknown_format():
    assert render("text", None, [TABLE]) == _text.render(None, [TABLE])
    assert set(FORMATS) == {"text", "markdown", "latex"}
    with pytest.raises(ValueError, match="The format must be one of"):
        render("html", None, [TABLE])


def test_text_gap_and_blank_line_under_the_header():
    table = Table(["", "mean"], [["m", Verbatim("0.5")]], left=1)
    assert _text.render(None, [table], gap=3, blank_after_header=True) == (
        "    mean\n\nm    0.5"
    )


def test_csv_quotes_and_writes_every_digit():
    assert _csv.render(["name", "value"], [["a,b", 0.1 + 0.2], ['"q"', math.nan], [None, 3]]) == (
        'name,value\n"a,b",0.30000000000000004\n"""q""",nan\n,3\n'
    )


def test_json_safe_at_any_depth():
    document = {"a": [1.0, math.nan, {"b": math.nan}], "c": "x\ny"}
    assert json.loads(_json.render(document)) == {"a": [1.0, None, {"b": None}], "c": "x\ny"}


def test_one_json_safe_in_the_package():
    defined = [
        path.relative_to(PACKAGE).as_posix()
        for path in PACKAGE.rglob("*.py")
        if "def _json_safe(" in path.read_text() or "def json_safe(" in path.read_text()
    ]
    assert defined == ["_render/_json.py"]


def test_latex_ends_with_one_line_break_as_a_tex_file_does(tmp_path, capsys):
    # a .tex file ends with a line break (pandas' to_latex too): one, never two
    from sklearn_rank_metrics import compare
    from sklearn_rank_metrics._cli import main

    assert _latex.render(None, [TABLE]).endswith("\\end{table}\n")
    y_true, qid = [1, 0, 1, 0], [1, 1, 2, 2]
    scores = {"a": [2, 1, 2, 1], "b": [1, 2, 1, 2]}
    result = compare(y_true, scores, qid, metrics=["mrr"], n_resamples=10, random_state=0)
    assert result.to_latex().endswith("\\end{table}\n")
    assert not result.to_latex().endswith("\n\n")
    (tmp_path / "t.csv").write_text("group,y_true,y_score\n1,1,2\n1,0,1\n2,1,1\n2,0,2\n")
    assert main(["evaluate", "--table", str(tmp_path / "t.csv"), "--format", "latex"]) == 0
    printed = capsys.readouterr().out
    assert printed.endswith("\\end{table}\n") and not printed.endswith("\n\n")
