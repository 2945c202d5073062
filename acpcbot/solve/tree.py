"""The public game tree of a small limit game, built from the engine, with per-hand payoff tensors.

A public node is a betting history (an engine State holding no cards) plus
the board cards dealt so far.  Private cards never branch the tree: every
quantity at a node is a vector over the ordered hole-card tuples a player
can hold ("hands"), so an information set is exactly (decision node, hand).
Chance deals the board at chance nodes; the deal of the hole cards lives in
the terminal payoff tensors, which hold, for every combination of hands, the
probability of that deal (zero when two players share a card) times the
payoff the engine computes.  Every legal move, turn and payoff comes from
the engine; nothing here knows a betting rule.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass, field

import numpy as np

from ..cards import card_to_text, deck
from ..engine import CALL, FOLD, RAISE, ActionType, State
from ..gamedef import GameDef

#: largest tree solved: betting sequences times deals (Leduc is 10,200)
MAX_TREE_SIZE = 20_000_000
#: largest payoff table: terminals x players x hands ** players
MAX_PAYOFF_CELLS = 30_000_000
#: betting sequences counted before giving up on an exact count
_BETTING_COUNT_CAP = 200_000

DECISION, CHANCE, TERMINAL = 0, 1, 2
#: action columns of every per-action array, in this order
ACTION_TYPES = (ActionType.FOLD, ActionType.CALL, ActionType.RAISE)
ACTION_CHARS = "fcr"
_ACTIONS = (FOLD, CALL, RAISE)


class GameTooBig(ValueError):
    """A game the solver refuses: no-limit, or a tree above MAX_TREE_SIZE."""


def count_deals(game: GameDef) -> int:
    """Ordered deals of every hole and board card of one hand, as the dealer makes them."""
    cards = game.num_players * game.num_hole_cards + game.total_board_cards
    return math.perm(game.deck_size, cards)


def count_betting_sequences(game: GameDef, cap: int = _BETTING_COUNT_CAP) -> tuple[int, bool]:
    """Betting histories of one hand (root, decisions and ends), walked through the engine.

    Returns (count, exact); the walk stops at ``cap`` histories, in which case
    the count is a lower bound.
    """
    count = 0
    stack = [State(game)]
    while stack:
        state = stack.pop()
        count += 1
        if count >= cap:
            return count, False
        if state.finished:
            continue
        for kind in state.legal_actions():
            stack.append(state.copy().apply(_ACTIONS[kind]))
    return count, True


def check_solvable(game: GameDef, max_size: int = MAX_TREE_SIZE) -> int:
    """The estimated tree size (betting sequences x deals); GameTooBig when the solver refuses the game."""
    label = game.name or "this game"
    if not game.is_limit:
        root = State(game)
        bounds = root.raise_bounds()
        raises = bounds[1] - bounds[0] + 1 if bounds else 0
        # every raise-to amount, and fold or call (the raise type itself is counted by its amounts)
        first = raises + len(root.legal_actions()) - (1 if bounds else 0)
        deals = count_deals(game)
        raise GameTooBig(f"{label} is a no-limit game: its raise sizes are not discrete (every raise-to "
                         f"amount is its own action), so it has no small game tree to solve: estimated tree "
                         f"size above {_big(first * deals)} ({first:,} actions at the first decision alone x "
                         f"{_big(deals)} deals)")
    deals = count_deals(game)
    sequences, exact = count_betting_sequences(game)
    size = sequences * deals
    if size > max_size:
        about = "" if exact else "at least "
        raise GameTooBig(f"{label} is too big to solve: estimated tree size {about}{_big(size)} "
                         f"({about}{sequences:,} betting sequences x {_big(deals)} deals) is above the limit "
                         f"of {max_size:,}")
    return size


def _big(n: int) -> str:
    return f"{n:,}" if n < 10**9 else f"{n:.3g}"


@dataclass
class PublicTree:
    """The public tree and the arrays the vectorised passes run on.

    Nodes are numbered breadth first (root 0); index ``num_nodes`` is a dummy
    node whose values are always zero, used to pad missing children.
    """

    game: GameDef
    hands: list[tuple[int, ...]]
    kind: np.ndarray            # (nodes,) DECISION / CHANCE / TERMINAL
    depth: np.ndarray           # (nodes,)
    states: list[State]         # betting state per node (no cards)
    boards: list[tuple[int, ...]]  # board cards dealt so far per node
    compat: np.ndarray          # (nodes, H) bool: hand shares no card with the node's board
    # decision nodes, indexed 0..num_dec-1
    dec_node: np.ndarray        # (dec,) node id
    dec_player: np.ndarray      # (dec,) position to act
    dec_legal: np.ndarray       # (dec, 3) bool, columns f c r
    dec_children: np.ndarray    # (dec, 3) child node id, dummy where illegal
    # chance nodes
    chance_node: np.ndarray     # (chance,)
    chance_children: np.ndarray  # (chance, K) padded with the dummy
    # terminal nodes
    term_node: np.ndarray       # (terminals,)
    #: per player p: (terminals, H, H, ...) with p's hand on axis 1, the others after it in position order
    term_utility: list[np.ndarray] = field(default_factory=list)
    # per level schedule, filled by _schedule
    forward_levels: list[tuple] = field(default_factory=list)
    backward_levels: list[tuple] = field(default_factory=list)
    dec_of_player: list[np.ndarray] = field(default_factory=list)

    @property
    def num_nodes(self) -> int:
        """Real nodes (the dummy excluded)."""
        return len(self.kind)

    @property
    def num_players(self) -> int:
        """Players of the game."""
        return self.game.num_players

    @property
    def num_hands(self) -> int:
        """Ordered hole-card tuples one player can hold."""
        return len(self.hands)

    @property
    def num_infosets(self) -> int:
        """Information sets that can occur: (decision node, hand) with no card shared with the board."""
        return int(self.compat[self.dec_node].sum())

    def hand_text(self, i: int) -> str:
        """ACPC text of hand ``i``."""
        return "".join(card_to_text(c) for c in self.hands[i])

    # ------------------------------------------------------------- the passes

    def uniform(self) -> np.ndarray:
        """The uniform policy over legal actions: (dec, 3, H)."""
        legal = self.dec_legal.astype(float)
        sigma = legal / legal.sum(1, keepdims=True)
        return np.repeat(sigma[:, :, None], self.num_hands, axis=2)

    def reach(self, sigma: np.ndarray) -> np.ndarray:
        """Each player's own reach probability per node and hand: (nodes + 1, N, H); chance is left out."""
        n_nodes = self.num_nodes
        out = np.zeros((n_nodes + 1, self.num_players, self.num_hands))
        out[0] = self.compat[0]
        for dec_par, dec_act, dec_pl, dec_rows, dec_child, ch_par, ch_child in self.forward_levels:
            if len(dec_child):
                r = out[dec_par]
                r[dec_rows, dec_pl] *= sigma[dec_act]
                out[dec_child] = r
            if len(ch_child):
                out[ch_child] = out[ch_par] * self.compat[ch_child][:, None, :]
        return out

    def terminal_values(self, reach: np.ndarray, player: int) -> np.ndarray:
        """Counterfactual value for ``player`` of each terminal and hand: (terminals, H)."""
        x = self.term_utility[player]
        t = len(self.term_node)
        h = self.num_hands
        for q in reversed([q for q in range(self.num_players) if q != player]):
            r = reach[self.term_node, q]
            x = (x.reshape(t, -1, h) @ r[:, :, None]).reshape(x.shape[:-1])
        return x

    def backward(self, player: int, reach: np.ndarray, sigma: np.ndarray, best: bool = False,
                 regrets: np.ndarray | None = None) -> np.ndarray:
        """Counterfactual values for ``player`` at every node: (nodes + 1, H).

        Other players follow ``sigma`` (through ``reach``); ``player`` follows
        ``sigma`` too, or plays a best response when ``best``.  When
        ``regrets`` is given, the instantaneous regrets of ``player``'s
        decision nodes are written into it.
        """
        values = np.zeros((self.num_nodes + 1, self.num_hands))
        values[self.term_node] = self.terminal_values(reach, player)
        for own_by_player, other_by_player, ch_node, ch_children in self.backward_levels:
            dec, node, children, legal = own_by_player[player]
            if len(dec):
                cv = values[children]
                if best:
                    v = np.where(legal[:, :, None], cv, -np.inf).max(1)
                else:
                    v = np.einsum("dah,dah->dh", sigma[dec], cv)
                values[node] = v
                if regrets is not None:
                    regrets[dec] = (cv - v[:, None, :]) * legal[:, :, None]
            node, children = other_by_player[player]
            if len(node):
                values[node] = values[children].sum(1)
            if len(ch_node):
                values[ch_node] = values[ch_children].sum(1)
        return values

    def value(self, sigma: np.ndarray, player: int, best: bool = False,
              reach: np.ndarray | None = None) -> float:
        """Expected payoff of ``player`` when everyone plays ``sigma`` (or ``player`` best-responds)."""
        if reach is None:
            reach = self.reach(sigma)
        return float(self.backward(player, reach, sigma, best=best)[0].sum())


