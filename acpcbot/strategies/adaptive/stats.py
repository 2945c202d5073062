"""Opponent statistics: how often a player folds, calls and raises in each kind of spot, learnt from its actions.

A *spot* is what a player faces when it acts (:func:`spot_of`): the street,
the kind of decision and, in no-limit games, the size of the bet it faces:

- ``open``: nothing to call, first to act in the round (check or bet);
- ``stab``: nothing to call after someone checked this round;
- ``blind``: before the flop facing only the blinds (fold, limp or raise);
- ``bet``: facing the first bet or raise of the round;
- ``raise``: facing a re-raise (two or more raises in the round).

No-limit bets are bucketed by their size against the pot before the bet
(``SIZE_BUCKETS``: up to 0.4 pot, 0.8, 1.5, 3, more: overbets and shoves apart, since players defend
against them differently).

:class:`ActionStats` keeps (fold, call, raise) counts per spot at four
levels: family (``free``: nothing to call; ``facing``: a blind, bet or
raise to call) > kind > kind and street > kind, street and size.  It
predicts with each level shrunk toward the one above (a Dirichlet mean
whose prior is the parent's estimate); a kind's prior is its family's
estimate shifted by how the generic opponent's kind differs from its
family (``PRIOR_TRIPLES``, ``FAMILY_PRIORS``), so a player seen folding
to bets is expected to fold to re-raises too.  So the first hands against
anyone are sane, and a spot never seen borrows what the same opponent did
in similar spots.

:class:`Informativeness` learns how much a player's actions say about its
cards: from the showdowns, a posterior over a mixing weight kappa between
"acts by thresholds on hand strength" (kappa 1) and "acts regardless of its
cards" (kappa 0), on a grid.  :class:`OpponentStats` puts both together
with the player's typical raise size, and serialises to JSON.
"""

from __future__ import annotations

import bisect
import math
from typing import Any, NamedTuple

import numpy as np

from ...engine import ActionType, State

KINDS = ("open", "stab", "blind", "bet", "raise")
#: no-limit bet size buckets: upper bounds of the bet (to call) over the pot before it
SIZE_BUCKETS = (0.4, 0.8, 1.5, 3.0)
NUM_BUCKETS = len(SIZE_BUCKETS) + 1

#: a generic opponent's (fold, call, raise) per kind: what the first hands assume
PRIOR_TRIPLES: dict[str, tuple[float, float, float]] = {
    "open": (0.0, 0.65, 0.35),
    "stab": (0.0, 0.55, 0.45),
    "blind": (0.2, 0.35, 0.45),
    "bet": (0.4, 0.45, 0.15),
    "raise": (0.45, 0.4, 0.15),
}
#: the families of kinds and their generic (fold, call, raise)
FAMILY = {"open": "free", "stab": "free", "blind": "facing", "bet": "facing", "raise": "facing"}
FAMILY_PRIORS: dict[str, tuple[float, float, float]] = {
    "free": (0.0, 0.6, 0.4),
    "facing": (0.35, 0.42, 0.23),
}
#: pseudo-counts of each level's prior: family, kind, street, size bucket
PRIOR_WEIGHTS = (6.0, 6.0, 4.0, 4.0)
#: a raise's size as a fraction of the pot after calling: prior mean and weight
PRIOR_RAISE_FRACTION = (1.0, 3.0)

_F, _C, _R = ActionType.FOLD, ActionType.CALL, ActionType.RAISE


class SavedStatsError(ValueError):
    """Serialised statistics that do not have the expected shape."""


def saved_sums(data: Any, what: str) -> tuple[float, float, float]:
    """[count, total, squares] as saved (our results here, the portfolio's records): three numbers, finite, the count
    and the squares not negative; SavedStatsError naming ``what`` otherwise."""
    if not (isinstance(data, list) and len(data) == 3 and
            all(isinstance(x, (int, float)) and not isinstance(x, bool) for x in data)):
        raise SavedStatsError(f"{what}: expected [count, total, squares], got {data!r:.80}")
    count, total, squares = (float(x) for x in data)
    if not all(map(math.isfinite, (count, total, squares))) or count < 0 or squares < 0:
        raise SavedStatsError(f"{what}: sums must be finite, the count and squares not negative, got {data!r:.80}")
    return count, total, squares


