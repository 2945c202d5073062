"""Best response to a card-blind, deterministic heads-up hold'em opponent: a search over the rest of the hand.

An opponent whose actions never depend on its cards (the probes of
``strategies.probes``) keeps a uniform range over the holdings our cards and
the board leave it, and its replies are known at every betting state.  The
value of our options is then a one-player problem: at our decisions the
best action, at its decisions its one action, at each new board card the
average over the cards the deck could give, and at a showdown our equity
against a uniform hand on the complete board times the matched pot.

Because the betting never depends on the cards, one walk over the betting
serves every board at once: values are arrays over the boards that can
follow (``Chance``), our choice is an elementwise maximum, and states
reached by different lines with the same betting are valued once per round.

From the flop on every turn and river card is enumerated (exact for the
action set searched); preflop the flops, turns and rivers are sampled
(seeded).  In limit games the actions are fold, call and the raise; in
no-limit fold, call and raises to the fractions of the pot in ``fractions``
plus all-in, at most ``max_raises`` of ours in a round besides all-in: a
best response over that action set, which the closed forms of
``strategies.probes`` match where they exist (tests/test_blind_br.py).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Sequence

import numpy as np

from ..engine import CALL, FOLD, RAISE, Action, ActionType, State, raise_to
from ..equity_vectors import equity_on_boards
from ..gamedef import GameDef

#: the opponent: its action wherever it is to act
Opponent = Callable[[State], Action]

#: no-limit raises searched, as fractions of the pot after calling (all-in is always searched too)
FRACTIONS = (1.0,)


@dataclass
class Chance:
    """The boards that can follow the current one, level by level (one level per round still to deal).

    ``boards[j]``: (N_j, cards through that round) arrays, each row of level
    j followed by ``branch[j + 1]`` consecutive rows of level j + 1;
    ``equity[j]``: our share against a uniform hand, averaged over each
    row's complete boards below it.
    """

    boards: list[np.ndarray]
    branch: list[int]
    equity: list[np.ndarray]

    def expect(self, level: int, values: np.ndarray) -> np.ndarray:
        """The average over each level-``level`` board's children of ``values`` (given per child)."""
        return values.reshape(len(self.boards[level]), self.branch[level + 1]).mean(axis=1)


def deal_chance(game: GameDef, hole: Sequence[int], board: Sequence[int], round_: int,
                rng: np.random.Generator, samples: tuple[int, int, int] = (256, 4, 3)) -> Chance:
    """The boards after round ``round_``'s ``board``: every card one at a time when a round deals one card and
    the hand is past the preflop, else ``samples`` draws per parent (flop, turn, river)."""
    dead = set(int(c) for c in hole) | set(int(c) for c in board)
    levels = [np.array([list(board)], dtype=np.int64).reshape(1, len(board))]
    branch = [1]
    sample_rounds = round_ == 0
    for r in range(round_ + 1, game.num_rounds):
        need = game.num_board_cards[r]
        parents = levels[-1]
        rows = []
        if need == 1 and not sample_rounds:
            for parent in parents:
                used = dead | set(int(c) for c in parent)
                rest = [c for c in range(52) if c not in used]
                rows.append(np.hstack([np.broadcast_to(parent, (len(rest), len(parent))),
                                       np.array(rest, dtype=np.int64)[:, None]]))
            m = len(rows[0])
        else:
            m = samples[min(r - 1, 2)]
            for parent in parents:
                used = dead | set(int(c) for c in parent)
                free = np.array([c for c in range(52) if c not in used], dtype=np.int64)
                pick = np.argpartition(rng.random((m, len(free))), need - 1, axis=1)[:, :need]
                rows.append(np.hstack([np.broadcast_to(parent, (m, len(parent))), free[pick]]))
        levels.append(np.vstack(rows))
        branch.append(m)
    equity = [np.zeros(0)] * len(levels)
    equity[-1] = equity_on_boards(hole, levels[-1])
    chance = Chance(levels, branch, equity)
    for j in range(len(levels) - 2, -1, -1):
        equity[j] = chance.expect(j, equity[j + 1])
    return chance


class BlindBestResponse:
    """The values of our actions against a card-blind deterministic opponent in heads-up hold'em."""

    def __init__(self, game: GameDef, opponent: Opponent, fractions: Sequence[float] = FRACTIONS,
                 max_raises: int = 1, samples: tuple[int, int, int] = (256, 4, 3), seed: int = 0) -> None:
        if not game.deals_holdem_cards or game.num_players != 2:
            raise ValueError("BlindBestResponse: heads-up Texas hold'em only")
        self.game = game
        self.opponent = opponent
        self.fractions = tuple(fractions)
        self.max_raises = max_raises
        self.samples = samples
        self.rng = np.random.default_rng(seed)

    def our_actions(self, state: State, me: int) -> list[Action]:
        """The actions searched where we act: fold (facing a bet), call, and the raises of the action set."""
        out = [FOLD] if state.to_call(me) > 0 else []
        out.append(CALL)
        bounds = state.raise_bounds()
        if bounds is None:
            return out
        if self.game.is_limit:
            return out + [RAISE]
        lo, hi = bounds
        ours = sum(1 for a, p in zip(state.actions[state.round], state.actors[state.round])
                   if p == me and a[0] == ActionType.RAISE)
        sizes = set()
        if ours < self.max_raises:
            sizes = {min(max(state.raise_to_fraction(f, me), lo), hi) for f in self.fractions}
        sizes.add(hi)
        return out + [raise_to(s) for s in sorted(sizes)]

    def action_values(self, state: State, me: int, hole: Sequence[int]) -> dict[Action, float]:
        """Our expected payoff (chips, this hand) after each searched action in ``state``, where we are to act."""
        if state.current_player != me:
            raise ValueError("BlindBestResponse: it is not our turn")
        board = state.board[:self.game.board_cards_through(state.round)]
        chance = deal_chance(self.game, hole, board, state.round, self.rng, self.samples)
        memo: dict[tuple, np.ndarray] = {}
        return {a: float(self._value(state.copy().apply_unchecked(a), me, 0, state.round, chance, memo)[0])
                for a in self.our_actions(state, me)}

    def best_action(self, state: State, me: int, hole: Sequence[int]) -> Action:
        """The searched action of highest value (the first listed of equal ones: fold < call < raises)."""
        values = self.action_values(state, me, hole)
        return max(values, key=values.__getitem__)

    def _value(self, state: State, me: int, level: int, round_: int, chance: Chance,
               memo: dict[tuple, np.ndarray]) -> np.ndarray:
        """Our payoff from ``state`` for every board of ``level`` (boards through round ``round_``)."""
        if state.finished:
            return state.heads_up_value(me, chance.equity[level])
        if state.round > round_:
            key = (level, state.round, tuple(state.spent), state.max_spent, state.min_raise_to)
            got = memo.get(key)
            if got is None:
                got = memo[key] = chance.expect(level, self._value(state, me, level + 1, state.round, chance, memo))
            return got
        if state.current_player == me:
            best: np.ndarray | None = None
            for action in self.our_actions(state, me):
                v = self._value(state.copy().apply_unchecked(action), me, level, round_, chance, memo)
                best = v if best is None else np.maximum(best, v)
            return best  # type: ignore[return-value]
        action = self.opponent(state)
        if not state.is_legal(action):
            action = CALL
        return self._value(state.copy().apply_unchecked(action), me, level, round_, chance, memo)
