"""The frozen Settings of the multi-metric doors, and the names their errors carry."""

import dataclasses
import math
import pickle

import numpy as np
import pytest

from sklearn_rank_metrics import (
    RankingEvaluator,
    evaluate,
    make_lightgbm_metric,
    make_ranking_scorers,
)
from sklearn_rank_metrics._engine._caller import called_as, caller_name, entry_point, renamed_as
from sklearn_rank_metrics._engine._present import present
from sklearn_rank_metrics._metrics._evaluate import metric_names, metric_settings
from sklearn_rank_metrics._metrics._registry import parse_metric
from sklearn_rank_metrics._metrics._settings import Settings


def test_settings_are_frozen_hashable_and_in_keyword_order():
    settings = Settings.from_arguments(ties="input", relevance_level=2.0)
    assert settings == Settings(None, "input", None, 2.0)
    assert hash(settings) == hash(Settings(ties="input", relevance_level=2.0))
    with pytest.raises(dataclasses.FrozenInstanceError):
        settings.ties = "average"  # type: ignore[misc]
    assert list(settings.as_dict()) == [
        "convention",
        "ties",
        "replace_undefined_by",
        "relevance_level",
    ]
    assert pickle.loads(pickle.dumps(settings)) == settings


def test_given_leaves_out_none_unaccepted_and_named_settings():
    settings = Settings(convention=None, ties="pessimistic", replace_undefined_by=1.0)
    assert settings.given() == {"ties": "pessimistic", "replace_undefined_by": 1.0}
    assert settings.given(accepted={"ties", "k"}) == {"ties": "pessimistic"}
    assert settings.given(named={"ties"}) == {"replace_undefined_by": 1.0}


def test_coerce_takes_the_dict_other_callers_still_build():
    shared = {"convention": None, "ties": "input", "replace_undefined_by": None,
              "relevance_level": None}
    assert Settings.coerce(shared) == Settings(ties="input")
    settings = Settings(ties="input")
    assert Settings.coerce(settings) is settings


def test_checked_names_the_caller_or_the_given_name():
    message = "The 'ties' parameter of evaluate must be"
    with called_as("evaluate"), pytest.raises(ValueError, match=message):
        Settings(ties="sideways").checked()
    message = "The 'ties' parameter of compare must be"
    with called_as("evaluate"), renamed_as("compare"), pytest.raises(ValueError, match=message):
        Settings(ties="sideways").checked()
    with pytest.raises(TypeError, match="'relevance_level' parameter of RankingEvaluator"):
        RankingEvaluator(["mrr"], relevance_level="high")


def test_metric_settings_reads_settings_and_dicts_alike():
    spec = parse_metric("p@3")
    from_settings = metric_settings(spec, Settings(relevance_level=2.0))
    from_dict = metric_settings(spec, {"relevance_level": 2.0, "ties": None})
    assert from_settings == from_dict
    assert from_settings[0]["relevance_level"] == 2.0
    # the name's own setting wins over the shared one
    spec = parse_metric("p(relevance_level=3)@3")
    assert metric_settings(spec, Settings(relevance_level=2.0))[0]["relevance_level"] == 3


def test_scorers_get_only_the_settings_their_metric_takes():
    # ndcg has no relevance_level (it reads graded gains); p's name fixes its ties
    scorers = make_ranking_scorers(
        ["ndcg@3", "p(ties=input)@3"], ties="pessimistic", relevance_level=1.0
    )
    assert scorers["ndcg@3"].metric_params == {"k": 3, "ties": "pessimistic"}
    assert scorers["p(ties=input)@3"].metric_params == {
        "k": 3,
        "ties": "input",
        "relevance_level": 1.0,
    }


def test_evaluator_from_an_old_pickle_keeps_its_settings():
    evaluator = RankingEvaluator(["mrr"], ties="input")
    state = evaluator.__getstate__()
    old_state = {key: value for key, value in state.items() if key != "settings"}
    old_state["shared"] = {"convention": None, "ties": "input",
                           "replace_undefined_by": None, "relevance_level": None}
    restored = RankingEvaluator.__new__(RankingEvaluator)
    restored.__setstate__(old_state)
    assert restored.settings == Settings(ties="input")
    # all scores tie: in input order the relevant row is second (RR 1/2)
    restored.update([0, 1, 0], [0.5, 0.5, 0.5], [1, 1, 1])
    assert restored.compute() == {"mrr": 0.5}


def test_the_attributes_users_could_read_keep_their_form():
    evaluator = RankingEvaluator(["mrr"], ties="input")
    assert evaluator.shared == {"convention": None, "ties": "input",
                                "replace_undefined_by": None, "relevance_level": None}
    metric = make_lightgbm_metric("mrr@10", ties="input")
    assert metric.settings == {"convention": None, "ties": "input",
                               "replace_undefined_by": None, "relevance_level": None}
    assert repr(metric) == "LightGBMMetric('mrr@10', ties='input')"


def test_merge_message_shows_the_settings_as_before():
    left = RankingEvaluator(["mrr"], ties="input")
    right = RankingEvaluator(["mrr"])
    expected = (
        "RankingEvaluator.merge needs the same metrics and settings on both sides; got "
        "['mrr'] {'convention': None, 'ties': None, 'replace_undefined_by': None, "
        "'relevance_level': None} and ['mrr'] {'convention': None, 'ties': 'input', "
        "'replace_undefined_by': None, 'relevance_level': None}."
    )
    with pytest.raises(ValueError) as error:
        left.merge(right)
    assert str(error.value) == expected


def test_errors_name_the_door_the_call_came_through():
    with pytest.raises(ValueError, match="y_score of evaluate must not be NaN"):
        evaluate([1, 0], [0.5, math.nan], [1, 1], metrics=["mrr"])
    evaluator = RankingEvaluator(["mrr"])
    with pytest.raises(ValueError, match="y_score of RankingEvaluator.update must not be NaN"):
        evaluator.update([1, 0], [0.5, math.nan], [1, 1])
    with pytest.raises(ValueError, match="'per_query' parameter of RankingEvaluator.compute"):
        evaluator.compute(per_query="csv")
    with pytest.raises(ValueError, match="'metrics' parameter of RankingEvaluator must"):
        RankingEvaluator([])
    # outside any door, an engine helper says so rather than naming a wrong function
    assert caller_name() == "this function"
    with pytest.raises(ValueError, match="'metrics' parameter of this function must"):
        metric_names([])


def test_entry_point_with_a_name():
    class Thing:
        @entry_point(name="Thing.run")
        def run(self):
            return caller_name()

    assert Thing().run() == "Thing.run"
    assert Thing.run.__name__ == "run"


def test_present_narrows_or_names_the_missing_field():
    array = np.arange(3)
    assert present(array, "x") is array
    with pytest.raises(RuntimeError, match="tied_rows is None"):
        present(None, "tied_rows")
