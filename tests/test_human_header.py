"""acpc-match human's first line counts hands in English: "1 hand", "2 hands"."""

from __future__ import annotations

import pytest

from dealer.arena import humanplay
from dealer.arena.cli import build_parser


@pytest.mark.parametrize("hands, words", [(1, "1 hand of"), (2, "2 hands of")])
def test_the_first_line_counts_hands(tmp_path, capsys, monkeypatch, hands, words):
    async def no_match(*args, **kwargs):  # the header is the point; no dealer is started
        return 0

    monkeypatch.setattr(humanplay, "_play", no_match)
    args = build_parser().parse_args(["human", "--game", "kuhn2p", "--hands", str(hands), "--seed", "1",
                                      "--bot", "call", "--runs-dir", str(tmp_path)])
    assert humanplay.main(args) == 0
    first = capsys.readouterr().out.splitlines()[0]
    assert words in first and "1 hands" not in first
