"""Local Best Response: hand-worked decisions, the range through the target's policy, the golden figures.

Golden facts: against always-fold in heads-up no-limit LBR wins exactly the
blinds, 750 mbb/g; LBR is a lower bound, so in Kuhn and Leduc its exact
value (computed on the public tree) never exceeds the exact best response
to the same policy, and a sampled duplicate match agrees with that exact
value; over TCP (the target its own process, LBR tracking a copy) LBR plays
exactly as in memory (LBR reading the real object) against strategies whose
policy depends only on what LBR sees.
"""

from __future__ import annotations

import functools
import json
import math
import random

import numpy as np
import pytest

from acpcbot.cards import parse_cards
from acpcbot.engine import CALL, FOLD, RAISE, ActionType, State, raise_to
from acpcbot.evaluator import pair_index
from acpcbot.gamedef import load_game
from acpcbot.measure.lbr import candidates, choose, valuate
from acpcbot.measure.lbr_exact import exact_lbr
from acpcbot.protocol import format_match_state
from acpcbot.strategies.base import RunMode
from acpcbot.strategies.lbr import LiveTarget, ShadowTarget
from acpcbot.strategies.patterns import rock_triple
from acpcbot.strategies.registry import create
from acpcbot.world import MatchInfo, View
from dealer.arena.cli import main as acpc_match
from dealer.arena.lbr import lbr_plan
from dealer.arena.recipes import RecipeError
from dealer.arena.runner import execute

UNIFORM = "random:fold=1,call=1,raise=1"


def _preflop_sb() -> State:
    return State(load_game("hunl"), 0, [parse_cards("2c3d"), parse_cards("AsAh")], [])


# ------------------------------------------------------------------ the decision

def test_candidates_are_the_papers_sizes():
    state = _preflop_sb()  # the small blind (position 1) acts first: 50 in, 100 to match, pot 150
    sizes = [a.size for a in candidates(state) if a.type == ActionType.RAISE]
    # min 200; half pot 100 + 0.5 * 200 = 200 (the same); pot 300; two pots 500; all-in 20000
    assert candidates(state)[:2] == [FOLD, CALL] and sizes == [200, 300, 500, 20000]
    limit = State(load_game("hulhe"), 0, [parse_cards("2c3d"), parse_cards("AsAh")], [])
    assert candidates(limit) == [FOLD, CALL, RAISE]


@pytest.mark.parametrize("eq,fold,best,value", [
    # everyone folds to any raise: a raise wins the pot, 150 chips more than folding
    (0.5, 1.0, raise_to(200), 150.0),
    # nobody folds, even money: call 0.5*200 - 100 + 50 = 50; a pot raise 0.5*600 - 300 + 50 = 50: call first
    (0.5, 0.0, CALL, 50.0),
    # ahead: every chip in, 0.6 * 40000 - 20000 + 50
    (0.6, 0.0, raise_to(20000), 4050.0),
    # behind but priced in: call 0.3 * 200 - 50 = 10
    (0.3, 0.0, CALL, 10.0),
    # too far behind: call is worth -10, the raises less: fold
    (0.2, 0.0, FOLD, 0.0),
])
def test_hand_worked_values(eq, fold, best, value):
    state = _preflop_sb()
    valued = valuate(state, 1, np.full(1326, eq), np.ones(1326), lambda a: np.full(1326, fold))
    pick = choose(valued)
    assert pick.action == best and pick.value == pytest.approx(value)


def test_the_equity_after_a_raise_is_against_the_calling_range():
    state = _preflop_sb()
    # holdings 0..662 call and always beat us; 663.. fold: a raise wins 150 half the time, loses the rest
    eq = np.r_[np.zeros(663), np.ones(663)]
    folds = np.r_[np.zeros(663), np.ones(663)]
    valued = {v.action: v for v in valuate(state, 1, eq, np.ones(1326), lambda a: folds)}
    v = valued[raise_to(300)]
    assert v.fold == pytest.approx(0.5) and v.equity == 0.0
    assert v.value == pytest.approx(0.5 * 150 + 0.5 * (0 - 300 + 50))


def test_the_range_follows_the_targets_policy():
    # rock raises a pot-sized 300 from the small blind: its range is each pair weighted by rock's raise chance
    game = load_game("hunl")
    lbr = create("lbr:target=rock", game, 1)
    lbr.attach(LiveTarget(create("rock", game, 2)))
    state = State(game, 0, [parse_cards("7h2s"), parse_cards("AsAh")], []).apply(raise_to(300))
    view = View.parse(format_match_state(state.view_of(0), 0), game)
    w = lbr._range(view)
    aa, aks, t2o = (pair_index(*parse_cards(h)) for h in ("AdAc", "AdKd", "Td2c"))
    assert w[aa] == pytest.approx(rock_triple(0)[2])  # group 1: raise .99
    assert w[aks] == pytest.approx(rock_triple(0)[2])  # AKs is group 1 too
    assert w[t2o] == 0.0  # no group: rock never raises it
    assert w[pair_index(*parse_cards("7hAd"))] == 0.0  # blocked by LBR's 7h


