"""Issue 32: hostile names in the outputs of the comparison and the report, markers
for many runs, and the display parameters (``digits``, ``alpha``) of ``to_text``,
``to_markdown`` and ``to_latex``.

References: Markdown is parsed back by markdown-it-py (a CommonMark parser with
GitHub's pipe tables); LaTeX is checked by a small tokenizer written here (no TeX
engine on the test machine); the markers for many runs are parsed back and
compared with the p-values of the table; the level of a float32 alpha by hand.
"""

from __future__ import annotations

import csv
import io
import json
import re

import numpy as np
import pytest

from sklearn_rank_metrics import compare
from sklearn_rank_metrics._cli import main
from sklearn_rank_metrics._stats._comparison_table import comparison_tables, means_table
from sklearn_rank_metrics._stats._report import format_report

HOSTILE = [
    "$^{\\input{/etc/passwd}}$",  # the old math-mode passthrough
    "a|b\\|c",  # a pipe, and a backslash before a pipe
    "line\nbreak\r\nagain",
    "# heading",
    "<script>alert(1)</script>",
    "50% & 100# ~x_y^z [opt] {b}",
    "`code` *em* _em_ ~~del~~ [l](http://x) $x$ &amp;",
    "\x1b[31mred",
]


def _data(n_runs, n_queries=12, seed=0):
    rng = np.random.default_rng(seed)
    docs = 6
    y_true = rng.integers(0, 3, n_queries * docs).astype(float)
    group = np.repeat(np.arange(n_queries), docs)
    return y_true, group, rng


@pytest.fixture(scope="module")
def hostile_result():
    y_true, group, rng = _data(len(HOSTILE))
    scores = {
        name: y_true * (i % 3) + rng.normal(size=len(y_true)) for i, name in enumerate(HOSTILE)
    }
    # a hostile metric name cannot exist (they are validated); the baseline is hostile
    return compare(
        y_true, scores, group, metrics=["ndcg@10", "p@5"], baseline=HOSTILE[0],
        n_resamples=50, random_state=0,
    )  # fmt: skip


# --------------------------------------------------------------------------- LaTeX

# the commands the renderer may write; anything else after a backslash is an injection
_ALLOWED = {
    "toprule", "midrule", "bottomrule", "begin", "end", "centering", "caption", "medskip",
    "textbackslash", "textasciicircum", "textasciitilde", "textless", "textgreater",
    "textbar", "textsuperscript", "usepackage",
}  # fmt: skip


def _latex_check(latex, n_columns):
    """Every command allowed, braces balanced, $ only in markers, & count per row."""
    body = [line for line in latex.splitlines() if not line.startswith("%")]
    for token in re.findall(r"\\([A-Za-z]+|.)", "\n".join(body)):
        assert token in _ALLOWED or token in ("&", "%", "$", "#", "_", "{", "}", "\\"), token
    depth = 0
    for line in body:
        # with the escaped characters (and the row ends) removed, nothing is special
        plain = re.sub(r"\\[&%$#_{}\\]", "", line)
        markers = re.sub(r"\$\^\{[a-z]+\}\$", "", plain)
        for char in "#%~^$":
            assert char not in markers, line
        for char in plain:
            depth += {"{": 1, "}": -1}.get(char, 0)
            assert depth >= 0, line
        if line.endswith(" \\\\"):  # a table row: n_columns cells
            assert plain.count("&") == n_columns - 1, line
    assert depth == 0


def test_latex_escapes_every_name_and_has_no_passthrough(hostile_result):
    latex = hostile_result.to_latex()
    _latex_check(latex, 2 + 2)
    assert "\\input" not in latex
    # the old bypass by hand: every character printed as written
    assert r"\$\textasciicircum{}\{\textbackslash{}input\{/etc/passwd\}\}\$" in latex
    assert r"50\% \& 100\# \textasciitilde{}x\_y\textasciicircum{}z {[}opt{]} \{b\}" in latex
    assert "line break again" in latex  # line breaks are spaces
    assert "\x1b" not in latex and "\r" not in latex
    # the caption names the baseline, escaped
    caption = next(line for line in latex.splitlines() if line.startswith(r"\caption{"))
    assert r"against \$\textasciicircum{}\{\textbackslash{}input" in caption


def test_latex_means_table_caption_and_names():
    means = {HOSTILE[0]: {"ndcg@10": 0.5}, HOSTILE[5]: {"ndcg@10": 0.25}}
    latex = means_table(means, "Means over $^{\\input{x}}$.", digits=4, style="latex")
    _latex_check(latex, 3)
    assert "\\input" not in latex