def build_tree(game: GameDef, max_size: int = MAX_TREE_SIZE) -> PublicTree:
    """The public tree of ``game``; GameTooBig for no-limit games and trees above ``max_size``."""
    check_solvable(game, max_size)
    cards = deck(game.num_ranks, game.num_suits)
    hands = list(itertools.permutations(cards, game.num_hole_cards))
    hand_sets = [frozenset(h) for h in hands]
    nb = game.num_board_cards

    kind: list[int] = []
    depth: list[int] = []
    states: list[State] = []
    boards: list[tuple[int, ...]] = []
    children: list[list[int]] = []
    queue: list[tuple[State, tuple[int, ...], int, int, int]] = [(State(game), (), -1, 0, -1)]
    head = 0
    # breadth first: a node's id is its place in the queue
    while head < len(queue):
        state, board, board_round, d, parent = queue[head]
        node = head
        head += 1
        # board rounds with no cards need no chance node
        while board_round < state.round and nb[board_round + 1] == 0:
            board_round += 1
        kids: list[int] = []
        states.append(state)
        boards.append(board)
        depth.append(d)
        dealt = set(board)
        folded_out = state.finished and not state.is_showdown
        if board_round < state.round and not folded_out:
            kind.append(CHANCE)
            r = board_round + 1
            for extra in itertools.permutations([c for c in cards if c not in dealt], nb[r]):
                kids.append(len(queue))
                queue.append((state, board + extra, r, d + 1, node))
        elif state.finished:
            kind.append(TERMINAL)
        else:
            kind.append(DECISION)
            legal = state.legal_actions()
            for col, action_type in enumerate(ACTION_TYPES):
                if action_type in legal:
                    kids.append(len(queue))
                    queue.append((state.copy().apply(_ACTIONS[col]), board, board_round, d + 1, node))
                else:
                    kids.append(-1)
        children.append(kids)

    n_nodes = len(kind)
    dummy = n_nodes
    kind_a = np.array(kind, dtype=np.int8)
    depth_a = np.array(depth, dtype=np.int32)
    compat = np.array([[not (hs & set(b)) for hs in hand_sets] for b in boards], dtype=bool)

    dec_node = np.flatnonzero(kind_a == DECISION)
    dec_children = np.array([[c if c >= 0 else dummy for c in children[n]] for n in dec_node],
                            dtype=np.int64).reshape(-1, 3)
    dec_legal = np.array([[c >= 0 for c in children[n]] for n in dec_node], dtype=bool).reshape(-1, 3)
    dec_player = np.array([states[n].current_player for n in dec_node], dtype=np.int64)
    chance_node = np.flatnonzero(kind_a == CHANCE)
    width = max((len(children[n]) for n in chance_node), default=0)
    chance_children = np.full((len(chance_node), width), dummy, dtype=np.int64)
    for i, n in enumerate(chance_node):
        chance_children[i, :len(children[n])] = children[n]
    term_node = np.flatnonzero(kind_a == TERMINAL)
    cells = len(term_node) * game.num_players * len(hands) ** game.num_players
    if cells > MAX_PAYOFF_CELLS:
        raise GameTooBig(f"{game.name or 'this game'} is too big to solve: its payoff tables would hold "
                         f"{_big(cells)} values, above the limit of {MAX_PAYOFF_CELLS:,}")

    tree = PublicTree(game=game, hands=hands, kind=kind_a, depth=depth_a, states=states, boards=boards,
                      compat=compat, dec_node=dec_node, dec_player=dec_player, dec_legal=dec_legal,
                      dec_children=dec_children, chance_node=chance_node, chance_children=chance_children,
                      term_node=term_node)
    tree.term_utility = _terminal_utilities(tree)
    _schedule(tree)
    return tree


