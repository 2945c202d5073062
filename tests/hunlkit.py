"""A HUNL policy file with random rows, for tests that check what is read, not what was learnt (no training)."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from acpcbot.gamedef import GameDef
from acpcbot.solve.abstraction import Buckets
from acpcbot.solve.blueprint_train import DEFAULT_BUCKETS
from acpcbot.solve.hunl.actions import ActionAbstraction, BlueprintTree
from acpcbot.solve.hunl.cards import build_cards
from acpcbot.solve.hunl.policy import QUANT, HunlBlueprint, buckets_digest, row_starts, write_policy

#: opens of a pot; flop bets of half a pot, raises of a pot; turn and river bets of a pot; then all-in only
SMALL = ActionAbstraction(sizes=(((1.0,),), ((0.5,), (1.0,)), ((1.0,),), ((1.0,),)), max_raises=(1, 2, 1, 1))


def random_policy(game: GameDef, path: Path, abstraction: ActionAbstraction = SMALL, seed: int = 7) -> HunlBlueprint:
    """A policy file at ``path`` over ``abstraction`` (one key a round), every row drawn at random, loaded."""
    buckets = Buckets.load(DEFAULT_BUCKETS)
    cards = build_cards(buckets, 1, 1)
    tree = BlueprintTree(game, abstraction, cards.widths)
    rng = np.random.default_rng(seed)
    rows = np.zeros(tree.size, dtype=np.uint8)
    for na, starts in row_starts(tree).items():
        cuts = np.sort(rng.integers(0, QUANT + 1, size=(len(starts), na - 1)), axis=1)
        edges = np.concatenate([np.zeros((len(starts), 1)), cuts, np.full((len(starts), 1), QUANT)], axis=1)
        rows[starts[:, None] + np.arange(na)] = np.diff(edges, axis=1).astype(np.uint8)
    write_policy(path, tree, cards, rows, {"iterations": 0, "buckets": buckets_digest(buckets)})
    return HunlBlueprint(game, path, DEFAULT_BUCKETS)
