"""adaptive's decisions made cheaper (issue 31) without changing a bit of what they compute.

Each shortcut is checked against its plain form: the spot, the call and
the bet over the pot worked out once against the three questions asked
apart; the model's rows facing a bet (both sigmoids in one pass) against
``threshold_likelihoods``; a river round built in one pass against the
build that made its form and spot keys afterwards; the model's chances on
the rivers kept across decisions against a fresh model's, and never handed
to a model whose numbers differ.  Last, the golden fact behind all of
them: the values of every decision of seeded matches are main's before
the change (9cb10ec), to the bit.
"""

from __future__ import annotations

import hashlib

import numpy as np
import pytest
from playkit import play_memory

from acpcbot.engine import CALL, FOLD, RAISE, ActionType, State, raise_to
from acpcbot.evaluator import pair_ranks
from acpcbot.gamedef import load_game
from acpcbot.strategies.adaptive import policy as adaptive_policy, search as adaptive_search
from acpcbot.strategies.adaptive.policy import ModelPolicy, _threshold_rows
from acpcbot.strategies.adaptive.ranges import preflop_bins, threshold_likelihoods
from acpcbot.strategies.adaptive.runouts import NUM_BINS, Runouts, _move, _showdown_sums, runout_boards, signed_sums
from acpcbot.strategies.adaptive.search import (
    FOLDED,
    OURS,
    RIVER_FRACTIONS,
    SHOWDOWN,
    THEIRS,
    our_actions,
    reply_actions,
    river_skeleton,
    spot_key,
)
from acpcbot.strategies.adaptive.stats import OpponentStats, spot_and_bet, spot_of
from acpcbot.world import View

HUNL = load_game("hunl")
OFF_FLOOR = "adaptive:blueprint=0"


def _random_states(game, count: int, seed: int) -> list[State]:
    """States met along random betting lines (every size of raise), each still to be acted in."""
    gen = np.random.default_rng(seed)
    out = []
    while len(out) < count:
        state = State(game)
        while not state.finished and len(out) < count:
            out.append(state.copy())
            legal = state.legal_actions()
            kind = legal[int(gen.integers(len(legal)))]
            if kind == ActionType.RAISE:
                lo, hi = state.raise_bounds()
                state.apply(RAISE if game.is_limit else raise_to(int(gen.integers(lo, hi + 1))))
            else:  # checks and calls four times as often as folds: lines reach the river
                state.apply(FOLD if kind == ActionType.FOLD and gen.random() < 0.2 else CALL)
    return out


@pytest.mark.parametrize("name", ["hunl", "hulhe"])
def test_a_spot_its_call_and_its_bet_are_worked_out_once_as_asked_apart(name):
    game = load_game(name)
    for state in _random_states(game, 400, 3):
        for p in range(2):
            spot, to_call, ratio = spot_and_bet(state, p)
            assert spot == spot_of(state, p) and to_call == state.to_call(p)
            assert ratio == state.bet_to_pot(p) or (np.isinf(ratio) and np.isinf(state.bet_to_pot(p)))


def test_the_models_rows_facing_a_bet_are_the_threshold_models_to_the_bit():
    gen = np.random.default_rng(31)
    triples = [(0.3, 0.5, 0.2), (0.45, 0.4, 0.15), (0.0, 0.65, 0.35), (0.4, 0.6, 0.0), (1e-9, 0.5, 0.5 - 1e-9)]
    for _ in range(300):
        u = np.sort(gen.random(64))
        triples.append(tuple(gen.dirichlet([1.0, 1.0, 1.0])))
        triple = np.array(triples[-1 if gen.random() < 0.5 else int(gen.integers(5))])
        edges = np.array([[float(triple[0])], [1.0 - float(triple[2])]])
        for facing in (True, False):
            assert np.array_equal(_threshold_rows(u, triple, facing, edges), threshold_likelihoods(u, triple, facing))


