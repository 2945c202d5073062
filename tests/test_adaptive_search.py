"""adaptive's decision core: a best response to a known policy, no raise wars, no folds that beat the pot odds.

The probes (``probe:kind=K``) are card-blind, so the exact best response
to each has a closed form (``probe-br``) that uses only our equity against
a random hand.  Given a probe's true policy (``adaptive:opponent=probe:...``)
adaptive's search must earn what that best response earns.
"""

from __future__ import annotations

import random
import statistics

import numpy as np
import pytest
from playkit import play_memory, slow, started

from acpcbot.cards import cards_to_text, parse_cards
from acpcbot.engine import CALL, FOLD, RAISE, State, raise_to
from acpcbot.evaluator import PAIRS, pair_ranks
from acpcbot.gamedef import load_game
from acpcbot.preflop import hand_class, preflop_equity
from acpcbot.protocol import format_match_state
from acpcbot.strategies.adaptive.runouts import signed_sums, strength_bins
from acpcbot.strategies.adaptive.search import our_actions, quick_raise
from acpcbot.strategies.registry import create
from acpcbot.world import View

HUNL = load_game("hunl")
#: adaptive's search and model without the blueprint floor hunl's default stands on (the floor: test_adaptive_floor)
OFF_FLOOR = "adaptive:blueprint=0"
HULHE = load_game("hulhe")


# ----------------------------------------------------------------- the pieces

def test_signed_sums_count_the_weight_below_minus_above():
    q = np.array([[1.0, 2.0, 3.0, 4.0]])
    # bin 0 beats nothing and loses to 9; bin 2 beats 3 (bins 0, 1), ties itself, loses to 4
    assert signed_sums(q).tolist() == [[-9.0, -6.0, -1.0, 6.0]]


def test_strength_bins_order_pairs_by_what_they_beat():
    board = tuple(parse_cards("AhKd8c4s2h"))
    bins = strength_bins(pair_ranks(board))[0]
    idx = {hand: int(np.flatnonzero((PAIRS == sorted(parse_cards(hand))).all(axis=1))[0])
           for hand in ("AsAd", "KsKc", "7c6d", "3c3d")}
    # trip aces lose only to the wheel (5-3): near the top; then trip kings, a pair of threes, seven high
    assert bins[idx["AsAd"]] >= 60 and bins[idx["AsAd"]] >= bins[idx["KsKc"]] > bins[idx["3c3d"]] > bins[idx["7c6d"]]
    held = int(np.flatnonzero((PAIRS == sorted(parse_cards("Ah5c"))).all(axis=1))[0])
    assert bins[held] == 0  # holds a board card: not live


def test_showdown_sums_are_every_rows_exact_signs_at_once():
    # golden by brute force: each row's sum is its weight-dotted signs (wins minus losses by treys ranks, over
    # the runouts both pairs are live on), and the board cards' pairs count for nothing
    from acpcbot.strategies.adaptive.runouts import Runouts, runout_boards
    boards = runout_boards(tuple(parse_cards("Ah7d2c")), 9, 5)
    runouts = Runouts(pair_ranks(boards))
    u = np.random.default_rng(3).random((3, len(PAIRS)))
    sums = runouts.showdown_sums(u)
    rows = [0, 77, 500, 1325, int(np.flatnonzero((PAIRS == sorted(parse_cards("AsAd"))).all(axis=1))[0])]
    for row in rows:
        assert np.allclose(sums[:, row], u @ runouts.signs(row), rtol=1e-12, atol=1e-9)
    # a tie is worth nothing: two pairs of the same rank on every runout see each other as 0
    ranks = np.ones((2, len(PAIRS)), dtype=np.int64) * 100
    assert np.allclose(Runouts(ranks).showdown_sums(np.ones((1, len(PAIRS)))), 0.0)


# ----------------------------------------------------------------- a best response to a known policy