class Spot(NamedTuple):
    """What a player faces when it acts: street (0-based round), kind (``KINDS``) and bet size bucket."""

    street: int
    kind: str
    bucket: int = 0


def size_bucket(ratio: float) -> int:
    """Bucket of a bet that is ``ratio`` times the pot before it (``State.bet_to_pot``)."""
    for i, top in enumerate(SIZE_BUCKETS):
        if ratio <= top:
            return i
    return len(SIZE_BUCKETS)


def spot_of(state: State, player: int | None = None) -> Spot:
    """The spot of ``player`` (default: the one to act) in ``state``."""
    p = state.current_player if player is None else player
    r = state.round
    to_call = state.to_call(p)
    if to_call <= 0:
        return _spot(r, "stab" if state.actions[r] else "open", 0)
    raises = state.num_raises
    if raises == 0:
        return _spot(r, "blind", 0)
    bucket = 0 if state.game.is_limit else size_bucket(state.bet_to_pot(p))
    return _spot(r, "bet" if raises == 1 else "raise", bucket)


def spot_and_bet(state: State, player: int) -> tuple[Spot, int, float]:
    """``player``'s spot in ``state``, the chips it must call and the bet it faces over the pot (``State.bet_to_pot``):
    what the search's questions about a spot read, each worked out once."""
    r = state.round
    to_call = state.to_call(player)
    ratio = state.bet_to_pot(player)
    if to_call <= 0:
        return _spot(r, "stab" if state.actions[r] else "open", 0), to_call, ratio
    raises = state.num_raises
    if raises == 0:
        return _spot(r, "blind", 0), to_call, ratio
    bucket = 0 if state.game.is_limit else size_bucket(ratio)
    return _spot(r, "bet" if raises == 1 else "raise", bucket), to_call, ratio


#: every spot made so far, by its fields: a spot is asked for at every node of a search, and a lookup costs less
#: than making the named tuple
_SPOTS: dict[tuple[int, str, int], Spot] = {}


def _spot(street: int, kind: str, bucket: int) -> Spot:
    key = (street, kind, bucket)
    spot = _SPOTS.get(key)
    if spot is None:
        spot = _SPOTS[key] = Spot(street, kind, bucket)
    return spot


