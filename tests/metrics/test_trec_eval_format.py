"""``evaluate(..., per_query="trec_eval")``: the text ``trec_eval -q`` prints.

The expected text is written by hand from trec_eval 10's print code
(``meas_print_single.c`` / ``meas_print_final.c``: ``"%-22s\\t%s\\t%6.4f"``, counts
``"%ld"``; ``m_num_q.c``: ``num_q`` among the summary lines; queries in ``strcmp``
order, ``get_qrels.c`` / ``get_trec_results.c``), the values by hand below. The
command line's runid and query sets are tested in ``tests/test_cli.py``.
"""

import numpy as np

from sklearn_rank_metrics import evaluate

# three queries with integer ids: as text, "10" sorts before "9"
Y = [1, 0, 1, 0, 0, 1, 0, 0]
S = [0.9, 0.8, 0.7, 0.6, 0.5, 0.4, 0.3, 0.2]
QID = [9, 9, 9, 10, 10, 10, 2, 2]
# query 9: relevant at ranks 1 and 3: AP (1 + 2/3) / 2, RR 1; query 10: relevant at
# rank 3: AP 1/3, RR 1/3; query 2: nothing relevant: 0 (the default policy).
EXPECTED = """\
map                   \t10\t0.3333
recip_rank            \t10\t0.3333
num_rel               \t10\t1
map                   \t2\t0.0000
recip_rank            \t2\t0.0000
num_rel               \t2\t0
map                   \t9\t0.8333
recip_rank            \t9\t1.0000
num_rel               \t9\t2
num_q                 \tall\t3
map                   \tall\t0.3889
recip_rank            \tall\t0.4444
num_rel               \tall\t3
"""


def test_per_query_trec_eval_text_by_hand():
    got = evaluate(Y, S, QID, metrics=["map", "recip_rank", "num_rel"], per_query="trec_eval")
    assert got == EXPECTED


def test_a_skipped_query_has_no_line_but_num_q_counts_the_rows_queries():
    # replace_undefined_by="skip": query 2 (no relevant row) leaves the mean and
    # loses its line, as a query trec_eval does not evaluate would
    got = evaluate(Y, S, np.array(QID), metrics=["map"], per_query="trec_eval",
                   replace_undefined_by="skip")  # fmt: skip
    assert got == (
        "map                   \t10\t0.3333\n"
        "map                   \t9\t0.8333\n"
        "num_q                 \tall\t3\n"
        "map                   \tall\t0.5833\n"  # (1/3 + 5/6) / 2
    )


def test_query_ids_with_control_characters_cannot_break_the_layout():
    # a query id with a tab or a line break (possible in a table's group column) split
    # its line into four fields or two lines; an ESC reached the terminal
    got = evaluate(
        [1, 0, 0, 1], [0.9, 0.1, 0.2, 0.8], ["a\tb", "a\tb", "c\x1b[0m\nd", "c\x1b[0m\nd"],
        metrics=["map"], per_query="trec_eval",
    )
    assert got == (
        "map                   \ta\\tb\t1.0000\n"
        "map                   \tc\\x1b[0m\\nd\t1.0000\n"
        "num_q                 \tall\t2\n"
        "map                   \tall\t1.0000\n"
    )
    assert all(line.count("\t") == 2 for line in got.splitlines())
