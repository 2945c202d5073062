"""tests/suite.py deals the test files out by their last times: per mark expression, longest first to the lightest."""

from __future__ import annotations

import suite


def test_each_mark_expression_keeps_its_own_times(tmp_path, monkeypatch):
    # make soak (-m slow) times a file by its 2,000-hand matches; make test must not deal by those times
    monkeypatch.setattr(suite, "CACHE", tmp_path)
    assert suite.durations_file("not slow") == tmp_path / "acpcbot-durations.json"  # make test's, as before
    assert suite.durations_file("slow") != suite.durations_file("not slow")
    assert suite.durations_file(None) not in (suite.durations_file("slow"), suite.durations_file("not slow"))
    suite.save_durations("not slow", {"tests/test_a.py": 2.0})
    suite.save_durations("slow", {"tests/test_a.py": 40.0})
    assert suite.load_durations("not slow") == {"tests/test_a.py": 2.0}
    assert suite.load_durations("slow") == {"tests/test_a.py": 40.0}
    assert suite.load_durations(None) == {}


def test_unreadable_times_count_as_none(tmp_path, monkeypatch):
    monkeypatch.setattr(suite, "CACHE", tmp_path)
    suite.durations_file("not slow").write_text("{not json")
    assert suite.load_durations("not slow") == {}
    suite.durations_file("not slow").write_text('{"tests/test_a.py": "x", "tests/test_b.py": 1}')
    assert suite.load_durations("not slow") == {"tests/test_b.py": 1.0}


def test_longest_first_to_the_lightest_shard():
    times = {"tests/a.py": 40.0, "tests/b.py": 30.0, "tests/c.py": 20.0, "tests/d.py": 15.0, "tests/e.py": 5.0}
    parts = suite.shards(sorted(times), times, 2)
    totals = sorted(sum(times[f] for f in part) for part in parts)
    assert totals == [55.0, 55.0] and sorted(f for p in parts for f in p) == sorted(times)
    # a file never timed counts as the median of the others
    assert suite.shards(["tests/a.py", "tests/new.py", "tests/b.py"], {"tests/a.py": 9.0, "tests/b.py": 1.0}, 2) == \
        [["tests/a.py"], ["tests/new.py", "tests/b.py"]]
