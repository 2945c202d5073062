"""Genetic tuning: the 2008 study's operators (its Table 5 crossover), selection, generations, resumable runs."""

from __future__ import annotations

import json
import random

import pytest

from acpcbot.gamedef import load_game
from acpcbot.strategies.registry import create
from dealer.arena.genetic import Gene, next_generation, scattered_crossover, scattered_mask, stochastic_uniform
from dealer.arena.recipes import RecipeError
from dealer.arena.sitngo import TableRules
from dealer.arena.tune import genes_of, parse_field, spec_of, tune

# the study's Table 5 (genes Pot, Chance, Raise, Odds, QtyRaise, Followers, Ingame, Nplayers, LQ, BQ)
PARENT1 = [14, 5, 7, 9, 1, 4, 3, 8, 3, 7]
PARENT2 = [27, 20, 3, 2, 4, 1, 2, 3, 5, 10]
CHILD = [27, 20, 7, 9, 1, 1, 3, 3, 3, 7]
MASK = [0, 0, 1, 1, 1, 0, 1, 0, 1, 1]  # 1: the gene of parent 1 (the only mask the child allows where they differ)


def test_table5_crossover_with_its_mask():
    assert scattered_crossover(PARENT1, PARENT2, MASK) == CHILD


def test_table5_crossover_from_a_fixed_seed():
    # the mask drawn from seed 1807 is Table 5's: the genetic step itself reproduces the study's child
    mask = scattered_mask(10, random.Random(1807))
    assert mask == MASK
    assert scattered_crossover(PARENT1, PARENT2, mask) == CHILD


def test_stochastic_uniform_pointers_land_by_fitness():
    # segments 1, 1, 2 and 4 pointers one apart: whatever the start, one each on the first two, two on the third
    for seed in range(20):
        assert stochastic_uniform([1, 1, 2], 4, random.Random(seed)) == [0, 1, 2, 2]
    # an individual of fitness 0 is never chosen
    assert 1 not in stochastic_uniform([3, 0, 1], 8, random.Random(3))


def test_next_generation_keeps_elite_and_bounds():
    genes = [Gene("a", 0, 10), Gene("b", 2, 4, integer=True)]
    pop = [[float(i), 2.0 + i % 3] for i in range(10)]
    fit = [i / 10 for i in range(10)]
    nxt = next_generation(pop, fit, genes, random.Random(1), elite=2, mutants=1)
    assert len(nxt) == 10
    assert nxt[:2] == [pop[9], pop[8]]  # the two fittest, best first
    for g in nxt:
        assert 0 <= g[0] <= 10 and g[1] in (2.0, 3.0, 4.0)


def test_learner2008_declares_the_study_bounds():
    genes = {g.name: g for g in genes_of("learner2008:data=x.npz")}
    assert len(genes) == 10
    assert (genes["chance"].low, genes["chance"].high) == (5, 25)
    assert (genes["pot"].low, genes["pot"].high) == (1, 50)
    assert (genes["lq"].low, genes["lq"].high, genes["lq"].integer) == (2, 4, True)
    assert (genes["bq"].low, genes["bq"].high, genes["bq"].integer) == (2, 10, True)


def test_a_strategy_without_ranges_is_refused():
    with pytest.raises(RecipeError, match="declares no parameter ranges"):
        genes_of("random2008")


def test_field_weights():
    assert parse_field(["2*mfs:t=1", "random2008"]) == [(2.0, "mfs:t=1"), (1.0, "random2008")]


def test_tuned_spec_plays():
    genes = genes_of("utility:mu=0", ["r", "f"])
    spec = spec_of("utility:mu=0", genes, [0.61234, 0.2])
    assert spec == "utility:mu=0,r=0.612,f=0.2"
    assert create(spec, load_game("hunl"), 1).raise_threshold == 0.612


def _run(tmp_path, generations, name):
    return tune("utility:mu=0", [(1.0, "random2008")], "hunl", TableRules(stack=200, max_hands=30),
                tables=2, generations=generations, population=4, elite=1, mutants=1, seed=5, jobs=1,
                checkpoint=str(tmp_path / name), only=["r", "f"], stream=None)


def test_tune_resumes_where_it_stopped(tmp_path):
    whole = _run(tmp_path, 3, "whole.json")
    cut = dict(whole, history=whole["history"][:2])  # as if Ctrl-C had stopped it during the third generation
    (tmp_path / "cut.json").write_text(json.dumps(cut))
    resumed = _run(tmp_path, 3, "cut.json")
    assert resumed["history"] == whole["history"]
    assert json.loads((tmp_path / "cut.json").read_text())["history"] == whole["history"]
    assert create(resumed["best"]["spec"], load_game("hunl"), 0) is not None


def test_tune_refuses_a_checkpoint_of_another_run(tmp_path):
    _run(tmp_path, 1, "other.json")
    with pytest.raises(RecipeError, match="another run"):
        tune("utility:mu=0", [(2.0, "random2008")], "hunl", TableRules(stack=200, max_hands=30), tables=2,
             generations=1, population=4, elite=1, mutants=1, seed=5, jobs=1,
             checkpoint=str(tmp_path / "other.json"), only=["r", "f"], stream=None)


def test_learner2008_counts_a_table_of_tuned_widths_from_records(tmp_path):
    import numpy as np

    from acpcbot.strategies.learner2008 import SETTINGS, Table, tuned_setting
    from acpcbot.strategies.learner2008_train import DecisionData

    rng = np.random.default_rng(1)
    values = rng.uniform(0, 40, size=(300, 9))
    data = DecisionData(values, rng.integers(1, 7, 300).astype(np.int8), rng.normal(0, 5, 300), {"hunl": 1})
    path = tmp_path / "records.npz"
    data.save(path)
    game = load_game("hunl")
    player = create(f"learner2008:data={path},pot=12.5,chance=20,bq=3,lq=2", game, 1)
    expected = Table(tuned_setting(SETTINGS["common"], {"POT": 12.5, "CHANCE": 20}, 3, 2))
    expected.add(data.values, data.decisions, data.rewards)
    assert player.lookup.setting.widths[0] == 12.5 and player.lookup.setting.levels[0] == 3
    assert (player.lookup.counts == expected.counts).all() and player.lookup.records == 300
    with pytest.raises(ValueError, match="need data=FILE"):
        create("learner2008:pot=12.5", game, 1)


def test_learner2008_genes_in_the_study_order():
    # Table 5's order: Pot, Chance, Raise, Odds, QtyRaise, Followers, Ingame, Nplayers, LQ, BQ
    assert [g.name for g in genes_of("learner2008:data=x.npz")] == \
        ["pot", "chance", "raise", "odds", "qtyraise", "followers", "ingame", "nplayers", "lq", "bq"]
