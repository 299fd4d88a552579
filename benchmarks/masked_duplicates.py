"""The repetition measure of issue 45: ``duplicates`` on a masked copy of the package.

Written-out public signatures and numpydoc section headers repeat on purpose (as in
scikit-learn, NumPy and pandas), so the measure blanks them before counting: every
function's and class's decorators and signature lines, and every numpydoc section
header (a title line and its underline of dashes). Line numbers are kept, so a row
the tool prints points at the same line of the real file.

Run from the repository root::

    python benchmarks/masked_duplicates.py            # prints duplicates' report
    python benchmarks/masked_duplicates.py --keep DIR # also leaves the copy in DIR

It needs the ``duplicates`` tool of this workplace on ``PATH``.
"""

from __future__ import annotations

import argparse
import ast
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent.parent / "sklearn_rank_metrics"
_UNDERLINE = re.compile(r"^\s*-{3,}\s*$")


def signature_lines(tree: ast.Module) -> set[int]:
    """The 1-based lines of every decorator and signature (up to the body's first line)."""
    lines: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            first = min([node.lineno] + [d.lineno for d in node.decorator_list])
            lines.update(range(first, node.body[0].lineno))
    return lines


def section_header_lines(text_lines: list[str]) -> set[int]:
    """The 1-based lines of numpydoc section headers: a title and its dashes."""
    lines: set[int] = set()
    for number, line in enumerate(text_lines[1:], start=2):
        if _UNDERLINE.match(line) and text_lines[number - 2].strip():
            lines.update((number - 1, number))
    return lines


def masked(source: str) -> str:
    """``source`` with its signatures and section headers blanked, lines kept."""
    text_lines = source.splitlines()
    blank = signature_lines(ast.parse(source)) | section_header_lines(text_lines)
    return "\n".join("" if n in blank else line for n, line in enumerate(text_lines, 1)) + "\n"


def masked_copy(destination: Path) -> Path:
    """A masked copy of the package's ``.py`` files under ``destination``."""
    root = destination / PACKAGE.name
    for path in sorted(PACKAGE.rglob("*.py")):
        target = root / path.relative_to(PACKAGE)
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(masked(path.read_text()))
    return root


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--keep", type=Path, help="leave the masked copy in this folder")
    parser.add_argument("--most", type=int, default=40, help="rows to print")
    args = parser.parse_args(argv)
    scratch = Path(tempfile.mkdtemp())
    try:
        root = masked_copy(args.keep or scratch)
        report = subprocess.run(
            ["duplicates", "--repo", str(root), "--most", str(args.most), "--seconds", "120"],
            capture_output=True, text=True, check=False,
        )
        sys.stdout.write(report.stdout + report.stderr)
        return report.returncode
    finally:
        shutil.rmtree(scratch)


if __name__ == "__main__":
    raise SystemExit(main())
