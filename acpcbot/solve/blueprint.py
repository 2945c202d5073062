"""Runtime lookup of the hold'em blueprint: real cards -> bucket history -> action probabilities.

    bp = Blueprint()                        # the shipped hulhe policy and buckets
    bp.probabilities(state)                 # (3,) fold/call/raise for the acting player's own cards
    bp.probabilities(state, hole=(c1, c2))  # ... for another holding
    bp.probabilities_all(state)             # (1326, 3) for every hole pair (evaluator.PAIRS order)
    bp.actions(state)                       # (FOLD, CALL, RAISE): what the columns are (the BlueprintTable seam)

``state`` is an ``acpcbot.engine.State`` whose betting and board are the
decision's (its board holds 0, 3, 4 or 5 cards as the round requires).
Rows sum to 1 and put no mass on an action the engine forbids; pairs that
share a card with the board get a valid row too.  Bucket histories are
cached per board, so later decisions on the same street cost a table read.
"""

from __future__ import annotations

import hashlib
import os
from collections import OrderedDict
from pathlib import Path

import numpy as np

from ..arrayfile import Expected
from ..cachefile import read_cache, write_cache
from ..engine import CALL, FOLD, RAISE, Action, State
from ..equity_vectors import showdown_strength
from ..evaluator import NUM_PAIRS, PAIR_INDEX, pair_ranks
from ..evaluator.tables import cache_dir
from ..gamedef import GameDef, load_game
from ..preflop import PAIR_CLASS
from .abstract_game import AbstractGameError, locate
from .abstraction import (
    BINS,
    PERM_PAIR,
    AbstractionError,
    Buckets,
    canonical_flop,
    cdf,
    nearest,
    river_strength,
    strength_bin,
)
from .blueprint_train import DEFAULT_BUCKETS, DEFAULT_POLICY, QUANT, blueprint_game, read_policy

_CACHE = 64   # boards remembered


#: what a rows cache file holds: its metadata (JSON: the policy's, the rows' shapes, key, layout and content digest)
#: and four rounds (``cachefile.read_cache``)
_ROWS_FORMAT = 3


def _rows_shapes(meta: dict) -> dict[str, Expected]:
    """The four rounds' arrays a rows cache must hold, as its metadata announces them."""
    shapes = meta["shapes"]
    if not (isinstance(shapes, list) and len(shapes) == 4):
        raise ValueError("not four rounds")
    return {f"round{r}": (np.dtype(np.uint8), tuple(int(n) for n in shapes[r])) for r in range(4)}


def load_rows(policy: str | os.PathLike[str], directory: Path | None = None) -> tuple[list[np.ndarray], dict]:
    """A policy file's rows and metadata (``blueprint_train.read_policy``), decompressed once per file content.

    Decompressing the shipped policy takes half a second or more, paid by
    every process that plays it (each TCP seat, each test process); the
    rows are kept uncompressed in acpcbot's cache folder, named after the
    policy file's SHA-256, and read back in milliseconds.  A cache file is
    used only when its metadata names that digest, each row's header
    announces the shape the metadata gives (so a forged header never
    allocates) and the content digest stored beside the rows matches
    (``cachefile.read_cache``); anything else is rebuilt from the policy
    file.  An unwritable cache folder only costs the decompression.
    """
    data = Path(policy).read_bytes()
    digest = hashlib.sha256(data).hexdigest()
    path = (cache_dir() if directory is None else Path(directory)) / f"blueprint_rows_{digest[:32]}.npz"
    cached = read_cache(path, digest, _ROWS_FORMAT, _rows_shapes)
    if cached is not None:
        arrays, meta = cached
        meta["k"] = tuple(meta["k"])
        return [arrays[f"round{r}"] for r in range(4)], meta
    rows, meta = read_policy(policy)
    write_cache(path, digest, _ROWS_FORMAT, {f"round{r}": q for r, q in enumerate(rows)},
                dict(meta, k=list(meta["k"]), shapes=[list(r.shape) for r in rows]))
    return rows, meta


