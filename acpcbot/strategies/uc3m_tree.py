"""Opponent models: per opponent and per position, the tree of betting lines seen, with showdown strengths.

A :class:`BettingTree` holds every betting sequence seen with one opponent
in one position.  A sequence is a list of tokens, one per action: ``f``,
``c`` (check or call) and, for raises, ``r`` in limit games or a size
bucket in no-limit games (``rh`` below 3/4 of the pot after calling, ``rp``
up to 1.5 pots, ``ro`` above, ``ra`` all-in); the first action of a later
round carries a ``/`` prefix (``/c``).  Each node counts how often the line
was reached, who acts there (so its children count who acted with what),
the chips in the pot and per position on arrival, a 20-cell histogram of
the hand strength the opponent showed at showdown after that line (the
river strength of its cards against a uniform random hand), and, where
hands ended, how many ended there and the sum of the owner's results.

:class:`OpponentModel` groups one opponent's trees by the position it sat
in, with a few counters (hands, preflop raises).  Models serialise to
compact JSON for :mod:`acpcbot.strategies.persist`.

:func:`miximax` is the 2012 study's EV analyzer over such a tree: the value
of each of our moves when the opponent replies as often as it did before
(see its docstring).  Trees stop growing at ``max_nodes`` nodes and the walk
visits at most ``max_nodes`` nodes, so memory and time stay bounded.
"""

from __future__ import annotations

from typing import Any, NamedTuple, Sequence

from ..engine import Action, ActionType, State
from ..evaluator import hand_strength

HIST_CELLS = 20
#: a tree stops adding nodes past this many (hands still count along the part that exists)
MAX_NODES = 50_000
#: no-limit raise buckets, as a fraction of the pot after calling: below SMALL is ``rh``, up to BIG ``rp``
SMALL_RAISE = 0.75
BIG_RAISE = 1.5
#: a typical raise of each no-limit bucket (fraction of the pot after calling); ``ra`` is all-in
RAISE_FRACTION = {"rh": 0.5, "rp": 1.0, "ro": 2.0}
RAISE_TOKENS = ("r", "rh", "rp", "ro", "ra")

_F, _C, _R = ActionType.FOLD, ActionType.CALL, ActionType.RAISE


class ModelError(ValueError):
    """A serialised model that does not have the expected shape."""


def strength_cell(strength: float) -> int:
    """Histogram cell 0..19 of a hand strength in [0, 1]."""
    return min(HIST_CELLS - 1, max(0, int(strength * HIST_CELLS)))


def showdown_strength(hole: Sequence[int], board: Sequence[int]) -> float | None:
    """Strength a hand showed: the share of random holdings it beats on ``board`` (None before the flop)."""
    if len(hole) != 2 or len(board) < 3:
        return None
    return hand_strength(tuple(hole), tuple(board))


def action_token(state: State, action: Action) -> str:
    """The token of ``action`` taken by the player to act in ``state`` (the action must be legal there)."""
    kind = action[0]
    if kind == _F:
        token = "f"
    elif kind == _C:
        token = "c"
    elif state.game.is_limit:
        token = "r"
    else:
        p = state.current_player
        if action[1] >= state.game.stack[p]:
            token = "ra"
        else:
            frac = state.raise_fraction(action[1])
            token = "rh" if frac < SMALL_RAISE else ("rp" if frac <= BIG_RAISE else "ro")
    if state.round > 0 and not state.actions[state.round]:
        token = "/" + token
    return token


class LineStep(NamedTuple):
    """One action of a betting line and the situation it was taken in."""

    token: str
    actor: int
    #: the pot and each position's chips in the hand before the action
    pot: int
    spent: tuple[int, ...]


def betting_line(state: State) -> tuple[list[LineStep], State]:
    """The betting of ``state`` as steps, and the state itself: the situation after the last step."""
    steps = [LineStep(action_token(s.before, s.action), s.player, s.before.pot, tuple(s.before.spent))
             for s in state.steps()]
    return steps, state


def line_tokens(state: State) -> list[str]:
    """Just the tokens of ``state``'s betting."""
    return [s.token for s in betting_line(state)[0]]


def win_probability(hist: Sequence[int], strength: float) -> float:
    """Share of a showdown histogram below ``strength`` (its own cell counts half); 0.5 when empty."""
    total = sum(hist)
    if total <= 0:
        return 0.5
    k = strength_cell(strength)
    return (sum(hist[:k]) + hist[k] / 2) / total


