"""The test helpers' own tests: the in-memory arena and the TCP dealer agree, duplicate cancels the deal."""

from __future__ import annotations

import pytest
from playkit import duplicate, play_dealer, play_memory, score_line

from acpcbot.client import EXIT_OK

# ----------------------------------------------------------------- the helpers' own tests

def test_memory_match_agrees_with_the_tcp_dealer(tmp_path):
    """Same seed, same deterministic players: the in-memory loop and the real dealer score alike."""
    mem = play_memory("hunl", ["call", "raise:size=pot"], 60, 11)
    tcp = play_dealer("hunl", ["call", "raise:size=pot"], 60, 11)
    assert tcp.codes == [EXIT_OK, EXIT_OK] and tcp.warnings() == []
    score = score_line(tcp.stdout)
    assert score == {"p1": pytest.approx(mem.totals[0]), "p2": pytest.approx(mem.totals[1])}
    assert mem.totals[0] != 0 and sum(mem.totals) == pytest.approx(0)


def test_duplicate_cancels_the_deal():
    """A player against itself in a duplicate pair scores exactly 0 when it is deterministic."""
    mean, se = duplicate("hunl", "call", "call", 50, 3)
    assert mean == 0 and se == 0