class ActionStats:
    """(fold, call, raise) counts per spot, predicted with hierarchical shrinkage toward a generic opponent."""

    def __init__(self) -> None:
        self.counts: dict[tuple, np.ndarray] = {}
        #: predictions made since the last count (a search asks the same spots many times)
        self._predicted: dict[Spot, np.ndarray] = {}

    def add(self, spot: Spot, action: ActionType, weight: float = 1.0) -> None:
        """Count one action taken in ``spot``."""
        self._predicted.clear()
        for key in self._keys(spot):
            row = self.counts.get(key)
            if row is None:
                row = self.counts[key] = np.zeros(3)
            row[int(action)] += weight

    @staticmethod
    def _keys(spot: Spot) -> tuple[tuple, tuple, tuple, tuple]:
        return ((FAMILY[spot.kind],), (spot.kind,), (spot.kind, spot.street),
                (spot.kind, spot.street, spot.bucket))

    def copy(self) -> "ActionStats":
        """An independent copy (counts copied, predictions kept)."""
        out = ActionStats()
        out.counts = {k: v.copy() for k, v in self.counts.items()}
        out._predicted = dict(self._predicted)  # never handed out uncopied, so safe to share
        return out

    def overbets_seen(self) -> float:
        """Answers counted to bets over three pots (the largest size bucket), on every street."""
        top = NUM_BUCKETS - 1
        return float(sum(row.sum() for key, row in self.counts.items() if len(key) == 3 and key[2] == top))

    def seen(self, spot: Spot, level: int = 3) -> float:
        """Actions counted at ``spot`` (level 0: its family, 1: kind, 2: kind and street, 3: exactly this spot)."""
        row = self.counts.get(self._keys(spot)[level])
        return 0.0 if row is None else float(row.sum())

    def predict(self, spot: Spot) -> np.ndarray:
        """Estimated (fold, call, raise) probabilities in ``spot`` (a fresh array summing to 1)."""
        hit = self._predicted.get(spot)
        if hit is None:
            hit = self._predicted[spot] = self._predict(spot)
        return hit.copy()

    def _predict(self, spot: Spot) -> np.ndarray:
        # on three Python floats: the very operations numpy would do element by element, without its overhead
        family = FAMILY[spot.kind]
        prior = FAMILY_PRIORS[family]
        mean = list(prior)
        for level, (key, weight) in enumerate(zip(self._keys(spot), PRIOR_WEIGHTS)):
            if level == 1:
                # the kind's prior: the family's estimate, shifted as the generic kind differs from its family
                shifted = [max(m + (k - f), 0.01) for m, k, f in zip(mean, PRIOR_TRIPLES[spot.kind], prior)]
                if family == "free":
                    shifted[0] = 0.0  # nobody folds when checking is free
                total = shifted[0] + shifted[1] + shifted[2]
                mean = [x / total for x in shifted]
            row = self.counts.get(key)
            if row is not None:
                a, b, c = row.tolist()
                total = a + b + c + weight
                mean = [(a + weight * mean[0]) / total, (b + weight * mean[1]) / total, (c + weight * mean[2]) / total]
        return np.array(mean)

    def to_json(self) -> list[list[Any]]:
        """The counts as ``[[key parts...], [fold, call, raise]]`` pairs."""
        return [[list(k), [round(float(x), 6) for x in v]] for k, v in sorted(self.counts.items(), key=str)]

    @classmethod
    def from_json(cls, data: Any) -> "ActionStats":
        """Statistics from ``to_json`` output; SavedStatsError when malformed."""
        out = cls()
        if not isinstance(data, list):
            raise SavedStatsError("action counts must be a list")
        for item in data:
            try:
                key, row = item
                key = tuple(key)
                if not 1 <= len(key) <= 3 or key[0] not in KINDS + tuple(FAMILY_PRIORS) or \
                        not all(isinstance(x, int) and x >= 0 for x in key[1:]):
                    raise ValueError(f"bad spot key {key!r}")
                arr = np.array(row, dtype=np.float64)
                if arr.shape != (3,) or not np.isfinite(arr).all() or (arr < 0).any():
                    raise ValueError(f"bad counts {row!r}")
            except (TypeError, ValueError) as exc:
                raise SavedStatsError(f"action counts: {exc}") from None
            out.counts[key] = arr
        return out


#: the mixing weights kappa the informativeness posterior is kept on
KAPPA_GRID = np.linspace(0.0, 0.96, 25)
#: prior over the grid: Beta(4, 1.2)-shaped, mean about 0.78 (most players' actions do follow their cards;
#: card-blind players show down often, so their kappa is learnt quickly)
_KAPPA_LOG_PRIOR = 3.0 * np.log(np.maximum(KAPPA_GRID, 1e-3)) + 0.2 * np.log(1.0 - KAPPA_GRID)
#: calls of bets of 1.5 pots and more: Beta(12, 1.3)-shaped, mean about 0.90 (paying off a big bet is what
#: players do least at random; a model that thought otherwise would value-bet thin hands into them)
_BIG_CALL_LOG_PRIOR = 12.0 * np.log(np.maximum(KAPPA_GRID, 1e-3)) + 0.3 * np.log(1.0 - KAPPA_GRID)
#: classes of actions whose informativeness is learnt apart: (what, before or after the flop)
INFO_CLASSES = ("agg0", "agg1", "call0", "call1", "check0", "check1", "bigcall0", "bigcall1", "size0", "size1")
#: the first bet-size bucket whose calls are "big calls"
BIG_CALL_BUCKET = 3


def info_class(action: ActionType, to_call: float, street: int, bucket: int = 0) -> str:
    """Informativeness class of an action: aggressive, call (a big call: ``bucket`` >= BIG_CALL_BUCKET) or check,
    preflop (0) or later (1)."""
    if action == _R:
        kind = "agg"
    elif to_call > 0:
        kind = "bigcall" if bucket >= BIG_CALL_BUCKET else "call"
    else:
        kind = "check"
    return f"{kind}{0 if street == 0 else 1}"


