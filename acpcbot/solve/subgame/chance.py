"""The last street's cards grouped into classes inside a subgame rooted a street earlier (a chance abstraction).

A turn subgame that enumerates the 48 river cards pays 48 river subtrees
an iteration; grouped into ``k`` classes it pays ``k``, and the river is
re-solved exactly over the real card when it comes (Libratus's nested
solving: Brown & Sandholm, arXiv 1705.02955).  Only the strategies are
abstracted: on a class every holding plays one strategy for all of its
cards, but the values stay exact for that strategy, because the class's
showdown matrix is the *sum* of its cards' win/lose matrices (a card the
holding or the opponent's holds left out) and its fold weight counts the
class's cards neither holding blocks (``terminal.class_showdown_matrix``,
``passes``).  With every card its own class it is the exact subgame.

Cards are grouped by what they do to every holding's showdown strength: a
card's feature is each holding's strength percentile on the board it
completes, and the classes are k-means clusters of those vectors
(deterministic farthest-point start).  Cards that make a flush for some
holdings and not for others land apart, since the vectors are per holding.
"""

from __future__ import annotations

import numpy as np

from ...cards import deck
from ...evaluator.pairs import pair_ranks
from ...gamedef import GameDef
from ...holdings import holdings

#: Lloyd iterations of the k-means (48 points: it settles in a few)
ROUNDS = 25


def strength_features(game: GameDef, board: tuple[int, ...], cards: list[int]) -> np.ndarray:
    """(cards, holdings) each holding's strength percentile (0..1, higher wins) on ``board`` plus each card.

    NaN where the card or the board blocks the holding: two cards are compared on the holdings both leave live.
    """
    table = holdings(game)
    boards = np.array([tuple(board) + (c,) for c in cards], dtype=np.int64)
    if game.ranking is None and table.shape[1] == 2 and boards.shape[1] == 5 and game.deck_size == 52:
        values = -pair_ranks(boards).astype(np.float64)  # treys: lower wins; 0 where blocked
        live = values < 0
    else:
        rank = game.ranking_for_showdown
        values = np.zeros((len(cards), len(table)))
        live = np.zeros(values.shape, dtype=bool)
        for i, b in enumerate(boards.tolist()):
            for h, hole in enumerate(table.tolist()):
                if not set(hole) & set(b):
                    values[i, h] = rank(tuple(hole) + tuple(b))
                    live[i, h] = True
    out = np.full(values.shape, np.nan)
    for i in range(len(cards)):
        v = values[i, live[i]]
        order = np.sort(v)
        # percentile with ties at their mid-point: (below + below-or-equal) / 2
        lo, hi = np.searchsorted(order, v, "left"), np.searchsorted(order, v, "right")
        out[i, live[i]] = 0.5 * (lo + hi) / max(1, len(v))
    return out


def distances(points: np.ndarray, centres: np.ndarray) -> np.ndarray:
    """(n, k) mean squared difference of each point to each centre over the entries both have (not NaN)."""
    pv, cv = np.isfinite(points), np.isfinite(centres)
    p, c = np.where(pv, points, 0.0), np.where(cv, centres, 0.0)
    both = pv.astype(np.float64) @ cv.T.astype(np.float64)
    # sum over shared entries of (p - c)^2 = p^2 . cv + pv . c^2 - 2 p . c (zeros where either is missing)
    sq = (p * p) @ cv.T + pv @ (c * c).T - 2.0 * p @ c.T
    return np.divide(np.maximum(sq, 0.0), both, out=np.full(sq.shape, np.inf), where=both > 0)


def kmeans(points: np.ndarray, k: int) -> np.ndarray:
    """Cluster labels (0..k-1, every one used) of ``points`` (n, d; NaN: missing), n >= k: farthest-point start
    from the point nearest the mean, then Lloyd rounds."""
    n = len(points)
    centres = [int(np.argmin(distances(points, _nanmean(points)[None])[:, 0]))]
    dist = distances(points, points[centres[0]][None])[:, 0]
    while len(centres) < k:
        nxt = int(np.argmax(np.where(np.isfinite(dist), dist, -1.0)))
        centres.append(nxt)
        dist = np.minimum(dist, distances(points, points[nxt][None])[:, 0])
    c = points[centres].copy()
    labels = np.full(n, -1, dtype=np.int64)
    for _ in range(ROUNDS):
        d = distances(points, c)
        new = np.argmin(d, axis=1)
        # a cluster left empty takes the point farthest from its centre, so every class has a card
        for j in range(k):
            if not (new == j).any():
                new[int(np.argmax(np.where(np.isfinite(d[np.arange(n), new]), d[np.arange(n), new], -1.0)))] = j
        if np.array_equal(new, labels):
            break
        labels = new
        for j in range(k):
            c[j] = _nanmean(points[labels == j])
    return labels


def _nanmean(rows: np.ndarray) -> np.ndarray:
    """The mean of each column over its finite entries; NaN where it has none."""
    ok = np.isfinite(rows)
    count = ok.sum(axis=0)
    total = np.where(ok, rows, 0.0).sum(axis=0)
    return np.divide(total, count, out=np.full(rows.shape[1], np.nan), where=count > 0)


def last_card_classes(game: GameDef, board: tuple[int, ...], count: int) -> list[tuple[int, ...]]:
    """The cards that can complete ``board`` grouped into at most ``count`` classes, each nearest its centre first.

    The first card is the class's representative (the board the subgame
    names the class by); classes come in the order of their representatives;
    fewer cards than ``count``: one class a card (exact).
    """
    cards = [c for c in deck(game.num_ranks, game.num_suits) if c not in board]
    if count >= len(cards):
        return [(c,) for c in cards]
    if count < 1:
        raise ValueError(f"a chance abstraction needs at least one class, got {count}")
    features = strength_features(game, board, cards)
    labels = kmeans(features, count)
    out = []
    for j in range(count):
        members = np.flatnonzero(labels == j)
        near = members[np.argsort(distances(features[members], _nanmean(features[members])[None])[:, 0], kind="stable")]
        out.append(tuple(cards[m] for m in near))
    return sorted(out)
