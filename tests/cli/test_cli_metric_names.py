"""The command line's message for metric names separated by commas."""

from sklearn_rank_metrics._cli import main


def test_names_separated_by_commas_on_the_command_line(tmp_path, capsys):
    table = tmp_path / "rows.csv"
    table.write_text("query,grade,score\n0,1,0.9\n0,0,0.8\n0,1,0.7\n")
    common = ["evaluate", "--table", str(table), "--group", "query", "--y-true", "grade",
              "--y-score", "score", "--metrics"]
    assert main([*common, "map,ndcg_cut_10"]) != 0
    error = capsys.readouterr().err
    assert "separate them by spaces: --metrics map ndcg_cut_10." in error
    assert "Did you mean" not in error
    assert main([*common, "map", "ndcg_cut_10"]) == 0