def size_info_class(street: int) -> str:
    """Informativeness class of a raise's size (does a bigger raise mean a stronger hand?), preflop or later."""
    return f"size{0 if street == 0 else 1}"


#: edges of a no-limit raise's size class: the raise over a call, in pots after calling (State.raise_fraction)
RAISE_SIZE_EDGES = (0.5, 1.0, 2.0, 4.0, 8.0, 16.0, 32.0)
#: pseudo-count of every size class before the player's raises are seen
RAISE_SIZE_PRIOR = 0.25


def raise_size_class(fraction: float) -> int:
    """The size class of a raise of ``fraction`` pots (after calling): 0 the smallest."""
    return bisect.bisect_left(RAISE_SIZE_EDGES, fraction)


class Informativeness:
    """Posterior over kappa per action class: how much the player's actions follow its hand strength.

    Each shown-down action adds ``log(kappa * ratio + 1 - kappa)`` to every
    grid point, ``ratio`` being the threshold model's likelihood of the
    shown hand for that action over its average likelihood: above 1 when the
    shown hand fits the action, below when it contradicts it.
    """

    def __init__(self) -> None:
        self.loglik: dict[str, np.ndarray] = {c: np.zeros(len(KAPPA_GRID)) for c in INFO_CLASSES}
        self.events: dict[str, int] = {c: 0 for c in INFO_CLASSES}
        self._cache: dict[str, float] = {}

    def add(self, cls: str, ratio: float) -> None:
        """Account for one shown-down action of class ``cls`` whose likelihood ratio was ``ratio``."""
        ratio = min(max(float(ratio), 0.0), 50.0)
        self.loglik[cls] += np.log(KAPPA_GRID * ratio + (1.0 - KAPPA_GRID) + 1e-12)
        self.events[cls] += 1
        self._cache.pop(cls, None)

    def copy(self) -> "Informativeness":
        """An independent copy."""
        out = Informativeness()
        out.loglik = {c: v.copy() for c, v in self.loglik.items()}
        out.events = dict(self.events)
        out._cache = dict(self._cache)
        return out

    def kappa(self, cls: str) -> float:
        """Posterior mean of kappa for a class."""
        k = self._cache.get(cls)
        if k is None:
            logp = (_BIG_CALL_LOG_PRIOR if cls.startswith("bigcall") else _KAPPA_LOG_PRIOR) + self.loglik[cls]
            p = np.exp(logp - logp.max())
            k = self._cache[cls] = float((p * KAPPA_GRID).sum() / p.sum())
        return k

    def to_json(self) -> dict[str, Any]:
        """Log-likelihoods and event counts per class."""
        return {c: {"n": self.events[c], "ll": [round(float(x), 6) for x in self.loglik[c]]} for c in INFO_CLASSES}

    @classmethod
    def from_json(cls, data: Any) -> "Informativeness":
        """The posterior from ``to_json`` output; SavedStatsError when malformed."""
        out = cls()
        if not isinstance(data, dict):
            raise SavedStatsError("informativeness must be an object")
        for c, entry in data.items():
            if c not in INFO_CLASSES:
                raise SavedStatsError(f"informativeness: unknown class {c!r}")
            try:
                ll = np.array(entry["ll"], dtype=np.float64)
                n = entry["n"]
                if ll.shape != KAPPA_GRID.shape or not np.isfinite(ll).all() or not isinstance(n, int) or n < 0:
                    raise ValueError("bad shape or values")
            except (KeyError, TypeError, ValueError) as exc:
                raise SavedStatsError(f"informativeness {c}: {exc}") from None
            out.loglik[c] = ll
            out.events[c] = n
        return out


#: bins of the strength histograms (``strategies.adaptive.runouts.SCORE_BINS``)
REFERENCE_BINS = 64
#: weight, in observations, of the current range when it is blended with a spot's reference
REFERENCE_PRIOR = 3.0


