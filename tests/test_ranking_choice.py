"""The showdown ranking belongs to the game: chosen from its hand size, pluggable, and loaded only when needed."""

from __future__ import annotations

import dataclasses
import json
import subprocess
import sys
from pathlib import Path

from acpcbot.engine import CALL, State
from acpcbot.evaluator import generic_value, showdown_value
from acpcbot.gamedef import load_game

ROOT = Path(__file__).resolve().parents[1]


def _showdown(game, hole, board):
    state = State(game, 0, hole, board)
    while not state.finished:
        state.apply(CALL)
    return state.payoffs()


def test_small_games_rank_without_tables_and_holdem_with_them():
    assert load_game("leduc").ranking_for_showdown is generic_value
    assert load_game("kuhn3p").ranking_for_showdown is generic_value
    assert load_game("hunl").ranking_for_showdown is showdown_value


def test_a_plugged_in_ranking_decides_the_showdown():
    leduc = load_game("leduc")
    # Leduc's deck is Q, K, A in hearts and spades: Kh beats Qh on an As board (higher card wins).
    hole = [(46,), (42,)]  # Kh, Qh
    board = [51]  # As
    normal = _showdown(leduc, hole, board)
    assert normal[0] > 0 > normal[1]
    lowball = dataclasses.replace(leduc, ranking=lambda cards: -generic_value(cards))
    assert _showdown(lowball, hole, board) == [-normal[0], -normal[1]]


def test_engine_and_small_game_dealer_build_no_tables(tmp_path):
    # A fresh process: import the engine, protocol and dealer, play Kuhn and
    # Leduc showdowns; the hold'em tables stay unloaded and no cache appears.
    code = """
import json, sys
from acpcbot.engine import CALL, State
from acpcbot.gamedef import load_game
import acpcbot.protocol, dealer.match
from acpcbot.evaluator import tables
for name in ("kuhn3p", "leduc"):
    g = load_game(name)
    s = State(g, 0, [(51,), (47,), (43,)][:g.num_players], [39] if g.num_rounds > 1 else [])
    while not s.finished:
        s.apply(CALL)
    s.payoffs()
print(json.dumps({"loaded": tables.loaded(), "mods": sorted(m for m in sys.modules if m.startswith("acpcbot.strategies"))}))
"""
    env = {"XDG_CACHE_HOME": str(tmp_path / "cache"), "HOME": str(tmp_path), "PATH": "/usr/bin:/bin",
           "PYTHONPATH": str(ROOT)}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=120,
                         cwd=tmp_path)
    assert out.returncode == 0, out.stderr
    facts = json.loads(out.stdout)
    assert facts == {"loaded": False, "mods": []}
    assert not (tmp_path / "cache").exists()


def test_a_game_gains_no_attribute_after_it_is_made():
    # CPython reads an object's attributes fastest while they are the ones its constructor set: a value cached on
    # the game later (a cached_property) made every read of game.* in the engine's hot path slower (hold'em
    # hands/s down 10%), so the ranking is looked up, not cached on the game
    game = load_game("hunl")
    before = set(vars(game))
    _showdown(game, [[0, 1], [2, 3]], [4, 5, 6, 7, 8])
    assert set(vars(game)) == before