def check_fits(game: GameDef, policy: str | os.PathLike[str], buckets: str | os.PathLike[str], game_text: str,
               k: tuple[int, ...], bucket_k: tuple[int, ...]) -> None:
    """The AbstractionError of a policy trained for another game than ``game`` (its ``game_text``) or with other
    bucket counts (``k``) than the bucket file's (``bucket_k``): the loader's and the header check's words."""
    if game_text != game.to_text():
        raise AbstractionError(f"{os.fspath(policy)} was trained for another game than {game.name}")
    if k != bucket_k:
        raise AbstractionError(f"{os.fspath(policy)} needs buckets {k}, {os.fspath(buckets)} has {bucket_k}")


class Blueprint:
    """The shipped policy of a 2-player limit hold'em game and its card abstraction."""

    def __init__(self, game: GameDef | str = "hulhe", policy: str | os.PathLike[str] = DEFAULT_POLICY,
                 buckets: str | os.PathLike[str] = DEFAULT_BUCKETS) -> None:
        self.game = load_game(game) if isinstance(game, str) else game
        self.buckets = Buckets.load(buckets)
        self.rows, self.meta = load_rows(policy)
        check_fits(self.game, policy, buckets, self.meta["game_text"], tuple(self.meta["k"]), tuple(self.buckets.k))
        self.abstract = blueprint_game(self.game, self.buckets)
        self._game_text = self.game.to_text()
        for r, q in enumerate(self.rows):
            tpl = self.abstract.rounds[r]
            want = (tpl.num_instances, tpl.num_decisions, 3, self.abstract.strategy_width(r))
            if q.shape != want:
                raise AbstractionError(f"{os.fspath(policy)}: round {r + 1} rows have shape {q.shape}, "
                                       f"expected {want}")
        self._all: OrderedDict[tuple[int, ...], np.ndarray] = OrderedDict()
        self._one: OrderedDict[tuple[tuple[int, ...], int], int] = OrderedDict()

    # --------------------------------------------------------------- public

    def actions(self, state: State) -> tuple[Action, ...]:
        """The columns of every row: fold, call, raise (an illegal one has probability 0)."""
        return (FOLD, CALL, RAISE)

    def probabilities(self, state: State, hole: tuple[int, int] | None = None) -> np.ndarray:
        """Fold/call/raise probabilities (3,) of the player to act holding ``hole`` (default: its own cards)."""
        r, inst, d, board = self._decision(state)
        cards: tuple[int, ...] = state.hole[state.current_player] if hole is None else hole
        if len(cards) != 2 or len(set(cards)) != 2 or not all(0 <= int(c) < 52 for c in cards):
            raise ValueError(f"hole: expected two distinct cards 0..51, got {cards!r}")
        pair = int(PAIR_INDEX[int(cards[0]), int(cards[1])])
        h = self.history_index(board, pair)
        return self.rows[r][inst, d, :, h] / QUANT

    def probabilities_all(self, state: State) -> np.ndarray:
        """(1326, 3) fold/call/raise probabilities of every hole pair for the player to act."""
        r, inst, d, board = self._decision(state)
        h = self.history_indices(board)
        return self.rows[r][inst, d][:, h].T / QUANT

    def history_index(self, board: tuple[int, ...], pair: int) -> int:
        """Index of one pair's bucket history in its round (cached per board and pair)."""
        key = (board, pair)
        hit = self._one.get(key)
        if hit is None:
            hit = bucket_history(self.buckets, board, pair)
            _remember(self._one, key, hit, _CACHE * NUM_PAIRS)
        return hit

    def history_indices(self, board: tuple[int, ...]) -> np.ndarray:
        """(1326,) bucket-history index of every pair on this board (cached per board)."""
        hit = self._all.get(board)
        if hit is None:
            hit = bucket_histories(self.buckets, board)
            _remember(self._all, board, hit, _CACHE)
        return hit

    # -------------------------------------------------------------- helpers

    def _decision(self, state: State) -> tuple[int, int, int, tuple[int, ...]]:
        if state.game is not self.game and state.game.to_text() != self._game_text:
            raise ValueError(f"the state is of game {state.game.name}, the blueprint of {self.game.name}")
        try:
            r, inst, d = locate(self.abstract, state)
        except AbstractGameError as exc:
            raise ValueError(str(exc)) from None
        need = self.game.board_cards_through(r)
        board = tuple(int(x) for x in state.board[:need])
        if len(board) != need or len(set(board)) != need:
            raise ValueError(f"round {r + 1} needs {need} distinct board cards, the state has {list(state.board)}")
        return r, inst, d, board