def test_calls_a_known_jammer_exactly_when_the_equity_pays():
    # The big blind facing a 200-big-blind shove from a card-blind jammer: calling wins
    # 20000 x (2 eq - 1) against folding's -100, eq its exact equity against a random hand.
    # Over a spread of hands the search's choices earn the best response's gain over folding.
    player = started("adaptive:opponent=probe:kind=jam", HUNL)
    gen = random.Random(3)
    br_gain = gain = 0.0
    for k in range(40):
        hole = tuple(gen.sample(range(52), 2))
        eq = preflop_equity(hand_class(*hole))
        state = State(HUNL, k, [hole, ()], [])
        state.apply(raise_to(20000))
        view = View.parse(format_match_state(state.view_of(0), 0), HUNL)
        action = player.act(view, 0.0)
        call_gain = 20000 * (2 * eq - 1) + 100
        br_gain += max(0.0, call_gain)
        gain += call_gain if action == CALL else 0.0
        assert action in (CALL, FOLD)
    assert gain >= 0.97 * br_gain, (gain, br_gain)


def _paired(game: str, kind: str, hands: int, seed: int) -> tuple[float, float, float]:
    """adaptive given the probe's policy, and probe-br, each against the probe on the same deals and seats."""
    bb = load_game(game).big_blind
    per = {}
    for hero in (f"adaptive:opponent=probe:kind={kind}", f"probe-br:kind={kind}"):
        a = play_memory(game, [hero, f"probe:kind={kind}"], hands, seed)
        b = play_memory(game, [f"probe:kind={kind}", hero], hands, seed)
        per[hero] = [x[0] for x in a.per_hand] + [x[1] for x in b.per_hand]
    ours, best = per.values()
    diff = [x - y for x, y in zip(ours, best)]
    se = statistics.stdev(diff) / len(diff) ** 0.5
    return 1000 * statistics.fmean(ours) / bb, 1000 * statistics.fmean(best) / bb, 1000 * se / bb


@slow
@pytest.mark.parametrize("game,kind", [("hunl", "call"), ("hunl", "betpot"), ("hunl", "jam"), ("hulhe", "call"),
                                       ("hulhe", "jam"), ("hulhe", "betpot")])
def test_earns_the_best_response_against_known_probes(game, kind):
    # Measured when written (2026-11-25, 150 deals x 2 seats): hunl call 98%, betpot 98%, jam 106%
    # (noise), hulhe call 95% of the best response; paired on the same deals, so the gap's error is small.
    # hulhe jam and betpot (2026-11-26): 83% and 89% while the search stopped raising at RAISE_CAP in limit
    # too, 94% and 98% raising up to the game's own cap.
    ours, best, se = _paired(game, kind, 150, 5)
    assert best > 0 and ours >= 0.93 * best - se, (ours, best, se)


# ----------------------------------------------------------------- the model's overbets

def test_the_overbet_scaling_is_a_prior_that_counted_answers_outweigh():
    from acpcbot.strategies.adaptive.policy import overbet_triple
    triple = np.array([0.2, 0.7, 0.1])
    assert overbet_triple(triple, 3.9).tolist() == triple.tolist()  # up to four pots: as counted
    # a 66-pot shove, nothing counted in the bucket: continuing scaled by sqrt(5 / 67)
    cold = overbet_triple(triple, 66.0)
    assert np.allclose(cold, [1 - 0.8 * (5 / 67) ** 0.5, 0.7 * (5 / 67) ** 0.5, 0.1 * (5 / 67) ** 0.5])
    # the more answers to such bets are counted, the more they stand as counted
    shares = [1.0 - overbet_triple(triple, 66.0, seen)[0] for seen in (0, 4, 20, 400)]
    assert shares == sorted(shares) and shares[-1] > 0.79 and shares[1] < 0.6


def test_a_player_seen_calling_shoves_is_expected_to_call_them():
    # The minraise and call probes never fold; the old model scaled its answers to every bet over four pots
    # down (about 27% continuing against a 66-pot shove) whatever it had counted, so adaptive kept bluffing
    # all-in into them: 89% of the best response against minraise in 400 duplicate hands, 98% without it.
    from acpcbot.engine import ActionType
    from acpcbot.strategies.adaptive.policy import ModelPolicy
    from acpcbot.strategies.adaptive.stats import OpponentStats, Spot
    stats = OpponentStats()
    for _ in range(30):
        stats.actions.add(Spot(1, "bet", 4), ActionType.CALL)
    state = View.parse("MATCHSTATE:0:1:r200c/r20000:AsKd|/2c7h9s", HUNL).state  # we shove 198 bb into 4 bb
    assert state.bet_to_pot(1) > 40
    probs = ModelPolicy(stats, 1, HUNL).probs(state, None)
    assert probs[1].mean() > 0.85, probs[:, ::16]