def _plain_skeleton(s: State, me: int, opp: int, policy) -> tuple[list, tuple, tuple, tuple]:
    """The river round as it was built before issue 31: nodes, then its form and spot keys in a second pass."""
    nodes: list = []
    raises: list = []

    def build(state: State, own: bool = True) -> int:
        index = len(nodes)
        nodes.append((0, 0.0, [], None))
        if state.finished:
            kind = FOLDED if state.folded[me] or state.folded[opp] else SHOWDOWN
            nodes[index] = (kind, state.heads_up_value(me, 1.0, opp=opp), [], None)
            return index
        if state.current_player == me:
            opening = me not in state.actors[state.round]
            replies = reply_actions(state) if state.game.is_limit else reply_actions(state)[:2]
            actions = our_actions(state, RIVER_FRACTIONS) if opening else replies
            children = []
            for i, action in enumerate(actions):
                child = state if own and i == len(actions) - 1 else state.copy()
                child.apply_unchecked(action)
                children.append(build(child))
            nodes[index] = (OURS, 0.0, children, None)
            return index
        pairs = []
        legal = state.legal_actions()
        for kind in (ActionType.FOLD, ActionType.CALL, ActionType.RAISE):
            if kind in legal:
                reply = (FOLD, CALL, None)[int(kind)] or policy.raise_to(state)
                if kind == ActionType.RAISE:
                    raises.append((state, reply))
                child = state.copy()
                child.apply_unchecked(reply)
                pairs.append((int(kind), build(child)))
        nodes[index] = (THEIRS, 0.0, pairs, state)
        return index

    build(s, own=False)
    shape = tuple((kind, tuple(c if isinstance(c, int) else tuple(c) for c in children))
                  for kind, _, children, _ in nodes)
    spots = tuple(spot_key(state, opp) if kind == THEIRS and state is not None else None
                  for kind, _, _, state in nodes)
    return nodes, shape, spots, tuple(action for _, action in raises)


@pytest.mark.parametrize("name", ["hunl", "hulhe"])
def test_a_river_round_is_the_plain_build(monkeypatch, name):
    game = load_game(name)
    monkeypatch.setattr(adaptive_search, "_SKELETONS", {})
    stats = OpponentStats()
    river = View.parse("MATCHSTATE:1:9:r300c/cc/cc/r600:|AsKd/2c7h9s/Jd/4h", HUNL).state
    for _ in range(4):  # a model that has seen raises over bets after the flop
        stats.observe(river, raise_to(2400))
    starts = [s for s in _random_states(game, 600, 7) if s.round == game.num_rounds - 1 and not s.actions[s.round]]
    assert len(starts) >= 10
    for state in starts[:40]:
        for me in (0, 1):
            for model in (OpponentStats(), stats):
                policy = ModelPolicy(model, 1 - me, game)
                nodes, shape, spots, raises = _plain_skeleton(state.copy(), me, 1 - me, policy)
                got = river_skeleton(state.copy(), me, 1 - me, policy)
                assert got.shape == shape and got.spots == spots
                assert tuple(action for _, action in got.raises) == raises
                assert [(kind, value, list(children)) for kind, value, children, _ in got.nodes] == \
                    [(kind, value, list(children)) for kind, value, children, _ in nodes]


def test_the_models_chances_on_the_rivers_kept_across_decisions_are_a_fresh_models(monkeypatch):
    monkeypatch.setattr(adaptive_policy, "_SHARED", {})
    states = [s for s in _random_states(HUNL, 300, 11) if s.round == 3]
    stats = OpponentStats()
    first = {i: ModelPolicy(stats, s.current_player, HUNL).probs(s, None) for i, s in enumerate(states)}
    assert adaptive_policy._SHARED  # kept
    again = ModelPolicy(stats, 0, HUNL)
    for i, s in enumerate(states):
        if s.current_player == 0:
            assert again.probs(s, None) is first[i]  # the same numbers: handed on as they were made
    # the model learns: what it kept is never handed to a model whose numbers differ
    bet = View.parse("MATCHSTATE:1:9:r300c/cc/cc/r600:|AsKd/2c7h9s/Jd/4h", HUNL).state
    for _ in range(6):
        stats.observe(bet, FOLD)
    kept = ModelPolicy(stats, 0, HUNL)
    monkeypatch.setattr(adaptive_policy, "_SHARED", {})
    fresh = ModelPolicy(stats, 0, HUNL)
    changed = 0
    for i, s in enumerate(states):
        if s.current_player == 0:
            got = kept.probs(s, None)
            assert np.array_equal(got, fresh.probs(s, None))
            changed += not np.array_equal(got, first[i])
    assert changed  # the folds counted moved some chances: a stale entry would have failed above


