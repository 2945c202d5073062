"""An explicitly defined abstract 2-player limit game: real betting rounds, chance over bucket histories.

The abstract game keeps the real game's betting (every round, legal action
and payoff comes from ``acpcbot.engine.State``) and replaces its cards by a
chance model over *private bucket histories*:

- before the first round chance deals each player a class ``c`` in
  ``0..C-1``; the pair (c0, c1) has probability ``J[c0, c1]`` (card removal
  included: hold'em's 169 classes, or Leduc's 6 cards);
- at the start of each later round ``r`` chance may deal a *public* outcome
  ``s`` (seen by both; hold'em's abstraction has none, Leduc's identity
  abstraction deals the board card), then each player's bucket
  ``b_r`` in ``0..K_r-1``, drawn independently for the two players from
  ``T_r[h, b]``, where ``h = (c, b_1..b_{r-1})`` is that player's history;
- a player observes the betting, the public outcomes and its own history:
  perfect recall, so an information set is (betting node, public path, own
  history) and everything is a vector over histories (the last round's
  strategies may be solved over (class, last bucket) alone without loss:
  ``strategy_width``);
- a fold pays what the engine says; a showdown pays the engine's pot share
  times ``E``, the expectation of win (+1) / tie (0) / loss (-1).

Chance weights sit in *kernels* per public path: ``fold_kernel[r][path]``
is the probability of (path, c0, c1); ``showdown_kernel[path]`` is that
probability times E over keys ``(c, b_last)``.  So player 0's expected
value at a fold is payoff * sum_{c1} F[c0, c1] * (opponent mass on c1), and
at a showdown pot * sum_{c1,b1} S[(c0,b0),(c1,b1)] * (opponent mass).  Both
are small matrix products, so CFR and exact best response are plain
vectorised passes over the public tree.

A round's betting is a *template* shared by all its instances (hold'em's
river has 567 instances of one 10-decision template); instance ``i`` of
round ``r`` continues at its ``l``-th round-end leaf and public outcome
``s`` into instance ``(i * L_r + l) * P_{r+1} + s`` of round ``r + 1``.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass, field

import numpy as np

from ..engine import CALL, FOLD, RAISE, ActionType, State
from ..evaluator import showdown_value
from ..gamedef import GameDef

DECISION_LEAF_BASE = -1  # child < 0 names leaf -1 - child
FOLD_LEAF, NEXT_LEAF, SHOWDOWN_LEAF = 0, 1, 2
ACTION_TYPES = (ActionType.FOLD, ActionType.CALL, ActionType.RAISE)
_ACTIONS = (FOLD, CALL, RAISE)


class AbstractGameError(ValueError):
    """A game or chance model the abstract solver cannot use, with what is wrong."""


@dataclass
class RoundTemplate:
    """The betting of one round, shared by all its instances; decision nodes in pre-order (parents first)."""

    actor: np.ndarray       # (D,) position to act
    legal: np.ndarray       # (D, 3) bool, columns fold call raise
    child: np.ndarray       # (D, 3) decision node >= 0, leaf -1-l < 0, 0 where illegal
    leaf_kind: np.ndarray   # (L,) FOLD_LEAF / NEXT_LEAF / SHOWDOWN_LEAF
    leaf_next: np.ndarray   # (L,) index among the round's NEXT leaves, -1 otherwise
    payoff: np.ndarray      # (N, L) player 0's payoff at folds; the pot share won at showdowns; 0 at NEXT
    starts: list[State]     # (N,) the betting state each instance starts from

    @property
    def num_decisions(self) -> int:
        """Decision nodes of the template."""
        return len(self.actor)

    @property
    def num_instances(self) -> int:
        """Instances of the round (betting prefixes times public paths)."""
        return len(self.starts)

    @property
    def num_next(self) -> int:
        """Round-end leaves leading to the next round."""
        return int((self.leaf_kind == NEXT_LEAF).sum())


def _walk_round(start: State) -> tuple[list[int], list[list[bool]], list[list[int]], list[tuple[int, State]]]:
    """The round's decision nodes and leaves from ``start`` in pre-order, through the engine."""
    actor: list[int] = []
    legal: list[list[bool]] = []
    child: list[list[int]] = []
    leaves: list[tuple[int, State]] = []  # (kind, state)

    def visit(state: State) -> int:
        d = len(actor)
        actor.append(state.current_player)
        allowed = state.legal_actions()
        legal.append([a in allowed for a in ACTION_TYPES])
        child.append([0, 0, 0])
        for col, kind in enumerate(ACTION_TYPES):
            if kind not in allowed:
                continue
            nxt = state.copy().apply(_ACTIONS[col])
            if not nxt.finished and nxt.round == state.round:
                child[d][col] = visit(nxt)
                continue
            if nxt.finished and not nxt.is_showdown:
                leaf_kind = FOLD_LEAF
            elif nxt.finished:
                if nxt.round != start.game.num_rounds - 1 or nxt.round != state.round:
                    raise AbstractGameError("a showdown before the last round (an all-in) is not supported")
                leaf_kind = SHOWDOWN_LEAF
            else:
                if nxt.round != state.round + 1:
                    raise AbstractGameError("a round skipped without betting is not supported")
                leaf_kind = NEXT_LEAF
            child[d][col] = -1 - len(leaves)
            leaves.append((leaf_kind, nxt))
        return d

    visit(start)
    return actor, legal, child, leaves