class StrengthReference:
    """The strength the player's range usually had in each spot: its thresholds are read against it.

    A player folding 40% in a spot folds its weakest 40% of the hands it
    usually holds there, not of whatever it holds now: a stronger range
    than usual folds less.  Per (street, kind, space) it averages the
    player's range histograms over strength bins when it acted there;
    space 0 is that street's strength scores, space 1 the previous
    street's (what a look-ahead from the previous street can compute).
    """

    def __init__(self) -> None:
        self.sums: dict[tuple[int, str, int], np.ndarray] = {}
        self.counts: dict[tuple[int, str, int], float] = {}

    def add(self, key: tuple[int, str, int], hist: np.ndarray) -> None:
        """Add one range histogram (summing to 1) seen at ``key``."""
        acc = self.sums.get(key)
        if acc is None:
            self.sums[key] = np.array(hist, dtype=np.float64)
            self.counts[key] = 1.0
        else:
            acc += hist
            self.counts[key] += 1.0

    def copy(self) -> "StrengthReference":
        """An independent copy."""
        out = StrengthReference()
        out.sums = {k: v.copy() for k, v in self.sums.items()}
        out.counts = dict(self.counts)
        return out

    def blend(self, key: tuple[int, str, int], current: np.ndarray) -> np.ndarray:
        """The reference distribution at ``key``, with the ``current`` histogram counting REFERENCE_PRIOR times."""
        acc = self.sums.get(key)
        if acc is None:
            return current
        return (acc + REFERENCE_PRIOR * current) / (self.counts[key] + REFERENCE_PRIOR)

    def to_json(self) -> list[list[Any]]:
        """``[[street, kind, space], count, [bin sums...]]`` items."""
        return [[list(k), self.counts[k], [round(float(x), 6) for x in v]] for k, v in sorted(self.sums.items())]

    @classmethod
    def from_json(cls, data: Any) -> "StrengthReference":
        """References from ``to_json`` output; SavedStatsError when malformed."""
        out = cls()
        if not isinstance(data, list):
            raise SavedStatsError("strength references must be a list")
        for item in data:
            try:
                (street, kind, space), count, sums = item
                arr = np.array(sums, dtype=np.float64)
                count = float(count)
                if kind not in KINDS or space not in (0, 1) or not isinstance(street, int) or street < 0 or \
                        arr.shape != (REFERENCE_BINS,) or not np.isfinite(arr).all() or (arr < 0).any() or count <= 0:
                    raise ValueError(f"bad reference {item!r:.80}")
            except (TypeError, ValueError) as exc:
                raise SavedStatsError(f"strength references: {exc}") from None
            out.sums[(street, kind, space)] = arr
            out.counts[(street, kind, space)] = count
        return out


