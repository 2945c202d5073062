"""The HUNL blueprint: lossless and suit-isomorphic keys, pseudo-harmonic translation, legal rows, a trainer that
converges on Kuhn and Leduc and resumes bit-exactly, and the blueprint seam's registry."""

from __future__ import annotations

import random
from functools import lru_cache

import numpy as np
import pytest

from acpcbot.engine import CALL, FOLD, ActionType, State, raise_to
from acpcbot.evaluator import PAIR_INDEX, PAIRS
from acpcbot.gamedef import load_game
from acpcbot.preflop import CLASSES, PAIR_CLASS
from acpcbot.solve.abstraction import Buckets
from acpcbot.solve.blueprint import bucket_history
from acpcbot.solve.blueprint_hulhe import HULHE
from acpcbot.solve.blueprint_registry import spec_for
from acpcbot.solve.blueprint_train import DEFAULT_BUCKETS
from acpcbot.solve.hunl import load_cache
from acpcbot.solve.hunl.actions import HUNL_DEFAULT, ActionAbstraction, BlueprintTree, abstract_actions
from acpcbot.solve.hunl.cards import BucketDeals, build_cards
from acpcbot.solve.hunl.mccfr import MCCFR, Settings
from acpcbot.solve.hunl.policy import HunlBlueprint, buckets_digest, quantised_rows, write_policy
from acpcbot.solve.hunl.small_games import CardDeals, exact_exploitability
from acpcbot.solve.hunl.spec import HUNL
from acpcbot.solve.hunl.translation import map_action, pseudo_harmonic, translate, tree_paths

HUNL_GAME = load_game("hunl")
SHIPPED_WIDTHS = (169, 64, 48, 10)  # the shipped abstraction's keys a round
#: a small abstraction for tests: one size a round, one raise before all-in
TINY = ActionAbstraction(sizes=(((1.0,),), ((0.5,),), ((1.0,),), ((1.0,),)), max_raises=(2, 1, 1, 1))


@lru_cache(maxsize=1)
def buckets() -> Buckets:
    return Buckets.load(DEFAULT_BUCKETS)


@lru_cache(maxsize=1)
def small_cards():
    return build_cards(buckets(), 6, 6)


# ------------------------------------------------------------------ the seam

def test_the_registry_gives_each_game_its_blueprint():
    assert spec_for(load_game("hulhe")) is HULHE
    assert spec_for(HUNL_GAME) is HUNL
    for name in ("leduc", "kuhn2p", "3pl", "leducnl", "3pnl"):
        assert spec_for(load_game(name)) is None
    assert HUNL.resolver is not None and HULHE.resolver is not None  # both re-solve in play


# ------------------------------------------------------------- card abstraction

def test_preflop_keys_are_the_169_lossless_classes():
    cards = small_cards()
    keys = [cards.key(bucket_history(buckets(), (), p), 0) for p in range(len(PAIRS))]
    counts = np.bincount(keys, minlength=169)
    assert len(set(keys)) == 169
    for c, name in enumerate(CLASSES):
        assert counts[c] == (6 if len(name) == 2 else 4 if name.endswith("s") else 12), name
    assert keys == list(PAIR_CLASS)


def _renamed(card: int, perm: tuple[int, ...]) -> int:
    return (card & ~3) | perm[card & 3]


def test_postflop_keys_are_suit_isomorphic():
    rng = random.Random(5)
    cards = small_cards()
    for n_board in (3, 4, 5):
        for _ in range(4):
            dealt = rng.sample(range(52), n_board + 2)
            board, hole = tuple(dealt[:n_board]), dealt[n_board:]
            key = cards.key(bucket_history(buckets(), board, int(PAIR_INDEX[hole[0], hole[1]])), n_board - 2)
            for _ in range(3):
                perm = tuple(rng.sample(range(4), 4))
                b2 = tuple(_renamed(c, perm) for c in board)
                h2 = [_renamed(c, perm) for c in hole]
                pair = int(PAIR_INDEX[h2[0], h2[1]])
                assert cards.key(bucket_history(buckets(), b2, pair), n_board - 2) == key


