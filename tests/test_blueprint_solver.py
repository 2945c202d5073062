"""The abstract-game solver: known game values, agreement with the exact solver's independent best response,
checkpoints, and the shipped-policy format (rows sum to 1, mass only on legal actions)."""

import numpy as np
import pytest

from acpcbot.cards import deck
from acpcbot.engine import CALL, FOLD, RAISE, State
from acpcbot.evaluator import NUM_PAIRS, PAIRS
from acpcbot.gamedef import load_game
from acpcbot.preflop import PAIR_CLASS
from acpcbot.solve import Solver, build_tree, exploitability
from acpcbot.solve.abstract_cfr import AbstractSolver
from acpcbot.solve.abstract_game import AbstractGameError, identity_abstraction, locate
from acpcbot.solve.abstraction import BINS, CANON_FLOPS, NUM_CLASSES, Buckets, class_joint
from acpcbot.solve.blueprint import Blueprint
from acpcbot.solve.blueprint_train import blueprint_game, policy_rows, quantise, write_policy


@pytest.fixture(scope="module")
def leduc():
    game = load_game("leduc")
    ag, _ = identity_abstraction(game)
    return game, ag, build_tree(game)


def to_tree_strategy(ag, tree, solver):
    """The abstract solver's average strategy as the exact solver's (decision, action, hand) array."""
    cards = deck(tree.game.num_ranks, tree.game.num_suits)
    avg = [solver.average(r) for r in range(len(ag.rounds))]
    sigma = tree.uniform()
    for d, node in enumerate(tree.dec_node):
        r, inst, t = locate(ag, tree.states[node], tuple(cards.index(b) for b in tree.boards[node]))
        for h, hand in enumerate(tree.hands):
            sigma[d, :, h] = avg[r][inst, t, :, cards.index(hand[0])]
    return sigma


def test_leduc_identity_abstraction_matches_exact_solver(leduc):
    # Same algorithm (alternating CFR+, linear averaging) as acpcbot.solve.Solver: the same iterates,
    # and the exact solver's own best response measures the same exploitability.
    game, ag, tree = leduc
    mine = AbstractSolver(ag, workers=1, dtype=np.float64)
    ref = Solver(tree)
    mine.run(60)
    ref.run(60)
    report = mine.exploitability()
    independent = exploitability(tree, to_tree_strategy(ag, tree, mine))
    assert report.mbb == pytest.approx(independent.mbb, rel=1e-9)
    assert report.mbb == pytest.approx(exploitability(tree, ref.average()).mbb, rel=1e-6)
    assert report.values[0] == pytest.approx(independent.values[0], abs=1e-12)


def test_leduc_converges_to_its_value(leduc):
    # Leduc's value for the first player is about -0.0856 chips
    game, ag, tree = leduc
    solver = AbstractSolver(ag, workers=2)
    solver.run(150)
    report = solver.exploitability()
    solver.close()
    assert report.mbb < 10.0
    assert report.values[0] == pytest.approx(-0.0856, abs=2e-3)
    assert sum(report.values) == pytest.approx(0, abs=1e-9)


def test_kuhn_value_is_minus_one_eighteenth():
    ag, _ = identity_abstraction(load_game("kuhn2p"))
    solver = AbstractSolver(ag, workers=1, dtype=np.float64)
    solver.run(200)
    report = solver.exploitability()
    assert report.values[0] == pytest.approx(-1 / 18, abs=1e-3)
    assert report.mbb < 1.0


def test_dcfr_also_converges(leduc):
    game, ag, tree = leduc
    solver = AbstractSolver(ag, "dcfr", workers=1)
    solver.run(100)
    assert solver.exploitability().mbb < 15.0


def test_checkpoint_resume_continues_identically(leduc, tmp_path):
    game, ag, tree = leduc
    straight = AbstractSolver(ag, workers=1, dtype=np.float64)
    straight.run(30)
    first = AbstractSolver(ag, workers=1, dtype=np.float64)
    first.run(17)
    first.save(tmp_path / "c.npz", {"tag": "x"})
    resumed = AbstractSolver(ag, workers=1, dtype=np.float64)
    resumed.load(tmp_path / "c.npz", {"tag": "x"})
    assert resumed.iteration == 17
    resumed.run(13)
    for r in range(2):
        assert np.array_equal(resumed.strategy_sum[r], straight.strategy_sum[r])
    with pytest.raises(ValueError, match="tag"):
        AbstractSolver(ag, workers=1, dtype=np.float64).load(tmp_path / "c.npz", {"tag": "y"})


