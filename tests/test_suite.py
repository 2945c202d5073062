"""tests/suite.py hands the test files out in chunks by their last times (per mark expression), heaviest first."""

from __future__ import annotations

import suite


def test_each_mark_expression_keeps_its_own_times(tmp_path, monkeypatch):
    # make soak (-m slow) times a file by its 2,000-hand matches; make test must not deal by those times
    monkeypatch.setattr(suite, "CACHE", tmp_path)
    monkeypatch.setattr(suite, "SHIPPED", tmp_path / "shipped")
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
    monkeypatch.setattr(suite, "SHIPPED", tmp_path / "shipped")
    suite.durations_file("not slow").write_text("{not json")
    assert suite.load_durations("not slow") == {}
    suite.durations_file("not slow").write_text('{"tests/test_a.py": "x", "tests/test_b.py": 1}')
    assert suite.load_durations("not slow") == {"tests/test_b.py": 1.0}


def test_a_fresh_clone_deals_by_the_shipped_times(tmp_path, monkeypatch):
    # CI runs a clean clone: no cache, so the times kept in tests/durations/ deal the files out
    monkeypatch.setattr(suite, "CACHE", tmp_path / "none")
    for marks in ("not slow", "slow"):
        shipped = suite.load_durations(marks)
        assert "tests/test_adaptive_play.py" in shipped and all(v >= 0 for v in shipped.values()), marks
    assert suite.load_durations("not slow") != suite.load_durations("slow")
    # a run's own times take over once there are some
    monkeypatch.setattr(suite, "CACHE", tmp_path)
    suite.save_durations("not slow", {"tests/test_a.py": 2.0})
    assert suite.load_durations("not slow") == {"tests/test_a.py": 2.0}


def test_a_file_never_timed_weighs_the_median():
    assert suite.weights(["tests/a.py", "tests/new.py", "tests/b.py"], {"tests/a.py": 9.0, "tests/b.py": 1.0}) == \
        {"tests/a.py": 9.0, "tests/new.py": 5.0, "tests/b.py": 1.0}
    assert suite.weights(["tests/a.py"], {}) == {"tests/a.py": 1.0}


def test_heavy_files_run_alone_and_light_ones_together_heaviest_first():
    times = {f"tests/t{i:02d}.py": float(t) for i, t in enumerate([40, 30, 1, 1, 1, 1, 1, 1, 2, 2, 0.5, 0.5])}
    parts = suite.chunks(sorted(times), times, 2)
    assert sorted(f for p in parts for f in p) == sorted(times)  # every file once
    assert parts[:2] == [["tests/t00.py"], ["tests/t01.py"]]  # the long files start at once, one process each
    weights = [sum(times[f] for f in p) for p in parts]
    assert weights == sorted(weights, reverse=True)  # the light chunks come last: the workers end together
    target = sum(times.values()) / (2 * suite.CHUNKS_PER_JOB)
    assert all(w <= target + 2 for w in weights[2:])  # small chunks: a file over the target at most
    # no times at all (a fresh checkout, as in CI): the files are still spread over several chunks
    fresh = suite.chunks([f"tests/t{i:02d}.py" for i in range(40)], {}, 2)
    assert len(fresh) >= 4 and sorted(f for p in fresh for f in p) == [f"tests/t{i:02d}.py" for i in range(40)]


def test_a_file_without_selected_tests_weighs_nothing_next_time(tmp_path):
    # make soak selects a few files' tests: the rest must weigh 0, not the median, or the two longest files
    # (test_blind_br, test_adaptive_play) were packed into one chunk and one worker carried both (290 s)
    report = tmp_path / "chunk.xml"
    report.write_text('<testsuites><testsuite><testcase classname="tests.test_a" name="t" time="40.5"/>'
                      '</testsuite></testsuites>')
    assert suite.chunk_times(report, ["tests/test_a.py", "tests/test_b.py"]) == \
        {"tests/test_a.py": 40.5, "tests/test_b.py": 0.0}
    report.write_text("<testsuites/>")  # nothing selected at all
    assert suite.chunk_times(report, ["tests/test_b.py"]) == {"tests/test_b.py": 0.0}
    report.write_text("<cut short")  # a crashed run says nothing
    assert suite.chunk_times(report, ["tests/test_b.py"]) == {}
    assert suite.chunk_times(tmp_path / "missing.xml", ["tests/test_b.py"]) == {}
