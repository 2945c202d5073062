"""The public tree of a subgame: from an engine state and a betting abstraction to flat node lists.

A node is a betting history from the subgame's root; cards never branch it.
Chance nodes deal the next street's cards (or the rest of the board after an
all-in) to a *board group*: every board the deal can make, held as one axis
of the solver's arrays, so one river subtree serves every river card.  The
engine decides whose turn it is, what is legal, when a street or the hand
ends and what a fold or showdown pays; the abstraction only picks raise
sizes.  Nodes are listed parents first (a pre-order walk).
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field

import numpy as np

from ...cards import cards_to_text, deck
from ...engine import CALL, FOLD, RAISE, ActionType, State, raise_to
from ...gamedef import GameDef
from .abstraction import BetSizes
from .chance import last_card_classes

DECISION, FOLD_END, SHOWDOWN, CHANCE = 0, 1, 2, 3
KIND_NAMES = ("decision", "fold", "showdown", "chance")
#: the most nodes a subgame tree may have before building stops (a coarser abstraction is needed)
MAX_NODES = 200_000


class SubgameError(ValueError):
    """A subgame that cannot be built or solved as asked (bad state, board, ranges or abstraction)."""


@dataclass
class SubgameNode:
    """One public node: its kind, who acts (decisions), its board group, its children and their labels."""

    kind: int
    player: int
    group: int
    parent: int
    line: tuple[str, ...]
    spent: tuple[int, ...]
    children: list[int] = field(default_factory=list)
    labels: list[str] = field(default_factory=list)
    actions: list = field(default_factory=list)  # engine Actions per child (decisions)
    #: player 0's payoff (chips, whole hand): at a fold as it stands, at a showdown when player 0 wins
    payoff0: float = 0.0


@dataclass
class BoardGroup:
    """Every board reachable by one sequence of deals: ``boards[b]`` extends ``parent``'s board ``parent_board[b]``."""

    boards: np.ndarray  # (B, L) int64, in dealing order
    parent: int  # parent group, -1 for the root's
    parent_board: np.ndarray  # (B,) index into the parent group's boards
    deal_count: int  # ways each parent board is extended (the chance node's branching)
    #: a class group (``chance``): (B, 52) float32, 1 on the cards board b's class stands for; None: exact boards
    members: np.ndarray | None = None
    #: a class group: each class's cards, nearest the class's centre first (``chance.last_card_classes``)
    classes: list[tuple[int, ...]] | None = None


@dataclass
class SubgameTree:
    """The subgame's nodes (pre-order) and board groups; node 0 is the root."""

    game: GameDef
    nodes: list[SubgameNode]
    groups: list[BoardGroup]
    root_spent: tuple[int, ...]
    first: int  # the position acting first at the root (out of position)
    #: the tree stops where the root round's betting ends (``leaves``): every line that goes on, and every all-in,
    #: is a SHOWDOWN node on the root's board whose matrix is the rest of the board checked down
    depth_limited: bool = False

    @property
    def num_decisions(self) -> int:
        """Decision nodes of the abstract tree (one subtree per betting line, whatever the cards)."""
        return sum(1 for n in self.nodes if n.kind == DECISION)

    def terminal_lines(self) -> list[str]:
        """Every terminal line as SOLVER_SPOTS.md writes it: ``X B100 F => fold oop_in=0 ip_in=100 pot=300``."""
        out = []
        oop, ip = self.first, 1 - self.first
        for n in self.nodes:
            if n.kind not in (FOLD_END, SHOWDOWN):
                continue
            words = [w for w in n.line]
            ins = [n.spent[p] - self.root_spent[p] for p in range(2)]
            pot = sum(n.spent)
            what = "fold" if n.kind == FOLD_END else "showdown"
            out.append(f"{' '.join(words)} => {what} oop_in={ins[oop]} ip_in={ins[ip]} pot={pot}")
        return out


def _street_start(state: State) -> tuple[int, ...]:
    """Chips each position had in when the current street began (before its first action)."""
    for step in state.steps():
        if step.round == state.round:
            return tuple(step.before.spent)
    return tuple(state.spent)