def _leaf_payoff(kind: int, state: State) -> float:
    if kind == FOLD_LEAF:
        return float(state.payoffs()[0])
    if kind == SHOWDOWN_LEAF:
        win = state.payoffs(values=[1, 0])[0]
        lose = state.payoffs(values=[0, 1])[0]
        if win != -lose:
            raise AbstractGameError("a showdown with unequal stakes is not supported")
        return float(win)
    return 0.0


_ROUNDS_CACHE: dict[tuple[str, tuple[int, ...]], list[RoundTemplate]] = {}


def betting_rounds(game: GameDef, public: tuple[int, ...]) -> list[RoundTemplate]:
    """Each round's betting template and instances, walked through the engine (cached per game and public).

    ``public[r]`` public outcomes are dealt at the start of round ``r``
    (``public[0]`` is 1).  Every instance of a round must have the same
    betting shape (true of limit games whose stacks never bind).
    """
    key = (game.to_text(), tuple(public))
    if key not in _ROUNDS_CACHE:
        _ROUNDS_CACHE[key] = _betting_rounds(game, tuple(public))
    return _ROUNDS_CACHE[key]


def _betting_rounds(game: GameDef, public: tuple[int, ...]) -> list[RoundTemplate]:
    if game.num_players != 2 or not game.is_limit:
        raise AbstractGameError(f"{game.name or 'this game'}: the abstract solver takes 2-player limit games only")
    starts = [State(game)]
    rounds: list[RoundTemplate] = []
    for r in range(game.num_rounds):
        shape: tuple[list[int], list[list[bool]], list[list[int]], list[int]] | None = None
        payoffs, next_states = [], []
        for start in starts:
            actor, legal, child, leaves = _walk_round(start)
            this = (actor, legal, child, [k for k, _ in leaves])
            if shape is None:
                shape = this
            elif this != shape:
                raise AbstractGameError(f"round {r + 1}: instances have different betting shapes (stacks bind?)")
            payoffs.append([_leaf_payoff(k, s) for k, s in leaves])
            nxt = [s for k, s in leaves if k == NEXT_LEAF]
            for s in nxt:
                next_states.extend([s] * (public[r + 1] if r + 1 < len(public) else 1))
        assert shape is not None  # every round but the last ends in calls that lead to the next
        actor, legal, child, kinds = shape
        kinds_a = np.array(kinds, dtype=np.int8)
        leaf_next = np.full(len(kinds), -1, dtype=np.int64)
        leaf_next[kinds_a == NEXT_LEAF] = np.arange(int((kinds_a == NEXT_LEAF).sum()))
        rounds.append(RoundTemplate(actor=np.array(actor, dtype=np.int64), legal=np.array(legal, dtype=bool),
                                    child=np.array(child, dtype=np.int64), leaf_kind=kinds_a, leaf_next=leaf_next,
                                    payoff=np.array(payoffs, dtype=np.float64), starts=starts))
        starts = next_states
    return rounds


