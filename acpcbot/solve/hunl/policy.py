"""The HUNL policy file and its play-time table: real state -> tree paths -> rows per holding over real actions.

The file (``.npz``, every member checked on reading, ``arrayfile``) holds
the rows of every (decision node, key) of the tree as uint8 summing to 255
over the node's actions (lzma-compressed), the key maps of ``cards``, and
a JSON header: the game, the action abstraction, the key widths, the
trainer's settings, iterations and seconds, the digest of the hold'em
buckets the keys stand on.  The tree is rebuilt from the header, and must
have exactly the file's number of entries; the tree and the decompressed
rows are kept between processes (``load_cache``: verified or rebuilt), and
the header alone answers whether a file fits a game (``header``).

``HunlBlueprint`` answers the ``BlueprintTable`` questions: at a real
state the betting is read on the tree (``translation.tree_paths``), each
path's node gives a row per holding (keys from the board's bucket
histories), each tree action becomes the real action of the same pot
fraction (all-in stays all-in, a fold where nothing is to call a check),
and the rows are mixed by the paths' weights.  Where no path reaches the
tree the row is check/call.
"""

from __future__ import annotations

import json
import lzma
import os
from collections import OrderedDict
from collections.abc import Callable
from functools import lru_cache

import numpy as np

from ...arrayfile import ArrayFileError, read_npz
from ...atomic import atomic_write
from ...engine import CALL, FOLD, Action, ActionType, State, raise_to
from ...evaluator import NUM_PAIRS, PAIR_INDEX
from ...gamedef import GameDef, parse_game
from ..abstraction import AbstractionError, Buckets
from ..blueprint import bucket_histories, bucket_history
from .actions import ActionAbstraction, BlueprintTree, pot_fraction, raise_target
from .cards import HunlCards
from .header import POLICY_FORMAT, check_buckets, check_format, check_game, digest_of
from .load_cache import load_tree, unpacked_rows
from .mccfr import MCCFR
from .translation import TreePath, tree_paths

QUANT = 255
_BOARDS = 64   # boards whose histories are remembered


def buckets_digest(buckets: Buckets) -> str:
    """A short content hash of the hold'em buckets the keys stand on."""
    return digest_of(buckets.flop_bucket, buckets.turn_centroids, buckets.transitions, buckets.river_edges)


def row_starts(tree: BlueprintTree) -> dict[int, np.ndarray]:
    """Per number of actions, the flat-table offset of every (node, key) row with that many actions."""
    groups: dict[int, list[np.ndarray]] = {}
    for n, acts in enumerate(tree.actions):
        na = len(acts)
        groups.setdefault(na, []).append(tree.base[n] + na * np.arange(tree.widths[tree.round[n]], dtype=np.int64))
    return {na: np.concatenate(parts) for na, parts in groups.items()}


def quantised_rows(trainer: MCCFR) -> np.ndarray:
    """The average strategy as uint8 rows summing to 255 per (node, key) (largest remainders).

    A row never averaged takes the current (regret-matching) strategy, and
    one never visited at all check/call (column 1: every node has call there
    or, facing no bet, first).
    """
    tree = trainer.tree
    avg = np.frombuffer(trainer.strategy, dtype=np.float32)
    cur = np.frombuffer(trainer.regret, dtype=np.float32)
    out = np.zeros(tree.size, dtype=np.uint8)
    for na, starts in row_starts(tree).items():
        idx = starts[:, None] + np.arange(na)
        a = np.maximum(avg[idx].astype(np.float64), 0.0)
        c = np.maximum(cur[idx].astype(np.float64), 0.0)
        total = a.sum(1, keepdims=True)
        rows = np.divide(a, total, out=np.zeros_like(a), where=total > 0)
        ctot = c.sum(1, keepdims=True)
        fresh = (total[:, 0] <= 0) & (ctot[:, 0] > 0)
        rows[fresh] = c[fresh] / ctot[fresh]
        unseen = rows.sum(1) == 0
        rows[unseen] = _call_rows(tree, starts[unseen], na)
        scaled = rows * QUANT
        q = np.floor(scaled)
        short = np.rint(QUANT - q.sum(1)).astype(np.int64)
        rank = np.argsort(np.argsort(-(scaled - q), axis=1, kind="stable"), axis=1, kind="stable")
        q += rank < short[:, None]
        out[idx] = q.astype(np.uint8)
    return out


def _call_rows(tree: BlueprintTree, starts: np.ndarray, na: int) -> np.ndarray:
    """One-hot check/call rows for rows starting at ``starts`` (nodes with ``na`` actions)."""
    rows = np.zeros((len(starts), na))
    if len(starts) == 0:
        return rows
    base = np.array(tree.base, dtype=np.int64)
    node = np.searchsorted(base, starts, side="right") - 1
    col = np.array([tree.actions[n].index(CALL) for n in range(tree.num_nodes)], dtype=np.int64)[node]
    rows[np.arange(len(starts)), col] = 1.0
    return rows


