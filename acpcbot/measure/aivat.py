"""AIVAT (Burch, Schmid, Moravčík, Morrill, Bowling 2018) for heads-up hands, and all-in expectation.

AIVAT lowers the variance of a match's winnings without bias by taking out
of each hand's result the luck that is known to average zero:

- at every board card dealt (a chance event): ``u(h·c) - E_c'[u(h·c')]``,
  the expectation over the cards the deck could have given at that point;
- at every decision of a player whose policy is known:
  ``u(h·a) - sum_a' pi(a'|I) u(h·a')``, the expectation over its policy
  at its information set.

Each term has zero mean whatever the value function ``u``, so the
corrected value ``payoff - sum of the terms`` is an unbiased estimate of
the expected payoff; a ``u`` that tracks the payoff well removes most of
its variance.

The value function used here (every card is known afterwards, from the
log): ``u_p(h) = eq_p(h) * 2M - M``, player ``p``'s share of a pot both
players fill to ``M`` (the bet to match, capped at the smaller stack) if
everyone checked or called to showdown from ``h``, where ``eq_p`` is
``p``'s showdown equity against the opponent's actual hand with the rest
of the board rolled out (exact from the flop on; preflop over a fixed
sample of random boards, ``matchup.holdem_matchup``); at a fold the actual
payoff.  Since ``eq`` averages exactly over the next cards, a chance term
is ``2M * (eq after - eq before)``: the cards' luck in the pot at stake.
The deal of the hole cards is not corrected: in duplicate matches it
cancels exactly between the seatings (the same cards go to the other
player), and without it a hand decided before any board card by
deterministic policies keeps its plain value.

All-in expectation (the reference's ``all_in_expectation``): a hand that
reached a showdown with a player all-in before the river is valued at its
equity when the last action was taken instead of the board dealt (exact
from the flop on, preflop from the board sample).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Iterable, Mapping, Sequence, cast

import numpy as np

from ..engine import ActionType, State, Step
from ..equity_vectors import PREFLOP_BOARDS  # random boards behind preflop equities (built once per evaluator)
from ..gamedef import GameDef
from ..policy_types import ActionPolicy
from .matchup import holdem_matchup, holdem_matchups
from .rollout import matchup_equity

#: ``multiprocessing.Pool.starmap``'s shape: a function and its argument tuples -> the results in order
StarMap = Callable[[Callable[..., Any], Sequence[tuple[Any, ...]]], Sequence[Any]]


def _matchups(h0: np.ndarray, h1: np.ndarray, board: np.ndarray, seed: int, boards: int) -> np.ndarray:
    """``holdem_matchups`` with positional arguments (a pool worker's task)."""
    return holdem_matchups(h0, h1, board, seed=seed, boards_sampled=boards)


@dataclass(frozen=True)
class HandValues:
    """One hand's values per position: the payoff, AIVAT's estimate, all-in expectation, and the corrections."""

    payoff: tuple[float, ...]
    aivat: tuple[float, ...]
    allin: tuple[float, ...]
    chance: tuple[float, ...]
    action: tuple[float, ...]
    #: decisions of a known player whose actual action had probability 0 under its policy
    mismatches: int = 0


@dataclass(frozen=True)
class BatchValues:
    """Position 0's values of a batch of hands, one entry per hand (heads-up: position 1's are their negations).

    ``payoff`` holds both positions' payoffs, (hands, 2).
    """

    payoff: np.ndarray
    aivat: np.ndarray
    allin: np.ndarray
    chance: np.ndarray
    action: np.ndarray
    mismatches: np.ndarray


def _chance_plan(steps: Sequence[Step]) -> list[tuple[int, int, int]]:
    """The board-card transitions :meth:`Evaluator.hand` corrects along ``steps``: (bet to match, from round, to round)."""
    plan = []
    seen_round = 0
    for step in steps:
        before = step.before
        if before.round > seen_round:
            plan.append((before.max_spent, seen_round, before.round))
            seen_round = before.round
    return plan


def _cards(deals: Iterable[tuple[Sequence[Sequence[int]], Sequence[int]]]) -> np.ndarray:
    """Every hand's cards, (hole cards, board) each, in one (hands, 9) array: both holdings, then the board as far as
    the hand showed it (-1 on)."""
    return np.array([(*hole[0], *hole[1], *board, *(-1,) * (5 - len(board))) for hole, board in deals],
                    dtype=np.int64)


class EquityMemo:
    """Hold'em equities of (holdings, board) rows already computed, by board length: ``holdem_matchups``' floats
    for one preflop sample (``seed``, ``boards``), keyed by the row's cards."""

    def __init__(self, seed: int, boards: int) -> None:
        self.seed, self.boards = seed, boards
        self.values: dict[int, dict[bytes, float]] = {}

    def fits(self, seed: int, boards: int) -> bool:
        """Whether the memo's preflop sample is (``seed``, ``boards``): another sample's floats differ."""
        return (self.seed, self.boards) == (seed, boards)

    def __len__(self) -> int:
        return sum(len(v) for v in self.values.values())

    @staticmethod
    def _keys(n: int, cards: np.ndarray) -> list[bytes]:
        """Each row's key: the bytes of its two holdings and first ``n`` board cards (``cards``: (rows, 9) int64)."""
        part = np.ascontiguousarray(cards[:, :4 + n], dtype=np.int64)
        return cast("list[bytes]", part.view(np.dtype((np.void, 8 * (4 + n)))).ravel().tolist())  # void rows: bytes

    def add(self, n: int, cards: np.ndarray, shares: np.ndarray) -> None:
        """Remember the equities ``shares`` of ``cards``' rows with ``n`` board cards."""
        self.values.setdefault(n, {}).update(zip(self._keys(n, cards), shares.tolist()))

    def read(self, n: int, cards: np.ndarray, which: np.ndarray, column: np.ndarray) -> np.ndarray:
        """Write the remembered equities of rows ``which`` into ``column``; the rows not remembered."""
        known = self.values.get(n)
        if not known or not len(which):
            return which
        got = [known.get(k) for k in self._keys(n, cards[which])]
        hit = np.array([g is not None for g in got], dtype=bool)
        column[which[hit]] = [g for g in got if g is not None]
        return which[~hit]


class Evaluator:
    """AIVAT and all-in values of finished heads-up hands (one evaluator serves a whole run)."""

    def __init__(self, game: GameDef, seed: int = 0, preflop_boards: int = PREFLOP_BOARDS,
                 memo: EquityMemo | None = None) -> None:
        if game.num_players != 2:
            raise ValueError(f"AIVAT here is heads-up; {game.name or 'this game'} seats {game.num_players}")
        self.game = game
        self.seed = seed
        self.preflop_boards = preflop_boards
        #: hold'em equities computed earlier (:meth:`fill`, in another process beside the match, say), read first
        self.memo = memo if memo is not None and memo.fits(seed, preflop_boards) else None
        self._cap = min(game.stack)
        self._small: dict[tuple[tuple[tuple[int, ...], ...], tuple[int, ...]], float] = {}
        self._last_round = game.num_rounds - 1
        #: the board lengths of rounds 0..r, by r
        self._lengths = [tuple(sorted({game.board_cards_through(q) for q in range(r + 1)}))
                         for r in range(game.num_rounds)]

    # ------------------------------------------------------------- equity

    def _equity(self, holes: list[tuple[int, ...]], board: tuple[int, ...], cache: dict[int, float]) -> float:
        """Position 0's showdown share with ``board`` and the rest rolled out (cached per board length)."""
        n = len(board)
        e = cache.get(n)
        if e is None:
            if self.game.deals_holdem_cards:
                e = holdem_matchup(holes[0], holes[1], board, seed=self.seed, boards=self.preflop_boards)
            else:
                # small decks deal few different (hands, board) pairs: keep them all
                key = (tuple(holes), board)
                e = self._small.get(key)
                if e is None:
                    e = self._small[key] = float(matchup_equity(self.game, holes, board)[0][0])
            cache[n] = e
        return e

    def _matched(self, max_spent: int | np.ndarray) -> int | np.ndarray:
        """The chips each player has in a pot filled to the bet, capped at the smaller stack."""
        return np.minimum(max_spent, self._cap)

    # ------------------------------------------------------------- one hand

    def _needed(self, final: State, policies: Mapping[int, ActionPolicy], steps: Sequence[Step]) -> tuple[int, ...]:
        """The board lengths whose equity :meth:`hand` reads for this hand (the rounds it reached)."""
        last = steps[-1].round if steps else 0
        top = self._last_round if final.is_showdown else max(last, final.round)
        if top == 0 and not policies:
            return ()  # over before any board card, nobody's decision corrected: no equity read
        return self._lengths[top]

    def _columns(self, finals: Sequence[State], needed: Sequence[tuple[int, ...]],
                 starmap: StarMap | None = None, parts: int = 2) -> dict[int, np.ndarray]:
        """Position 0's equity by board length, one float64 column over all hands (NaN where not read).

        Hold'em hands in one batch per street (``holdem_matchups``, one
        call's float per row); ``starmap`` (a process pool's, say) computes
        the streets' batches, each cut in ``parts``, side by side.
        """
        count = len(finals)
        lengths = sorted({n for ns in needed for n in ns})
        columns = {n: np.full(count, np.nan) for n in lengths}
        if not lengths:
            return columns
        if not self.game.deals_holdem_cards:
            for i, (final, ns) in enumerate(zip(finals, needed)):
                holes = [tuple(h) for h in final.hole]
                board = tuple(final.board)
                cache: dict[int, float] = {}
                for n in ns:
                    columns[n][i] = self._equity(holes, board[:n], cache)
            return columns
        return self._holdem_columns(_cards((f.hole, f.board) for f in finals), needed, lengths, columns, starmap,
                                    parts)

    def _holdem_columns(self, cards: np.ndarray, needed: Sequence[tuple[int, ...]], lengths: Sequence[int],
                        columns: dict[int, np.ndarray], starmap: StarMap | None = None,
                        parts: int = 1) -> dict[int, np.ndarray]:
        """:meth:`_columns` of hold'em hands given by their cards (``_cards``' rows), into ``columns``."""
        kinds: dict[tuple[int, ...], int] = {}
        kind = np.array([kinds.setdefault(ns, len(kinds)) for ns in needed], dtype=np.int64)
        jobs = []
        rows = []
        for n in lengths:
            which = np.flatnonzero(np.isin(kind, [k for ns, k in kinds.items() if n in ns]))
            if self.memo is not None:  # the rows computed before (the same function of the same cards): read
                which = self.memo.read(n, cards, which, columns[n])
            for cut in np.array_split(which, parts if starmap is not None else 1):
                if len(cut):
                    jobs.append((cards[cut, 0:2], cards[cut, 2:4], cards[cut, 4:4 + n], self.seed,
                                 self.preflop_boards))
                    rows.append((n, cut))
        results = starmap(_matchups, jobs) if starmap is not None else [_matchups(*job) for job in jobs]
        for (n, cut), shares in zip(rows, results):
            columns[n][cut] = shares
        return columns

    def fill(self, deals: Sequence[tuple[Sequence[Sequence[int]], Sequence[int]]]) -> None:
        """Compute into :attr:`memo` the hold'em equities :meth:`batch` will read for finished hands given as their
        log shows them, (both hole cards, the board through the round each ended in): every board length up to that
        round, whatever the players' policies (none for a hand over before the flop: read for known policies only)."""
        if self.memo is None or not self.game.deals_holdem_cards or not deals:
            return
        round_of = {self.game.board_cards_through(r): r for r in range(self.game.num_rounds)}
        needed = [self._lengths[round_of[len(board)]] if board else () for _, board in deals]
        lengths = sorted({n for ns in needed for n in ns})
        cards = _cards(deals)
        columns = {n: np.full(len(deals), np.nan) for n in lengths}
        for n, column in self._holdem_columns(cards, needed, lengths, columns).items():
            rows = np.flatnonzero(~np.isnan(column))
            self.memo.add(n, cards[rows], column[rows])

    def equities(self, finals: Sequence[State], policies: Sequence[Mapping[int, ActionPolicy]],
                 steps: Sequence[Sequence[Step]], starmap: StarMap | None = None,
                 parts: int = 2) -> list[dict[int, float]]:
        """Per hand, position 0's equity by board length for every length :meth:`hand` reads, hold'em hands in batch.

        Each is the float :meth:`hand` would compute alone (``holdem_matchups``
        gives one call's float per row).  ``starmap`` (a process pool's, say)
        computes the streets' batches, each cut in ``parts``, side by side.
        """
        needed = [self._needed(f, p, s) for f, p, s in zip(finals, policies, steps)]
        columns = self._columns(finals, needed, starmap, parts)
        lists = {n: c.tolist() for n, c in columns.items()}
        return [{n: lists[n][i] for n in ns} for i, ns in enumerate(needed)]

    def batch(self, finals: Sequence[State], policies: Sequence[Mapping[int, ActionPolicy]] | None = None,
              steps: Sequence[Sequence[Step]] | None = None, starmap: StarMap | None = None) -> BatchValues:
        """:meth:`hand` of every hand as columns over the hands (position 0's values), the same floats.

        The equities come in one batch per street (:meth:`_columns`).  Hands
        with a known policy to correct are valued one by one (:meth:`hand`);
        the others (no decision corrected) a betting line at a time: hands
        with the same steps list (``handsteps.run_steps`` shares one per
        line) have the same board-card transitions and pot, so their terms
        are numpy operations over the line's hands, the same operations in
        the same order as :meth:`hand`'s on each.
        """
        count = len(finals)
        policies = [{} for _ in finals] if policies is None else policies
        steps = [f.steps() for f in finals] if steps is None else steps
        needed = [self._needed(f, p, s) for f, p, s in zip(finals, policies, steps)]
        columns = self._columns(finals, needed, starmap)
        payoff = np.array([f.payoffs() for f in finals], dtype=np.float64).reshape(count, 2)
        out = BatchValues(payoff, np.empty(count), np.empty(count), np.empty(count), np.empty(count),
                          np.zeros(count, dtype=np.int64))
        lines: dict[tuple[int, bool, int], list[int]] = {}
        for i, (f, p, s) in enumerate(zip(finals, policies, steps)):
            if p:
                values = self.hand(f, p, s, {n: float(columns[n][i]) for n in needed[i]})
                out.aivat[i], out.allin[i] = values.aivat[0], values.allin[0]
                out.chance[i], out.action[i] = values.chance[0], values.action[0]
                out.mismatches[i] = values.mismatches
            else:
                lines.setdefault((id(s), f.is_showdown, f.max_spent), []).append(i)
        through = self.game.board_cards_through
        last = self.game.num_rounds - 1
        for (_, showdown, max_spent), which in lines.items():
            idx = np.array(which, dtype=np.int64)
            line = steps[which[0]]

            def eq(round_: int) -> np.ndarray:
                return columns[through(round_)][idx]  # noqa: B023 - used within this iteration only

            chance = np.zeros(len(idx))
            for spent, from_round, to_round in _chance_plan(line):
                chance = chance + self._chance(spent, from_round, to_round, eq)
            last_round = line[-1].round if line else 0
            payoff0 = payoff[idx, 0]
            allin0 = payoff0
            if showdown and last_round < last:
                chance = chance + self._chance(max_spent, last_round, last, eq)
                # the hands of a line put in the same chips: the first one's pot values them all
                allin0 = finals[which[0]].heads_up_value(0, eq(last_round))
            action = 0.0
            out.aivat[idx] = payoff0 - chance - action
            out.allin[idx] = allin0
            out.chance[idx] = chance
            out.action[idx] = action
        return out

    def hands(self, finals: Sequence[State], policies: Sequence[Mapping[int, ActionPolicy]] | None = None,
              steps: Sequence[Sequence[Step]] | None = None, starmap: StarMap | None = None) -> list[HandValues]:
        """:meth:`hand` of every hand (:meth:`batch`'s columns as one :class:`HandValues` a hand); ``starmap``:
        see :meth:`_columns`."""
        b = self.batch(finals, policies, steps, starmap)
        return [HandValues(payoff=(p0, p1), aivat=(v, -v), allin=(a, -a), chance=(c, -c), action=(x, -x),
                           mismatches=k)
                for p0, p1, v, a, c, x, k in zip(b.payoff[:, 0].tolist(), b.payoff[:, 1].tolist(), b.aivat.tolist(),
                                                 b.allin.tolist(), b.chance.tolist(), b.action.tolist(),
                                                 b.mismatches.tolist())]

    def hand(self, final: State, policies: Mapping[int, ActionPolicy] | None = None,
             steps: Sequence[Step] | None = None, equities: Mapping[int, float] | None = None,
             plan: Sequence[tuple[int, int, int]] | None = None) -> HandValues:
        """The values of one finished hand whose hole cards are all known; ``policies[i]``: the known
        policy of whoever took action number ``i`` (0-based over the hand), for the decisions of known players;
        ``steps``: ``final.steps()`` when the caller has them already; ``equities``: position 0's equity by
        board length, computed already (:meth:`equities`); ``plan``: ``_chance_plan(steps)``, when there are
        no policies and the caller has it."""
        game = self.game
        policies = policies or {}
        holes = [tuple(h) for h in final.hole]
        board = tuple(final.board)
        payoff = final.payoffs()
        cache: dict[int, float] = dict(equities) if equities else {}

        def eq(round_: int) -> float:
            return self._equity(holes, board[:game.board_cards_through(round_)], cache)

        chance = 0.0
        action = 0.0
        mismatches = 0
        seen_round = 0
        steps = final.steps() if steps is None else steps
        if plan is not None and not policies:
            # no decision corrected: only the board cards along the betting, the same terms in the same order
            for max_spent, from_round, to_round in plan:
                chance += self._chance(max_spent, from_round, to_round, eq)
        for step in () if plan is not None and not policies else steps:
            before = step.before
            if before.round > seen_round:
                chance += self._chance(before.max_spent, seen_round, before.round, eq)
                seen_round = before.round
            policy = policies.get(step.index)
            if policy is None:
                continue
            row = np.asarray(policy.row(holes[step.player]), dtype=np.float64)
            values = self._action_values(before, step.player, policy, eq(before.round))
            try:
                taken = policy.index(step.action)
            except ValueError:
                taken = -1
            if taken < 0 or row[taken] <= 0:
                mismatches += 1
            actual = values[taken] if taken >= 0 else self._action_values_of(before, step.player, step.action,
                                                                             eq(before.round))
            # an elementwise sum: a BLAS dot of long rows is slow when its threads compete for the cores
            action += float(actual - (row * values).sum())
        last_round = steps[-1].round if steps else 0
        allin0 = payoff[0]
        if final.is_showdown and last_round < game.num_rounds - 1:
            # the board ran out with nobody left to act: the rest of it is chance too
            chance += self._chance(final.max_spent, last_round, game.num_rounds - 1, eq)
            # the pot both matched, valued at the equity when the last action was taken (the engine's arithmetic)
            allin0 = final.heads_up_value(0, eq(last_round))
        v0 = payoff[0] - chance - action
        return HandValues(payoff=(payoff[0], payoff[1]), aivat=(v0, -v0), allin=(allin0, -allin0),
                          chance=(chance, -chance), action=(action, -action), mismatches=mismatches)

    def _chance(self, max_spent: int, from_round: int, to_round: int, eq) -> Any:  # noqa: ANN001
        """Position 0's chance terms for the board cards of rounds after ``from_round`` up to ``to_round``
        (a float, or a column when ``eq`` gives columns of equities)."""
        m = float(self._matched(max_spent))
        total: Any = 0.0
        nb = self.game.num_board_cards
        for r in range(from_round + 1, to_round + 1):
            if nb[r]:
                total += 2 * m * (eq(r) - eq(r - 1))
        return total

    def _action_values(self, state: State, player: int, policy: ActionPolicy, e0: float) -> np.ndarray:
        """u_0 after each of the policy's actions by ``player`` in ``state`` (check/call-to-showdown values)."""
        kinds, to = policy.kinds, policy.sizes
        if not self.game.is_nolimit:
            bounds = state.raise_bounds()
            to = np.full(len(kinds), bounds[0] if bounds is not None else state.max_spent, dtype=np.int64)
        level = np.where(kinds == int(ActionType.RAISE), to, state.max_spent)
        m = np.asarray(self._matched(level), dtype=np.float64)
        values = e0 * 2 * m - m
        fold = kinds == int(ActionType.FOLD)
        if fold.any():
            # the folder loses what it put in
            values[fold] = -state.spent[0] if player == 0 else state.spent[1]
        return values

    def _action_values_of(self, state: State, player: int, action: object, e0: float) -> float:
        """u_0 after one action outside the policy's list (only when play and policy disagree)."""
        one = ActionPolicy((action,), np.ones((1, 1)))  # type: ignore[arg-type]
        return float(self._action_values(state, player, one, e0)[0])

