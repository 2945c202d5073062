"""Issue 31: the run's analysis in batch gives the very figures the hand-by-hand analysis gave.

Each fast path is checked against the slow one it replaces, value for
value (floats compared with ==): the batched matchups against one call
per hand, the light steps against ``State.steps()``, the hands an
in-memory match hands over against its log read back, the batched AIVAT
against hand-by-hand AIVAT; plus ``--no-aivat``, the figure checker and
the evaluator's new batch operations.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np
import pytest

from acpcbot import evaluator as ev
from acpcbot.cards import parse_cards
from acpcbot.gamedef import load_game
from acpcbot.matchlog import read_match_log
from acpcbot.measure.aivat import Evaluator
from acpcbot.measure.matchup import holdem_matchup, holdem_matchups, holding_index
from acpcbot.protocol import format_betting, format_cards
from dealer.arena.cli import main as cli_main
from dealer.arena.handsteps import light_steps, run_steps
from dealer.arena.memory import play_match
from dealer.config import MatchConfig

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tools"))
from same_figures import differences  # noqa: E402


def _deals(rng: np.random.Generator, n: int, board: int) -> np.ndarray:
    return np.argsort(rng.random((n, 52)), axis=1)[:, :4 + board]


@pytest.mark.parametrize("board", [0, 3, 4, 5])
def test_batched_matchups_are_the_single_ones(board):
    rng = np.random.default_rng(board)
    deals = _deals(rng, 6 if board == 3 else 25, board)
    got = holdem_matchups(deals[:, :2], deals[:, 2:4], deals[:, 4:], seed=3, boards_sampled=500)
    want = [holdem_matchup(d[:2], d[2:4], d[4:], seed=3, boards=500) for d in deals]
    assert got.tolist() == want


@pytest.mark.parametrize("board", [3, 4])
def test_batched_matchups_with_flush_draws_are_the_single_ones(board):
    # completions that may make a flush are ranked one by one, the others counted by rank class: deals drawn
    # mostly from one or two suits reach every case (no flush possible, one suit needing every completion card,
    # a card of one of two suits, a flush made already)
    rng = np.random.default_rng(31 + board)
    deals = []
    for _ in range(40):
        weight = np.ones(52)
        for suit in rng.choice(4, size=int(rng.integers(1, 3)), replace=False):
            weight[suit::4] *= rng.uniform(2, 30)
        deals.append(np.argsort(-(rng.random(52) ** (1 / weight)))[:4 + board])
    deals = np.array(deals + [parse_cards("AhKh2c3d" + "QhJh9h7s"[:2 * board]),  # a flush made on the flop
                              parse_cards("AhKh2c3c" + "QhJc9s7d"[:2 * board])])  # two suits, three cards each
    got = holdem_matchups(deals[:, :2], deals[:, 2:4], deals[:, 4:])
    assert got.tolist() == [holdem_matchup(d[:2], d[2:4], d[4:]) for d in deals]


def test_batched_matchup_golden_values():
    # the flush beats the straight on every completion; the same two hands split
    got = holdem_matchups(np.array([parse_cards("AhKh"), parse_cards("AhKd")]),
                          np.array([parse_cards("9c8d"), parse_cards("AcKs")]),
                          np.array([parse_cards("Qh7h2hTs6s"), parse_cards("2c7d9hTsJd")]))
    assert got.tolist() == [1.0, 0.5]
    river_outs = holdem_matchups(np.array([parse_cards("AcAd")]), np.array([parse_cards("7c7d")]),
                                 np.array([parse_cards("7h2s9dKc")]))
    assert river_outs[0] == pytest.approx(2 / 44)


def test_holding_index_is_the_pairs_order():
    pairs = ev.PAIRS
    assert holding_index(pairs[:, 0], pairs[:, 1]).tolist() == list(range(1326))
    assert holding_index(pairs[:, 1], pairs[:, 0]).tolist() == list(range(1326))


def _match(game_name: str, seats, hands: int, tmp_path: Path):
    game = load_game(game_name)
    config = MatchConfig(match_name="t", game=game, game_arg=game_name, num_hands=hands, seed=5,
                         names=[n for n, _ in seats], quiet=True)
    log = tmp_path / f"{game_name}.log"
    played = play_match(config, seats, log)
    assert played.finished, played.error
    return game, played, read_match_log(log, game)


@pytest.mark.parametrize("game_name, seats", [
    ("hunl", [("a", "call"), ("b", "raise:size=pot")]),  # the fused loop
    ("hunl", [("a", "rh:t=0.1"), ("b", "random2008")]),  # the general loop
    ("leduc", [("a", "random"), ("b", "call")]),
])
def test_held_hands_are_the_log_read_back(game_name, seats, tmp_path):
    game, played, logged = _match(game_name, seats, 120, tmp_path)
    assert len(played.hands) == len(logged.hands) == 120
    for mine, back in zip(played.hands, logged.hands):
        assert (mine.hand_id, mine.values_text, mine.names) == (back.hand_id, back.values_text, back.names)
        assert format_betting(mine.state) == format_betting(back.state)
        assert format_cards(mine.state, None) == format_cards(back.state, None)
        assert list(mine.state.board) == list(back.state.board)
        assert mine.state.payoffs() == back.state.payoffs()
        light = light_steps(back.state)
        full = back.state.steps()
        assert [(s.index, s.round, s.player, s.action, s.added) for s in light] == \
               [(s.index, s.round, s.player, s.action, s.added) for s in full]
        for s, f in zip(light, full):
            assert (s.before.round, s.before.max_spent, list(s.before.spent)) == \
                   (f.before.round, f.before.max_spent, list(f.before.spent))
            assert [s.before.to_call(p) for p in range(game.num_players)] == \
                   [f.before.to_call(p) for p in range(game.num_players)]


def test_batched_aivat_is_hand_by_hand(tmp_path):
    game, _, logged = _match("hunl", [("a", "call"), ("b", "raise:size=pot")], 150, tmp_path)
    finals = [h.state for h in logged.hands]
    one = Evaluator(game, seed=1, preflop_boards=800)
    batch = Evaluator(game, seed=1, preflop_boards=800)
    want = [one.hand(f) for f in finals]
    assert batch.hands(finals, steps=[light_steps(f) for f in finals]) == want
    shared = run_steps([logged.hands])[0]  # hands with the same betting share one list
    assert len({id(s) for s in shared}) < len(shared)
    assert batch.hands(finals, steps=shared) == want
    # the streets' batches cut in parts (as a process pool computes them) give the same values
    serial = lambda fn, jobs: [fn(*job) for job in jobs]  # noqa: E731
    assert batch.hands(finals, starmap=serial) == want


def _run(tmp_path: Path, *extra: str) -> dict:
    out = tmp_path / "run"
    assert cli_main(["play", "--game", "leduc", "--hands", "60", "--transport", "memory", "--run-dir", str(out),
                     "--quiet", *extra, "random", "call"]) == 0
    return json.loads((out / "results.json").read_text())


def test_no_aivat_leaves_out_aivat_and_allin(tmp_path):
    plain = _run(tmp_path / "a", "--no-aivat")
    full = _run(tmp_path / "b")
    assert not any(k.startswith(("aivat", "allin")) for r in plain["results"] for k in r)
    assert any(k.startswith("aivat") for r in full["results"] for k in r)
    assert "--no-aivat" in plain["aivat"]["notes"][0]
    # everything else is the same run's
    assert list(differences(plain["results"][0]["endings"], full["results"][0]["endings"])) == []
    assert plain["results"][0]["mbb_per_hand"] == full["results"][0]["mbb_per_hand"]


def test_figure_checker_sees_a_changed_figure_and_not_the_time():
    before = {"seconds": 1.0, "results": [{"player": "a", "aivat_mbb_per_hand": 12.5}], "run_dir": "/x"}
    after = {"seconds": 2.0, "results": [{"player": "a", "aivat_mbb_per_hand": 12.6}], "run_dir": "/y"}
    assert list(differences(before, after)) == ["/results[0]/aivat_mbb_per_hand: 12.5 -> 12.6"]
    assert list(differences(before, {**before, "seconds": 9.0})) == []


def test_river_ranks_are_the_ranks_of_each_river():
    turn = parse_cards("AsKdQhJc")
    table = ev.river_ranks(turn)
    assert table.shape == (52, 1326)
    ts, nine = parse_cards("Ts")[0], parse_cards("9s8s")
    # Ts on the river gives every holding at least the broadway straight (rank 1600 in treys)
    assert table[ts][ev.pair_index(*nine)] == 1600
    assert (table[list(turn)] == 0).all()
    rng = np.random.default_rng(0)
    for c in rng.choice([c for c in range(52) if c not in turn], 5, replace=False):
        for i in rng.choice(1326, 40, replace=False):
            a, b = (int(x) for x in ev.PAIRS[i])
            cards = list(turn) + [int(c), a, b]
            assert table[c][i] == (0 if len(set(cards)) < 7 else ev.rank(cards))


def test_rank_batch_over_blocks_names_the_row():
    rng = np.random.default_rng(9)
    hands = np.argsort(rng.random((40_000, 52)), axis=1)[:, :7]
    ranks = ev.rank_batch(hands)
    assert (ranks == ev.rank_batch(hands, check=False)).all()
    for i in (0, 16_383, 16_384, 39_999):
        assert ranks[i] == ev.rank(hands[i].tolist())
    hands[20_000, 3] = hands[20_000, 4]
    with pytest.raises(ValueError, match="row 20000 repeats a card"):
        ev.rank_batch(hands)


def test_a_replays_cyclic_garbage_is_collected_during_the_analysis(tmp_path, monkeypatch):
    # the analysis turns the collector off for its own objects; a replayed strategy's cycles (a re-solver's
    # subgames) were then never freed until it ended: a worker replaying adaptive on the HUNL floor passed 5 GB
    import weakref

    from dealer.arena import aivat

    class Cycle:
        pass

    made: weakref.WeakSet = weakref.WeakSet()
    alive: list[int] = []
    replay_hand = aivat.Replay.hand

    def hand(self, *args, **kwargs):
        alive.append(len(made))  # earlier hands' cycles still alive now
        cycle = Cycle()
        cycle.me = cycle  # garbage once this returns, freed only by the collector
        made.add(cycle)
        return replay_hand(self, *args, **kwargs)

    monkeypatch.setattr(aivat.Replay, "hand", hand)
    _run(tmp_path)  # random is replayed, hand by hand
    assert len(alive) == 60
    assert max(alive) < 20, alive  # with the collector off: 59


def test_an_in_memory_run_is_analysed_without_reading_its_log(tmp_path, monkeypatch):
    from dealer.arena import analysis

    def no_reading(path, game=None):
        raise AssertionError(f"the log {path} was read back")
    monkeypatch.setattr(analysis, "read_log", no_reading)
    doc = _run(tmp_path)
    assert doc["results"][0]["hands"] == 60


def test_the_analysis_progress_line_shows_only_once_it_lasts(monkeypatch):
    import io
    import time

    from dealer.arena.analysis import AnalysisProgress

    quick = io.StringIO()
    progress = AnalysisProgress(20_000, stream=quick)  # done within its second: no line at all
    progress.say("statistics")
    progress.done()
    assert quick.getvalue() == ""
    monkeypatch.setattr(AnalysisProgress, "DELAY", 0.0)  # as if the analysis had lasted its second already
    slow = io.StringIO()
    progress = AnalysisProgress(20_000, stream=slow)
    progress.say("AIVAT and all-in expectation")
    for _ in range(500):
        if progress.shown:
            break
        time.sleep(0.01)
    progress.done()
    text = slow.getvalue()
    assert "\r\033[Kanalysing 20,000 hands: " in text  # the phase shown is the one under way at the tick
    assert text.endswith("\n") and "analysed 20,000 hands in " in text.rsplit("\r", 1)[-1]


def test_no_progress_line_off_a_terminal(monkeypatch):
    from dealer.arena.analysis import AnalysisProgress

    monkeypatch.setattr(sys.stderr, "isatty", lambda: False)
    progress = AnalysisProgress(10)
    assert progress.stream is None
    progress.done()
