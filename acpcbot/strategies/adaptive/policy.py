"""The opponent's policy as adaptive's statistics describe it, by strength bin: what its search plays against.

Its (fold, call, raise) frequencies in a spot (``adaptive.stats``) are spread
over its hands by the soft threshold model of ``adaptive.ranges``, mixed
with the plain frequencies by how informative its actions have proved at
showdowns; its raise is its typical size in the spot.
"""

from __future__ import annotations

import numpy as np

from ...engine import RAISE, Action, ActionType, State, raise_to
from ...gamedef import GameDef
from .ranges import SOFTNESS, threshold_likelihoods
from .search import NUM_BINS, SHORT_BEHIND
from .stats import BIG_CALL_BUCKET, KINDS, OpponentStats, info_class, spot_and_bet, spot_of

_F, _C, _R = ActionType.FOLD, ActionType.CALL, ActionType.RAISE


class ModelPolicy:
    """The opponent as its statistics describe it, by strength bin: the search's ``OpponentPolicy``.

    Its (fold, call, raise) frequencies in the spot (``OpponentStats.predict``)
    are spread over its hands by the soft threshold model: the top share of
    what it usually holds there raises, the bottom share folds; read against
    the reference ranges of the spot (in the decision's street's strengths on
    later streets).  Each action mixes the threshold chance with the plain
    frequency by the learnt informativeness kappa.  Its raise is its typical
    size in the spot (all-in where that leaves a sliver behind).
    """

    #: its chances where it acts depend on the state only through adaptive.search.spot_key (given its range)
    spot_keyed = True

    def __init__(self, stats: OpponentStats, opp: int, game: GameDef) -> None:
        self.stats = stats
        self.opp = opp
        self.game = game
        self._cache: dict[tuple, np.ndarray] = {}
        self._spots: dict[tuple, tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]] = {}
        self._overbets: float | None = None
        #: per (street, kind, 0), the spot's usual range blended with the uniform one (the rivers' reference)
        self._usual: dict[tuple, np.ndarray] = {}
        #: per street, :meth:`raise_key` (asked for every river round of a search; the statistics stand meanwhile)
        self._raise_keys: dict[int, tuple] = {}
        #: kappa of (fold, call, raise), and 1 - kappa, by (facing a bet, before the flop, a big call's bucket): what
        #: their informativeness classes (stats.info_class) are made of; never written to once made
        self._kappas: dict[tuple[bool, bool, bool], tuple[np.ndarray, np.ndarray]] = {}

    def probs(self, state: State, hist: np.ndarray | None) -> np.ndarray:
        """(3, NUM_BINS) chances of fold, call, raise per strength bin where it acts in ``state``.

        ``hist`` is its range over the bins now; None on the river of a runout,
        where its thresholds are read against its usual ranges of the spot.
        """
        key, hit, todo = self._prepare(state, hist)
        if hit is not None:
            return hit
        reference, triple, facing, edges, kappa, plain, shared = todo
        u = _accumulate(reference)  # np.cumsum's very sums, without its wrapper
        u -= reference
        u += 0.5 * reference
        out = _threshold_rows(u, triple, facing, edges)
        out *= kappa
        out += plain
        total = np.add(out[0], out[1])  # out.sum(axis=0): the rows added in order, as the reduction adds them
        total += out[2]
        out /= total
        self._keep(key, out, shared)
        return out

    def probs_many(self, states: list[State], hist: np.ndarray | None) -> list[np.ndarray]:
        """``probs(state, hist)`` for each of ``states``, the same numbers: those not known yet worked out together,
        one numpy pass over all of them for each step (a search asks a dozen spots of the rivers at once, and
        every bet of ours meets the same range)."""
        out: list[np.ndarray | None] = [None] * len(states)
        pending: dict[tuple, list[int]] = {}
        facing: list[tuple] = []  # facing a bet, folds and raises both possible: the two sigmoids of _threshold_rows
        free: list[tuple] = []  # raises possible, no fold: the raise's sigmoid alone
        for i, state in enumerate(states):
            key, hit, todo = self._prepare(state, hist)
            if hit is not None:
                out[i] = hit
                continue
            if key in pending:
                pending[key].append(i)
                continue
            pending[key] = [i]
            triple = todo[1]
            if triple[2] > 0 and todo[2] and triple[0] > 0:
                facing.append((key, todo))
            elif triple[2] > 0 and not (todo[2] and triple[0] > 0):
                free.append((key, todo))
            else:  # no raise: as probs works it out
                made = self.probs(state, hist)
                for j in pending[key]:
                    out[j] = made
        for group, both in ((facing, True), (free, False)):
            if group:
                for (key, todo), made in zip(group, _rows_together([todo for _, todo in group], both)):
                    self._keep(key, made, todo[6])
                    for j in pending[key]:
                        out[j] = made
        return out  # type: ignore[return-value]  # every entry filled above

    def _prepare(self, state: State, hist: np.ndarray | None) -> tuple[tuple, np.ndarray | None, tuple]:
        """The cache key of the chances where it acts in ``state``, and those chances when kept; else what they
        are made of: (reference, triple, facing a bet, the thresholds, kappa, the plain frequencies, the key
        they are kept by across decisions or None)."""
        opp = self.opp
        spot, to_call, ratio = spot_and_bet(state, opp)
        # the bet over the pot counts only beyond TYPICAL_OVERBET (overbet_triple): the bets under it share an entry
        base = (spot, to_call > 0, state.round, ratio if ratio > TYPICAL_OVERBET else None)
        key = base if hist is None else base + (hist.tobytes(),)
        hit = self._cache.get(key)
        if hit is not None:
            return key, hit, ()
        spot_facts = self._spots.get(base)
        if spot_facts is None:  # what does not depend on the range: kept for the whole decision
            if self._overbets is None:
                self._overbets = self.stats.actions.overbets_seen()
            triple = overbet_triple(self.stats.predict(spot), ratio, self._overbets)
            # the three classes' kappa: the classes depend on the spot only through these three facts
            facts = (to_call > 0, state.round == 0, spot.bucket >= BIG_CALL_BUCKET)
            kept = self._kappas.get(facts)
            if kept is None:
                info = self.stats.info
                made = np.array([[info.kappa(info_class(kind, to_call, state.round, spot.bucket))]
                                 for kind in (_F, _C, _R)])
                kept = self._kappas[facts] = (made, 1.0 - made)
            kappa, rest = kept
            # the fold's and the raise's thresholds, as threshold_likelihoods takes them from the triple
            edges = np.array([[float(triple[0])], [1.0 - float(triple[2])]])
            spot_facts = self._spots[base] = (triple, kappa, rest * triple[:, None], edges)
        triple, kappa, plain, edges = spot_facts
        shared = None
        if hist is None:
            where = (state.round, spot.kind, 0)
            reference = self._usual.get(where)
            if reference is None:  # the spot's usual range: the same for the whole decision
                reference = self._usual[where] = self.stats.reference.blend(where, UNIFORM)
            # a pure function of these numbers: asked again by every later decision whose model gives the same
            shared = (to_call > 0, triple.tobytes(), kappa.tobytes(), reference.tobytes())
            hit = _SHARED.get(shared)
            if hit is not None:
                self._cache[key] = hit
                return key, hit, ()
        else:
            reference = self.stats.reference.blend((state.round, spot.kind, 0), hist)
        return key, None, (reference, triple, to_call > 0, edges, kappa, plain, shared)

    def _keep(self, key: tuple, out: np.ndarray, shared: tuple | None) -> None:
        """Keep chances made for the decision, and across decisions when ``shared`` keys them."""
        self._cache[key] = out
        if shared is not None:
            if len(_SHARED) >= SHARED_KEPT:
                del _SHARED[next(iter(_SHARED))]
            _SHARED[shared] = out

    def raise_key(self, street: int) -> tuple:
        """Everything :meth:`raise_to` reads besides the state in a betting round of ``street``: the seat, the game's
        betting and the typical raise of each kind of spot (equal keys: equal raises at every state of the round)."""
        key = self._raise_keys.get(street)
        if key is None:
            key = self._raise_keys[street] = (self.opp, self.game.is_limit,
                                              tuple(self.stats.raise_size(kind, street) for kind in KINDS))
        return key

    def raise_to(self, state: State) -> Action:
        """Its typical raise where it acts in ``state``."""
        if self.game.is_limit:
            return RAISE
        lo, hi = state.raise_bounds()  # type: ignore[misc]  # asked only where a raise is possible
        spot = spot_of(state, self.opp)
        target = min(max(state.raise_to_fraction(self.stats.raise_size(spot.kind, spot.street), self.opp), lo), hi)
        after = state.pot_after_raise_called(target, self.opp)
        # nobody raises to leave a sliver behind
        return raise_to(hi if hi - target < SHORT_BEHIND * after else target)


