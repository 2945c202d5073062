"""The match loop's shortcuts change nothing written: remembered deals and hand ends, value texts, transcript pieces."""

import io
import random
import re
from collections import deque

import pytest

import dealer.match as match_module
from acpcbot.engine import State
from acpcbot.gamedef import load_game
from acpcbot.matchlog import format_values
from acpcbot.notation.loglines import values_text
from acpcbot.protocol import format_cards, parse_match_state, replay_betting
from dealer.config import MatchConfig
from dealer.logs import Transcript, _rendered
from dealer.match import Match
from dealer.rng import Dealer
from dealer.seats import SeatChannel, SeatClosed

STAMP = re.compile(rb"\d+\.\d{6}")


class _RandomSeat(SeatChannel):
    """A seat over the plain (TCP-like) path: it answers its turns from a seeded generator, now and then badly."""

    def __init__(self, match: Match, seat: int, rng: random.Random) -> None:
        self.match, self.seat, self.rng = match, seat, rng
        self.lines = deque([b"VERSION:2.0.0\r\n"])
        self.received: list[bytes] = []

    def send(self, line: bytes) -> None:
        self.received.append(line)
        state = self.match.progress.state
        if state is None or state.finished:
            return
        if self.match.config.seat_of(state.hand_id, state.current_player) != self.seat:
            return
        asked = line[line.rfind(b"\n", 0, len(line) - 2) + 1:-2]
        r = self.rng.random()
        bounds = state.raise_bounds()
        if r < 0.5 or bounds is None:
            action = b"c" if r < 0.95 else b"f"  # a fold with nothing to call is turned into a call, with a warning
        elif r < 0.75:
            action = b"f"
        else:
            action = b"r%d" % self.rng.randint(*bounds) if state.game.is_nolimit else b"r"
        if r > 0.97:
            self.lines.append(b"# thinking\r\n")
        self.lines.append(asked + b":" + action + b"\r\n")

    def drain(self, deadline, idle=None) -> None:
        pass

    def take_line(self) -> bytes | None:
        return self.lines.popleft() if self.lines else None

    def read_line(self, deadline, idle=None) -> bytes:
        line = self.take_line()
        if line is None:
            raise SeatClosed
        return line

    def close(self) -> None:
        pass


SEED = 3


def _play(game_name: str, hands: int, remember_ends: bool) -> tuple[bytes, list[float], Match]:
    game = load_game(game_name)
    n = game.num_players
    out = io.BytesIO()
    match = Match(MatchConfig("m", game, game_name, hands, SEED, [f"p{i}" for i in range(n)]), Transcript(out))
    if not remember_ends:
        match._ends = match._texts = None
    rng = random.Random(5)
    seats = [_RandomSeat(match, s, rng) for s in range(n)]
    result = match.run(seats)
    assert result.finished
    _check_final_views(game_name, hands, seats)
    return STAMP.sub(b"T", out.getvalue()), result.totals, match


def _check_final_views(game_name: str, hands: int, seats: list[_RandomSeat]) -> None:
    """Each view of a finished hand a seat got shows its position what the deal and the betting show it."""
    game = load_game(game_name)
    dealer = Dealer(game, SEED)
    deals = [dealer.deal() for _ in range(hands)]
    finals = 0
    for seat in seats:
        for line in b"".join(seat.received).decode().split("\r\n")[:-1]:
            ms = parse_match_state(line, game)
            if ms.state.finished:
                hole, board = deals[ms.hand_id]
                full = replay_betting(ms.betting, game, State(game, ms.hand_id, hole, board))
                assert line == f"MATCHSTATE:{ms.position}:{ms.hand_id}:{ms.betting}:{format_cards(full, ms.position)}"
                finals += 1
    assert finals == hands * game.num_players


@pytest.mark.parametrize("game_name", ["kuhn3p", "leducnl"])
def test_remembered_hand_ends_write_what_working_each_out_writes(game_name):
    with_ends, totals, match = _play(game_name, 600, True)
    assert 0 < len(match._ends) < 600  # the small deck's ends were remembered, and met again
    assert 0 < len(match._texts) < 600  # so were its deals' card texts
    without, totals_without, _ = _play(game_name, 600, False)
    assert with_ends == without
    assert totals == totals_without
    assert b"WARNING" in with_ends and b":f\r\n" in with_ends  # bad replies and folds were among them


def test_only_a_small_deck_remembers_its_hands_ends_and_never_more_than_the_bound(monkeypatch):
    _, _, match = _play("hunl", 30, True)
    assert match._ends is None and match._texts is None
    monkeypatch.setattr(match_module, "_ENDS_MAX", 5)
    _, _, match = _play("kuhn3p", 200, True)
    assert len(match._ends) == 5


def test_value_texts_are_the_log_format():
    values = [0.0, -0.0, 1.0, -1.0, 0.5, 1 / 3, -2 / 3, 12345.0, -100.25, 2.0000005]
    for _ in range(2):  # formatted, then remembered
        assert values_text(values) == format_values(values)
        assert values_text([-0.0]) == format_values([-0.0])


def test_the_transcripts_pieces_make_the_reference_lines():
    parts = [b"STARTED at 1.000000\n", (1_700_000_000_000_001, [b"A\r\n", b"", b"C\r\n"]),
             (1_700_000_000_123_456, 1, b"B:c\r\n"), (5, 0, b"piece without a line end"),
             (7, [b""] * 11 + [b"L\r\n"]), (8, 11, b"from seat 12\r\n")]
    assert b"".join(_rendered(parts)) == (
        b"STARTED at 1.000000\n"
        b"TO 1 at 1700000000.000001 A\r\nTO 3 at 1700000000.000001 C\r\n"
        b"FROM 2 at 1700000000.123456 B:c\r\n"
        b"FROM 1 at 0.000005 piece without a line end\n"
        b"TO 12 at 0.000007 L\r\n"
        b"FROM 12 at 0.000008 from seat 12\r\n")