def test_cli_latex_and_markdown_with_hostile_run_file_names(tmp_path, capsys):
    qrels = "1 0 d1 1\n1 0 d2 0\n2 0 d3 1\n2 0 d4 0\n"
    run = "1 Q0 d1 1 2.0 r\n1 Q0 d2 2 1.0 r\n2 Q0 d4 1 2.0 r\n2 Q0 d3 2 1.0 r\n"
    (tmp_path / "qrels").write_text(qrels)
    names = ["$^{\\input{x}}$.run", "a|b\\|c.run"]
    for name in names:
        (tmp_path / name).write_text(run)
    common = ["evaluate", "--qrels", str(tmp_path / "qrels"), "--metrics", "map"]
    for name in names:
        common += ["--run", str(tmp_path / name)]
    assert main([*common, "--format", "latex"]) == 0
    latex = capsys.readouterr().out
    _latex_check(latex, 3)
    assert "\\input" not in latex
    assert main([*common, "--format", "latex", "--baseline", names[1], "--resamples", "20"]) == 0
    latex = capsys.readouterr().out
    _latex_check(latex, 3)
    assert "\\input" not in latex
    assert main([*common, "--format", "markdown"]) == 0
    cells = _markdown_cells(capsys.readouterr().out)
    assert [row[1] for row in cells[0][1:]] == names


# --------------------------------------------------------------------------- Markdown


def _markdown_cells(markdown):
    """Every table of a Markdown document, parsed by markdown-it-py, as rows of cell text."""
    markdown_it = pytest.importorskip("markdown_it")
    parser = markdown_it.MarkdownIt("commonmark").enable(["table", "strikethrough"])
    tokens = parser.parse(markdown)
    tables, row = [], None
    for token in tokens:
        if token.type == "table_open":
            tables.append([])
        elif token.type == "tr_open":
            row = []
        elif token.type == "tr_close":
            tables[-1].append(row)
        elif token.type == "inline" and row is not None and tables:
            # the cell's text as rendered: only text (no link, code, emphasis, HTML)
            children = token.children or []
            assert all(child.type in ("text", "softbreak") for child in children), [
                child.type for child in children
            ]
            row.append("".join(child.content for child in children))
    return tables


def test_markdown_cells_read_back_as_the_names(hostile_result):
    markdown = hostile_result.to_markdown()
    summary, details = _markdown_cells(markdown)
    expected = [re.sub(r"[\r\n]+", " ", name) for name in HOSTILE]
    expected = [name.replace("\x1b", " ").strip() for name in expected]
    assert [row[1] for row in summary[1:]] == expected
    assert all(len(row) == 4 for row in summary + details)
    comparisons = [row[0] for row in details[1:] if row[0]]
    assert comparisons[0] == f"b {expected[1]} vs a {expected[0]}"
    # the caption is one paragraph of text, not a heading or HTML, naming the baseline
    caption_tokens = pytest.importorskip("markdown_it").MarkdownIt("commonmark").parse(
        markdown.split("\n\n")[0]
    )
    assert [t.type for t in caption_tokens] == ["paragraph_open", "inline", "paragraph_close"]
    children = caption_tokens[1].children
    assert all(child.type == "text" for child in children)
    assert f"against {expected[0]};" in "".join(child.content for child in children)


def test_markdown_means_table_caption_cannot_start_a_block():
    means = {"# x": {"map": 0.5}, "1. y": {"map": 0.25}}
    for caption in ("# heading", "- item", "1. item", "> quote", "<div>", "    code"):
        markdown = means_table(means, caption, digits=2, style="markdown")
        markdown_it = pytest.importorskip("markdown_it")
        tokens = markdown_it.MarkdownIt("commonmark").parse(markdown.split("\n\n")[0])
        assert tokens[0].type == "paragraph_open", caption
        assert tokens[1].children[0].content == caption.strip(), caption
        assert [row[1] for row in _markdown_cells(markdown)[0][1:]] == ["# x", "1. y"]


# --------------------------------------------------------------------------- text


def test_text_names_cannot_break_lines(hostile_result):
    text = hostile_result.to_text()
    n_pairs = len(HOSTILE) - 1
    # caption, blank, header + 8 runs, blank, header + 4 lines per comparison
    caption_lines = text.split("\n\n")[0].count("\n") + 1
    assert text.count("\n") + 1 == caption_lines + 1 + 1 + len(HOSTILE) + 1 + 1 + 4 * n_pairs
    assert "\x1b" not in text and "\r" not in text
    assert "line\\nbreak\\r\\nagain" in text and "\\x1b[31mred" in text
    long_text = hostile_result.to_long_text()
    assert long_text.count("\n") + 1 == 1 + 2 * n_pairs
    assert "\x1b" not in long_text