def test_the_key_maps_cover_their_widths_and_the_chance_model_draws_valid_keys():
    cards = small_cards()
    assert sorted(set(cards.flop_map.tolist())) == list(range(6))
    assert sorted(set(cards.turn_map.tolist())) == list(range(6))
    deals = BucketDeals(buckets(), cards)
    rng = random.Random(1)
    for _ in range(200):
        k0, k1, outcome = deals.deal(rng)
        for keys in (k0, k1):
            assert all(0 <= k < w for k, w in zip(keys, cards.widths))
        assert outcome == (k0[3] > k1[3]) - (k0[3] < k1[3])


# ------------------------------------------------------------ action abstraction

def test_preflop_opens_are_the_listed_big_blind_multiples_and_all_in():
    acts = abstract_actions(State(HUNL_GAME), HUNL_DEFAULT)     # the small blind (position 1) opens
    assert acts == (FOLD, CALL, raise_to(200), raise_to(250), raise_to(300), raise_to(400), raise_to(20000))


def test_a_size_below_the_minimum_raise_is_lifted_to_it_and_merged():
    state = State(HUNL_GAME).apply(raise_to(300)).apply(raise_to(20000 - 1))   # a raise leaving one chip behind
    acts = abstract_actions(state, HUNL_DEFAULT)
    assert acts == (FOLD, CALL, raise_to(20000))
    small = ActionAbstraction(sizes=(((0.1, 0.2),),), max_raises=(3,))
    assert abstract_actions(State(HUNL_GAME), small) == (FOLD, CALL, raise_to(200), raise_to(20000))


def test_pseudo_harmonic_probabilities_on_hand_worked_numbers():
    # A = 1/2 pot, B = 1 pot, x = 3/4 pot: (1 - 3/4)(1 + 1/2) / ((1 - 1/2)(1 + 3/4)) = 3/7
    assert pseudo_harmonic(0.5, 1.0, 0.75) == pytest.approx(3 / 7)
    # A = 1 pot, B = 2 pots, x = 1.5: (0.5)(2) / ((1)(2.5)) = 0.4
    assert translate(1.5, [0.5, 1.0, 2.0]) == [(1, pytest.approx(0.4)), (2, pytest.approx(0.6))]
    assert translate(0.2, [0.5, 1.0]) == [(0, 1.0)]
    assert translate(3.0, [0.5, 1.0]) == [(1, 1.0)]
    assert translate(1.0, [0.5, 1.0, 2.0]) == [(1, 1.0)]
    assert pseudo_harmonic(0.5, 1.0, 0.5) == pytest.approx(1.0) and pseudo_harmonic(0.5, 1.0, 1.0) == 0.0


@pytest.mark.parametrize("line", [(), (CALL,), (raise_to(300), CALL, CALL)])
def test_every_size_the_opponent_can_bet_maps_onto_the_tree(line):
    tree = BlueprintTree(HUNL_GAME, TINY, (1, 1, 1, 1))
    state = State(HUNL_GAME)
    for a in line:
        state.apply(a)
    paths = tree_paths(tree, state)
    assert len(paths) == 1 and paths[0][1] == pytest.approx(1.0)
    node, _, tree_state, _ = paths[0]
    lo, hi = state.raise_bounds()
    raises = [i for i, a in enumerate(tree.actions[node]) if a[0] == ActionType.RAISE]
    call = tree.actions[node].index(CALL)
    for to in range(lo, hi + 1, 7):
        got = map_action(tree, node, state, tree_state, raise_to(to))
        assert got and sum(p for _, p in got) == pytest.approx(1.0)
        assert {i for i, _ in got} <= set(raises) | {call}        # below the smallest size: the call or it
        assert len(got) == 1 or got[1][0] == got[0][0] + 1          # the two neighbouring sizes (the call first)
    assert map_action(tree, node, state, tree_state, raise_to(hi)) == [(raises[-1], 1.0)]


# ------------------------------------------------------------------ the trainer