def _terminal_utilities(tree: PublicTree) -> list[np.ndarray]:
    """Per player, deal probability times payoff for every terminal and combination of hands."""
    game = tree.game
    n = game.num_players
    h = tree.num_hands
    hands = tree.hands
    hand_sets = [frozenset(x) for x in hands]
    # every combination of pairwise disjoint hands, once
    combos = [c for c in itertools.product(range(h), repeat=n)
              if len(frozenset().union(*(hand_sets[i] for i in c))) == n * game.num_hole_cards]
    util = np.zeros((len(tree.term_node), n) + (h,) * n)
    value_cache: dict[tuple[tuple[int, ...], tuple[int, ...]], int] = {}
    showdown_value = game.ranking_for_showdown
    for t, node in enumerate(tree.term_node):
        state = tree.states[node]
        board = tree.boards[node]
        board_set = set(board)
        prob = 1.0 / math.perm(game.deck_size, n * game.num_hole_cards + len(board))
        fold_payoffs = None if state.is_showdown else state.payoffs()
        for combo in combos:
            if any(hand_sets[i] & board_set for i in combo):
                continue
            if fold_payoffs is not None:
                pay = fold_payoffs
            else:
                values = []
                for i in combo:
                    key = (hands[i], board)
                    v = value_cache.get(key)
                    if v is None:
                        v = value_cache[key] = showdown_value(hands[i] + board)
                    values.append(v)
                pay = state.payoffs(values=values)
            util[(t, slice(None)) + combo] = np.asarray(pay) * prob
    out = []
    for p in range(n):
        # player p's axis first, the others after it in position order
        out.append(np.ascontiguousarray(np.moveaxis(util[:, p], 1 + p, 1)))
    return out