@dataclass
class AbstractGame:
    """The chance model over bucket histories plus the real game's betting (see the module docstring)."""

    game: GameDef
    joint: np.ndarray                 # (C, C) probability of the class pair
    buckets: tuple[int, ...]          # K_r per round; buckets[0] is C
    transitions: list[np.ndarray]     # per round r >= 1: (H_{r-1}, K_r), rows summing to 1
    public: tuple[int, ...]           # public outcomes dealt at each round's start; public[0] == 1
    fold_kernel: list[np.ndarray]     # per round: (paths_r, C, C), probability of (path, c0, c1)
    showdown_kernel: np.ndarray | None  # (paths_last, C*K_last, C*K_last): probability times E for player 0
    #: or, instead of the kernel, E over last-round buckets alone (K_last, K_last): kernel = fold_kernel[-1] (x) E
    showdown_outcome: np.ndarray | None = None
    rounds: list[RoundTemplate] = field(default_factory=list)
    chain: list[np.ndarray] = field(default_factory=list)   # per round: (H_r,) own-chance probability of history
    path: list[np.ndarray] = field(default_factory=list)    # per round: (N_r,) public path of each instance

    def __post_init__(self) -> None:
        self.check()
        if not self.rounds:
            self.rounds = betting_rounds(self.game, self.public)
        self.chain = [np.ones(self.buckets[0])]
        for t in self.transitions:
            self.chain.append((self.chain[-1][:, None] * t).ravel())
        self.path = [np.zeros(1, dtype=np.int64)]
        for r in range(1, len(self.rounds)):
            prev, n_pub = self.path[-1], self.public[r]
            nxt = prev[:, None, None] * n_pub + np.arange(n_pub)[None, None, :]
            self.path.append(np.broadcast_to(nxt, (len(prev), self.rounds[r - 1].num_next, n_pub)).ravel())

    @property
    def num_classes(self) -> int:
        """C: the private states dealt before the first round."""
        return self.buckets[0]

    def histories(self, r: int) -> int:
        """H_r: a player's possible histories in round ``r``."""
        return math.prod(self.buckets[:r + 1])

    def last_bucket(self) -> int:
        """K of the last round (1 for a one-round game: buckets[0] counts classes)."""
        return self.buckets[-1] if len(self.buckets) > 1 else 1

    def strategy_width(self, r: int) -> int:
        """Keys a round's strategy is defined over: the histories H_r, except in the last round (c, b_last).

        A last-round value depends on the own history only through the class
        (card removal in the kernels) and the last bucket (the showdown), so
        histories sharing (c, b_last) have identical counterfactual values
        there: CFR keeps them identical, and their reach-weighted average is
        an equilibrium strategy with the same exploitability.  Solving the
        last round over (c, b_last) is therefore exact.
        """
        if r == len(self.rounds) - 1:
            return self.num_classes * self.last_bucket()
        return self.histories(r)

    def paths(self, r: int) -> int:
        """Public paths up to round ``r``."""
        return math.prod(self.public[:r + 1])

    def check(self) -> None:
        """AbstractGameError naming the first inconsistent array."""
        n_rounds = self.game.num_rounds
        c = self.buckets[0] if self.buckets else 0
        if len(self.buckets) != n_rounds or len(self.public) != n_rounds or self.public[0] != 1:
            raise AbstractGameError(f"buckets and public need one entry per round ({n_rounds}); public[0] must be 1")
        if self.joint.shape != (c, c) or (self.joint < 0).any() or abs(self.joint.sum() - 1) > 1e-9:
            raise AbstractGameError(f"joint must be a ({c}, {c}) probability table")
        if len(self.transitions) != n_rounds - 1:
            raise AbstractGameError(f"transitions: expected {n_rounds - 1} tables")
        for r, t in enumerate(self.transitions, 1):
            want = (math.prod(self.buckets[:r]), self.buckets[r])
            if t.shape != want or (t < 0).any() or np.abs(t.sum(1) - 1).max() > 1e-6:
                raise AbstractGameError(f"transitions[{r - 1}] (round {r + 1}): expected rows of a {want} "
                                        f"probability table, got shape {t.shape}")
        for r, f in enumerate(self.fold_kernel):
            if f.shape != (math.prod(self.public[:r + 1]), c, c) or abs(f.sum() - 1) > 1e-9:
                raise AbstractGameError(f"fold_kernel[{r}]: expected ({math.prod(self.public[:r + 1])}, {c}, {c}) "
                                        f"summing to 1, got {f.shape} summing to {f.sum():.6g}")
        kb = self.last_bucket()
        keys = c * kb
        if (self.showdown_kernel is None) == (self.showdown_outcome is None):
            raise AbstractGameError("give exactly one of showdown_kernel and showdown_outcome")
        if self.showdown_outcome is not None:
            e = self.showdown_outcome
            if e.shape != (kb, kb) or np.abs(e + e.T).max() > 1e-12 or np.abs(e).max() > 1:
                raise AbstractGameError(f"showdown_outcome: expected an antisymmetric ({kb}, {kb}) table in -1..1")
        elif self.showdown_kernel is not None and self.showdown_kernel.shape != (math.prod(self.public), keys, keys):
            raise AbstractGameError(f"showdown_kernel: expected shape ({math.prod(self.public)}, {keys}, {keys})")