def test_report_text_names_cannot_break_lines():
    stats = {"mean": 0.5, "std_err": 0.1, "n_queries": 3, "n_undefined": 0, "n_skipped": 0}
    text = format_report({"a\nb": {"m\x1b": stats}, "c": {"m\x1b": stats}}, 4)
    assert text.count("\n") == 3 and "\x1b" not in text
    assert "a\\nb" in text and "m\\x1b" in text


def test_cli_text_header_names_cannot_break_lines(tmp_path, capsys):
    # the header above the text report printed file and run names raw: a newline in
    # a file name broke the header in two, an ESC reached the terminal
    folder = tmp_path / "dir\x1b[31m"
    folder.mkdir()
    table = folder / "runs\nfake: 9 queries.csv"
    table.write_text("group,y_true,a\nq1,1,0.9\nq1,0,0.1\nq2,1,0.3\nq2,0,0.7\n")
    assert main(["evaluate", "--table", str(table), "--y-score", "a", "--metrics", "mrr"]) == 0
    text = capsys.readouterr().out
    header = text.split("\n\n")[0]
    shown = str(table).replace("\x1b", "\\x1b").replace("\n", "\\n")
    assert header == f"{shown}: a: 2 queries"
    assert "\x1b" not in text

    qrels = folder / "qrels\n.txt"
    qrels.write_text("1 0 d1 1\n2 0 d2 1\n")
    run = folder / "run\x1b[0m\n.run"
    run.write_text("1 Q0 d1 1 1.0 tag\n3 Q0 d3 1 1.0 tag\n")
    for extra in ([], ["--answered-only"]):
        assert main(["evaluate", "--qrels", str(qrels), "--run", str(run), "--metrics", "map",
                     *extra]) == 0
        header = capsys.readouterr().out.split("\n\n")[0].splitlines()
        assert len(header) == 3, header  # the source, the convention, the dropped query
        assert header[0].startswith(str(qrels).replace("\x1b", "\\x1b").replace("\n", "\\n"))
        run_shown = "run\\x1b[0m\\n.run"
        assert header[0].endswith(f"(answered: {run_shown} 1)")
        assert header[2] == f"{run_shown}: 1 query only in the run was dropped (as trec_eval)"


def test_csv_and_json_keep_hostile_names_exactly(hostile_result):
    rows = list(csv.reader(io.StringIO(hostile_result.to_csv())))
    header = rows[0]
    assert [row[header.index("model_a")] for row in rows[1:]] == HOSTILE[1:] * 2
    document = json.loads(hostile_result.to_json())
    assert list(document["means"]) == HOSTILE
    assert document["baseline"] == HOSTILE[0]


# --------------------------------------------------------------------------- 30 runs


def _parse_numbers(marker):
    """'(2-4,7)' -> {2, 3, 4, 7}."""
    numbers = set()
    for part in marker.strip("()").split(","):
        low, _, high = part.partition("-")
        numbers.update(range(int(low), int(high or low) + 1))
    return numbers


@pytest.fixture(scope="module")
def thirty_runs():
    y_true, group, rng = _data(30, n_queries=10, seed=3)
    # run i is better the larger i (less noise): many significant pairs
    scores = {
        f"run{i:02d}": y_true * (i / 10) + rng.normal(size=len(y_true)) for i in range(30)
    }
    return compare(
        y_true, scores, group, metrics=["ndcg@10"], n_resamples=200, method="percentile",
        random_state=0,
    )  # fmt: skip