def _label(state: State, action, street_start: tuple[int, ...]) -> str:
    p = state.current_player
    if action.type == ActionType.FOLD:
        return "F"
    if action.type == ActionType.CALL:
        return "X" if state.to_call() == 0 else "C"
    after = state.copy().apply_unchecked(action)
    to = after.spent[p] - street_start[p]
    if after.spent[p] >= state.game.stack[p]:
        return f"A{to}"
    return f"{'R' if state.max_spent > max(street_start) else 'B'}{to}"


class _Builder:
    def __init__(self, game: GameDef, board: tuple[int, ...], sizes: BetSizes | None,
                 last_classes: int | None = None, leaf_round: int | None = None) -> None:
        self.game = game
        self.sizes = sizes
        self.last_classes = last_classes
        self.leaf_round = leaf_round  # depth-limited: the round whose betting's end is a leaf
        self.nodes: list[SubgameNode] = []
        self.deck = deck(game.num_ranks, game.num_suits)
        root = np.array([board], dtype=np.int64).reshape(1, len(board))
        self.groups = [BoardGroup(root, -1, np.zeros(1, dtype=np.int64), 1)]
        self.group_key: dict[tuple[int, tuple[int, ...]], int] = {}

    def child_group(self, group: int, count: int) -> int:
        """The group reached from ``group`` by dealing ``count`` more cards (built once)."""
        key = (group, (count,))
        if key in self.group_key:
            return self.group_key[key]
        parent = self.groups[group].boards
        if self.last_classes is not None and count == 1 and parent.shape[1] + 1 == self.game.total_board_cards:
            return self._class_group(group, key)
        rows, parents = [], []
        ways = 0
        for b, cards in enumerate(parent.tolist()):
            rest = [c for c in self.deck if c not in cards]
            combos = list(itertools.combinations(rest, count))
            ways = len(combos)
            for extra in combos:
                rows.append(cards + list(extra))
                parents.append(b)
        boards = np.array(rows, dtype=np.int64).reshape(len(rows), parent.shape[1] + count)
        self.groups.append(BoardGroup(boards, group, np.array(parents, dtype=np.int64), ways))
        self.group_key[key] = len(self.groups) - 1
        return len(self.groups) - 1

    def _class_group(self, group: int, key: tuple) -> int:
        """The last card dealt as classes (``chance.last_card_classes``): one board a class, its representative's."""
        assert self.last_classes is not None
        parent = self.groups[group].boards
        rows, parents, members, cards_of = [], [], [], []
        ways = 0
        for b, cards in enumerate(parent.tolist()):
            classes = last_card_classes(self.game, tuple(cards), self.last_classes)
            if ways and len(classes) != ways:
                raise SubgameError("the last card's classes differ in number between boards of one group")
            ways = len(classes)
            for cls in classes:
                rows.append(cards + [cls[0]])
                parents.append(b)
                row = np.zeros(52, dtype=np.float32)
                row[list(cls)] = 1.0
                members.append(row)
                cards_of.append(cls)
        boards = np.array(rows, dtype=np.int64).reshape(len(rows), parent.shape[1] + 1)
        self.groups.append(BoardGroup(boards, group, np.array(parents, dtype=np.int64), ways, np.array(members),
                                      cards_of))
        self.group_key[key] = len(self.groups) - 1
        return len(self.groups) - 1

    def add(self, state: State, group: int, parent: int, line: tuple[str, ...],
            street_start: tuple[int, ...]) -> int:
        if len(self.nodes) >= MAX_NODES:
            raise SubgameError(f"the subgame tree passed {MAX_NODES:,} nodes: use a coarser betting abstraction")
        game = self.game
        have = self.groups[group].boards.shape[1]
        spent = tuple(state.spent)
        index = len(self.nodes)
        if state.finished and state.num_folded:
            pay = state.payoffs()[0]
            self.nodes.append(SubgameNode(FOLD_END, int(state.folded.index(True)), group, parent, line, spent, payoff0=pay))
            return index
        if self.leaf_round is not None and (state.finished or state.round > self.leaf_round):
            # a leaf: the betting went past the root's round (or all-in): the rest checked down (``leaves``)
            self.nodes.append(SubgameNode(SHOWDOWN, -1, group, parent, line + ("|",), spent,
                                          payoff0=float(min(spent))))
            return index
        need = game.total_board_cards if state.finished else game.board_cards_through(state.round)
        if have < need:
            node = SubgameNode(CHANCE, -1, group, parent, line + ("|",) if not state.finished else line, spent)
            self.nodes.append(node)
            child_group = self.child_group(group, need - have)
            child = self.add(state, child_group, index, node.line, street_start)
            node.children.append(child)
            node.labels.append("|")
            return index
        if state.finished:
            win, lose = state.payoffs([1, 0]), state.payoffs([0, 1])
            tie = state.payoffs([0, 0])
            if win[0] != -lose[0] or tie[0] != 0:
                raise SubgameError(f"showdown after {' '.join(line)} does not pay symmetrically ({win}, {lose}, {tie})")
            self.nodes.append(SubgameNode(SHOWDOWN, -1, group, parent, line, spent, payoff0=win[0]))
            return index
        node = SubgameNode(DECISION, state.current_player, group, parent, line, spent)
        self.nodes.append(node)
        for action in self.actions(state, street_start):
            label = _label(state, action, street_start)
            after = state.copy().apply(action)
            start = street_start if after.round == state.round else tuple(after.spent)
            child = self.add(after, group, index, line + (label,), start)
            node.children.append(child)
            node.labels.append(label)
            node.actions.append(action)
        return index

    def actions(self, state: State, street_start: tuple[int, ...]) -> list:
        legal = state.legal_actions()
        out = []
        if ActionType.FOLD in legal:
            out.append(FOLD)
        out.append(CALL)
        if ActionType.RAISE in legal:
            if self.game.is_limit:
                out.append(RAISE)
            else:
                assert self.sizes is not None  # a no-limit tree is built with its sizes
                out += [raise_to(s) for s in self.sizes.raise_sizes(state, street_start)]
        return out