def _asked_then_played(target, shadow: bool = False) -> tuple[object, object, int]:
    """LBR weighs a pot raise from the small blind, makes it, and the target decides facing it (in memory, or
    a shadow copy fed LBR's views as over TCP)."""
    game = load_game("hunl")
    calls = []
    real = target.policy
    target.policy = lambda view: calls.append(view) or real(view)
    model = ShadowTarget(target, MatchInfo(game=game, name="target")) if shadow else LiveTarget(target)
    state = State(game, 0, [parse_cards("AsAh"), parse_cards("7h2s")], [])  # LBR in seat 1, the small blind
    asked = model.policy_in(state.copy().apply(raise_to(300)))
    after = state.apply(raise_to(300))
    if shadow:
        model.see(View.parse(format_match_state(after.view_of(1), 1), game))
    else:
        view = View.parse(format_match_state(after.view_of(0), 0), game)
        assert view.is_my_turn
        model.proxy.observe(view)
        model.proxy.act(view, float("inf"))
    return asked, model.recorded(0, after.num_actions), len(calls)


@pytest.mark.parametrize("shadow", [False, True])
def test_the_policy_lbr_asked_for_its_raise_is_the_one_recorded_when_the_target_faces_it(shadow):
    # the target learns nothing between LBR's question and its own decision: asked once, recorded as asked
    asked, recorded, calls = _asked_then_played(create("rock", load_game("hunl"), 2), shadow)
    assert recorded is asked and calls == 1


@pytest.mark.parametrize("shadow", [False, True])
def test_a_target_that_observes_is_asked_again_at_its_decision(shadow):
    class Observant(type(create("rock", load_game("hunl"), 2))):
        run_mode = RunMode("inline", "every")  # declared: it learns between its turns

        def observe(self, view):
            pass

    asked, recorded, calls = _asked_then_played(Observant(load_game("hunl"), random.Random(2)), shadow)
    assert recorded is not asked and calls == 2
    assert recorded.actions == asked.actions and np.array_equal(recorded.probs, asked.probs)


# ------------------------------------------------------------------ lower bound, exactly

@functools.lru_cache(maxsize=None)
def _exact(game_name: str, spec: str):
    """The exact LBR and best-response values of one policy (seeded: the same each call, so computed once a file;
    three tests read Leduc's uniform policy)."""
    game = load_game(game_name)

    def make_lbr(target):
        lbr = create("lbr:target=x", game, 7)
        lbr.attach(LiveTarget(target))
        return lbr

    return exact_lbr(game, lambda: create(spec, game, 3), make_lbr)


@pytest.mark.parametrize("game_name", ["kuhn2p", "leduc"])
@pytest.mark.parametrize("spec", ["cfr", UNIFORM])
def test_lbr_never_beats_the_best_response(game_name, spec):
    r = _exact(game_name, spec)
    for lbr, br in zip(r.lbr, r.best_response):
        assert lbr <= br + 1e-9
    if spec == "cfr":
        # an equilibrium: nothing beats the game's value by more than the shipped policy's few mbb
        assert r.best_response_mbb < 10 and abs(r.lbr_mbb) < 10


def test_how_close_lbr_comes_against_the_uniform_policy():
    # Kuhn: one betting round, exact equities: LBR *is* a best response (458.3 mbb/g both).
    kuhn = _exact("kuhn2p", UNIFORM)
    assert kuhn.lbr_mbb == pytest.approx(kuhn.best_response_mbb) == pytest.approx(1000 * 0.91667 / 2, abs=0.1)
    # Leduc: greedy with check/call-to-showdown, LBR gets 2178 of the 2374 mbb/g a best response gets (92%)
    leduc = _exact("leduc", UNIFORM)
    assert 0.90 * leduc.best_response_mbb <= leduc.lbr_mbb <= leduc.best_response_mbb


# ------------------------------------------------------------------ through the arena

def _run(tmp_path, spec, game, hands, seed, transport):
    plan = lbr_plan(spec, game, hands, seed, transport, jobs=2)
    doc = execute(plan, tmp_path)
    row = next(r for r in doc["results"] if r["player"] == "lbr")
    return doc, row