class Node:
    """One betting line: visits, who acts next, mean pot and contributions, showdown histogram, endings."""

    __slots__ = ("visits", "actor", "pot", "spent", "hist", "showdowns", "ends", "result", "children")

    def __init__(self, num_players: int) -> None:
        self.visits = 0
        #: the position to act at this node; -1 where hands ended
        self.actor = -1
        #: sums over visits of the pot and of each position's chips on arrival
        self.pot = 0.0
        self.spent = [0.0] * num_players
        #: showdown strengths of the opponent after this line (None until one), and their count
        self.hist: list[int] | None = None
        self.showdowns = 0
        #: hands that ended here and the sum of the owner's results in them (where known)
        self.ends = 0
        self.result = 0.0
        self.children: dict[str, Node] = {}

    def mean_pot(self) -> float:
        """The average pot on arrival."""
        return self.pot / self.visits if self.visits else 0.0

    def mean_spent(self, position: int) -> float:
        """The average chips ``position`` had in on arrival."""
        return self.spent[position] / self.visits if self.visits else 0.0

    def frequencies(self) -> dict[str, float]:
        """How often each reply was taken here."""
        total = sum(c.visits for c in self.children.values())
        return {t: c.visits / total for t, c in self.children.items()} if total else {}

    def to_json(self) -> dict[str, Any]:
        """Compact JSON: n visits, a actor, p pot sum, s spent sums, h histogram, e ends, r results, c children."""
        out: dict[str, Any] = {"n": self.visits, "a": self.actor, "p": self.pot, "s": self.spent}
        if self.hist is not None:
            out["h"] = self.hist
        if self.ends:
            out["e"] = self.ends
            out["r"] = self.result
        if self.children:
            out["c"] = {t: c.to_json() for t, c in self.children.items()}
        return out

    @classmethod
    def from_json(cls, data: Any, num_players: int, where: str = "root") -> tuple["Node", int]:
        """A node and its subtree from ``to_json`` output, with its node count; ModelError naming the bad node."""
        if not isinstance(data, dict):
            raise ModelError(f"node {where}: expected an object")
        node = cls(num_players)
        try:
            node.visits = _count(data["n"])
            node.actor = int(data["a"])
            node.pot = float(data["p"])
            node.spent = [float(x) for x in data["s"]]
            if "h" in data:
                node.hist = [_count(x) for x in data["h"]]
                node.showdowns = sum(node.hist)
            node.ends = _count(data.get("e", 0))
            node.result = float(data.get("r", 0.0))
            children = data.get("c", {})
        except (KeyError, TypeError, ValueError) as exc:
            raise ModelError(f"node {where}: bad or missing field ({exc})") from None
        if len(node.spent) != num_players or not -1 <= node.actor < num_players:
            raise ModelError(f"node {where}: does not fit a {num_players}-player game")
        if node.hist is not None and len(node.hist) != HIST_CELLS:
            raise ModelError(f"node {where}: a histogram has {HIST_CELLS} cells, got {len(node.hist)}")
        if not isinstance(children, dict):
            raise ModelError(f"node {where}: children must be an object")
        size = 1
        for token, child in children.items():
            node.children[token], n = cls.from_json(child, num_players, f"{where} {token}")
            if node.children[token].visits < 1:
                raise ModelError(f"node {where} {token}: a recorded line has at least one visit")
            size += n
        return node, size


def _count(x: Any) -> int:
    if isinstance(x, bool) or not isinstance(x, int) or x < 0:
        raise ValueError(f"{x!r} is not a count")
    return x


class BettingTree:
    """The betting lines seen with one opponent in one position."""

    def __init__(self, num_players: int, max_nodes: int = MAX_NODES) -> None:
        self.num_players = num_players
        self.max_nodes = max_nodes
        self.root = Node(num_players)
        self.size = 1

    def find(self, tokens: Sequence[str]) -> Node | None:
        """The node of a line, or None when it was never seen."""
        node = self.root
        for t in tokens:
            child = node.children.get(t)
            if child is None:
                return None
            node = child
        return node

    def record(self, state: State, result: float | None = None, shown: float | None = None) -> None:
        """Add a finished hand: its line, the owner's ``result`` and the opponent's ``shown`` strength (if any)."""
        steps, end = betting_line(state)
        situations = [(s.actor, s.pot, s.spent) for s in steps] + [(-1, end.pot, tuple(end.spent))]
        path = [self.root]
        node = self.root
        complete = True
        for step in steps:
            child = node.children.get(step.token)
            if child is None:
                if self.size >= self.max_nodes:
                    complete = False
                    break
                child = node.children[step.token] = Node(self.num_players)
                self.size += 1
            path.append(child)
            node = child
        for n, (actor, pot, spent) in zip(path, situations):
            n.visits += 1
            n.actor = actor
            n.pot += pot
            for p, x in enumerate(spent):
                n.spent[p] += x
            if shown is not None:
                if n.hist is None:
                    n.hist = [0] * HIST_CELLS
                n.hist[strength_cell(shown)] += 1
                n.showdowns += 1
        if complete:
            node.ends += 1
            if result is not None:
                node.result += result

    def to_json(self) -> dict[str, Any]:
        """The tree as JSON-ready data."""
        return self.root.to_json()

    @classmethod
    def from_json(cls, data: Any, num_players: int, max_nodes: int = MAX_NODES) -> "BettingTree":
        """A tree from ``to_json`` output; ModelError when malformed."""
        tree = cls(num_players, max_nodes)
        tree.root, tree.size = Node.from_json(data, num_players)
        return tree


