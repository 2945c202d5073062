"""A hand's showdown equity against every holding of a game: the one module of equity vectors.

An equity vector is an array over ``acpcbot.holdings.holdings(game)``:
the share of the pot a hand wins at showdown (ties half) against each
holding, the rest of the board rolled out, with a ``valid`` mask beside it
(the convention of every function here: blocked holdings, sharing a card
with the hand or the board, have equity 0 and valid False).

- :func:`equity_vector`: one hand, one board, every holding.
- :func:`holdem_equity_on_runs`: the same over a caller's own runouts.
- :func:`range_equity`, :func:`valid_mean`: a vector's mean against a
  range, and against a uniform holding (over its valid holdings).
- :func:`showdown_strength`: the integer form on complete boards (2 x
  holdings beaten + ties), the card abstraction's river feature.
- :func:`equity_on_boards`: one hold'em hand on many complete boards, a
  share per board against a uniform holding (a blind best response's
  chance nodes).
- :class:`BoardSample` and :class:`EquityCache`: hold'em preflop vectors
  from one shared sample of boards, and a match's vectors cached.

Hold'em is vectorised on the evaluator's rank tables (``pair_ranks`` and
``rank_batch``); small decks (Kuhn, Leduc) use the game's own showdown
ranking over every completion.  Completions are enumerated when there are
at most ``exact_limit`` of them, else sampled (seed a ``rng`` to make it
reproducible).

Preflop, the 1.7 million boards are sampled: :data:`PREFLOP_BOARDS` is the
one number of boards a preflop equity uses when its caller names none.
Callers whose published figures were measured with another count pass it
explicitly (LBR's 4,000: ``strategies/lbr.py``; the adaptive player's 48
played-on boards: ``strategies/adaptive.py``), since changing a count
changes every figure computed from it.
"""

from __future__ import annotations

import itertools
import math
from functools import lru_cache
from typing import Any, Sequence

import numpy as np

from .cards import deck
from .evaluator import pair_ranks, rank_batch
from .gamedef import GameDef, load_game
from .holdings import blocked, holdings

#: enumerate every completion of the board when there are at most this many (hold'em flop: 1,081)
EXACT_LIMIT = 2_000
#: completions drawn otherwise (hold'em preflop)
DEFAULT_SAMPLES = 1_000
#: hold'em boards sampled for a preflop equity where the caller names no count: a share's standard error
#: is at most 0.5 / sqrt(10,000) = 0.5% (AIVAT's and the matchup tables' count; LBR passes its 4,000)
PREFLOP_BOARDS = 10_000
#: the most completions x holdings a small-deck enumeration may cost
SMALL_DECK_LIMIT = 2_000_000


@lru_cache(maxsize=8)
def _deck(num_ranks: int, num_suits: int) -> tuple[int, ...]:
    return deck(num_ranks, num_suits)


def completions(game: GameDef, dead: Sequence[int], need: int, samples: int = DEFAULT_SAMPLES,
                rng: np.random.Generator | None = None, exact_limit: int = EXACT_LIMIT) -> tuple[np.ndarray, bool]:
    """(N, need) board completions from the cards not in ``dead``, and whether they are all of them.

    All of them (lexicographic) when there are at most ``exact_limit``,
    else ``samples`` draws, each without repeated cards.
    """
    dead_set = set(int(c) for c in dead)
    rest = np.array([c for c in _deck(game.num_ranks, game.num_suits) if c not in dead_set], dtype=np.int64)
    if need == 0:
        return np.zeros((1, 0), dtype=np.int64), True
    if need > len(rest):
        raise ValueError(f"cannot deal {need} more board cards from {len(rest)} left")
    if math.comb(len(rest), need) <= exact_limit:
        return rest[np.array(list(itertools.combinations(range(len(rest)), need)), dtype=np.int64)], True
    gen = rng if rng is not None else np.random.default_rng()
    keys = gen.random((samples, len(rest)))
    return rest[np.argpartition(keys, need - 1, axis=1)[:, :need]], False


