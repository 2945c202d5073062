"""The two exact heads-up no-limit spots of SOLVER_SPOTS.md (a river and a turn subgame) as engine states.

Pot 200 and 900 behind each, nobody in yet on the street, the out-of-position
player (position 0) to act.  The engine has no "start a hand mid-way" call,
so the spot is a game of its own: stacks of 1,000, both blinds 100, checked
down to the turn (or the river).  The combos are the published lists, every
weight 1; the river's are the turn's less those holding the 2s.
"""

from __future__ import annotations

import numpy as np

from ...cards import parse_cards
from ...engine import CALL, State
from ...gamedef import GameDef, parse_game
from ...holdings import holding_index, holdings

SPOT_POT = 200
SPOT_STACK = 900
TURN_BOARD = "Td9d6hQc"
RIVER_BOARD = "Td9d6hQc2s"

OOP_TURN = """
5c4c Ac4c 5d4d Ad4d 5h4h Ah4h 5s4s As4s 6c5c 7c5c 8c5c Ac5c 6d5d 7d5d 8d5d Ad5d 7h5h 8h5h Ah5h 6s5s
7s5s 8s5s As5s 6d6c 6s6c 7c6c 8c6c 9c6c 6s6d 7d6d 8d6d 7s6s 8s6s 9s6s 7d7c 7h7c 7s7c 8c7c 9c7c 7h7d
7s7d 8d7d 7s7h 8h7h 9h7h 8s7s 9s7s 8d8c 8h8c 8s8c 9c8c Ac8c 8h8d 8s8d Ad8d 8s8h 9h8h Ah8h 9s8s As8s
9h9c 9s9c Kc9c Ac9c 9s9h Kh9h Ah9h Ks9s As9s ThTc TsTc JcTc KcTc AcTc TsTh JhTh QhTh KhTh AhTh JsTs
QsTs KsTs AsTs JdJc JhJc JsJc KcJc AcJc AdJc AhJc AsJc JhJd JsJd QdJd KdJd AcJd AdJd AhJd AsJd JsJh
QhJh KhJh AcJh AdJh AhJh AsJh QsJs KsJs AcJs AdJs AhJs AsJs QhQd QsQd KcQd KdQd KhQd KsQd AcQd AdQd
AhQd AsQd QsQh KcQh KdQh KhQh KsQh AcQh AdQh AhQh AsQh KcQs KdQs KhQs KsQs AcQs AdQs AhQs AsQs KdKc
KhKc KsKc AcKc AdKc AhKc AsKc KhKd KsKd AcKd AdKd AhKd AsKd KsKh AcKh AdKh AhKh AsKh AcKs AdKs AhKs
AsKs AdAc AhAc AsAc AhAd AsAd AsAh
"""

IP_TURN = """
2d2c 2h2c 2s2c Ac2c 2h2d 2s2d Ad2d 2s2h Ah2h As2s 3d3c 3h3c 3s3c 5c3c Ac3c 3h3d 3s3d 5d3d Ad3d 3s3h
5h3h Ah3h 5s3s As3s 4d4c 4h4c 4s4c 5c4c 6c4c Ac4c 4h4d 4s4d 5d4d 6d4d Ad4d 4s4h 5h4h Ah4h 5s4s 6s4s
As4s 5d5c 5h5c 5s5c 6c5c 7c5c Kc5c Ac5c 5h5d 5s5d 6d5d 7d5d Kd5d Ad5d 5s5h 7h5h Kh5h Ah5h 6s5s 7s5s
Ks5s As5s 6d6c 6s6c 7c6c 8c6c 9c6c Kc6c Ac6c 6s6d 7d6d 8d6d Kd6d Ad6d 7s6s 8s6s 9s6s Ks6s As6s 7d7c
7h7c 7s7c 8c7c 9c7c Tc7c Kc7c Ac7c 7h7d 7s7d 8d7d Kd7d Ad7d 7s7h 8h7h 9h7h Th7h Kh7h Ah7h 8s7s 9s7s
Ts7s Ks7s As7s 8d8c 8h8c 8s8c 9c8c Tc8c Jc8c Kc8c Ac8c 8h8d 8s8d Jd8d Qd8d Kd8d Ad8d 8s8h 9h8h Th8h
Jh8h Qh8h Kh8h Ah8h 9s8s Ts8s Js8s Qs8s Ks8s As8s 9h9c 9s9c Tc9c Jc9c Kc9c Ac9c 9s9h Th9h Jh9h Qh9h
Kh9h Ah9h Ts9s Js9s Qs9s Ks9s As9s ThTc TsTc JcTc KcTc AcTc AdTc AhTc AsTc TsTh JhTh QhTh KhTh AcTh
AdTh AhTh AsTh JsTs QsTs KsTs AcTs AdTs AhTs AsTs JdJc JhJc JsJc KcJc KdJc KhJc KsJc AcJc AdJc AhJc
AsJc JhJd JsJd QdJd KcJd KdJd KhJd KsJd AcJd AdJd AhJd AsJd JsJh QhJh KcJh KdJh KhJh KsJh AcJh AdJh
AhJh AsJh QsJs KcJs KdJs KhJs KsJs AcJs AdJs AhJs AsJs QhQd QsQd KcQd KdQd KhQd KsQd AcQd AdQd AhQd
AsQd QsQh KcQh KdQh KhQh KsQh AcQh AdQh AhQh AsQh KcQs KdQs KhQs KsQs AcQs AdQs AhQs AsQs AdKc AhKc
AsKc AcKd AhKd AsKd AcKh AdKh AsKh AcKs AdKs AhKs
"""


def spot_game() -> GameDef:
    """Heads-up no-limit hold'em with stacks of 1,000 and blinds of 100 each (first to act post-flop: position 0)."""
    half = SPOT_POT // 2
    return parse_game(
        "GAMEDEF\nnolimit\nnumPlayers = 2\nnumRounds = 4\n"
        f"stack = {half + SPOT_STACK} {half + SPOT_STACK}\nblind = {half} {half}\n"
        "firstPlayer = 2 1 1 1\nnumSuits = 4\nnumRanks = 13\nnumHoleCards = 2\n"
        "numBoardCards = 0 3 1 1\nEND GAMEDEF\n", "spot")


def spot_state(game: GameDef, street: str) -> State:
    """The spot's state at the start of ``street`` ("turn" or "river"): every earlier street checked through."""
    rounds = {"turn": 2, "river": 3}
    if street not in rounds:
        raise ValueError(f"street must be 'turn' or 'river', got {street!r}")
    state = State(game)
    while state.round < rounds[street]:
        state.apply(CALL)
    return state


def spot_range(game: GameDef, combos: str, board: str) -> np.ndarray:
    """A range over ``holdings(game)``: weight 1 on each listed combo that shares no card with ``board``."""
    out = np.zeros(len(holdings(game)))
    dead = set(parse_cards(board))
    for text in combos.split():
        cards = parse_cards(text)
        if not dead & set(cards):
            out[holding_index(game, cards)] = 1.0
    return out


def spot(street: str) -> tuple[GameDef, State, tuple[int, ...], tuple[np.ndarray, np.ndarray]]:
    """(game, state, board, (OOP range, IP range)) of the river or turn spot."""
    game = spot_game()
    board = RIVER_BOARD if street == "river" else TURN_BOARD
    return (game, spot_state(game, street), parse_cards(board),
            (spot_range(game, OOP_TURN, board), spot_range(game, IP_TURN, board)))
