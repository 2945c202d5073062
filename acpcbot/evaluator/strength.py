"""Hand strength and potential of Billings, Papp, Schaeffer and Szafron: HS, PPot/NPot and EHS against ranges."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .pairs import CHUNK, PAIR_A, PAIR_B, cards_mask, combinations, key_sums, live_pairs, ranges_list, remaining
from .ranking import CardsLike, as_cards, check_distinct, rank_unchecked, ranks_from_keys
from .tables import KEY_A_LIST, SUIT_BASE

AHEAD, TIED, BEHIND = 0, 1, 2


@dataclass(frozen=True)
class Shares:
    """Range-weighted shares of opponent holdings that the hand beats, ties and loses to now."""

    ahead: float
    tied: float
    behind: float

    @property
    def strength(self) -> float:
        """Hand strength against one opponent: ahead + tied / 2."""
        return self.ahead + self.tied / 2


def _postflop_args(hole: CardsLike, board: CardsLike, opponents: int, rng_arg: object,
                   ) -> tuple[tuple[int, ...], tuple[int, ...], list[tuple[np.ndarray, np.ndarray]], list[int]]:
    """Checked hole, board, the live pairs of each distinct range, and which range each opponent has."""
    h = as_cards(hole, "hole")
    if len(h) != 2:
        raise ValueError(f"hole: a hold'em hand has 2 cards, got {len(h)}")
    bd = as_cards(board, "board")
    if not 3 <= len(bd) <= 5:
        raise ValueError(f"board: hand strength needs a flop, turn or river board (3..5 cards), got {len(bd)}")
    check_distinct([("hole", h), ("board", bd)])
    rl = ranges_list(rng_arg, opponents, "range")
    dead = cards_mask(h + bd)
    distinct: dict[int, int] = {}
    lives: list[tuple[np.ndarray, np.ndarray]] = []
    which = []
    for r in rl:
        key = id(r)
        if key not in distinct:
            distinct[key] = len(lives)
            lives.append(live_pairs(r, dead, "range"))
        which.append(distinct[key])
    return h, bd, lives, which


def _shares(h: tuple[int, ...], bd: tuple[int, ...], idx: np.ndarray, w: np.ndarray) -> Shares:
    hero = rank_unchecked(h + bd)
    board_a = SUIT_BASE + sum(KEY_A_LIST[c] for c in bd)
    opp = ranks_from_keys(board_a + PAIR_A[idx], cards_mask(bd) + PAIR_B[idx], 2 + len(bd))
    total = float(w.sum())
    ahead = float(w[opp > hero].sum()) / total
    tied = float(w[opp == hero].sum()) / total
    return Shares(ahead, tied, max(1.0 - ahead - tied, 0.0))


def showdown_shares(hole: CardsLike, board: CardsLike, range: object = None) -> Shares:
    """Ahead / tied / behind shares of one opponent's holdings now (flop, turn or river)."""
    h, bd, lives, _ = _postflop_args(hole, board, 1, range)
    return _shares(h, bd, *lives[0])


def hand_strength(hole: CardsLike, board: CardsLike, range: object = None, opponents: int = 1) -> float:
    """Share of opponent holdings beaten now, ties counted half; the product over opponents.

    ``range``: None (uniform), one range for all opponents, or one per opponent.
    """
    h, bd, lives, which = _postflop_args(hole, board, opponents, range)
    per_range = [_shares(h, bd, *live).strength for live in lives]
    return float(np.prod([per_range[i] for i in which]))