def equity_vector(game: GameDef, hole: Sequence[int], board: Sequence[int], samples: int = DEFAULT_SAMPLES,
                  rng: np.random.Generator | None = None) -> tuple[np.ndarray, np.ndarray]:
    """(equity, valid): the pot share ``hole`` wins at showdown against each holding, and which holdings can be held.

    Heads-up, the board rolled out to the river; ties count half.  Blocked
    holdings (sharing a card with ``hole`` or ``board``) have equity 0 and
    valid False.
    """
    hole = tuple(int(c) for c in hole)
    board = tuple(int(c) for c in board)
    need = game.total_board_cards - len(board)
    runs, _ = completions(game, hole + board, need, samples, rng)
    if game.deals_holdem_cards:
        return _holdem_vector(hole, board, runs)
    return _small_deck_vector(game, hole, board, runs)


def _holdem_vector(hole: tuple[int, ...], board: tuple[int, ...], runs: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    return holdem_equity_on_runs(hole, board, runs)


def holdem_equity_on_runs(hole: Sequence[int], board: Sequence[int], runs: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(equity, valid) of a hold'em ``hole`` against every hole pair over the given completions ``runs`` (N, need)
    of ``board`` (N may be 1 and need 0: a complete board): a caller with its own sample of runouts (the adaptive
    player's) gets this module's numbers and convention."""
    hole = tuple(int(c) for c in hole)
    board = tuple(int(c) for c in board)
    full = np.hstack([np.broadcast_to(np.array(board, dtype=np.int64), (len(runs), len(board))), runs])
    opp = pair_ranks(full)  # (N, 1326), 0 where the pair holds a board card
    mine = rank_batch(np.hstack([np.broadcast_to(np.array(hole, dtype=np.int64), (len(full), 2)), full]),
                      check=False).astype(np.int64)
    live = opp > 0
    # treys ranks: lower is better
    wins = ((opp > mine[:, None]) & live).sum(axis=0)
    ties = ((opp == mine[:, None]) & live).sum(axis=0)
    seen = live.sum(axis=0)
    valid = ~blocked_holdem(hole + board) & (seen > 0)
    eq = np.where(valid, (wins + 0.5 * ties) / np.maximum(seen, 1), 0.0)
    return eq, valid


@lru_cache(maxsize=1)
def _holdem_game() -> GameDef:
    return load_game("hunl")  # a hold'em deck: the holdings are those of any Texas hold'em game


def blocked_holdem(cards: Sequence[int]) -> np.ndarray:
    """Hole pairs sharing a card with ``cards``."""
    return blocked(_holdem_game(), cards)


def _small_deck_vector(game: GameDef, hole: tuple[int, ...], board: tuple[int, ...],
                       runs: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    table = holdings(game)
    if len(runs) * len(table) > SMALL_DECK_LIMIT:
        raise ValueError(f"{game.name or 'this game'}: {len(runs) * len(table):,} showdowns to enumerate, above "
                         f"the limit of {SMALL_DECK_LIMIT:,}")
    value = game.ranking_for_showdown
    valid = ~blocked(game, hole + board)
    share = np.zeros(len(table))
    seen = np.zeros(len(table))
    for run in runs:
        full = board + tuple(int(c) for c in run)
        mine = value(hole + full)
        run_set = set(full)
        for i in np.flatnonzero(valid):
            cards = tuple(int(c) for c in table[i])
            if run_set.intersection(cards):
                continue
            theirs = value(cards + full)
            share[i] += 1.0 if mine > theirs else 0.5 if mine == theirs else 0.0
            seen[i] += 1
    valid &= seen > 0
    return np.where(valid, share / np.maximum(seen, 1), 0.0), valid


def equity_on_boards(hole: Sequence[int], boards: np.ndarray) -> np.ndarray:
    """The share ``hole`` wins (ties half) against a uniform holding on each complete hold'em board of ``boards``
    (N, 5): one share per board, holdings sharing a card with the hole or the board left out."""
    opp = pair_ranks(boards).astype(np.int64)  # (N, 1326), 0 where the pair shares a board card
    opp[:, blocked_holdem(tuple(hole))] = 0
    mine = rank_batch(np.hstack([np.broadcast_to(np.asarray(hole, dtype=np.int64), (len(boards), 2)), boards]),
                      check=False).astype(np.int64)[:, None]
    live = opp > 0
    # treys ranks: lower is better
    wins = ((opp > mine) & live).sum(axis=1)
    ties = ((opp == mine) & live).sum(axis=1)
    return (wins + 0.5 * ties) / np.maximum(live.sum(axis=1), 1)



def range_equity(eq: np.ndarray, valid: np.ndarray, weights: np.ndarray) -> float:
    """The equity against a range: the ``weights``-weighted mean of an equity vector over its valid holdings (0.5
    for a range holding none of them)."""
    w = np.where(valid, weights, 0.0)
    total = w.sum()
    if total <= 0:
        return 0.5
    return float(np.dot(w, eq) / total)


def valid_mean(eq: np.ndarray, valid: np.ndarray) -> float:
    """The mean of an equity vector over its valid holdings (the equity against a uniform holding): the sum over
    every holding (invalid ones are 0) over their number, the arithmetic ``np.nanmean`` does on the NaN form."""
    return float(np.sum(np.where(valid, eq, 0.0)) / np.sum(valid))


def showdown_strength(ranks: np.ndarray, mine: Any) -> Any:
    """The integer form of a hand's equity on complete boards: 2 x the holdings it beats + those it ties (itself
    included), over the last axis of ``ranks`` (treys ranks of every holding, lower is better, 0 where a holding
    is dead); ``mine``: the hand's rank (per board, broadcast against ``ranks``)."""
    return 2 * np.count_nonzero(ranks > mine, axis=-1) + np.count_nonzero(ranks == mine, axis=-1)


def _suit_map(hole: Sequence[int]) -> list[int]:
    """A suit permutation sending the hole's suits to the lowest suits, in order of appearance."""
    order: list[int] = []
    for c in hole:
        if c & 3 not in order:
            order.append(c & 3)
    order += [s for s in range(4) if s not in order]
    sigma = [0] * 4
    for new, old in enumerate(order):
        sigma[old] = new
    return sigma


@lru_cache(maxsize=64)
def _pair_index(pair: Sequence[int]) -> int:
    lo, hi = sorted(int(c) for c in pair)
    return 51 * lo - lo * (lo - 1) // 2 + hi - lo - 1


@lru_cache(maxsize=64)
def _pair_permutation(sigma: tuple[int, ...]) -> np.ndarray:
    """perm[i]: the index of hole pair i with its suits renamed by ``sigma``."""
    pairs = holdings(_holdem_game())
    cards = (pairs >> 2) * 4 + np.array(sigma, dtype=np.int64)[pairs & 3]
    lo, hi = cards.min(axis=1), cards.max(axis=1)
    return 51 * lo - lo * (lo - 1) // 2 + hi - lo - 1


class EquityCache:
    """Equity vectors of one player's hands over a match: hold'em preflop vectors are computed once per hand class.

    Preflop, ``samples`` random boards (from a generator seeded by
    ``seed``) are shared by every hand; two hole pairs that differ by a
    renaming of suits have the same vector up to the same renaming of the
    opponent's pairs, so only the 169 canonical holdings are computed (the
    same vectors whatever the order of the hands).  Later streets are
    computed as asked (exact from the flop on), the last one kept.
    """

    def __init__(self, game: GameDef, seed: int = 0, samples: int = PREFLOP_BOARDS) -> None:
        self.game = game
        self.seed = seed
        self.samples = samples
        self._preflop: dict[tuple[int, ...], tuple[np.ndarray, np.ndarray]] = {}
        self._last: tuple[tuple[int, ...], tuple[int, ...]] | None = None
        self._last_value: tuple[np.ndarray, np.ndarray] | None = None
        self._boards: BoardSample | None = None
        self._small: dict[tuple[tuple[int, ...], tuple[int, ...]], tuple[np.ndarray, np.ndarray]] = {}

    def prepare(self) -> None:
        """Build what the first decisions would otherwise wait for (hold'em: the preflop board sample)."""
        if self.game.deals_holdem_cards and self._boards is None:
            self._boards = BoardSample(self.seed, self.samples)

    def get(self, hole: Sequence[int], board: Sequence[int]) -> tuple[np.ndarray, np.ndarray]:
        """(equity, valid) of ``hole`` against every holding with ``board`` (see :func:`equity_vector`)."""
        hole = tuple(sorted(int(c) for c in hole))
        board = tuple(int(c) for c in board)
        key = (hole, board)
        if key == self._last and self._last_value is not None:
            return self._last_value
        if not self.game.deals_holdem_cards:
            # small decks have few (hand, board) pairs: keep them all
            value = self._small.get(key)
            if value is None:
                value = self._small[key] = equity_vector(self.game, hole, board)
            return value
        if not board:
            value = self._holdem_preflop(hole)
        else:
            rng = np.random.default_rng([self.seed, *hole, *board])
            value = equity_vector(self.game, hole, board, self.samples, rng)
        self._last, self._last_value = key, value
        return value

    def _holdem_preflop(self, hole: tuple[int, ...]) -> tuple[np.ndarray, np.ndarray]:
        sigma = _suit_map(hole)
        canon = tuple(sorted((c >> 2) * 4 + sigma[c & 3] for c in hole))
        base = self._preflop.get(canon)
        if base is None:
            base = self._preflop[canon] = self._preflop_vector(canon)
        perm = _pair_permutation(tuple(sigma))
        return base[0][perm], base[1][perm]

    def _preflop_vector(self, hole: tuple[int, ...]) -> tuple[np.ndarray, np.ndarray]:
        if self._boards is None:
            self._boards = BoardSample(self.seed, self.samples)
        return self._boards.vector(hole)


class BoardSample:
    """``size`` random five-card hold'em boards and every hole pair's rank on each: preflop equities in microseconds.

    Boards are drawn uniformly from the whole deck (seeded); for given hole
    cards, the boards that avoid them are uniform boards given those cards,
    as dealing them would be, so comparing columns over those boards is an
    unbiased estimate of preflop showdown equity (about 66% of the boards
    avoid four given cards).  Building costs one rank lookup per pair and
    board, once.
    """

    def __init__(self, seed: int = 0, size: int = PREFLOP_BOARDS) -> None:
        rng = np.random.default_rng([seed, 52])
        boards = np.argpartition(rng.random((size, 52)), 4, axis=1)[:, :5].astype(np.int64)
        #: (size, 1326) treys ranks, 0 where the pair holds a board card
        self.ranks = pair_ranks(boards).astype(np.int16)
        self._by_pair: np.ndarray | None = None

    def vector(self, hole: Sequence[int]) -> tuple[np.ndarray, np.ndarray]:
        """(equity, valid) of ``hole`` against every hole pair, as :func:`equity_vector` preflop."""
        mine = self.ranks[:, _pair_index(hole)]
        opp = self.ranks[mine > 0]
        mine = mine[mine > 0][:, None]
        # treys ranks, lower is better; a pair on the board has rank 0, below every real rank
        wins = (opp > mine).sum(axis=0, dtype=np.int32)
        ties = (opp == mine).sum(axis=0, dtype=np.int32)
        seen = (opp > 0).sum(axis=0, dtype=np.int32)
        valid = ~blocked_holdem(tuple(int(c) for c in hole)) & (seen > 0)
        return np.where(valid, (wins + 0.5 * ties) / np.maximum(seen, 1), 0.0), valid

    def matchup(self, first: Sequence[int], second: Sequence[int]) -> float:
        """The share of the pot ``first`` wins against ``second`` preflop (ties split)."""
        if self._by_pair is None:
            self._by_pair = np.ascontiguousarray(self.ranks.T)  # one pair's ranks side by side
        a = self._by_pair[_pair_index(first)]
        b = self._by_pair[_pair_index(second)]
        ok = (a > 0) & (b > 0)
        a, b = a[ok], b[ok]
        return float(((a < b).sum() + 0.5 * (a == b).sum()) / max(len(a), 1))


@lru_cache(maxsize=2)
def shared_boards(seed: int = 0, size: int = PREFLOP_BOARDS) -> BoardSample:
    """One :class:`BoardSample` per seed and size for the whole process (it is read-only once built)."""
    return BoardSample(seed, size)