class OpponentStats:
    """Everything learnt about one opponent: action frequencies, raise sizes, informativeness, our results."""

    def __init__(self) -> None:
        self.actions = ActionStats()
        self.info = Informativeness()
        #: sums and counts of no-limit raise fractions by (kind, preflop 0 / later 1)
        self.raise_sums: dict[tuple[str, int], list[float]] = {}
        #: no-limit raises per size class (RAISE_SIZE_EDGES) by (kind, preflop 0 / later 1)
        self.raise_classes: dict[tuple[str, int], np.ndarray] = {}
        self.hands = 0
        self.reference = StrengthReference()
        #: our results against this player, in big blinds per hand: count, sum, sum of squares
        self.results = [0.0, 0.0, 0.0]

    def copy(self) -> "OpponentStats":
        """An independent copy: what a question asked of a state that may never happen counts on, then drops."""
        out = OpponentStats()
        out.actions = self.actions.copy()
        out.info = self.info.copy()
        out.raise_sums = {k: list(v) for k, v in self.raise_sums.items()}
        out.raise_classes = {k: v.copy() for k, v in self.raise_classes.items()}
        out.hands = self.hands
        out.reference = self.reference.copy()
        out.results = list(self.results)
        return out

    def add_result(self, bb: float) -> None:
        """Count one hand's result of ours against this player (big blinds)."""
        self.results[0] += 1
        self.results[1] += bb
        self.results[2] += bb * bb

    def result_moments(self, prior_sd: float, prior_hands: float = 20.0) -> tuple[float, float]:
        """Our mean and variance per hand against this player (big blinds), shrunk toward 0 and ``prior_sd``."""
        n, total, squares = self.results
        mean = total / (n + 2 * prior_hands)
        var = (squares + prior_hands * prior_sd * prior_sd) / (n + prior_hands)
        return mean, var

    def observe(self, state: State, action: Any) -> Spot:
        """Count ``action`` of the player to act in ``state`` (before it is applied); returns its spot."""
        spot = spot_of(state)
        kind = ActionType(action[0])
        self.actions.add(spot, kind)
        if kind == _R and state.game.is_nolimit:
            frac = min(max(state.raise_fraction(action[1]), 0.0), 20.0)
            acc = self.raise_sums.setdefault((spot.kind, min(spot.street, 1)), [0.0, 0.0])
            acc[0] += frac
            acc[1] += 1
            counts = self.raise_classes.setdefault((spot.kind, min(spot.street, 1)),
                                                   np.zeros(len(RAISE_SIZE_EDGES) + 1))
            counts[raise_size_class(state.raise_fraction(action[1]))] += 1
        return spot

    def size_band(self, kind: str, street: int, size_class: int) -> tuple[float, float]:
        """Where raises of ``size_class`` lie among the player's raises in a kind of spot, smaller sizes first:
        the shares of its raises below the class and through it."""
        counts = self.raise_classes.get((kind, min(street, 1)))
        shares = RAISE_SIZE_PRIOR + (np.zeros(len(RAISE_SIZE_EDGES) + 1) if counts is None else counts)
        through = np.cumsum(shares) / shares.sum()
        return (float(through[size_class - 1]) if size_class > 0 else 0.0), float(through[size_class])

    def predict(self, spot: Spot) -> np.ndarray:
        """Estimated (fold, call, raise) in ``spot``."""
        return self.actions.predict(spot)

    def raise_size(self, kind: str, street: int) -> float:
        """Typical no-limit raise of the player in a kind of spot, as a fraction of the pot after calling."""
        mean, weight = PRIOR_RAISE_FRACTION
        acc = self.raise_sums.get((kind, min(street, 1)))
        if acc is None:
            return mean
        return (acc[0] + weight * mean) / (acc[1] + weight)

    def to_json(self) -> dict[str, Any]:
        """JSON-ready data."""
        return {"hands": self.hands, "actions": self.actions.to_json(), "info": self.info.to_json(),
                "raises": [[k, s, v[0], v[1]] for (k, s), v in sorted(self.raise_sums.items())],
                "sizes": [[k, s, [float(x) for x in v]] for (k, s), v in sorted(self.raise_classes.items())],
                "results": list(self.results), "reference": self.reference.to_json()}

    @classmethod
    def from_json(cls, data: Any) -> "OpponentStats":
        """Statistics from ``to_json`` output; SavedStatsError when malformed."""
        if not isinstance(data, dict):
            raise SavedStatsError("opponent statistics must be an object")
        out = cls()
        try:
            out.hands = data["hands"]
            if not isinstance(out.hands, int) or out.hands < 0:
                raise SavedStatsError(f"hands must be a count, got {out.hands!r}")
            out.actions = ActionStats.from_json(data["actions"])
            out.info = Informativeness.from_json(data["info"])
            for kind, street, total, n in data["raises"]:
                if kind not in KINDS or street not in (0, 1) or not (n >= 0 and math.isfinite(total)):
                    raise SavedStatsError(f"bad raise sizes entry {[kind, street, total, n]!r}")
                out.raise_sums[(kind, street)] = [float(total), float(n)]
            for kind, street, counts in data["sizes"]:
                arr = np.array(counts, dtype=np.float64)
                if kind not in KINDS or street not in (0, 1) or arr.shape != (len(RAISE_SIZE_EDGES) + 1,) or \
                        not np.isfinite(arr).all() or (arr < 0).any():
                    raise SavedStatsError(f"bad raise size classes entry {[kind, street, counts]!r:.80}")
                out.raise_classes[(kind, street)] = arr
            out.results = list(saved_sums(data.get("results", [0, 0, 0]), "results"))
            out.reference = StrengthReference.from_json(data.get("reference", []))
        except KeyError as exc:
            raise SavedStatsError(f"opponent statistics: missing field {exc}") from None
        except (TypeError, ValueError) as exc:
            if isinstance(exc, SavedStatsError):
                raise
            raise SavedStatsError(f"opponent statistics: {exc}") from None
        return out