def _train(game_name: str, iterations: int, seed: int = 1) -> tuple[MCCFR, CardDeals]:
    game = load_game(game_name)
    deals = CardDeals(game)
    trainer = MCCFR(BlueprintTree(game, None, deals.widths), deals, Settings(seed=seed, discount_every=100))
    trainer.run(iterations)
    return trainer, deals


def test_the_trainer_converges_on_kuhn():
    trainer, deals = _train("kuhn2p", 2000)
    early = exact_exploitability(trainer, deals).mbb
    trainer.run(18000)
    late = exact_exploitability(trainer, deals)
    # Kuhn's value to the first player is -1/18 ante; an equilibrium is 0 mbb exploitable
    assert late.mbb < 10 < early
    assert late.values[0] == pytest.approx(-1 / 18, abs=0.01)


def test_the_trainer_converges_on_leduc():
    trainer, deals = _train("leduc", 2000)
    early = exact_exploitability(trainer, deals).mbb
    trainer.run(13000)
    late = exact_exploitability(trainer, deals).mbb
    assert late < 120 and late < early / 2


def test_a_resumed_run_is_bit_identical_to_an_uninterrupted_one(tmp_path):
    game = load_game("leduc")
    deals = CardDeals(game)
    settings = Settings(seed=3, discount_every=150, prune_after=200, prune_threshold=-0.5, regret_floor=-5.0)

    def fresh() -> MCCFR:
        return MCCFR(BlueprintTree(game, None, deals.widths), deals, settings)

    whole = fresh()
    whole.run(700)
    first = fresh()
    first.run(400)
    first.save(tmp_path / "ck.npz", {"game": "leduc"})
    resumed = fresh()
    resumed.load(tmp_path / "ck.npz", {"game": "leduc"})
    resumed.run(300)
    assert resumed.iteration == whole.iteration == 700
    assert resumed.regret.tobytes() == whole.regret.tobytes()
    assert resumed.strategy.tobytes() == whole.strategy.tobytes()
    assert resumed.rng.getstate() == whole.rng.getstate()
    with pytest.raises(ValueError, match="another run"):
        fresh().load(tmp_path / "ck.npz", {"game": "kuhn"})


# ------------------------------------------------------------ the policy at play

@pytest.fixture(scope="module")
def tiny_policy(tmp_path_factory):
    cards = small_cards()
    tree = BlueprintTree(HUNL_GAME, TINY, cards.widths)
    trainer = MCCFR(tree, BucketDeals(buckets(), cards), Settings(seed=2))
    trainer.run(300)
    path = tmp_path_factory.mktemp("hunl") / "tiny.npz"
    write_policy(path, tree, cards, quantised_rows(trainer), {"iterations": 300, "buckets": buckets_digest(buckets())})
    return HunlBlueprint(HUNL_GAME, path, DEFAULT_BUCKETS)


def _random_states(n: int, seed: int):
    """Decision states of random hands with random (mostly off-tree) sizes and real cards."""
    rng = random.Random(seed)
    out = []
    while len(out) < n:
        cards = rng.sample(range(52), 9)
        state = State(HUNL_GAME, hole=[cards[0:2], cards[2:4]])
        while not state.finished:
            if len(state.board) < HUNL_GAME.board_cards_through(state.round):  # a new round's cards, through the engine
                state.deal_board(cards[4 + len(state.board):4 + HUNL_GAME.board_cards_through(state.round)])
            out.append(state.copy())
            legal = state.legal_actions()
            kind = rng.choice(legal)
            if kind == ActionType.RAISE:
                lo, hi = state.raise_bounds()
                state.apply(raise_to(rng.choice([lo, hi, rng.randint(lo, hi)])))
            else:
                state.apply(CALL if kind == ActionType.CALL else FOLD)
    return out[:n]


def test_policy_rows_sum_to_one_over_distinct_legal_actions(tiny_policy):
    for state in _random_states(40, 11):
        acts = tiny_policy.actions(state)
        assert len(set(acts)) == len(acts) and all(state.is_legal(a) for a in acts)
        rows = tiny_policy.probabilities_all(state)
        assert rows.shape == (1326, len(acts))
        assert np.allclose(rows.sum(1), 1.0) and (rows >= 0).all()
        me = state.hole[state.current_player]
        assert np.allclose(tiny_policy.probabilities(state), rows[PAIR_INDEX[me[0], me[1]]])