def test_lbr_wins_the_blinds_against_always_fold(tmp_path):
    # every deal against always-fold wins the same blinds, so the figure is exact at any count: 10 hands a
    # seating, where 60 cost LBR's hunl equities six times over
    _, row = _run(tmp_path, "fold", "hunl", 10, 5, "memory")
    # as the small blind it raises and takes the big blind (100), as the big blind it gets the small (50)
    assert row["duplicate_mbb_per_hand"] == 750.0 and row["duplicate_ci95"] == 0.0


@pytest.mark.slow  # a 1,000-hand duplicate match (a statistical agreement, its power in its count): make soak
def test_a_sampled_match_agrees_with_the_exact_value(tmp_path):
    exact = _exact("leduc", UNIFORM)
    _, row = _run(tmp_path, UNIFORM, "leduc", 1000, 11, "memory")
    se = row["duplicate_ci95"] / 1.959964
    # 4.5 standard errors: a chance failure is below 1e-5 (and the seed is fixed)
    assert abs(row["duplicate_mbb_per_hand"] - exact.lbr_mbb) <= 4.5 * se
    assert row["duplicate_mbb_per_hand"] <= exact.best_response_mbb + 4.5 * se


@pytest.mark.parametrize("game,spec", [
    ("kuhn2p", "cfr"), ("leduc", "random"), ("hunl", "rock"),
    # make soak's: a limit hold'em target (4 s of CPU in seven processes; make test keeps the limit games kuhn2p
    # and leduc and no-limit hold'em), and adaptive (about 12 s: LBR's hunl equities, in the LBR seat and in its
    # copy of adaptive; that asking adaptive's policy changes none of its later play is make test's in one
    # process, test_adaptive_policy_pure)
    pytest.param("hulhe", "maniac", marks=pytest.mark.slow), pytest.param("hunl", "adaptive", marks=pytest.mark.slow)])
def test_over_tcp_lbr_plays_as_in_memory(tmp_path, game, spec):
    # adaptive: LBR asks it of states the hand never reaches, which must not change its later play in memory
    hands = 25 if game in ("kuhn2p", "leduc") else 5 if spec == "adaptive" else 10
    docs = [_run(tmp_path / t, spec, game, hands, 3, t)[0] for t in ("memory", "tcp")]
    logs = [sorted((tmp_path / t).glob("*/match-00*.log")) for t in ("memory", "tcp")]
    assert len(logs[0]) == len(logs[1]) == 2
    for a, b in zip(*logs):
        assert a.read_text() == b.read_text()
    assert all(m["complete"] for d in docs for m in d["matches"])


def test_strategies_without_a_policy_are_refused(tmp_path, capsys):
    with pytest.raises(RecipeError, match="'uc3m' does not expose its policy"):
        lbr_plan("uc3m", "hunl", 10, 1, "memory")
    with pytest.raises(RecipeError, match="heads-up"):
        lbr_plan("call", "3pl", 10, 1, "memory")
    assert acpc_match(["lbr", "--game", "hunl", "--hands", "5", "uc3m", "--runs-dir", str(tmp_path)]) == 2
    assert "does not expose its policy" in capsys.readouterr().err


def test_the_command_prints_the_json_the_issue_asks_for(tmp_path, capsys):
    assert acpc_match(["lbr", "--game", "kuhn2p", "--hands", "200", "--seed", "2", "--transport", "memory",
                       "--json", "--runs-dir", str(tmp_path), "fold"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert {"strategy", "game", "hands", "lbr_mbb_per_hand", "ci95"} <= set(out)
    # Kuhn's antes are 1 chip (the big blind unit): folding at once loses the ante, 1000 mbb
    assert out["strategy"] == "fold" and out["hands"] == 200 and out["lbr_mbb_per_hand"] == 1000.0
    assert math.isclose(out["ci95"], 0.0)


def test_an_lbr_seat_reads_its_targets_real_object_in_memory():
    from dealer.arena.lbr_seats import lbr_pair, memory_job, play_job_lbr
    from dealer.arena.memory import play_job
    from dealer.arena.recipes import Entry, Job

    def job(*specs):
        return Job(0, tuple(Entry(f"p{i}", s) for i, s in enumerate(specs)), 1, 10)

    assert lbr_pair(job("lbr:target=rock", "rock")) == (0, 1)
    assert lbr_pair(job("maniac:pot=0.5", "lbr:target=maniac:pot=0.5")) == (1, 0)
    assert lbr_pair(job("lbr:target=adaptive:risk=0;lookahead=0", "adaptive:risk=0,lookahead=0")) == (0, 1)
    assert memory_job(job("lbr:target=rock", "rock")) is play_job_lbr
    # another target, or a named one that is not at the table: LBR keeps its own copy
    assert memory_job(job("lbr:target=rock", "station")) is play_job
    assert lbr_pair(job("lbr:target=rock,tname=bob", "rock")) is None
