"""read_letor's line scans from the line breaks give the matches of the ``^`` patterns.

The ``^``-anchored patterns (one match per data line, comment line or docid) are
the rule; the scans that start from a line break (3 to 8 times faster) must find
exactly what ``pattern.findall`` / ``finditer`` over the whole file find, on hostile
bytes: blank and comment first lines, CR line ends, indentation, vertical tabs,
a docid whose ``=`` ends a line, no final line break.
"""

from __future__ import annotations

import numpy as np
import pytest

from sklearn_rank_metrics._io import _letor

CASES = [
    b"",
    b"\n",
    b"\n\n\n",
    b"1 qid:3 1:0.5\n0 qid:3 1:0.1",
    b"\n1 qid:3 1:0.5\n\n0 qid:4 1:0.1\n",
    b"# head\n1 qid:3 1:0.5 # docid = a\n#\n0 qid:3 1:0.1 #docid=b\n",
    b"  \t1 qid:7 1:2\r\n\r\n0\tqid:7 2:3\r\n",
    b"\v\f\n1 qid:1 1:1 # docid =\n2 qid:1 1:1 # docid = c\n",
    b"1 qid:1 # docid =\n\n2 qid:2 # docid = d",
    b"#only a comment",
    b"1\n2 qid:\n3 qid:x#\n 4 qid:5#docid = e\n",
]


def other_starts(data):
    location = _letor._data_row_location(data, "f")
    # the data line of each row, as the error messages name it
    n_rows = len(_letor._DATA_LINE.findall(data))
    return [location(row) for row in range(n_rows)]


def reference_other_starts(data):
    starts = [match.start() for match in _letor._OTHER_LINE.finditer(data)]
    newlines = [i for i, byte in enumerate(data) if byte == ord("\n")]
    other = sorted({sum(1 for n in newlines if n < start) + 1 for start in starts})
    lines = [n for n in range(1, data.count(b"\n") + 2) if n not in other]
    return [f"f, line {line}" for line in lines[: len(_letor._DATA_LINE.findall(data))]]


def random_files(n):
    rng = np.random.default_rng(0)
    alphabet = [b"1", b"0", b" ", b"\t", b"\n", b"\n", b"\r", b"#", b"qid:", b"docid",
                b"=", b"\v", b"2:", b"a"]
    return [b"".join(rng.choice(alphabet, size=int(rng.integers(0, 40))).tolist())
            for _ in range(n)]


@pytest.mark.parametrize("data", CASES + random_files(300))
def test_line_scans_match_the_anchored_patterns(data):
    for pattern, after in [(_letor._DATA_LINE, _letor._DATA_AFTER_BREAK),
                           (_letor._DOCID_RE, _letor._DOCID_AFTER_BREAK)]:
        assert _letor._line_findall(data, pattern, after) == pattern.findall(data)
    assert other_starts(data) == reference_other_starts(data)


def test_a_docid_whose_equals_ends_the_line_skips_the_next_line_as_before():
    data = CASES[7]
    assert _letor._DOCID_RE.findall(data) == [b"2"]  # the rule: the match runs on
    assert _letor._line_findall(data, _letor._DOCID_RE, _letor._DOCID_AFTER_BREAK) == [b"2"]
