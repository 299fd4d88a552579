"""The caller's name in a context variable: outermost wins, reset on exit, per thread."""

import threading

import pytest

from sklearn_rank_metrics._engine._caller import called_as, caller_name, entry_point


@entry_point
def outer_function():
    return inner_function()


@entry_point
def inner_function():
    return caller_name()


@entry_point
def failing_function():
    raise ValueError(caller_name())


def test_outside_any_entry_point_the_default_is_returned():
    assert caller_name() == "this function"
    assert caller_name("evaluate") == "evaluate"


def test_the_outermost_entry_point_names_the_call():
    assert inner_function() == "inner_function"
    assert outer_function() == "outer_function"
    with called_as("compare"):
        assert outer_function() == "compare"
    assert caller_name() == "this function"


def test_the_name_is_reset_after_an_error():
    with pytest.raises(ValueError, match="failing_function"):
        failing_function()
    assert caller_name() == "this function"


def test_threads_do_not_see_each_other_s_name():
    seen = {}
    inside = threading.Event()
    release = threading.Event()

    def hold():
        with called_as("held_function"):
            inside.set()
            release.wait(10)
            seen["held"] = caller_name()

    thread = threading.Thread(target=hold)
    thread.start()
    inside.wait(10)
    seen["main"] = caller_name()
    release.set()
    thread.join(10)
    assert seen == {"held": "held_function", "main": "this function"}


def test_the_wrapper_keeps_the_signature_and_docstring():
    assert inner_function.__name__ == "inner_function"
    assert inner_function.__wrapped__() == "this function"


def test_renamed_as_overrides_the_caller_inside_its_block_only():
    from sklearn_rank_metrics._engine._caller import renamed_as

    with called_as("evaluate"):
        with renamed_as("ndcg_score"):
            assert caller_name() == "ndcg_score"
            with called_as("compare"):  # an inner public function does not take over
                assert caller_name() == "ndcg_score"
        assert caller_name() == "evaluate"
        with renamed_as(None):  # None keeps the current name
            assert caller_name() == "evaluate"
    assert caller_name() == "this function"


def test_renamed_as_is_reset_after_an_error():
    from sklearn_rank_metrics._engine._caller import renamed_as

    with pytest.raises(ValueError, match="renamed"):
        with renamed_as("renamed"):
            raise ValueError(caller_name())
    assert caller_name() == "this function"