#: chances on the rivers of runouts kept across decisions, keyed by every number they are made of (facing a bet, the
#: (fold, call, raise) triple, kappa, the reference distribution): the oldest dropped first past SHARED_KEPT
SHARED_KEPT = 4096
_SHARED: dict[tuple, np.ndarray] = {}

#: the bet over the pot its largest size bucket stands for (over three pots: typically four)
TYPICAL_OVERBET = 4.0
#: answers counted to bets over three pots (any street) that weigh as much as the overbet scaling (a prior)
OVERBET_EVIDENCE = 4.0


def overbet_triple(triple: np.ndarray, ratio: float, seen: float = 0.0) -> np.ndarray:
    """(fold, call, raise) facing a bet of ``ratio`` times the pot: beyond TYPICAL_OVERBET it continues a little less.

    The statistics bucket every bet from three pots up together, a 4-pot bet
    with a 100-pot shove.  The continuing share is scaled by the square root
    of the pot odds' ratio, ((1 + TYPICAL_OVERBET) / (1 + ratio)) ** 0.5: a
    half-way between "defends by the pot odds" (the minimum defence
    frequency, which sticky players do not follow) and "does not care".
    That is a prior: with ``seen`` answers counted to such bets (on any
    street, ``ActionStats.overbets_seen``) the scaling keeps
    OVERBET_EVIDENCE / (OVERBET_EVIDENCE + seen) of its effect, so a player
    seen calling shoves is expected to call them (the card-blind probes
    never fold; a scaling that never yielded kept adaptive bluffing all-in
    into them).
    """
    if not ratio > TYPICAL_OVERBET:
        return triple
    scale = ((1.0 + TYPICAL_OVERBET) / (1.0 + ratio)) ** 0.5
    scale = 1.0 - (1.0 - scale) * OVERBET_EVIDENCE / (OVERBET_EVIDENCE + seen)
    call, rais = triple[1] * scale, triple[2] * scale
    return np.array([1.0 - call - rais, call, rais])