def test_locate_walks_the_engine_betting(leduc):
    game, ag, _ = leduc
    state = State(game).apply(RAISE).apply(CALL)                       # round 2, first to act
    r, inst, d = locate(ag, state, (3,))
    assert (r, d) == (1, 0) and ag.path[1][inst] == 3
    with pytest.raises(AbstractGameError):
        locate(ag, State(game).apply(RAISE).apply(FOLD))


def test_quantised_rows_sum_to_255_on_legal_actions():
    rng = np.random.default_rng(5)
    legal = np.array([[False, True, True], [True, True, True], [True, True, False]])
    sigma = rng.dirichlet(np.ones(3), size=(7, 3, 11)).transpose(0, 1, 3, 2) * legal[None, :, :, None]
    sigma /= sigma.sum(2, keepdims=True)
    q = quantise(sigma, legal)
    assert (q.astype(int).sum(2) == 255).all()
    assert (q[:, ~legal] == 0).all()
    assert np.abs(q / 255 - sigma).max() <= 2 / 255


def tiny_buckets():
    """A tiny hold'em abstraction: 1 flop, 1 turn and 2 river buckets."""
    flop = np.zeros((len(CANON_FLOPS), NUM_PAIRS), dtype=np.uint8)
    return Buckets(k=(1, 1, 2), river_edges=np.array([BINS // 2]), flop_bucket=flop,
                   turn_centroids=np.zeros((NUM_CLASSES, 1, 1, BINS), dtype=np.float32),
                   transitions=[np.ones((169, 1)), np.ones((169, 1)), np.full((169, 2), 0.5)])


#: limit hold'em with one raise per round: the same cards and rounds as hulhe, a small betting tree
ONE_RAISE = """GAMEDEF
limit
numPlayers = 2
numRounds = 4
blind = 10 5
raiseSize = 10 10 20 20
firstPlayer = 2 1 1 1
maxRaises = 1 1 1 1
numSuits = 4
numRanks = 13
numHoleCards = 2
numBoardCards = 0 3 1 1
END GAMEDEF
"""


@pytest.fixture(scope="module")
def one_raise_game(tmp_path_factory):
    path = tmp_path_factory.mktemp("game") / "oneraise.game"
    path.write_text(ONE_RAISE)
    return path


@pytest.fixture(scope="module")
def tiny_blueprint(tmp_path_factory, one_raise_game):
    """A policy of the one-raise hold'em game over the tiny abstraction, trained a few iterations."""
    buckets = tiny_buckets()
    folder = tmp_path_factory.mktemp("bp")
    buckets.save(folder / "b.npz")
    game = load_game(one_raise_game)
    ag = blueprint_game(game, buckets)
    solver = AbstractSolver(ag, workers=1)
    solver.run(3)
    rows = policy_rows(ag, solver)
    write_policy(folder / "p.npz", ag, rows, {"iterations": 3}, preset=1)
    return Blueprint(game, policy=folder / "p.npz", buckets=folder / "b.npz")


def random_decisions(game, rng, count):
    """Decision states of random legal play with random cards dealt as the rounds need."""
    out = []
    while len(out) < count:
        cards = rng.permutation(52)
        state = State(game, hole=[tuple(cards[:2]), tuple(cards[2:4])], board=list(cards[4:9]))
        while not state.finished:
            out.append(state.copy())
            legal = state.legal_actions()
            state.apply([FOLD, CALL, RAISE][int(rng.choice(legal))])
    return out[:count]


def test_blueprint_rows_are_distributions_over_legal_actions(tiny_blueprint):
    bp = tiny_blueprint
    rng = np.random.default_rng(11)
    for state in random_decisions(bp.game, rng, 40):
        rows = bp.probabilities_all(state)
        assert rows.shape == (NUM_PAIRS, 3)
        assert np.allclose(rows.sum(1), 1.0, atol=1e-12)
        legal = np.zeros(3, dtype=bool)
        legal[[int(a) for a in state.legal_actions()]] = True
        assert (rows[:, ~legal] == 0).all()
        own = bp.probabilities(state)
        hole = state.hole[state.current_player]
        pair = int(np.flatnonzero((PAIRS[:, 0] == min(hole)) & (PAIRS[:, 1] == max(hole)))[0])
        assert np.array_equal(own, rows[pair])


def test_blueprint_preflop_rows_depend_only_on_the_class(tiny_blueprint):
    rows = tiny_blueprint.probabilities_all(State(tiny_blueprint.game))
    for c in range(NUM_CLASSES):
        same = rows[PAIR_CLASS == c]
        assert (same == same[0]).all()


def test_blueprint_refuses_a_state_of_another_game(tiny_blueprint):
    with pytest.raises(ValueError, match="game"):
        tiny_blueprint.probabilities_all(State(load_game("leduc")))


def test_class_joint_is_exact():
    joint = class_joint()
    aa = 0   # CLASSES[0] == 'AA'
    # each AA combo leaves exactly one AA combo for the opponent: 6 of the 1326 x 1225 ordered deals
    assert joint[aa, aa] == pytest.approx(6 / (1326 * 1225))
    assert joint.sum(1)[aa] == pytest.approx(6 / 1326)
    assert np.allclose(joint, joint.T)


THREE_ROUNDS = """GAMEDEF
limit
numPlayers = 2
numRounds = 3
blind = 1 2
raiseSize = 2 2 4
firstPlayer = 2 1 1
maxRaises = 2 2 2
numSuits = 1
numRanks = 6
numHoleCards = 1
numBoardCards = 0 1 1
END GAMEDEF
"""


def synthetic_game(seed=0):
    """A 3-round abstract game with random chains: 3 classes, 2 then 3 buckets, the higher bucket wins."""
    from acpcbot.gamedef import parse_game
    from acpcbot.solve.abstract_game import AbstractGame
    rng = np.random.default_rng(seed)
    joint = rng.random((3, 3))
    joint = (joint + joint.T) / (joint + joint.T).sum()
    t1 = rng.dirichlet(np.ones(2), size=3)
    t2 = rng.dirichlet(np.ones(3), size=6)
    outcome = np.sign(np.arange(3)[:, None] - np.arange(3)[None, :]).astype(float)
    return AbstractGame(game=parse_game(THREE_ROUNDS), joint=joint, buckets=(3, 2, 3), transitions=[t1, t2],
                        public=(1, 1, 1), fold_kernel=[joint[None]] * 3, showdown_kernel=None,
                        showdown_outcome=outcome)


def test_last_round_over_class_and_bucket_is_exact():
    # the last round solved over (class, last bucket) gives the same iterates' exploitability as over full histories
    ag = synthetic_game()
    full = AbstractSolver(ag, workers=1, dtype=np.float64, reduce_last=False)
    reduced = AbstractSolver(ag, workers=1, dtype=np.float64)
    assert reduced.strategy_sum[2].shape[-1] == 9 and full.strategy_sum[2].shape[-1] == 18
    for steps in (1, 5, 20):     # later, rounding differences grow as regrets cross zero
        full.run(steps - full.iteration)
        reduced.run(steps - reduced.iteration)
        a, b = full.exploitability(), reduced.exploitability()
        assert a.mbb == pytest.approx(b.mbb, rel=1e-9, abs=1e-9)
        assert a.values[0] == pytest.approx(b.values[0], abs=1e-12)
    # the full solver's iterates agree across histories that share (class, last bucket)
    sig = full.sigma[2].reshape(full.sigma[2].shape[:3] + (3, 2, 3))
    assert np.allclose(sig, sig[:, :, :, :, :1, :])


def test_command_line_trains_resumes_and_evaluates(tmp_path, capsys, one_raise_game):
    from acpcbot.solve.__main__ import main
    tiny_buckets().save(tmp_path / "b.npz")
    game = str(one_raise_game)
    common = [game, "--buckets", str(tmp_path / "b.npz"), "--checkpoint", str(tmp_path / "c.npz"),
              "--out", str(tmp_path / "p.npz"), "--workers", "1", "--check-every", "2", "--compress", "0"]
    assert main(common + ["--iterations", "2"]) == 0
    first = capsys.readouterr().err
    assert "iteration 2  exploitability" in first and "shipped (quantised) policy" in first
    assert main(common + ["--iterations", "3"]) == 0
    assert "resumed from" in capsys.readouterr().err
    assert main([game, "--buckets", str(tmp_path / "b.npz"), "--evaluate", str(tmp_path / "p.npz")]) == 0
    out = capsys.readouterr().out
    assert "abstract exploitability" in out and "trained 3 iterations" in out
    (tmp_path / "bad.npz").write_bytes(b"junk")
    assert main([game, "--buckets", str(tmp_path / "b.npz"), "--evaluate", str(tmp_path / "bad.npz")]) == 2
    assert "bad.npz" in capsys.readouterr().err
