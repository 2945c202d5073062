"""Games that deal board cards in the first round (issue 13, item 4).

The protocol writes the first round's board right after the last hole-card
group: ``MATCHSTATE:0:0::Jd|Kd`` in a game of one hole card and one board
card is position 0 holding Jd, position 1's card hidden, and Kd on the
board.  The game's card counts tell the board from hidden hole cards.
"""

from __future__ import annotations

import asyncio
import random

import pytest
from client_fakedealer import DealingDealer
from dealerkit import always_call, config_for, play_match

from acpcbot.client import EXIT_OK
from acpcbot.engine import CALL, FOLD, RAISE, ActionType, State, raise_to
from acpcbot.gamedef import parse_game
from acpcbot.logcheck import check_log
from acpcbot.protocol import ProtocolError, format_match_state, parse_match_state
from acpcbot.session import run
from acpcbot.strategies.registry import create
from acpcbot.world import MatchInfo
from dealer.rng import Dealer

# one hole card, one board card before the first bet and one more in round 2
BOARD_FIRST = parse_game("""GAMEDEF
limit
numPlayers = 2
numRounds = 2
blind = 1 1
raiseSize = 2 4
firstPlayer = 1 1
maxRaises = 2 2
numSuits = 4
numRanks = 13
numHoleCards = 1
numBoardCards = 1 1
END GAMEDEF
""", "boardfirst")

# two hole cards, three board cards in round 1, no-limit, three players
NL_FLOP_FIRST = parse_game("""GAMEDEF
nolimit
numPlayers = 3
numRounds = 2
stack = 200 200 200
blind = 2 1 0
firstPlayer = 3 1
numSuits = 4
numRanks = 13
numHoleCards = 2
numBoardCards = 3 1
END GAMEDEF
""", "flopfirst")


def card(text):
    return "23456789TJQKA".index(text[0]) * 4 + "cdhs".index(text[1])


@pytest.mark.parametrize("line,position,hole,board", [
    ("MATCHSTATE:0:0::Jd|Kd", 0, [("Jd",), ()], ["Kd"]),           # the case: the last group is the board
    ("MATCHSTATE:1:0::|JdKd", 1, [(), ("Jd",)], ["Kd"]),
    ("MATCHSTATE:0:0::Jd|ThKd", 0, [("Jd",), ("Th",)], ["Kd"]),     # every hole card shown, as a log writes them
    ("MATCHSTATE:0:0:cc/:Jd|Kd/Qs", 0, [("Jd",), ()], ["Kd", "Qs"]),
    ("MATCHSTATE:1:3:cc/:|JdKd/Qs", 1, [(), ("Jd",)], ["Kd", "Qs"]),
])
def test_first_round_board_cards_are_read_as_the_board(line, position, hole, board):
    ms = parse_match_state(line, BOARD_FIRST)
    assert ms.position == position
    assert ms.state.hole == [tuple(card(c) for c in h) for h in hole]
    assert ms.state.board == [card(c) for c in board]
    if not ms.state.hole[1 - position]:
        assert format_match_state(ms.state, position) == line


@pytest.mark.parametrize("line,words", [
    ("MATCHSTATE:0:0::Jd|", "round 1 shows 0 board cards, the game deals 1"),
    ("MATCHSTATE:0:0::Jd|ThKdQs", "position 1 shows 2 hole cards"),
    ("MATCHSTATE:0:0::|Kd", "position 0 is not shown its own hole cards"),
    ("MATCHSTATE:0:0::Jd|Jd", "a card appears twice"),
])
def test_wrong_first_round_boards_are_protocol_errors(line, words):
    with pytest.raises(ProtocolError, match=words):
        parse_match_state(line, BOARD_FIRST)


def test_three_first_round_board_cards_in_no_limit():
    ms = parse_match_state("MATCHSTATE:2:0::||AsKs8c8d5c", NL_FLOP_FIRST)
    assert ms.state.hole == [(), (), (card("As"), card("Ks"))]
    assert ms.state.board == [card("8c"), card("8d"), card("5c")]
    ms = parse_match_state("MATCHSTATE:0:0::AsKs||8c8d5c", NL_FLOP_FIRST)
    assert ms.state.hole[0] == (card("As"), card("Ks")) and len(ms.state.board) == 3


@pytest.mark.parametrize("game", [BOARD_FIRST, NL_FLOP_FIRST], ids=lambda g: g.name)
def test_every_line_the_dealer_writes_reads_back(game):
    # seeded property: random legal play over real deals; each seat's line parses to what it shows
    rng = random.Random(13)
    deals = Dealer(game, 13)
    for h in range(60):
        hole, board = deals.deal()
        state = State(game, h, hole, board)
        while True:
            for viewer in range(game.num_players):
                line = format_match_state(state, viewer)
                ms = parse_match_state(line, game)
                assert ms.state.hole[viewer] == state.hole[viewer], line
                assert ms.state.board == state.board[:game.board_cards_through(state.round)], line
                assert format_match_state(ms.state, viewer) == line
            if state.finished:
                break
            kind = rng.choice(state.legal_actions())
            if kind == ActionType.RAISE and game.is_nolimit:
                lo, hi = state.raise_bounds()
                state.apply(raise_to(rng.randint(lo, hi)))
            else:
                state.apply({ActionType.FOLD: FOLD, ActionType.CALL: CALL, ActionType.RAISE: RAISE}[kind])


@pytest.mark.parametrize("game", [BOARD_FIRST, NL_FLOP_FIRST], ids=lambda g: g.name)
def test_the_client_plays_such_a_game_to_the_end(game, caplog):
    async def match():
        dealer = DealingDealer(game, 40, 3)
        port = await dealer.start()
        try:
            code = await run(create("random", game, 3), MatchInfo(game, time_per_hand=7.0), "127.0.0.1", port,
                             retry_for=2)
            await asyncio.wait_for(dealer.done.wait(), 5)
        finally:
            await dealer.stop()
        return code, dealer

    code, dealer = asyncio.run(asyncio.wait_for(match(), 60))
    assert code == EXIT_OK, caplog.text[-2000:]
    assert dealer.problems == [] and dealer.replies > 20


def test_our_dealer_deals_it_and_logcheck_reads_its_log(tmp_path):
    path = tmp_path / "boardfirst.game"
    path.write_text(BOARD_FIRST.to_text())
    config = config_for(str(path), 30, 5)
    out = asyncio.run(play_match(config, [always_call, always_call], tmp_path))
    assert out.result.finished and out.problems() == []
    assert check_log(tmp_path / "m.log", BOARD_FIRST).hands == 30
    # the scripted seats parse every line they receive: a line they could not read would be an exception here
    assert [type(p).__name__ for p in out.players] == ["Player", "Player"]
    assert all(len(p.received) > 30 for p in out.players)
