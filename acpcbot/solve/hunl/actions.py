"""The no-limit action abstraction (the bet sizes the blueprint has) and the betting tree it spans.

Sizes are fractions of the pot after calling: a raise of fraction ``f``
goes to ``max_spent + f * (pot + to_call)``.  Each round has its own size
lists by raise depth (0: the round's first bet or raise, 1: the raise
over it, ...); a depth past the list has the list's last entry, and past
``max_raises`` only all-in remains.  A size below the minimum raise is
lifted to it (the minimum raise is in the tree exactly where a listed
size would fall below it), sizes landing on the same chips merge, and
all-in is always there while the engine allows a raise.  Limit games keep
their own fold/call/raise, so Kuhn and Leduc run through the same tree.

``BlueprintTree`` enumerates every betting sequence of the abstraction with
the engine: decision nodes (actor, round, actions, children, and the
offset of their rows in a flat table of ``width[round] * len(actions)``
entries per node) and terminals (fold: player 0's payoff; showdown: the
stake each player risks).  Growing the shipped abstraction's ~100,000
nodes takes seconds; ``load_cache`` keeps a grown tree as arrays in the
cache folder and reads it back node for node.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

from ...engine import CALL, FOLD, RAISE, Action, ActionType, State, raise_to
from ...gamedef import GameDef

Sizes = tuple[tuple[tuple[float, ...], ...], ...]


@dataclass(frozen=True)
class ActionAbstraction:
    """Pot-fraction sizes per round and raise depth, and the cap of non-all-in raises per round."""

    sizes: Sizes
    max_raises: tuple[int, ...]

    def to_json(self) -> str:
        """A JSON text of the abstraction (recorded in policy files and checkpoints)."""
        return json.dumps({"sizes": self.sizes, "max_raises": self.max_raises})

    @classmethod
    def from_json(cls, text: str) -> "ActionAbstraction":
        """The abstraction of a ``to_json`` text."""
        d = json.loads(text)
        sizes = tuple(tuple(tuple(float(f) for f in depth) for depth in rnd) for rnd in d["sizes"])
        return cls(sizes=sizes, max_raises=tuple(int(m) for m in d["max_raises"]))

    def fractions(self, round_: int, depth: int) -> tuple[float, ...]:
        """The listed pot fractions of a raise at ``depth`` in ``round_`` (all-in not included)."""
        if round_ >= len(self.sizes) or depth >= self.max_raises[min(round_, len(self.max_raises) - 1)]:
            return ()
        lists = self.sizes[round_]
        return lists[min(depth, len(lists) - 1)] if lists else ()


#: the shipped HUNL abstraction: preflop opens to 2, 2.5, 3 and 4 big blinds, 3-bets to about 2.4x, 3x and
#: 4x, 4-bets to about 2.2x; postflop bets of 1/3, 1/2, 3/4, 1 and 2 pots on the flop (1/2, 1, 2 later),
#: one raise size (a pot), then all-in only
HUNL_DEFAULT = ActionAbstraction(
    sizes=(((0.5, 0.75, 1.0, 1.5), (0.7, 1.0, 1.5), (0.6,)),
           ((1 / 3, 0.5, 0.75, 1.0, 2.0), (1.0,)),
           ((0.5, 1.0, 2.0), (1.0,)),
           ((0.5, 1.0, 2.0), (1.0,))),
    max_raises=(3, 2, 2, 2))


def raise_target(state: State, fraction: float) -> int:
    """The raise-to of a pot-fraction raise in ``state``, within the engine's bounds (the caller checks one exists)."""
    bounds = state.raise_bounds()
    assert bounds is not None
    lo, hi = bounds
    to = state.max_spent + int(round(fraction * (state.pot + state.to_call())))
    return min(max(to, lo), hi)


def pot_fraction(state: State, to: int) -> float:
    """The pot fraction a raise to ``to`` chips is in ``state`` (the inverse of ``raise_target`` before bounds)."""
    return (to - state.max_spent) / max(1, state.pot + state.to_call())


