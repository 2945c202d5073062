"""The ``cfr`` player: plays a policy file made by ``python -m acpcbot.solve`` (shipped for Kuhn and Leduc).

The policy maps each information set, written as the dealer writes the
state (``0:rc/:Kh|/Qs``), to action probabilities; the player samples them
with its seeded generator.  A policy that lacks a state of its game is
refused when the player is created (a clear error before the match, naming
the keys), never a guess and never an error in the middle of play.
"""

from __future__ import annotations

import functools
import itertools
from importlib import resources
from typing import TYPE_CHECKING, Any, ClassVar

import numpy as np

from ..cards import cards_to_text
from ..engine import CALL, FOLD, RAISE, Action, ActionType
from ..gamedef import GameDef, load_game
from ..holdings import blocked, holdings
from ..solve.policy import Policy, PolicyError, check_coverage, infoset_key, key_of_match_state, read_policy
from .base import INLINE_ENDS, ActionPolicy, Param, Strategy
from .registration import register

if TYPE_CHECKING:
    from ..world import View

#: games with a policy in acpcbot/data/policy_<name>.json
SHIPPED_POLICIES = ("kuhn2p", "kuhn3p", "leduc")
_ACTION_OF = {"f": FOLD, "c": CALL, "r": RAISE}


class MissingInfoset(PolicyError):
    """The policy has no entry for a state the player must act in."""


@functools.cache
def _shipped_games() -> tuple[tuple[str, GameDef], ...]:
    return tuple((name, load_game(name)) for name in SHIPPED_POLICIES)


def shipped_policy(game: GameDef) -> str | None:
    """The shipped policy file for ``game`` (compared by its rules, not its name), or None."""
    for name, shipped in _shipped_games():
        if shipped == game:
            return str(resources.files("acpcbot").joinpath("data", f"policy_{name}.json"))
    return None


@functools.lru_cache(maxsize=8)
def _load(path: str, game: GameDef) -> Policy:
    # several seats of one process share a read (and checked) policy
    policy = read_policy(path, game)
    check_coverage(policy, game, f"policy file {path}")
    return policy


@register
class CFRStrategy(Strategy):
    """Samples its action from an equilibrium policy computed by the CFR solver."""

    name = "cfr"
    description = ("Plays an approximate equilibrium policy from acpcbot.solve (JSON); "
                   "shipped for kuhn2p, kuhn3p and leduc.")
    params: ClassVar[dict[str, Param]] = {
        "policy": Param(str, "", "policy JSON file from python -m acpcbot.solve "
                                 "(default: the shipped policy of the game)"),
    }
    run_mode = INLINE_ENDS

    def __init__(self, game: GameDef, rng: Any, **params: Any) -> None:
        path = params.get("policy") or ""
        super().__init__(game, rng, **params)  # unsupported_reason_for: an explicit file may cover any game
        vars(self).pop("policy", None)  # the parameter lives on as policy_path; the name is the policy method's
        self.policy_path = path or shipped_policy(game) or ""
        self.table = _load(self.policy_path, game)

    @classmethod
    def unsupported_reason_for(cls, game: GameDef, params: dict[str, Any]) -> str | None:
        """An explicit policy file decides which game it covers (read_policy checks every key against the game),
        so the shipped-policy test must not refuse it."""
        return None if params.get("policy") else cls.unsupported_reason(game)

    @classmethod
    def unsupported_reason(cls, game: GameDef) -> str | None:
        """Refuses games without a shipped policy (give ``policy=FILE`` for others)."""
        if shipped_policy(game) is not None:
            return None
        return (f"no shipped policy for it (shipped: {', '.join(SHIPPED_POLICIES)}); solve it with "
                f"`python -m acpcbot.solve GAME --out FILE` and play cfr:policy=FILE")

    has_policy = True

    def policy(self, view: View) -> ActionPolicy:
        """The file's row of every holding's information set here (holdings sharing a board card: uniform).

        With several hole cards a file may give each order they were dealt
        in its own row; a holding's row is then the mean of its orders'.
        """
        state = view.state
        position = view.position
        legal = state.legal_actions()
        chars = [ch for ch, kind in zip("fcr", (ActionType.FOLD, ActionType.CALL, ActionType.RAISE)) if kind in legal]
        table = holdings(self.game)
        dead = blocked(self.game, state.board)
        probs = np.full((len(table), len(chars)), 1.0 / len(chars))
        keys = _keys_by_hole(state, position)
        for i, cards in enumerate(table):
            if dead[i]:
                continue
            rows = []
            for order in itertools.permutations(int(c) for c in cards):
                key = keys(order)
                row = self.table.get(key)
                if row is not None:
                    total = sum(row.values())
                    rows.append([row.get(ch, 0.0) / total for ch in chars])
            if not rows:
                raise MissingInfoset(f"policy {self.policy_path} has no information set {key!r}")
            probs[i] = rows[0] if len(rows) == 1 else np.mean(rows, axis=0)
        return ActionPolicy(tuple(_ACTION_OF[ch] for ch in chars), probs, self.game)

    def act(self, view: View, deadline: float) -> Action:
        """Sample the policy's probabilities for this information set."""
        key = getattr(view, "infoset_key", None) or key_of_match_state(view.text)
        row = self.table.get(key)
        if row is None:
            # a dealer may write a state differently from ours: try the canonical text
            row = self.table.get(infoset_key(view.state, view.position))
        if row is None:
            raise MissingInfoset(f"policy {self.policy_path} has no information set {key!r}")
        x = self.rng.random() * sum(row.values())
        choice = ""
        for ch in "fcr":  # a fixed order keeps games reproducible whatever the file's order
            p = row.get(ch, 0.0)
            if p > 0:
                choice = ch
                x -= p
                if x < 0:
                    break
        return _ACTION_OF[choice]


def _keys_by_hole(state: Any, position: int) -> Any:
    """A function giving the information-set key of ``position`` in ``state`` had it held given hole cards.

    The key is built once and only the seat's hole-card text is swapped
    (the hole groups come before the first '/'; a game dealing board cards
    in the first round appends them to the last group, so it takes the slow path).
    """
    key = infoset_key(state, position)
    head, _, cards = key.rpartition(":")
    groups, slash, boards = cards.partition("/")
    parts = groups.split("|")
    if state.game.num_board_cards[0] or len(parts) != state.game.num_players:
        def slow(hole: tuple[int, ...]) -> str:
            return infoset_key(state.view_of(position, holding=hole), position)
        return slow

    def fast(hole: tuple[int, ...]) -> str:
        parts[position] = cards_to_text(hole)
        return f"{head}:{'|'.join(parts)}{slash}{boards}"
    return fast