def test_the_blueprint_strategy_plays_a_hunl_policy_file(tiny_policy, tmp_path):
    from acpcbot.strategies.registry import create  # noqa: PLC0415
    from acpcbot.world import View  # noqa: PLC0415
    path = tmp_path / "p.npz"
    cards = small_cards()
    tree = tiny_policy.tree
    trainer = MCCFR(tree, BucketDeals(buckets(), cards), Settings(seed=2))
    trainer.run(50)
    write_policy(path, tree, cards, quantised_rows(trainer), {"buckets": buckets_digest(buckets())})
    player = create(f"blueprint:policy={path}", HUNL_GAME, 4)
    view = View.parse("MATCHSTATE:1:0::|AsKd", HUNL_GAME)
    for _ in range(20):
        assert view.state.is_legal(player.act(view, 0.0))
    policy = player.policy(view)
    assert np.allclose(policy.probs.sum(1), 1.0)


def test_two_workers_share_the_tables_and_still_converge_on_leduc():
    from acpcbot.solve.hunl.parallel import ParallelMCCFR  # noqa: PLC0415
    game = load_game("leduc")
    deals = CardDeals(game)
    trainer = MCCFR(BlueprintTree(game, None, deals.widths), deals, Settings(seed=4, discount_every=100))
    driver = ParallelMCCFR(trainer, 2)
    try:
        driver.run(500)
        early = exact_exploitability(trainer, deals).mbb
        for _ in range(7):
            driver.run(500)
    finally:
        driver.close()
    assert trainer.iteration == 8000 and len(driver.rngs) == 2 and driver.rngs[0] != driver.rngs[1]
    late = exact_exploitability(trainer, deals).mbb   # the tables came back as the trainer's own arrays
    assert late < 250 and late < early


def test_the_trees_own_sizes_made_in_whole_chips_read_as_themselves():
    # the shipped tree as play reads it, from acpcbot's cache folder (grown there by the first process to load the
    # hunl blueprint, about 2 s; test_blueprint_load: the cached tree is the grown one node for node)
    tree = load_cache.load_tree(HUNL_GAME, HUNL_DEFAULT, SHIPPED_WIDTHS)
    # an open to 275 (0.875 pot) reads as 250 (0.75) or 300 (1): (1 - 0.875)(1 + 0.75) / ((1 - 0.75)(1 + 0.875))
    state = State(HUNL_GAME).apply(raise_to(275)).apply(CALL)
    to_250 = 0.21875 / 0.46875
    assert sorted(p.weight for p in tree_paths(tree, state)) == [pytest.approx(to_250), pytest.approx(1 - to_250)]
    # the big blind bets 3/4 of the real pot (550): 412 chips, 0.7491 pot, one chip short of the tree's 3/4 on
    # either path: it stays 3/4 on each (no path to 1/2 for the rounding)
    state.apply(raise_to(raise_target_of(state, 0.75)))
    paths = tree_paths(tree, state)
    assert sorted(p.weight for p in paths) == [pytest.approx(to_250), pytest.approx(1 - to_250)]
    assert sorted(p.state.max_spent for p in paths) == [250 + 375, 300 + 450]
    # a real off-tree bet still splits: 0.4 pot between the tree's third (167 chips of 500: A = 0.334) and half
    off = State(HUNL_GAME).apply(raise_to(250)).apply(CALL).apply(raise_to(250 + 200))
    weights = sorted(p.weight for p in tree_paths(tree, off))
    # (0.5 - 0.4)(1 + 0.334) / ((0.5 - 0.334)(1 + 0.4)) = 0.1334 / 0.2324 to the third
    assert weights == [pytest.approx(1 - 0.1334 / 0.2324), pytest.approx(0.1334 / 0.2324)]


def raise_target_of(state: State, fraction: float) -> int:
    from acpcbot.solve.hunl.actions import raise_target  # noqa: PLC0415
    return raise_target(state, fraction)