def _transitions(h: tuple[int, ...], bd: tuple[int, ...], idx: np.ndarray, w: np.ndarray,
                 ahead: int) -> tuple[np.ndarray, np.ndarray]:
    """Per runout of ``ahead`` cards: the range-weighted 3x3 counts of (state now, state after).

    Returns (P, W): P (M, 3, 3) normalised per runout, W (M,) the runout's total weight.
    """
    deck = remaining(cards_mask(h + bd))
    runs = deck[combinations(len(deck), ahead)]
    ra, rb = key_sums(runs)
    n_now, n_after = 2 + len(bd), 2 + len(bd) + ahead
    board_a = SUIT_BASE + sum(KEY_A_LIST[c] for c in bd)
    board_b = cards_mask(bd)
    hole_a, hole_b = sum(KEY_A_LIST[c] for c in h), cards_mask(h)
    pa, pb = PAIR_A[idx], PAIR_B[idx]
    hero_now = rank_unchecked(h + bd)
    opp_now = ranks_from_keys(board_a + pa, board_b + pb, n_now)
    now = np.where(opp_now > hero_now, AHEAD, np.where(opp_now == hero_now, TIED, BEHIND))
    hero_after = ranks_from_keys(board_a + hole_a + ra, board_b + hole_b + rb, n_after)
    counts = np.zeros((len(runs), 9))
    step = max(1, CHUNK // len(idx))
    for s in range(0, len(runs), step):
        a = (board_a + ra[s:s + step])[:, None] + pa[None, :]
        b = (board_b + rb[s:s + step])[:, None] + pb[None, :]
        opp = ranks_from_keys(a.ravel(), b.ravel(), n_after).reshape(a.shape)
        hr = hero_after[s:s + step, None]
        after = np.where(opp > hr, AHEAD, np.where(opp == hr, TIED, BEHIND))
        cell = now[None, :] * 3 + after + 9 * np.arange(a.shape[0])[:, None]
        ww = np.where((rb[s:s + step, None] & pb[None, :]) == 0, w[None, :], 0.0)
        counts[s:s + a.shape[0]] = np.bincount(cell.ravel(), weights=ww.ravel(),
                                                minlength=9 * a.shape[0]).reshape(-1, 9)
    total = counts.sum(axis=1)
    probs = np.divide(counts, total[:, None], out=np.zeros_like(counts), where=total[:, None] > 0)
    return probs.reshape(-1, 3, 3), total


def _potential_matrix(hole: CardsLike, board: CardsLike, range: object, opponents: int,
                      cards_ahead: int | None) -> tuple[np.ndarray, float]:
    """Billings' HP matrix (now x after, shares summing to 1) against all opponents, and HS_n."""
    h, bd, lives, which = _postflop_args(hole, board, opponents, range)
    hs = float(np.prod([[_shares(h, bd, *live).strength for live in lives][i] for i in which]))
    left = 5 - len(bd)
    if cards_ahead is None:
        cards_ahead = left
    if isinstance(cards_ahead, bool) or not isinstance(cards_ahead, (int, np.integer)) or cards_ahead < 1:
        raise ValueError(f"cards_ahead must be 1, 2 or None (to the river), got {cards_ahead!r}")
    if left == 0:
        return np.zeros((3, 3)), hs
    cards_ahead = min(cards_ahead, left)
    trans = [_transitions(h, bd, *live, cards_ahead) for live in lives]
    # Opponents are independent given the runout: "ahead of all" and "not
    # behind anyone" multiply, and differencing the cumulative cells recovers
    # the multiway (ahead, tied, behind) cells.
    cum = np.ones((len(trans[0][0]), 3, 3))
    weight = np.ones(len(trans[0][0]))
    for i in which:
        probs, total = trans[i]
        cum *= probs.cumsum(axis=1).cumsum(axis=2)
        weight *= total
    joint = np.diff(np.diff(cum, axis=1, prepend=0.0), axis=2, prepend=0.0)
    hp = (joint * weight[:, None, None]).sum(axis=0)
    total = hp.sum()
    return (hp / total if total > 0 else hp), hs


def hand_potential(hole: CardsLike, board: CardsLike, range: object = None, opponents: int = 1,
                   cards_ahead: int | None = 1) -> tuple[float, float]:
    """Positive and negative potential (PPot, NPot) of a hand on the flop or turn.

    PPot: chance of moving ahead when behind now; NPot: of falling behind
    when ahead; ties count half (Billings et al. 2002).  ``cards_ahead`` 1
    looks one card ahead, None (or 2 on the flop) to the river.  Against
    several opponents the runout is shared and the opponents are treated as
    independent given it.  The river has no potential: (0.0, 0.0).
    """
    hp, _ = _potential_matrix(hole, board, range, opponents, cards_ahead)
    tot = hp.sum(axis=1)
    pden = tot[BEHIND] + tot[TIED] / 2
    nden = tot[AHEAD] + tot[TIED] / 2
    ppot = (hp[BEHIND, AHEAD] + hp[BEHIND, TIED] / 2 + hp[TIED, AHEAD] / 2) / pden if pden > 0 else 0.0
    npot = (hp[AHEAD, BEHIND] + hp[TIED, BEHIND] / 2 + hp[AHEAD, TIED] / 2) / nden if nden > 0 else 0.0
    return float(ppot), float(npot)


def effective_hand_strength(hole: CardsLike, board: CardsLike, range: object = None, opponents: int = 1,
                            cards_ahead: int | None = 1) -> float:
    """Effective hand strength EHS = HS_n + (1 - HS_n) * PPot (Billings et al.)."""
    hs = hand_strength(hole, board, range, opponents)
    ppot, _ = hand_potential(hole, board, range, opponents, cards_ahead)
    return hs + (1 - hs) * ppot