# ----------------------------------------------------------------- discipline

def test_never_feeds_a_raise_war():
    # A bot that min-raises whenever it can made the old adaptive re-raise round after round (63 actions
    # in one round, the dealer's 64-action cap once).  Past RAISE_CAP raises in a round we only call,
    # fold or go all-in.  Asked at a round four raises deep (the cap is 3), holding the nuts (where the search
    # wants to raise most), the search, the quick answer and the player offer and play no raise but all-in.
    line = "MATCHSTATE:1:1:r300r600r900r1200:|AsAd"  # four raises preflop, our aces facing a min-raise war
    view = View.parse(line, HUNL)
    state = view.state
    all_in = raise_to(state.raise_bounds()[1])
    assert our_actions(state, (0.5, 1.0, 2.0)) == [FOLD, CALL, all_in]
    assert quick_raise(state) in (None, all_in)
    player = started(OFF_FLOOR, HUNL)
    assert player.act(view, 0.0) in (CALL, all_in)
    # two raises deep the same search still offers its sizes below all-in
    below = View.parse("MATCHSTATE:1:1:r300r600:|AsAd", HUNL).state
    assert len(our_actions(below, (0.5, 1.0, 2.0))) > 3


def test_in_limit_it_caps_the_betting_where_the_game_allows():
    # Limit games cap a round's raises themselves (hulhe: 4 after the flop), so no raise war can run; the
    # search's RAISE_CAP kept adaptive from the round's last raise there, and against a known jammer it only
    # called with the nuts: 83% of the best response in hulhe, 94% once it may make that raise.
    player = started("adaptive:opponent=probe:kind=jam", HULHE)
    # quad aces on the river facing the round's third raise: the fourth is legal, and nothing beats them
    view = View.parse("MATCHSTATE:1:3:cc/cc/cc/rrr:|AsAh/AdAcKs/2h/3d", HULHE)
    assert view.state.num_raises == 3 and view.is_legal(RAISE)
    assert player.act(view, 0.0) == RAISE
    assert player.quick_action(view) == RAISE


def test_calls_a_learnt_jammer_with_the_hands_the_variance_penalty_folded():
    # The hands: once ahead against an all-in-every-hand bot, the old variance penalty folded
    # AKs, AKo, AJs, KQo, KJo (all above 50% against a random hand).  Learnt from play, they call (the search off
    # the floor: on it, 80 hands are within the cold hands, where the floor plays)
    player = create(OFF_FLOOR, HUNL, 5)
    play_memory("hunl", [OFF_FLOOR, "probe:kind=jam"], 80, 3, strategies=[player, create("probe:kind=jam", HUNL, 9)])
    for k, hole in enumerate(("AsKs", "AsKd", "AsJs", "KsQd", "KsJd")):
        view = View.parse(f"MATCHSTATE:0:{900000 + k}:r20000:{hole}|", HUNL)
        assert player.act(view, 0.0) == CALL, hole


def test_the_quick_answer_never_folds_what_beats_the_pot_odds():
    player = started(OFF_FLOOR, HUNL)
    for line in ("MATCHSTATE:0:1:r20000:AsAd|", "MATCHSTATE:0:2:r300:KsKd|", "MATCHSTATE:1:3::|7c2d",
                 "MATCHSTATE:1:4:cc/cc/cc/r300:|AhAd/AcKd8c/4s/2h"):
        view = View.parse(line, HUNL)
        action = player.quick_action(view)
        assert view.is_legal(action)
        assert action != FOLD, line
    weak = View.parse("MATCHSTATE:0:5:r20000:7c2d|", HUNL)
    assert player.quick_action(weak) == FOLD  # 35% against any two cards, 49.8% needed


def test_policy_rows_are_the_decisions_of_every_holding():
    player = started(OFF_FLOOR, HUNL)  # one-hot rows: act plays their argmax
    view = View.parse("MATCHSTATE:0:7:r300:KsKd|", HUNL)
    policy = player.policy(view)
    assert policy.probs.shape == (1326, len(policy.actions))
    gen = random.Random(8)
    for _ in range(5):
        hole = tuple(sorted(gen.sample(range(52), 2)))
        other = View.parse(f"MATCHSTATE:0:7:r300:{cards_to_text(hole)}|", HUNL)
        assert policy.actions[int(np.argmax(policy.row(hole)))] == player.act(other, 0.0)
