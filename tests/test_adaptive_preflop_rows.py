"""adaptive before the flop: ``act`` values its holding's row alone (Search.lay_out / row_values), and that row is
the very floats of the preflop table ``policy`` reads, whatever the holding, the history or the statistics.

The table's search adds each row's runouts from 0 in order, and numpy sums a few rows' another way (pairwise):
a row worked out alone by the obvious sums would differ in the last bits and act and policy would disagree.
"""

from __future__ import annotations

import numpy as np
from playkit import play_memory

from acpcbot.evaluator import NUM_PAIRS
from acpcbot.strategies.adaptive.ranges import pair_of
from acpcbot.strategies.adaptive.runouts import signed_sums
from acpcbot.strategies.adaptive.strategy import AdaptiveStrategy
from acpcbot.strategies.base import Strategy
from acpcbot.world import View


def test_a_row_laid_out_is_the_tables_row_bit_for_bit():
    rng = np.random.default_rng(7)
    checked = []

    def check(seat: int, player: Strategy, view: View, action: object) -> None:
        if not isinstance(player, AdaptiveStrategy) or view.state.round != 0:
            return
        opp = view.opponents[0]
        kept = dict(player._laid_out)
        player._laid_out = {}  # no search kept: the rows are made from a layout of their own
        try:
            rows = [pair_of(view.hole), 0, NUM_PAIRS - 1, *rng.integers(0, NUM_PAIRS, 5).tolist()]
            # the rows first: the layout, not the kept table's rows, answers them
            laid = [player._preflop_row(view, opp, row) for row in rows]
            # the reference: the plain search over every pair (action_values), not the layout both read now
            search = player._preflop_search(view, opp)
            actions, table = search.action_values()
            mass, signed = float(search.mass.sum()), signed_sums(search.mass)
            assert player._preflop_table(view, opp)[1].tobytes() == table.tobytes()
            for row, (acts, values, m, s) in zip(rows, laid):
                assert acts == actions and m == mass and s.tobytes() == signed.tobytes()
                assert values.shape == (1, len(actions))
                assert values.tobytes() == table[[row]].tobytes(), (view.state.actions[0], row)
            every = player._laid_out[player.key(view, opp)][1][(view.position, tuple(view.state.actions[0]))].search
            assert every.row_values(np.arange(NUM_PAIRS)).tobytes() == table.tobytes()
            checked.append(len(view.state.actions[0]))
        finally:
            player._laid_out = kept

    for i, opp in enumerate(("rh:t=0.1", "learner2008")):
        play_memory("hunl", ["adaptive:blueprint=0", opp], 12, 60 + i, on_act=check, time_per_hand=1e6)
    # first in and facing raises, on both seats' histories
    assert len(checked) >= 10 and max(checked) >= 2
