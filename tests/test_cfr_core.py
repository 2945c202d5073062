"""The CFR core both solvers share: regret matching and averaging in both array layouts, and the policy file.

Exact answers worked by hand: positive regrets (1, -1, 3) match to
(1/4, 0, 3/4); no positive regret gives the uniform strategy over the
legal actions only.  The shipped blueprint's file loads through the core.
"""

from __future__ import annotations

import numpy as np
import pytest

from acpcbot.solve import abstract_cfr, blueprint_train, cfr
from acpcbot.solve.cfr_core import ALGORITHMS, check_algorithm, normalise, read_abstract_policy, regret_matching


def test_per_row_layout_matches_positive_regret_and_falls_back_to_uniform_over_legal():
    regrets = np.array([[[1.0], [-1.0], [3.0]], [[-2.0], [0.0], [-5.0]]])  # (decisions, 3, hands)
    legal = np.array([[True, True, True], [False, True, True]])
    sigma = regret_matching(regrets, legal)
    assert sigma[:, :, 0].tolist() == [[0.25, 0.0, 0.75], [0.0, 0.5, 0.5]]
    assert normalise(np.zeros((1, 3, 2)), legal[1:])[0, :, 1].tolist() == [0.0, 0.5, 0.5]


def test_shared_mask_layout_gives_the_same_answers():
    regrets = np.array([[[1.0], [-1.0], [3.0]], [[-2.0], [0.0], [-5.0]]], dtype=np.float32)  # (n, 3, histories)
    sigma = regret_matching(regrets, np.array([True, True, True]))
    assert sigma[0, :, 0].tolist() == [0.25, 0.0, 0.75]
    assert np.allclose(sigma[1, :, 0], [1 / 3, 1 / 3, 1 / 3])  # float32 thirds
    folded_out = regret_matching(regrets, np.array([False, True, True]))
    assert folded_out[1, :, 0].tolist() == [0.0, 0.5, 0.5] and folded_out.dtype == np.float32
    assert normalise(regrets, np.array([True, True, True])).dtype == np.float64


def test_both_solvers_and_the_trainer_use_the_one_core():
    assert cfr.ALGORITHMS is abstract_cfr.ALGORITHMS is blueprint_train.ALGORITHMS is ALGORITHMS
    assert cfr.regret_matching is abstract_cfr.regret_matching is regret_matching
    assert blueprint_train.read_policy is read_abstract_policy
    with pytest.raises(ValueError, match="unknown algorithm 'cfr'; choose one of cfr\\+, dcfr"):
        check_algorithm("cfr")


def test_the_shipped_blueprint_file_loads_unchanged():
    rows, meta = read_abstract_policy(blueprint_train.DEFAULT_POLICY)
    assert len(rows) == 4 and all(r.dtype == np.uint8 for r in rows)
    assert meta["k"] == tuple(meta["k"]) and "GAMEDEF" in meta["game_text"]