def abstract_actions(state: State, abstraction: ActionAbstraction | None) -> tuple[Action, ...]:
    """The tree's actions at ``state``: fold (facing a bet), call, the sizes' raises ascending, all-in.

    Limit games (or ``abstraction`` None) have the engine's own types.
    """
    legal = state.legal_actions()
    out: list[Action] = [FOLD] if ActionType.FOLD in legal else []
    out.append(CALL)
    if ActionType.RAISE not in legal:
        return tuple(out)
    if not state.game.is_nolimit or abstraction is None:
        out.append(RAISE)
        return tuple(out)
    bounds = state.raise_bounds()
    assert bounds is not None
    hi = bounds[1]
    seen: set[int] = set()
    for f in abstraction.fractions(state.round, state.num_raises):
        to = raise_target(state, f)
        if to < hi and to not in seen:
            seen.add(to)
            out.append(raise_to(to))
    out[len(out) - len(seen):] = sorted(out[len(out) - len(seen):], key=lambda a: a[1])
    out.append(raise_to(hi))
    return tuple(out)


class BlueprintTree:
    """Every betting sequence of a 2-player game under an action abstraction, as flat lists.

    Decision node ``n``: ``actor[n]``, ``round[n]``, ``actions[n]``,
    ``children[n]`` (a node id, or ``-1 - t`` for terminal ``t``) and
    ``base[n]``, the offset of its rows: entry ``base[n] + key * len(actions[n]) + a``
    of a flat table holds action ``a`` for information key ``key``
    (0 <= key < ``widths[round]``).  Terminal ``t``: ``fold_value[t]`` (player
    0's payoff; None at a showdown) and ``stake[t]`` (what each player
    risks at a showdown).
    """

    def __init__(self, game: GameDef, abstraction: ActionAbstraction | None, widths: tuple[int, ...],
                 max_nodes: int = 20_000_000, *, grow: bool = True) -> None:
        if game.num_players != 2:
            raise ValueError(f"{game.name or 'this game'}: the betting tree is for 2-player games")
        if len(widths) != game.num_rounds:
            raise ValueError(f"{len(widths)} key widths for a game of {game.num_rounds} rounds")
        self.game = game
        self.abstraction = abstraction
        self.widths = tuple(int(w) for w in widths)
        self.actor: list[int] = []
        self.round: list[int] = []
        self.actions: list[tuple[Action, ...]] = []
        self.children: list[list[int]] = []
        self.base: list[int] = []
        self.fold_value: list[float | None] = []
        self.stake: list[float] = []
        self.size = 0          # entries of a flat table
        self._max_nodes = max_nodes
        if grow:  # grow=False: empty lists, filled by the caller (``load_cache`` reads them from arrays)
            self._grow(State(game))

    def _terminal(self, state: State) -> int:
        spent = state.spent
        if state.num_folded:
            self.fold_value.append(float(-spent[0] if state.folded[0] else spent[1]))
            self.stake.append(0.0)
        else:
            self.fold_value.append(None)
            self.stake.append(float(min(spent)))
        return -len(self.fold_value)

    def _grow(self, root: State) -> None:
        # iterative depth-first: a node's id is given before its children's, children filled in order
        stack: list[tuple[State, int, int]] = [(root, -1, 0)]
        while stack:
            state, parent, slot = stack.pop()
            if state.finished:
                ident = self._terminal(state)
            else:
                ident = len(self.actor)
                if ident >= self._max_nodes:
                    raise ValueError(f"the abstraction has more than {self._max_nodes:,} decision nodes")
                acts = abstract_actions(state, self.abstraction)
                self.actor.append(state.current_player)
                self.round.append(state.round)
                self.actions.append(acts)
                self.children.append([0] * len(acts))
                self.base.append(self.size)
                self.size += self.widths[state.round] * len(acts)
                for i in range(len(acts) - 1, -1, -1):
                    stack.append((state.copy().apply_unchecked(acts[i]), ident, i))
            if parent >= 0:
                self.children[parent][slot] = ident

    @property
    def num_nodes(self) -> int:
        """Decision nodes."""
        return len(self.actor)

    def entries_by_round(self) -> list[int]:
        """Flat-table entries of each round's decision nodes."""
        out = [0] * self.game.num_rounds
        for r, acts in zip(self.round, self.actions):
            out[r] += self.widths[r] * len(acts)
        return out

    def child(self, node: int, action: Action) -> int | None:
        """The child of ``node`` by ``action`` (None when the node has no such action)."""
        try:
            return self.children[node][self.actions[node].index(action)]
        except ValueError:
            return None