def identity_abstraction(game: GameDef) -> tuple[AbstractGame, list[tuple[int, ...]]]:
    """The lossless abstract game of a 2-player limit game with one hole card and one board card per later round.

    Classes are the cards themselves, the board cards are public outcomes,
    no private buckets follow the deal (K_r = 1): the abstract game *is* the
    real game (Leduc hold'em for instance).  Returns the game and the
    dealt card tuple of every public path of the last round.
    """
    from ..cards import deck
    if game.num_hole_cards != 1 or game.num_board_cards[0] != 0 or any(n > 1 for n in game.num_board_cards):
        raise AbstractGameError("identity_abstraction needs one hole card and at most one board card per round")
    cards = deck(game.num_ranks, game.num_suits)
    n = len(cards)
    public = tuple(1 if r == 0 else max(1, game.num_board_cards[r] * n) for r in range(game.num_rounds))
    joint = np.array([[0.0 if a == b else 1.0 / (n * (n - 1)) for b in range(n)] for a in range(n)])
    fold_kernel = [joint[None]]
    boards: list[tuple[int, ...]] = [()]
    for r in range(1, game.num_rounds):
        if public[r] == 1:
            fold_kernel.append(fold_kernel[-1])
            continue
        boards = [b + (cards[k],) for b in boards for k in range(n)]
        kern = np.zeros((len(boards), n, n))
        for p, board in enumerate(boards):
            if len(set(board)) < len(board):
                continue
            for a, b in itertools.product(range(n), repeat=2):
                if a != b and cards[a] not in board and cards[b] not in board:
                    kern[p, a, b] = 1.0
        fold_kernel.append(kern / kern.sum())
    last = fold_kernel[-1]
    sd = np.zeros_like(last)
    for p, board in enumerate(boards):
        for a, b in itertools.product(range(n), repeat=2):
            if last[p, a, b] > 0:
                va = showdown_value((cards[a],) + board)
                vb = showdown_value((cards[b],) + board)
                sd[p, a, b] = last[p, a, b] * np.sign(va - vb)
    transitions = [np.ones((n, 1)) for _ in range(1, game.num_rounds)]
    ag = AbstractGame(game=game, joint=joint, buckets=(n,) + (1,) * (game.num_rounds - 1),
                      transitions=transitions, public=public, fold_kernel=fold_kernel, showdown_kernel=sd)
    return ag, boards


def locate(ag: AbstractGame, state: State, public: tuple[int, ...] = ()) -> tuple[int, int, int]:
    """(round, instance, template decision node) of a betting state whose player is to act.

    ``public[k]`` is the public outcome dealt at the start of round ``k + 1``
    (empty when the abstract game has none).  AbstractGameError when the
    state is not a decision of this game.
    """
    if state.finished or state.current_player < 0:
        raise AbstractGameError("locate: the hand is over, nobody is to act")
    r, inst, d = 0, 0, 0
    for rnd, actions in enumerate(state.actions):
        for action in actions:
            if rnd != r:
                raise AbstractGameError(f"locate: an action of round {rnd + 1} found in round {r + 1}")
            tpl = ag.rounds[r]
            col = int(action[0])
            if not tpl.legal[d, col]:
                raise AbstractGameError(f"locate: action {'fcr'[col]} is not legal at round {r + 1} node {d}")
            c = int(tpl.child[d, col])
            if c >= 0:
                d = c
                continue
            leaf = -1 - c
            if tpl.leaf_kind[leaf] != NEXT_LEAF:
                raise AbstractGameError("locate: the betting ends the hand")
            n_pub = ag.public[r + 1]
            s = public[r] if n_pub > 1 else 0
            if not 0 <= s < n_pub:
                raise AbstractGameError(f"locate: public outcome {s} of round {r + 2} is outside 0..{n_pub - 1}")
            inst = (inst * tpl.num_next + int(tpl.leaf_next[leaf])) * n_pub + s
            r, d = r + 1, 0
    if r != state.round:
        raise AbstractGameError(f"locate: the betting reaches round {r + 1}, the state is in round {state.round + 1}")
    return r, inst, d