class OpponentModel:
    """What one opponent did: hands seen, preflop raises, and a betting tree per position it sat in."""

    def __init__(self, num_players: int, max_nodes: int = MAX_NODES) -> None:
        self.num_players = num_players
        self.max_nodes = max_nodes
        self.hands = 0
        #: hands in which the opponent raised before the flop
        self.preflop_raises = 0
        self.trees: dict[int, BettingTree] = {}

    def tree(self, position: int) -> BettingTree:
        """The tree of hands the opponent played at ``position`` (created empty on first use)."""
        tree = self.trees.get(position)
        if tree is None:
            tree = self.trees[position] = BettingTree(self.num_players, self.max_nodes)
        return tree

    def preflop_raise_rate(self, prior_raises: float = 1.0, prior_hands: float = 4.0) -> float:
        """Share of hands the opponent raised preflop, pulled toward a prior while there are few hands."""
        return (self.preflop_raises + prior_raises) / (self.hands + prior_hands)

    def record(self, state: State, position: int, result: float | None = None,
               shown: float | None = None) -> None:
        """Add a finished hand in which the opponent sat at ``position`` (``result``: the owner's chips)."""
        self.hands += 1
        if any(a[0] == _R and p == position for a, p in zip(state.actions[0], state.actors[0])):
            self.preflop_raises += 1
        self.tree(position).record(state, result, shown)

    def to_json(self) -> dict[str, Any]:
        """The model as JSON-ready data."""
        return {"players": self.num_players, "hands": self.hands, "preflop_raises": self.preflop_raises,
                "trees": {str(p): t.to_json() for p, t in sorted(self.trees.items())}}

    @classmethod
    def from_json(cls, data: Any, num_players: int, max_nodes: int = MAX_NODES) -> "OpponentModel":
        """A model from ``to_json`` output; ModelError when malformed or made for another number of players."""
        if not isinstance(data, dict):
            raise ModelError("an opponent model must be an object")
        if data.get("players") != num_players:
            raise ModelError(f"the model is of a {data.get('players')!r}-player game, not {num_players}-player")
        model = cls(num_players, max_nodes)
        try:
            model.hands = _count(data["hands"])
            model.preflop_raises = _count(data["preflop_raises"])
            trees = data["trees"]
            if not isinstance(trees, dict):
                raise TypeError("trees must be an object")
            for key, tree in trees.items():
                p = int(key)
                if not 0 <= p < num_players:
                    raise ValueError(f"position {key!r} is outside the game")
                try:
                    model.trees[p] = BettingTree.from_json(tree, num_players, max_nodes)
                except ModelError as exc:
                    raise ModelError(f"tree of position {p}: {exc}") from None
        except (KeyError, TypeError, ValueError) as exc:
            if isinstance(exc, ModelError):
                raise
            raise ModelError(f"bad or missing field ({exc})") from None
        return model


def miximax(tree: BettingTree, tokens: Sequence[str], me: int, strength: float, min_showdowns: int = 5,
            max_nodes: int = 2000) -> dict[str, float] | None:
    """Expected final result of each of our moves seen at the line ``tokens``, or None where the model is too thin.

    Applies where the opponent has shown down at least ``min_showdowns``
    times after this line and we (position ``me``) act here.  A move's value
    walks its subtree: at a leaf, P(win)·pot − our chips in, P(win) read off
    the deepest showdown histogram along the way with at least
    ``min_showdowns`` entries against our ``strength`` (a fold leaf is lost
    by whoever folded); at an opponent's node, the average of its replies
    weighted by how often it chose them; at our own node, our best reply
    (hence "miximax").  Past ``max_nodes`` visited nodes, or at a line that
    stopped growing, a node counts as a showdown at its average pot.  Folding
    is not in the result (its value is minus our chips in now).
    """
    node = tree.find(tokens)
    if node is None or node.actor != me or not node.children or node.showdowns < min_showdowns:
        return None
    budget = [max_nodes]
    wins: dict[int, float] = {}  # P(win) per histogram, by id (each is read many times)

    def value(n: Node, token: str, parent_actor: int, hist: list[int]) -> float:
        budget[0] -= 1
        if n.showdowns >= min_showdowns and n.hist is not None:
            hist = n.hist
        visits = n.visits
        pot = n.pot / visits
        cost = n.spent[me] / visits
        children = n.children
        if not children or budget[0] <= 0:
            if not children and n.ends and token[-1] == "f":
                return -cost if parent_actor == me else pot - cost
            p = wins.get(id(hist))
            if p is None:
                p = wins[id(hist)] = win_probability(hist, strength)
            return p * pot - cost
        actor = n.actor
        if actor == me:
            return max(value(c, t, actor, hist) for t, c in children.items())
        total = 0
        acc = 0.0
        for t, c in children.items():
            acc += c.visits * value(c, t, actor, hist)
            total += c.visits
        return acc / total

    assert node.hist is not None
    return {t: value(c, t, me, node.hist) for t, c in node.children.items()}