_accumulate = np.add.accumulate


def _threshold_rows(u: np.ndarray, triple: np.ndarray, facing: bool, edges: np.ndarray) -> np.ndarray:
    """:func:`adaptive.ranges.threshold_likelihoods` at the bins' percentiles ``u``, the same operations on every
    element: facing a bet with folds and raises both possible, the two sigmoids are taken in one pass over a
    (2, bins) array, ``u`` less ``edges`` (the fold's threshold, the raise's: (2, 1)); the model is asked
    thousands of times a match, and a pass costs its call more than its work."""
    if not (facing and triple[0] > 0 and triple[2] > 0):
        return threshold_likelihoods(u, triple, facing)
    x = np.empty((2, len(u)))
    np.subtract(u, edges, out=x)
    x /= SOFTNESS
    x *= 0.5  # the sigmoid, as ranges._sigmoid_into takes it: 0.5 * (1 + tanh(x / 2))
    np.tanh(x, out=x)
    x += 1.0
    out = np.empty((3, len(u)))
    np.multiply(x, 0.5, out=out[0::2])  # the fold's sigmoid in row 0, the raise's chance in row 2
    np.subtract(1.0, out[0], out=out[0])
    np.subtract(1.0, out[0], out=out[1])  # 1 - fold - raise, in that order, floored at 0
    out[1] -= out[2]
    np.maximum(out[1], 0.0, out=out[1])
    return out


def _rows_together(todo: list[tuple], facing: bool) -> list[np.ndarray]:
    """:meth:`ModelPolicy.probs`'s chances for each of ``todo`` (what each is made of, ``_prepare``), worked out
    together with the same operations on every element: ``facing`` a bet with folds and raises both possible
    (both sigmoids, as _threshold_rows), else raises possible and no fold (the raise's sigmoid alone, as
    threshold_likelihoods)."""
    reference = np.array([t[0] for t in todo])  # (k, bins)
    u = _accumulate(reference, axis=1)  # each row's own running sums, as np.cumsum of the row
    u -= reference
    u += 0.5 * reference
    k, bins = u.shape
    out = np.empty((k, 3, bins))
    if facing:
        x = np.subtract(u[:, None, :], np.array([t[3] for t in todo]))  # (k, 2, bins): less the fold's, the raise's
    else:
        x = np.subtract(u, np.array([t[3][1, 0] for t in todo])[:, None])  # (k, bins): less the raise's threshold
    x /= SOFTNESS
    x *= 0.5
    np.tanh(x, out=x)
    x += 1.0
    if facing:
        np.multiply(x, 0.5, out=out[:, 0::2])
        np.subtract(1.0, out[:, 0], out=out[:, 0])
        np.subtract(1.0, out[:, 0], out=out[:, 1])
        out[:, 1] -= out[:, 2]
    else:
        np.multiply(x, 0.5, out=out[:, 2])
        out[:, 0] = 0.0
        np.subtract(1.0, out[:, 2], out=out[:, 1])
    np.maximum(out[:, 1], 0.0, out=out[:, 1])
    out *= np.array([t[4] for t in todo])  # kappa, (k, 3, 1)
    out += np.array([t[5] for t in todo])  # the plain frequencies
    total = np.add(out[:, 0], out[:, 1])
    total += out[:, 2]
    out /= total[:, None]
    return list(out)


#: every strength bin, in order: where the percentiles of a reference distribution are read
BIN_IDS = np.arange(NUM_BINS)
UNIFORM = np.full(NUM_BINS, 1.0 / NUM_BINS)