def bucket_history(buckets: Buckets, board: tuple[int, ...], pair: int) -> int:
    """Strategy key of one pair on a 0/3/4/5-card board: c; (c, b1); (c, b1, b2); on the river (c, b3).

    The river strategy is over (class, river bucket) only (see
    ``AbstractGame.strategy_width``).  A pair sharing a card with the board
    gets some valid key.
    """
    k1, k2, k3 = buckets.k
    c = int(PAIR_CLASS[pair])
    if len(board) == 5:
        ranks = pair_ranks(np.array([board], dtype=np.int64))[0]
        mine = int(ranks[pair])
        b3 = int(buckets.river_bucket(np.array([_strength(ranks, mine)]))[0]) if mine > 0 else 0
        return c * k3 + b3
    h = c
    if len(board) >= 3:
        f, perm = canonical_flop(board[:3])
        b1 = int(buckets.flop_bucket[f, PERM_PAIR[perm, pair]])
        b1 = 0 if b1 == 255 else b1
        h = h * k1 + b1
    if len(board) == 4:
        counts = _turn_counts_one(tuple(board), pair)
        b2 = int(nearest(cdf(counts), buckets.turn_centroids[c, b1])) if counts.any() else 0
        h = h * k2 + b2
    return h


def bucket_histories(buckets: Buckets, board: tuple[int, ...]) -> np.ndarray:
    """(1326,) strategy key of every pair on a 0/3/4/5-card board (as ``bucket_history``)."""
    k1, k2, k3 = buckets.k
    c = PAIR_CLASS
    if len(board) == 5:
        s = river_strength(np.array([board], dtype=np.int64))[0]
        return c * k3 + np.where(s > 0, buckets.river_bucket(s), 0)
    h = c.copy()
    if len(board) >= 3:
        b1 = buckets.flop_buckets(board[:3])
        b1 = np.where(b1 == 255, 0, b1)
        h = h * k1 + b1
    if len(board) == 4:
        counts = _turn_counts_all(tuple(board))
        b2 = buckets.turn_buckets(counts, c, b1)
        h = h * k2 + np.where(counts.any(1), b2, 0)
    return h


def _remember(cache: OrderedDict, key, value, limit: int) -> None:
    cache[key] = value
    if len(cache) > limit:
        cache.popitem(last=False)


def _strength(ranks: np.ndarray, mine: int) -> int:
    """Board strength 2*worse + ties (self included) of a treys rank among the board's live pairs (rank 0: dead)."""
    return int(showdown_strength(ranks, mine))


def _river_boards(turn_board: tuple[int, ...]) -> np.ndarray:
    rivers = [c for c in range(52) if c not in turn_board]
    return np.concatenate([np.broadcast_to(np.array(turn_board), (len(rivers), 4)),
                           np.array(rivers)[:, None]], axis=1)


def _turn_counts_one(turn_board: tuple[int, ...], pair: int) -> np.ndarray:
    """Counts (BINS,) of one pair's river strength over the rivers it can see."""
    ranks = pair_ranks(_river_boards(turn_board))                  # (48, 1326), 0 where a card is shared
    mine = ranks[:, pair][:, None]
    live = mine[:, 0] > 0
    strength = showdown_strength(ranks, mine)
    return np.bincount(strength_bin(strength[live]), minlength=BINS)


def _turn_counts_all(turn_board: tuple[int, ...]) -> np.ndarray:
    """Counts (1326, BINS) of every pair's river strength over the rivers it can see."""
    s = river_strength(_river_boards(turn_board))                  # (48, 1326)
    keys = np.arange(NUM_PAIRS)[None, :] * BINS + strength_bin(s)
    return np.bincount(keys[s > 0], minlength=NUM_PAIRS * BINS).reshape(NUM_PAIRS, BINS)