def build_tree(game: GameDef, state: State, board: tuple[int, ...], sizes: BetSizes | None = None,
               last_classes: int | None = None, depth_limited: bool = False) -> SubgameTree:
    """The subgame tree from ``state`` (no cards needed) with ``board`` dealt, under ``sizes`` (no-limit).

    ``last_classes``: deal the last board card as at most that many classes of cards (``chance``), not card by card.
    ``depth_limited``: stop where the root round's betting ends (``leaves``; not in the last round, where the hand
    ends with it).
    """
    if game.num_players != 2:
        raise SubgameError(f"subgame solving is for two players; {game.name or 'this game'} has {game.num_players}")
    if state.finished or state.current_player < 0:
        raise SubgameError("the subgame's root state is a finished hand: nothing is left to solve")
    need = game.board_cards_through(state.round)
    if len(board) != need:
        raise SubgameError(f"round {state.round + 1} needs {need} board cards, got {len(board)} "
                           f"({cards_to_text(board) or 'none'})")
    cards = set(deck(game.num_ranks, game.num_suits))
    if len(set(board)) != len(board) or not set(board) <= cards:
        raise SubgameError(f"board {cards_to_text(board)} repeats a card or has one outside the game's deck")
    if game.is_nolimit and sizes is None:
        raise SubgameError("a no-limit subgame needs a betting abstraction (BetSizes)")
    if last_classes is not None and last_classes < 1:
        raise SubgameError(f"the last card's classes must number at least 1, got {last_classes}")
    if depth_limited and state.round >= game.num_rounds - 1:
        raise SubgameError("a depth-limited subgame stops before the last round: rooted in it, it is the whole rest")
    builder = _Builder(game, tuple(board), sizes, last_classes, state.round if depth_limited else None)
    builder.add(state.copy(), 0, -1, (), _street_start(state))
    return SubgameTree(game, builder.nodes, builder.groups, tuple(state.spent), state.current_player, depth_limited)