def write_policy(path: str | os.PathLike[str], tree: BlueprintTree, cards: HunlCards, rows: np.ndarray,
                 meta: dict) -> None:
    """Write a policy file (atomic replace)."""
    assert tree.abstraction is not None
    header = dict(meta, format=POLICY_FORMAT, game=tree.game.to_text(), abstraction=tree.abstraction.to_json(),
                  widths=list(tree.widths), entries=tree.size, k_flop=cards.k_flop, k_turn=cards.k_turn)
    blob = np.frombuffer(lzma.compress(rows.tobytes(), preset=6), dtype=np.uint8)
    with atomic_write(path, "wb") as fh:
        np.savez(fh, meta=np.array(json.dumps(header)), flop_map=cards.flop_map, turn_map=cards.turn_map,
                 rows=blob)


def read_policy(path: str | os.PathLike[str], buckets: Buckets) -> tuple[dict, HunlCards, np.ndarray]:
    """(header, key maps, uint8 rows) of a policy file; AbstractionError naming what does not fit."""
    where = os.fspath(path)
    k1, k2, k3 = buckets.k
    try:
        z = read_npz(path, {"meta": ("U", ()), "flop_map": (np.dtype(np.int16), (169 * k1,)),
                            "turn_map": (np.dtype(np.int16), (169 * k1 * k2,)), "rows": (np.dtype(np.uint8), None)})
        meta = json.loads(str(z["meta"]))
        check_format(meta, where)
        rows = unpacked_rows(z["rows"])
        cards = HunlCards(k_flop=int(meta["k_flop"]), k_turn=int(meta["k_turn"]), flop_map=z["flop_map"],
                          turn_map=z["turn_map"], river_k=k3)
    except (OSError, ArrayFileError, ValueError, KeyError, TypeError, lzma.LZMAError) as exc:
        if isinstance(exc, AbstractionError):
            raise
        raise AbstractionError(f"{where}: cannot read the HUNL policy: {exc}") from None
    check_buckets(meta, buckets_digest(buckets), where)
    if len(rows) != int(meta["entries"]):
        raise AbstractionError(f"{where}: {len(rows):,} rows, the header says {meta['entries']:,}")
    if (int(cards.flop_map.max(initial=0)) >= cards.k_flop or int(cards.turn_map.max(initial=0)) >= cards.k_turn
            or int(cards.flop_map.min(initial=0)) < 0 or int(cards.turn_map.min(initial=0)) < 0):
        raise AbstractionError(f"{where}: key maps out of range")
    return meta, cards, rows


@lru_cache(maxsize=2)
def tree_of(game_text: str, abstraction_json: str, widths: tuple[int, ...]) -> BlueprintTree:
    """The betting tree of a policy header, once per process (from the cache folder: grown once per machine)."""
    return load_tree(parse_game(game_text), ActionAbstraction.from_json(abstraction_json), widths)


def real_action(state: State, tree_state: State, action: Action) -> Action:
    """The real action at ``state`` of a tree action taken at ``tree_state`` (same pot fraction; all-in is all-in)."""
    legal = state.legal_actions()
    kind = action[0]
    if kind == ActionType.FOLD:
        return FOLD if ActionType.FOLD in legal else CALL
    if kind == ActionType.CALL or ActionType.RAISE not in legal:
        return CALL
    tree_bounds = tree_state.raise_bounds()
    bounds = state.raise_bounds()
    assert bounds is not None
    if tree_bounds is not None and action[1] >= tree_bounds[1]:
        return raise_to(bounds[1])
    return raise_to(raise_target(state, pot_fraction(tree_state, action[1])))