#: sha256 of every decision's action and values (9 significant digits) of adaptive in seat 0, played by main at
#: 9cb10ec (before issue 31's shortcuts): the values, not only the actions, are main's.  The shortcuts were checked
#: to the bit (float.hex) on this machine; the committed digest rounds so that another BLAS or numpy build, which
#: may move a last bit, does not fail a correct run
MAINS_VALUES = {
    ("uc3m", 30, 5): "cdf092d14b7ef240fecf3dfb1be5f89bf4ae170b18c88e814cc0d2623877bb8d",
    ("adaptive", 16, 4): "f97401fdc61a9ef3119727a1cc6dffcb544e2ea83d90762717e3df24af9f5f98",
}


@pytest.mark.parametrize("opponent, hands, seed", sorted(MAINS_VALUES))
def test_every_decisions_values_are_mains(opponent, hands, seed):
    digest = hashlib.sha256()

    def record(seat, strategy, view, action):
        if seat == 0:
            last = strategy.last
            digest.update(repr((tuple(action), None if last is None else
                                sorted((tuple(a), f"{float(v):.9g}") for a, v in last.values.items()))).encode())

    # both off the floor, as main played them then (hunl's adaptive had no floor before issue 30)
    specs = [OFF_FLOOR, OFF_FLOOR if opponent == "adaptive" else opponent]
    play_memory("hunl", specs, hands, seed, on_act=record, time_per_hand=1e6)
    assert digest.hexdigest() == MAINS_VALUES[(opponent, hands, seed)]


def test_the_rivers_chances_asked_together_are_each_asked_alone(monkeypatch):
    # a fresh model and one that has seen folds, calls and all-ins on the river: spots facing a bet (both
    # sigmoids) and free ones (the raise's alone), many asked twice
    gen = np.random.default_rng(17)
    states = [s for s in _random_states(HUNL, 900, 19) if s.round == 3]
    learnt = OpponentStats()
    for state in states[:200]:
        kind = int(gen.integers(3))
        learnt.observe(state, (FOLD, CALL, raise_to(state.raise_bounds()[1]) if state.raise_bounds() else CALL)[kind])
    hist = gen.dirichlet(np.ones(64))  # a range now (the layout's questions): read against it, not the usual one
    for stats in (OpponentStats(), learnt):
        for seat in (0, 1):
            for now in (None, hist):
                ours = [s for s in states if s.current_player == seat]
                monkeypatch.setattr(adaptive_policy, "_SHARED", {})
                together = ModelPolicy(stats, seat, HUNL).probs_many(ours, now)
                monkeypatch.setattr(adaptive_policy, "_SHARED", {})
                alone = ModelPolicy(stats, seat, HUNL)
                for state, got in zip(ours, together):
                    assert np.array_equal(got, alone.probs(state, now))


def test_the_showdown_table_for_every_pair_is_the_runout_by_runout_sum():
    gen = np.random.default_rng(23)
    runouts = Runouts(pair_ranks(runout_boards((), 30, 5)))
    w0 = gen.random(1326) * (gen.random(1326) < 0.7)
    move = _move(runouts, preflop_bins(), w0)
    got = _showdown_sums(move, runouts.bins, runouts.live, runouts.counts)
    # the plain form: each runout's signed sums gathered at every pair's river bin, added in runout order
    table = signed_sums(move.reshape(NUM_BINS, len(runouts.ranks), NUM_BINS))
    plain = np.zeros((1326, NUM_BINS))
    for r in range(len(runouts.ranks)):
        plain += (table[:, r, :][:, runouts.bins[r]] * runouts.live[r]).T
    plain = np.divide(plain, runouts.counts[:, None], out=np.zeros_like(plain), where=runouts.counts[:, None] > 0)
    assert np.array_equal(got, plain)
