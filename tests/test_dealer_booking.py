"""The match books a finished hand after the next hand's first request, dealt while a player thinks
(dealer.match.Match._book, MatchProgress.deal_ahead): the same deals, and nothing finished is lost when a match stops.
"""

import io

from acpcbot.gamedef import load_game
from dealer.config import MatchConfig
from dealer.logs import Transcript
from dealer.match import Match
from dealer.progress import MatchProgress
from dealer.resume import open_match_files
from dealer.seats import SeatChannel, SeatClosed


def test_a_hand_dealt_ahead_is_the_hand_dealt_in_turn():
    game = load_game("hunl")
    config = MatchConfig(match_name="m", game=game, game_arg="hunl", num_hands=5, seed=11, names=["a", "b"])
    in_turn, ahead = MatchProgress.fresh(config), MatchProgress.fresh(config)
    for h in range(1, 5):
        dealt = ahead.deal_ahead(config, h)
        assert dealt is not None and ahead.deal_ahead(config, h) is dealt  # dealt once
        in_turn.deal(config, h)
        ahead.deal(config, h)
        assert ahead.state is dealt and ahead.ahead is None
        assert (ahead.state.hand_id, ahead.state.hole, ahead.state.board) == \
            (in_turn.state.hand_id, in_turn.state.hole, in_turn.state.board)
    assert ahead.deal_ahead(config, 5) is None  # past the match's last hand


class _CallSeat(SeatChannel):
    """A player that calls every state it is asked; ``fail`` says which data makes its connection fail."""

    def __init__(self, fail=lambda data: False):
        self.fail = fail
        self.last = b""
        self.replies = [b"VERSION:2.0.0\r\n"]

    def send(self, line):
        if self.fail(line):
            raise SeatClosed
        self.last = line.rstrip(b"\r\n").rsplit(b"\r\n", 1)[-1]

    def drain(self, deadline, idle=None):
        pass

    def take_line(self):
        return self.replies.pop(0) if self.replies else None

    def read_line(self, deadline, idle=None):
        line = self.take_line()
        return line if line is not None else self.last + b":c\r\n"

    def close(self):
        pass


def _play(tmp_path, monkeypatch, name, seats, hands=4):
    monkeypatch.chdir(tmp_path)
    game = load_game("hunl")
    config = MatchConfig(match_name=name, game=game, game_arg="hunl", num_hands=hands, seed=3, names=["a", "b"])
    match = Match(config, Transcript(io.BytesIO()), open_match_files(config, use_log=True))
    result = match.run(seats)
    return result, (tmp_path / f"{name}.log").read_text().splitlines()


def test_a_hand_finished_before_the_match_stops_is_booked(tmp_path, monkeypatch):
    whole, whole_log = _play(tmp_path, monkeypatch, "whole", [_CallSeat(), _CallSeat()])
    assert whole.finished and whole.hands_played == 4
    # the connection fails on hand 2's first request: hands 0 and 1 are in the books, as they were before
    first_of_2 = lambda data: b":2::" in data  # noqa: E731
    cut, cut_log = _play(tmp_path, monkeypatch, "cut", [_CallSeat(first_of_2), _CallSeat(first_of_2)])
    assert not cut.finished and cut.hands_played == 2
    states = [line for line in cut_log if line.startswith("STATE:")]
    assert states == [line for line in whole_log if line.startswith("STATE:")][:2]
    assert not any(line.startswith("SCORE:") for line in cut_log)
    assert sum(cut.totals) == 0 and cut.totals == [sum(v) for v in zip(*_values(states, ["a", "b"]))]


def _values(states, names):
    """Each STATE line's values by seat name order."""
    out = []
    for line in states:
        fields = line.split(":")
        by_name = dict(zip(fields[5].split("|"), (float(v) for v in fields[4].split("|"))))
        out.append([by_name[n] for n in names])
    return out