class HunlBlueprint:
    """The play-time table of a HUNL policy file (see the module docstring)."""

    def __init__(self, game: GameDef, policy: str | os.PathLike[str], buckets: str | os.PathLike[str]) -> None:
        self.game = game
        self.buckets = Buckets.load(buckets)
        self.meta, self.cards, self.rows = read_policy(policy, self.buckets)
        check_game(self.meta, game, os.fspath(policy))
        self.tree = tree_of(self.meta["game"], self.meta["abstraction"], tuple(self.meta["widths"]))
        if self.tree.size != len(self.rows):
            raise AbstractionError(f"{os.fspath(policy)}: {len(self.rows):,} rows, its tree has {self.tree.size:,}")
        self._histories: OrderedDict[tuple[int, ...], np.ndarray] = OrderedDict()
        self._last: tuple[tuple, list[TreePath]] | None = None

    # --------------------------------------------------------------- public

    def actions(self, state: State) -> tuple[Action, ...]:
        """The real actions the rows at ``state`` are over: fold, call, raises ascending (each legal, distinct)."""
        return self._columns(state)[0]

    def probabilities(self, state: State, hole: tuple[int, int] | None = None) -> np.ndarray:
        """One row over ``actions(state)`` for the acting player's cards (or ``hole``)."""
        cards = state.hole[state.current_player] if hole is None else hole
        if len(cards) != 2 or len(set(cards)) != 2 or not all(0 <= int(c) < 52 for c in cards):
            raise ValueError(f"hole: expected two distinct cards 0..51, got {cards!r}")
        pair = int(PAIR_INDEX[int(cards[0]), int(cards[1])])
        board = self._board(state)
        key = self.cards.key(bucket_history(self.buckets, board, pair), state.round)
        return self._mix(state, lambda width, na, base: self.rows[base + key * na: base + key * na + na][None, :], 1)[0]

    def probabilities_all(self, state: State) -> np.ndarray:
        """(1326, len(actions)) rows of every hole pair (``evaluator.PAIRS`` order)."""
        keys = self.cards.keys(self._history_all(self._board(state)), state.round)

        def rows(width: int, na: int, base: int) -> np.ndarray:
            return self.rows[base: base + width * na].reshape(width, na)[keys]
        return self._mix(state, rows, NUM_PAIRS)

    # -------------------------------------------------------------- helpers

    def _paths(self, state: State) -> list[TreePath]:
        """The readings of ``state`` on the tree that stand at a node of its round or owe its player a call."""
        ident = tuple(tuple(a) for a in state.actions)
        if self._last is not None and self._last[0] == ident:
            return self._last[1]
        paths = [p for p in tree_paths(self.tree, state)
                 if (p.owes == state.current_player if p.owes >= 0 else self.tree.round[p.node] == state.round)]
        total = sum(p.weight for p in paths)
        paths = [p._replace(weight=p.weight / total) for p in paths]
        self._last = (ident, paths)
        return paths

    def _columns(self, state: State) -> tuple[tuple[Action, ...], list[tuple[int, float, list[int]]]]:
        """The real actions and, per path, (node, weight, column of each tree action); node -1: a path owing
        the call (its one column)."""
        if state.game is not self.game and state.game.to_text() != self.game.to_text():
            raise ValueError(f"the state is of game {state.game.name}, the blueprint of {self.game.name}")
        if state.finished or state.current_player < 0:
            raise ValueError("no one is to act in this state")
        found: list[tuple[int, float, list[Action]]] = []
        for path in self._paths(state):
            if path.owes >= 0:
                found.append((-1, path.weight, [CALL]))
                continue
            found.append((path.node, path.weight,
                          [real_action(state, path.state, a) for a in self.tree.actions[path.node]]))
        if not found:
            return (CALL,), []
        distinct = sorted({a for _, _, acts in found for a in acts}, key=lambda a: (int(a[0]), a[1]))
        index = {a: i for i, a in enumerate(distinct)}
        return tuple(distinct), [(n, w, [index[a] for a in acts]) for n, w, acts in found]

    def _mix(self, state: State, rows_of: Callable[[int, int, int], np.ndarray], n_rows: int) -> np.ndarray:
        """The paths' rows (``rows_of(width, actions, base)``: uint8 (n_rows, actions)) mixed by weight."""
        actions, paths = self._columns(state)
        out = np.zeros((n_rows, len(actions)))
        if not paths:
            out[:, 0] = 1.0                       # off the tree: check/call, the only column
            return out
        for node, w, cols in paths:
            if node < 0:                          # owing the call: every holding calls
                out[:, cols[0]] += w
                continue
            q = rows_of(self.tree.widths[state.round], len(cols), self.tree.base[node]) * (w / QUANT)
            for j, c in enumerate(cols):         # two tree actions may be one real action: add, not assign
                out[:, c] += q[:, j]
        return out / out.sum(1, keepdims=True)

    def _board(self, state: State) -> tuple[int, ...]:
        need = self.game.board_cards_through(state.round)
        board = tuple(int(x) for x in state.board[:need])
        if len(board) != need or len(set(board)) != need:
            raise ValueError(f"round {state.round + 1} needs {need} distinct board cards, the state has "
                             f"{list(state.board)}")
        return board

    def _history_all(self, board: tuple[int, ...]) -> np.ndarray:
        hit = self._histories.get(board)
        if hit is None:
            hit = bucket_histories(self.buckets, board)
            self._histories[board] = hit
            if len(self._histories) > _BOARDS:
                self._histories.popitem(last=False)
        return hit
