"""adaptive's parts: opponent statistics, range narrowing, equity vectors, and its choices in hand-made spots."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

from acpcbot.cards import parse_cards
from acpcbot.engine import CALL, FOLD, RAISE, ActionType, State, raise_to
from acpcbot.evaluator import NUM_PAIRS, equity, pair_index
from acpcbot.gamedef import load_game
from acpcbot.preflop import class_range, preflop_equity
from acpcbot.strategies import adaptive  # noqa: F401  (registers adaptive)
from acpcbot.strategies.adaptive.ranges import (
    PreflopEquities,
    action_likelihood,
    canonical_hole,
    equity_vector,
    pairs_with,
    percentiles,
    range_equity,
    strength_scores,
    threshold_likelihoods,
)
from acpcbot.strategies.adaptive.stats import (
    KAPPA_GRID,
    PRIOR_TRIPLES,
    ActionStats,
    Informativeness,
    OpponentStats,
    SavedStatsError,
    Spot,
    info_class,
    raise_size_class,
    size_bucket,
    spot_of,
)
from acpcbot.strategies.base import UnsupportedGame
from acpcbot.strategies.persist import ModelFileError
from acpcbot.strategies.registry import create
from acpcbot.world import MatchInfo, View

HUNL = load_game("hunl")
HULHE = load_game("hulhe")
_F, _C, _R = ActionType.FOLD, ActionType.CALL, ActionType.RAISE


def state_after(game, betting: list) -> State:
    s = State(game)
    for a in betting:
        s.apply(a)
    return s


# ----------------------------------------------------------------- spots

def test_spots_of_heads_up_no_limit():
    # hunl: position 1 is the small blind and acts first before the flop
    s = State(HUNL)
    assert spot_of(s) == Spot(0, "blind")
    s.apply(raise_to(300))  # a 3x open: 200 more into a pot of 300 after calling... faces 200 into 400
    assert spot_of(s) == Spot(0, "bet", size_bucket(200 / 200))
    s.apply(raise_to(900))
    assert spot_of(s).kind == "raise"
    s = state_after(HUNL, [CALL])
    assert spot_of(s) == Spot(0, "stab")  # the big blind after a limp
    s.apply(CALL)
    assert spot_of(s) == Spot(1, "open")  # first to act on the flop
    s.apply(CALL)
    assert spot_of(s) == Spot(1, "stab")  # checked to


def test_size_buckets():
    # the bet over the pot before it, as State.bet_to_pot gives it
    assert size_bucket(40 / 100) == 0      # 0.4 pot
    assert size_bucket(50 / 100) == 1      # half pot
    assert size_bucket(100 / 100) == 2     # pot
    assert size_bucket(300 / 100) == 3     # three pots
    assert size_bucket(301 / 100) == 4     # overbets and shoves
    assert size_bucket(math.inf) == 4      # nothing before it


def test_limit_bets_have_one_bucket():
    s = state_after(HULHE, [CALL, CALL, RAISE])
    assert spot_of(s) == Spot(1, "bet", 0)


# ----------------------------------------------------------------- action statistics

def test_a_new_opponent_is_the_generic_prior():
    stats = ActionStats()
    for kind, triple in PRIOR_TRIPLES.items():
        assert stats.predict(Spot(2, kind, 1)) == pytest.approx(triple)


def test_counts_move_the_prediction_and_shrink_toward_the_prior():
    stats = ActionStats()
    spot = Spot(1, "bet", 1)
    for _ in range(3):
        stats.add(spot, _F)
    few = stats.predict(spot)[0]
    for _ in range(200):
        stats.add(spot, _F)
    many = stats.predict(spot)[0]
    assert PRIOR_TRIPLES["bet"][0] < few < many < 1.0
    assert many > 0.97


def test_an_unseen_spot_borrows_from_similar_spots():
    stats = ActionStats()
    for _ in range(100):
        stats.add(Spot(1, "bet", 0), _F)  # folds to every small flop bet
    unseen_size = stats.predict(Spot(1, "bet", 3))[0]
    unseen_street = stats.predict(Spot(3, "bet", 3))[0]
    re_raise = stats.predict(Spot(1, "raise", 0))[0]
    checked = stats.predict(Spot(1, "open"))
    assert unseen_size > 0.85  # same street and kind: close to the observed rate
    assert PRIOR_TRIPLES["bet"][0] < unseen_street < unseen_size  # same kind only
    assert PRIOR_TRIPLES["raise"][0] + 0.2 < re_raise < unseen_street  # the same family: it folds to raises too
    assert checked == pytest.approx(PRIOR_TRIPLES["open"])  # another family: nothing learnt


def test_statistics_round_trip_through_json():
    stats = OpponentStats()
    s = State(HUNL)
    stats.observe(s, raise_to(500))  # two pots: (500 - 100) / (150 + 50)
    stats.actions.add(Spot(1, "open"), _R)
    stats.info.add("agg1", 3.0)
    stats.hands = 5
    back = OpponentStats.from_json(json.loads(json.dumps(stats.to_json())))
    assert back.hands == 5
    assert back.predict(Spot(0, "blind")) == pytest.approx(stats.predict(Spot(0, "blind")))
    assert back.info.kappa("agg1") == pytest.approx(stats.info.kappa("agg1"))
    assert back.raise_size("blind", 0) == pytest.approx(stats.raise_size("blind", 0))
    assert 1.0 < stats.raise_size("blind", 0) < 2.0  # the prior's pot-sized raises, pulled toward two pots


@pytest.mark.parametrize("bad", [[], {"hands": -1, "actions": [], "info": {}, "raises": []},
                                 {"hands": 1, "actions": [[["nope"], [1, 2, 3]]], "info": {}, "raises": []},
                                 {"hands": 1, "actions": [[["bet", 1, 0], [1, 2]]], "info": {}, "raises": []},
                                 {"hands": 1, "actions": [], "info": {"agg9": {}}, "raises": []},
                                 {"hands": 1, "actions": []}])
def test_malformed_statistics_are_refused(bad):
    with pytest.raises(SavedStatsError):
        OpponentStats.from_json(bad)


# ----------------------------------------------------------------- informativeness

def test_kappa_prior_trusts_actions_moderately():
    k = Informativeness().kappa("agg1")
    assert 0.7 < k < 0.85


def test_kappa_learns_card_blind_and_card_driven_players():
    rng = np.random.default_rng(3)
    blind, driven = Informativeness(), Informativeness()
    r = 0.3  # raises 30% of the time
    for _ in range(60):
        u_random = rng.random()  # a card-blind raiser shows any hand
        u_top = 1 - r * rng.random()  # a threshold raiser shows its top 30%
        for info, u in ((blind, u_random), (driven, u_top)):
            t = threshold_likelihoods(np.array([u]), (0.3, 0.4, r), True)[2, 0]
            info.add("agg1", t / r)
    assert blind.kappa("agg1") < 0.25
    assert driven.kappa("agg1") > 0.8
    assert KAPPA_GRID.min() <= blind.kappa("agg1") and driven.kappa("agg1") <= KAPPA_GRID.max()


def test_info_classes():
    assert info_class(_R, 0, 0) == "agg0"
    assert info_class(_C, 100, 2) == "call1"
    assert info_class(_C, 0, 1) == "check1"
    # paying off a bet of 1.5 pots or more is its own class, assumed more informative until shown otherwise
    assert info_class(_C, 300, 3, bucket=3) == "bigcall1" and info_class(_C, 300, 0, bucket=4) == "bigcall0"
    assert info_class(_C, 300, 3, bucket=2) == "call1"
    fresh = Informativeness()
    assert fresh.kappa("bigcall1") > fresh.kappa("call1") + 0.08


# ----------------------------------------------------------------- range arithmetic

def test_strength_scores_order_hands():
    pre = strength_scores(())
    aa = pair_index(*parse_cards("AsAh"))
    seven_two = pair_index(*parse_cards("7c2d"))
    assert pre[aa] == pytest.approx(preflop_equity("AA")) and pre[aa] > pre[seven_two]
    board = parse_cards("AdKd7s")
    post = strength_scores(board)
    assert post[pairs_with(board)].max() == 0.0
    top_set = pair_index(*parse_cards("AhAc"))
    air = pair_index(*parse_cards("3c2h"))
    assert post[top_set] > 0.99 and post[air] < 0.1


def test_percentiles_follow_the_range():
    score = strength_scores(())
    u = percentiles(score, np.ones(NUM_PAIRS))
    assert u.min() >= 0 and u.max() <= 1 and abs(np.mean(u) - 0.5) < 0.01
    aa = pair_index(*parse_cards("AsAh"))
    assert u[aa] > 0.99
    top = class_range(["AA", "KK", "QQ"])  # within a range of three pairs AA sits on top
    assert percentiles(score, top)[aa] == pytest.approx(5 / 6)


def test_threshold_model_shapes():
    u = np.linspace(0, 1, 101)
    t = threshold_likelihoods(u, (0.3, 0.5, 0.2), facing=True)
    assert np.allclose(t.sum(axis=0), 1.0)
    assert np.all(np.diff(t[2]) >= 0) and np.all(np.diff(t[0]) <= 0)  # raises strong, folds weak
    assert t[2].mean() == pytest.approx(0.2, abs=0.02) and t[0].mean() == pytest.approx(0.3, abs=0.02)
    open_ = threshold_likelihoods(u, (0.0, 0.6, 0.4), facing=False)
    assert np.all(open_[0] == 0) and open_[1].mean() == pytest.approx(0.6, abs=0.02)


def test_action_likelihood_keeps_the_mean_and_kappa_scales_the_shape():
    w = np.ones(NUM_PAIRS)
    u = percentiles(strength_scores(()), w)
    t = threshold_likelihoods(u, (0.3, 0.5, 0.2), True)[2]
    for kappa in (0.0, 0.5, 0.9):
        lik = action_likelihood(t, w, kappa)
        assert np.mean(lik) == pytest.approx(1.0)
    assert np.all(action_likelihood(t, w, 0.0) == 1.0)
    assert action_likelihood(t, w, 0.9).max() > action_likelihood(t, w, 0.5).max()


def test_equity_vector_on_the_river_and_turn_is_exact():
    gen = np.random.default_rng(0)
    hole = parse_cards("AhQh")
    rng = class_range(["KK", "QQ", "AKo", "AKs", "76s", "T9o"])
    for board in ("2h7hKcTd9s", "2h7hKcTd"):
        b = parse_cards(board)
        vec, valid = equity_vector(hole, b, gen)
        assert not valid[pairs_with(hole + b)].any() and not vec[pairs_with(hole + b)].any()
        w = np.where(pairs_with(hole + b), 0.0, rng)
        assert range_equity(vec, valid, w) == pytest.approx(equity(hole, b, ranges=w, exact=True).equity)


def test_equity_vector_on_the_flop_is_close():
    hole = parse_cards("AhQh")
    board = parse_cards("2h7hKc")
    vec, valid = equity_vector(hole, board, np.random.default_rng(1))
    exact = equity(hole, board, exact=True).equity
    assert range_equity(vec, valid, np.ones(NUM_PAIRS)) == pytest.approx(exact, abs=0.03)


def test_royal_flush_has_all_the_equity():
    hole = parse_cards("AsKs")
    board = parse_cards("QsJsTs2c3d")
    vec, valid = equity_vector(hole, board, np.random.default_rng(0))
    assert vec[valid].min() == 1.0


def test_canonical_holes_and_preflop_vectors_map_suits():
    assert canonical_hole(parse_cards("AsKs"))[0] == canonical_hole(parse_cards("AdKd"))[0]
    assert canonical_hole(parse_cards("AsKh"))[0] != canonical_hole(parse_cards("AsKs"))[0]
    hearts = PreflopEquities(np.random.default_rng(2)).get(parse_cards("AhKh"))
    spades = PreflopEquities(np.random.default_rng(2)).get(parse_cards("AsKs"))  # the same numbers, suits swapped
    assert not hearts[1][pairs_with(parse_cards("AhKh"))].any()
    assert not spades[1][pairs_with(parse_cards("AsKs"))].any()
    flush_blocker = pair_index(*parse_cards("2h3h"))
    assert hearts[0][flush_blocker] == spades[0][pair_index(*parse_cards("2s3s"))]
    assert range_equity(*hearts, np.ones(NUM_PAIRS)) == pytest.approx(preflop_equity("AKs"), abs=1e-9)
    top = class_range(["AA", "KK", "QQ", "JJ"])
    direct = equity(parse_cards("AhKh"), (), ranges=np.where(pairs_with(parse_cards("AhKh")), 0, top),
                    samples=40000, rng=5).equity
    assert range_equity(*hearts, top) == pytest.approx(direct, abs=0.03)


# ----------------------------------------------------------------- the player

def make_player(game=HUNL, seed=1, **params):
    spec = "adaptive" + (":" + ",".join(f"{k}={v}" for k, v in params.items()) if params else "")
    player = create(spec, game, seed)
    player.start_match(MatchInfo(game, name="p1", seed=seed, opponents=("p2",), spec=spec))
    return player


def view(line: str, game=HUNL) -> View:
    return View.parse(line, game)


def mean_score(w: np.ndarray, score: np.ndarray) -> float:
    return float(np.dot(w, score) / w.sum())


def test_refuses_games_other_than_holdem():
    with pytest.raises(UnsupportedGame):
        create("adaptive", load_game("leduc"), 1)
    with pytest.raises(UnsupportedGame):
        create("adaptive", load_game("kuhn2p"), 1)


def test_a_raise_narrows_the_range_to_stronger_hands():
    player = make_player()
    score = strength_scores(())
    before = player.sync(view("MATCHSTATE:0:3::AsKd|")).ranges[1].copy()
    after = player.sync(view("MATCHSTATE:0:3:r300:AsKd|")).ranges[1]
    assert mean_score(after, score) > mean_score(before, score) + 0.02
    three_bet = player.sync(view("MATCHSTATE:0:3:r300r900c/:AsKd|/2c7h9s")).ranges[1]
    assert three_bet.sum() > 0  # a call of our re-raise keeps a range


def test_raise_size_classes_and_bands():
    assert [raise_size_class(f) for f in (0.3, 0.5, 0.75, 1.0, 3.0, 40.0, 100.0)] == [0, 0, 1, 1, 3, 7, 7]
    stats = OpponentStats()
    assert stats.size_band("blind", 0, 0) == pytest.approx((0.0, 1 / 8))  # nothing seen: the prior's even classes
    s = State(HUNL)
    for target in (300, 300, 300, 15000):  # one pot three times, then all-in (74.5 pots)
        stats.observe(s, raise_to(target))
    lo, hi = stats.size_band("blind", 0, 1)
    assert lo == pytest.approx(0.25 / 6) and hi == pytest.approx(3.5 / 6)  # prior 0.25 per class, 6 in all
    assert stats.size_band("blind", 0, 7)[1] == pytest.approx(1.0)
    back = OpponentStats.from_json(json.loads(json.dumps(stats.to_json())))
    assert back.size_band("blind", 0, 1) == pytest.approx((lo, hi))


def test_a_bigger_raise_narrows_to_stronger_hands_from_a_player_who_sizes_by_strength():
    score = strength_scores(())
    means = {}
    for target in (300, 15000):
        player = make_player()
        line = f"MATCHSTATE:0:3:r{target}:AsKd|"
        stats = player.opponent_stats(view(line), 1)
        stats.raise_classes[("blind", 0)] = np.array([0.0, 5, 5, 5, 5, 5, 5, 5])  # it has raised every size
        means[target] = mean_score(player.sync(view(line)).ranges[1], score)
    assert means[15000] > means[300] + 0.05
    # a player with one size: its raise says no more than a raise
    player = make_player()
    line = "MATCHSTATE:0:3:r15000:AsKd|"
    player.opponent_stats(view(line), 1).raise_classes[("blind", 0)] = np.array([0.0, 0, 0, 0, 0, 0, 0, 40])
    assert mean_score(player.sync(view(line)).ranges[1], score) < means[15000] - 0.03


def test_a_check_narrows_the_range_to_weaker_hands():
    player = make_player()
    board = parse_cards("Qh8d3c")
    score = strength_scores(board)
    before = player.sync(view("MATCHSTATE:1:4:cc/:|AsKd/Qh8d3c")).ranges[0].copy()
    after = player.sync(view("MATCHSTATE:1:4:cc/c:|AsKd/Qh8d3c")).ranges[0]
    assert mean_score(after, score) < mean_score(before, score) - 0.02
    # the board is not in its range (our own cards stay: the rows of a policy hold other pairs)
    assert after[pairs_with(parse_cards("Qh8d3c"))].max() == 0


def test_actions_are_counted_once_however_often_a_state_is_seen():
    player = make_player()
    v = view("MATCHSTATE:0:5:r300:AsKd|")
    player.sync(v)
    player.sync(v)
    player.act(v, 0.0)
    stats = player.stats["p2"]
    assert stats.actions.seen(Spot(0, "blind"), level=1) == 1


def test_calls_an_all_in_with_the_nuts():
    player = make_player()
    v = view("MATCHSTATE:1:7:cc/cc/cc/r20000:|AsKs/QsJsTs/2c/3d")
    assert player.act(v, 0.0) == CALL


def test_folds_nothing_to_a_big_river_bet():
    player = make_player()
    v = view("MATCHSTATE:1:8:cc/cc/cc/r2000:|7c2d/AhKhQd/Js/9s")
    assert player.act(v, 0.0) == FOLD


def test_never_folds_when_checking_is_free():
    player = make_player()
    for line in ("MATCHSTATE:0:9:c:7c2d|", "MATCHSTATE:0:9:cc/:7c2d|/AhKhQd",
                 "MATCHSTATE:1:9:cc/c:|7c2d/AhKhQd"):
        assert player.act(view(line), 0.0) != FOLD


def test_limit_raises_have_no_size():
    player = make_player(HULHE, blueprint=False)  # the model's own best response (the blueprint may mix)
    for line in ("MATCHSTATE:0:2:r:AsAd|", "MATCHSTATE:1:3:cc/cc/cc/c:|AsKs/QsJsTs/2c/3d"):
        action = player.act(view(line, HULHE), 0.0)
        assert action.type == _R and action.size == 0  # aces re-raise, the royal flush bets: the limit `r`


def test_model_file_keeps_statistics(tmp_path):
    path = tmp_path / "adaptive.json"
    player = make_player(model=str(path))
    player.act(view("MATCHSTATE:0:5:r300:AsKd|"), 0.0)
    player.end_hand(view("MATCHSTATE:0:5:r300f:AsKd|"))
    player.end_match()
    again = make_player(model=str(path))
    assert again.stats["p2"].hands == 1
    assert again.stats["p2"].actions.seen(Spot(0, "blind"), level=1) == 1
    path.write_text(json.dumps({"format": "acpcbot-model", "kind": "adaptive", "version": 3,
                                "entries": {"p2": {"hands": "x"}}}))
    with pytest.raises(ModelFileError, match="p2"):
        make_player(model=str(path))


@pytest.mark.parametrize("results", ["123", [1, True, 1], [1, "2", 1], [1, 2], [-1, 0, 0], [1, 0, -1]])
def test_saved_results_must_be_three_numbers(results):
    # the same sums as the portfolio's saved records, read by the same check: three characters are not three numbers
    entry = OpponentStats().to_json()
    entry["results"] = results
    with pytest.raises(SavedStatsError, match="results"):
        OpponentStats.from_json(entry)


def test_multiway_reads_the_spot_its_statistics_record_for_the_bets_it_makes(monkeypatch):
    # 3pnl: position 2 acts first preflop with two opponents behind.  For every raise adaptive weighs,
    # the spot it looks up for the next opponent must be the spot that opponent's statistics record
    # (OpponentStats.observe: spot_of the state it acts in) once it faces that raise.
    game = load_game("3pnl")
    player = create("adaptive", game, 5)
    player.start_match(MatchInfo(game, name="p1", seed=5, opponents=("p2", "p3"), spec="adaptive"))
    asked: list[Spot] = []
    real = OpponentStats.predict
    monkeypatch.setattr(OpponentStats, "predict", lambda self, spot: (asked.append(spot), real(self, spot))[1])
    view = View.parse("MATCHSTATE:2:0::||AsKd", game)
    hand = player.sync(view)
    player.decide_multiway(view, hand, view.opponents)
    targets = player.raise_targets(view.state)
    assert len(targets) >= 3
    for target in targets:
        after = view.state.copy()
        after.apply(raise_to(target))
        if after.is_all_in(after.current_player):
            continue
        assert spot_of(after) in asked, (target, spot_of(after), asked)