def test_thirty_runs_have_readable_markers_naming_the_runs_beaten(thirty_runs):
    table = thirty_runs.table
    number = {f"run{i:02d}": i + 1 for i in range(30)}
    expected = {name: set() for name in number}
    for _, row in table.iterrows():
        if row["p_value_permutation"] < 0.05:
            pair = (row.model_a, row.model_b)
            winner, loser = pair if row.mean_difference > 0 else pair[::-1]
            expected[winner].add(number[loser])
    assert max(len(v) for v in expected.values()) >= 10  # two-digit numbers are beaten
    summary = _markdown_cells(thirty_runs.to_markdown())[0]
    means = thirty_runs.means.set_index("model")["ndcg@10"]
    for label, model, cell in summary[1:]:
        assert label == str(number[model])
        value, _, marker = cell.partition(" ")
        assert value == f"{means[model]:.4f}"
        assert re.fullmatch(r"(\(\d+(-\d+)?(,\d+(-\d+)?)*\))?", marker), cell
        assert (_parse_numbers(marker) if marker else set()) == expected[model], model
        # readable: ranges, so never longer than the alternating worst case
        assert len(marker) <= 2 + 3 * 15
    caption = thirty_runs.to_text().split("\n\n")[0]
    assert "Run numbers after a mean" in caption.replace("\n", " ")
    latex = thirty_runs.to_latex()
    _latex_check(latex, 3)
    n_rows = 0
    for line in latex.splitlines():
        pattern = r"(\d+) & run(\d\d) & [0-9.]+(?:\\textsuperscript\{([0-9,-]+)\})? \\\\$"
        match = re.match(pattern, line)
        if match:
            marks = match.group(3)
            parsed = _parse_numbers(marks.replace("--", "-")) if marks else set()
            assert parsed == expected[f"run{match.group(2)}"]
            n_rows += 1
    assert n_rows == 30


def test_twenty_five_runs_keep_letters():
    y_true, group, rng = _data(25, n_queries=6, seed=1)
    scores = {f"r{i}": y_true + rng.normal(size=len(y_true)) for i in range(25)}
    result = compare(y_true, scores, group, metrics="map", n_resamples=20, random_state=0)
    labels = [row[0] for row in _markdown_cells(result.to_markdown())[0][1:]]
    assert labels == list("abcdefghijklmnoprstuvwxyz")


# --------------------------------------------------------------------------- digits, alpha


@pytest.mark.parametrize("method", ["to_text", "to_markdown", "to_latex"])
@pytest.mark.parametrize(
    "digits, error",
    [(-1, ValueError), (None, TypeError), (1.5, TypeError), ("4", TypeError), (True, TypeError)],
)
def test_digits_is_a_declared_int(hostile_result, method, digits, error):
    with pytest.raises(error, match=rf"The 'digits' parameter of ComparisonResult\.{method} "
                       r"must be an int in the range \[0, 17\]\. Got"):  # fmt: skip
        getattr(hostile_result, method)(digits=digits)


def test_digits_accepts_numpy_ints(hostile_result):
    assert hostile_result.to_text(digits=np.int64(2)) == hostile_result.to_text(digits=2)
    assert hostile_result.to_text(digits=0) != hostile_result.to_text(digits=2)


@pytest.mark.parametrize("alpha", [0, 1, 1.5, -0.1, float("nan")])
def test_alpha_out_of_range(hostile_result, alpha):
    with pytest.raises(ValueError, match=r"The 'alpha' parameter of ComparisonResult\.to_text"):
        hostile_result.to_text(alpha=alpha)


@pytest.mark.parametrize("alpha", ["0.05", None, True])
def test_alpha_of_the_wrong_type(hostile_result, alpha):
    with pytest.raises(TypeError, match=r"The 'alpha' parameter of ComparisonResult\.to_latex"):
        hostile_result.to_latex(alpha=alpha)


def test_numpy_float_alpha_is_the_level_it_prints_as(hostile_result):
    for alpha in (np.float32(0.05), np.float64(0.05), np.float16(0.25)):
        level = float(str(alpha))
        assert hostile_result.to_markdown(alpha=alpha) == hostile_result.to_markdown(alpha=level)
    # a p-value of exactly 0.05 is not below float32(0.05) (0.0500000007 in binary)
    columns = {
        "metric": np.array(["map", "map"], dtype=object),
        "model_a": np.array(["x", "y"], dtype=object),
        "model_b": np.array(["z", "z"], dtype=object),
        "n_queries": np.array([20, 20]),
        "mean_difference": np.array([0.1, 0.1]),
        "effect_size": np.array([0.5, 0.5]),
        "wins": np.array([10, 10]),
        "ties": np.array([5, 5]),
        "losses": np.array([5, 5]),
        "p_value_permutation": np.array([0.05, 0.049]),
    }
    means = {"x": {"map": 0.6}, "y": {"map": 0.6}, "z": {"map": 0.5}}
    text = comparison_tables(
        columns, means, baseline="z", correction=None, n_resamples=10, test="permutation",
        alpha=np.float32(0.05), digits=2, style="text",
    )  # fmt: skip
    rows = text.split("\n\n")[1].splitlines()
    assert rows[1].split()[:3] == ["a", "x", "0.60"]  # p = 0.05: not significant
    assert rows[2].split()[:3] == ["b", "y", "0.60ᶜ"]  # p = 0.049 < 0.05