def _schedule(tree: PublicTree) -> None:
    """Group edges by depth so that each pass is a few array operations per level."""
    n_players = tree.num_players
    max_depth = int(tree.depth.max())
    dec_depth = tree.depth[tree.dec_node]
    ch_depth = tree.depth[tree.chance_node]
    tree.forward_levels = []
    for level in range(max_depth):
        dec = np.flatnonzero(dec_depth == level)
        par, act, pl, child = [], [], [], []
        for i in dec:
            for col in range(3):
                if tree.dec_legal[i, col]:
                    par.append(tree.dec_node[i])
                    act.append((i, col))
                    pl.append(tree.dec_player[i])
                    child.append(tree.dec_children[i, col])
        ch = np.flatnonzero(ch_depth == level)
        ch_par, ch_child = [], []
        for i in ch:
            for c in tree.chance_children[i]:
                if c < tree.num_nodes:
                    ch_par.append(tree.chance_node[i])
                    ch_child.append(c)
        act_index = (np.array([a[0] for a in act], dtype=np.int64), np.array([a[1] for a in act], dtype=np.int64))
        tree.forward_levels.append((np.array(par, dtype=np.int64), act_index, np.array(pl, dtype=np.int64),
                                    np.arange(len(par)), np.array(child, dtype=np.int64),
                                    np.array(ch_par, dtype=np.int64), np.array(ch_child, dtype=np.int64)))
    tree.backward_levels = []
    for level in range(max_depth, -1, -1):
        dec = np.flatnonzero(dec_depth == level)
        own_by_player = []
        other_by_player = []
        for p in range(n_players):
            own = dec[tree.dec_player[dec] == p]
            other = dec[tree.dec_player[dec] != p]
            own_by_player.append((own, tree.dec_node[own], tree.dec_children[own], tree.dec_legal[own]))
            other_by_player.append((tree.dec_node[other], tree.dec_children[other]))
        ch = np.flatnonzero(ch_depth == level)
        tree.backward_levels.append((own_by_player, other_by_player, tree.chance_node[ch],
                                     tree.chance_children[ch]))
    tree.dec_of_player = [np.flatnonzero(tree.dec_player == p) for p in range(n_players)]
