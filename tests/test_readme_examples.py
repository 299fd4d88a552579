"""The README's Python examples run as written and print what the README shows.

All ```python blocks run in order in one fresh interpreter (later examples continue
earlier ones, and an example may change scikit-learn's global configuration). A
block followed by a ```text block must print exactly that text.
"""

import re
import subprocess
import sys
from pathlib import Path

import pytest
import sklearn

README = (Path(__file__).resolve().parents[1] / "README.md").read_text()
BLOCK = re.compile(r"```(python|text)\n(.*?)```", re.DOTALL)
MARKER = "----- end of README example -----"


def _examples():
    """(code, expected output or None) for every python block, in order."""
    blocks = [(match.group(1), match.group(2), match.start(), match.end())
              for match in BLOCK.finditer(README)]
    examples = []
    for index, (kind, text, _, end) in enumerate(blocks):
        if kind != "python":
            continue
        following = blocks[index + 1] if index + 1 < len(blocks) else None
        adjacent = following is not None and README[end:following[2]].strip() == ""
        expected = following[1].strip() if adjacent and following[0] == "text" else None
        examples.append((text, expected))
    return examples


def test_readme_has_checked_model_selection_examples():
    examples = _examples()
    assert sum(expected is not None for _, expected in examples) >= 3
    assert any("enable_metadata_routing=True" in code for code, _ in examples)
    assert any("group_column=" in code for code, _ in examples)
    assert any("GroupedRanker(LGBMRanker" in code for code, _ in examples)


def test_readme_examples_print_what_the_readme_shows():
    examples = _examples()
    program = f"\nprint({MARKER!r})\n".join(code for code, _ in examples)
    program += f"\nprint({MARKER!r})\n"
    completed = subprocess.run(
        [sys.executable, "-c", program], capture_output=True, text=True, check=False
    )
    assert completed.returncode == 0, completed.stderr
    outputs = completed.stdout.split(MARKER + "\n")[:-1]
    assert len(outputs) == len(examples)
    if tuple(int(part) for part in sklearn.__version__.split(".")[:2]) < (1, 9):
        pytest.skip(
            "The README's numbers come from scikit-learn >= 1.9, whose GroupKFold breaks "
            "ties between equal-sized queries stably; older versions build other folds."
        )
    for (code, expected), output in zip(examples, outputs, strict=True):
        if expected is not None:
            assert output.strip() == expected, f"README example:\n{code}\nprinted:\n{output}"
