"""The JSON policy format: information-set keys as the dealer writes them, action probabilities per key.

A policy file is one JSON object ``{"<position>:<betting>:<cards>": {"f": p,
"c": p, "r": p}, ...}``.  The key is the MATCHSTATE text the acting player
receives, without ``MATCHSTATE:`` and without the hand number
(``0:rc/:Kh|/Qs``); only legal actions are listed.
"""

from __future__ import annotations

import json
import math
import os
from pathlib import Path
from typing import Mapping

import numpy as np

from ..atomic import atomic_write
from ..engine import ActionType, State
from ..gamedef import GameDef
from ..notation import ProtocolError, info_key, key_of_line, line_of_key
from ..notation.matchstate import parse_match_state
from .tree import ACTION_CHARS, ACTION_TYPES, GameTooBig, PublicTree, build_tree

Policy = dict[str, dict[str, float]]

#: how far a row's probabilities may sum from 1 (files round to 9 decimals)
SUM_TOLERANCE = 1e-6
_DIGITS = 9


class PolicyError(ValueError):
    """A policy file that cannot be read, does not fit the game, or lacks an information set."""


def infoset_key(state: State, position: int) -> str:
    """The key of the state ``position`` is to act in: its MATCHSTATE text without the prefix and hand number.

    Only ``position``'s own hole cards and the board are used, whatever
    else ``state`` knows (:func:`acpcbot.notation.info_key`, the one key).
    """
    return info_key(state, position)


def key_of_match_state(line: str) -> str:
    """``MATCHSTATE:<position>:<hand>:<betting>:<cards>`` -> ``<position>:<betting>:<cards>``; PolicyError otherwise."""
    try:
        return key_of_line(line)
    except ProtocolError as exc:
        raise PolicyError(str(exc)) from None


def match_state_of_key(key: str, hand_id: int = 0) -> str:
    """The MATCHSTATE line a key stands for, with hand number ``hand_id``; PolicyError for a malformed key."""
    try:
        return line_of_key(key, hand_id)
    except ProtocolError as exc:
        raise PolicyError(str(exc)) from None


def tree_infosets(tree: PublicTree) -> list[tuple[int, int, str]]:
    """(decision index, hand index, key) for every information set that can occur."""
    out = []
    for d, node in enumerate(tree.dec_node):
        state = tree.states[node]
        player = int(tree.dec_player[d])
        for i in np.flatnonzero(tree.compat[node]):
            hole: list[tuple[int, ...]] = [()] * len(state.hole)
            hole[player] = tuple(tree.hands[i])
            dealt = state.copy().reveal(hole, tree.boards[node])
            out.append((d, int(i), infoset_key(dealt, player)))
    return out


def policy_from_strategy(tree: PublicTree, sigma: np.ndarray) -> Policy:
    """The policy dict of a (decision, action, hand) strategy array, legal actions only, keys sorted."""
    policy: Policy = {}
    for d, i, key in tree_infosets(tree):
        row = {}
        for col, ch in enumerate(ACTION_CHARS):
            if tree.dec_legal[d, col]:
                row[ch] = round(float(sigma[d, col, i]), _DIGITS)
        policy[key] = row
    return dict(sorted(policy.items()))


def strategy_from_policy(tree: PublicTree, policy: Mapping[str, Mapping[str, float]]) -> np.ndarray:
    """The (decision, action, hand) strategy array of a policy; PolicyError naming a key it cannot use.

    Rows are renormalised; a missing key, an action not legal at the key or
    a row without probability mass is an error (``read_policy`` has checked
    a file's rows already, a mapping built in code may not be).
    """
    sigma = tree.uniform()
    for d, i, key in tree_infosets(tree):
        row = policy.get(key)
        if row is None:
            raise PolicyError(f"the policy has no entry for information set {key!r}")
        for ch in row:
            if ch not in ACTION_CHARS or not tree.dec_legal[d, ACTION_CHARS.index(ch)]:
                raise PolicyError(f"information set {key!r}: action {ch!r} is not legal there")
        total = sum(row.values())
        if not total > 0:
            raise PolicyError(f"information set {key!r}: its probabilities sum to {total}")
        for col, ch in enumerate(ACTION_CHARS):
            sigma[d, col, i] = row.get(ch, 0.0) / total if tree.dec_legal[d, col] else 0.0
    return sigma


def write_policy(path: str | os.PathLike[str], policy: Policy) -> None:
    """Write a policy as JSON, one key per line; the old file is replaced only once the new one is whole."""
    lines = [f"  {json.dumps(key)}: {json.dumps(row)}" for key, row in policy.items()]
    text = "{\n" + ",\n".join(lines) + "\n}\n"
    with atomic_write(path) as fh:
        fh.write(text)


def read_policy(path: str | os.PathLike[str], game: GameDef) -> Policy:
    """Read and check a policy file for ``game``: every key a state the dealer can send, every row legal."""
    try:
        text = Path(path).read_text()
    except (OSError, UnicodeDecodeError) as exc:
        raise PolicyError(f"cannot read policy file {os.fspath(path)}: {exc}") from None
    try:
        data = json.loads(text)
    except (ValueError, RecursionError) as exc:
        # JSONDecodeError, and what json.loads raises beyond it: a number of over 4,300 digits
        # (ValueError) or arrays nested too deep (RecursionError)
        raise PolicyError(f"policy file {os.fspath(path)} is not valid JSON: {str(exc)[:200]}") from None
    return check_policy(data, game, os.fspath(path))


def check_policy(data: object, game: GameDef, source: str = "<policy>") -> Policy:
    """Validate a decoded policy against ``game``; errors name the source and the key."""
    if not isinstance(data, dict):
        raise PolicyError(f"{source}: a policy is a JSON object of information sets, got {type(data).__name__}")
    policy: Policy = {}
    for key, row in data.items():
        where = f"{source}, key {key!r}"
        try:
            ms = parse_match_state(match_state_of_key(key), game)
        except (ProtocolError, PolicyError) as exc:
            raise PolicyError(f"{where}: not a state the dealer can send: {exc}") from None
        state = ms.state
        if not ms.is_my_turn:
            raise PolicyError(f"{where}: position {ms.position} is not the one to act there")
        if any(h for p, h in enumerate(state.hole) if p != ms.position):
            raise PolicyError(f"{where}: shows another player's hole cards")
        canonical = infoset_key(state, ms.position)
        if canonical != key:
            raise PolicyError(f"{where}: the dealer writes this state as {canonical!r}")
        if not isinstance(row, dict) or not row:
            raise PolicyError(f"{where}: expected an object of action probabilities such as "
                              f'{{"c": 0.5, "r": 0.5}}, got {row!r}')
        legal = {ACTION_CHARS[ACTION_TYPES.index(a)] for a in state.legal_actions()}
        clean: dict[str, float] = {}
        for action, p in row.items():
            if action not in legal:
                raise PolicyError(f"{where}: action {action!r} is not legal there (legal: {''.join(sorted(legal, key=ACTION_CHARS.index))})")
            if isinstance(p, bool) or not isinstance(p, (int, float)) or not math.isfinite(p) or p < 0:
                raise PolicyError(f"{where}: probability of {action!r} must be a number >= 0, got {p!r}")
            clean[action] = float(p)
        total = sum(clean.values())
        if abs(total - 1.0) > SUM_TOLERANCE:
            raise PolicyError(f"{where}: probabilities sum to {total}, not 1")
        policy[key] = clean
    return policy


def missing_infosets(policy: Mapping[str, object], game: GameDef) -> list[str]:
    """The information sets of ``game`` that ``policy`` has no row for, in tree order.

    GameTooBig when the game is one the solver refuses (no-limit, or its
    tree too big): no policy file of ours can cover it.
    """
    missing: dict[str, None] = {}
    for _, _, key in tree_infosets(build_tree(game)):
        if key not in policy:
            missing[key] = None
    return list(missing)


def check_coverage(policy: Mapping[str, object], game: GameDef, source: str = "<policy>") -> None:
    """PolicyError unless ``policy`` has a row for every information set of ``game`` (it names the first missing keys).

    A game the solver refuses cannot be checked, and is refused too: a
    player would otherwise meet its missing states only during the match.
    """
    try:
        missing = missing_infosets(policy, game)
    except GameTooBig as exc:
        raise PolicyError(f"{source}: cannot check that the policy covers {game.name or 'the game'}: {exc}") from None
    if missing:
        shown = ", ".join(repr(k) for k in missing[:3]) + (", ..." if len(missing) > 3 else "")
        raise PolicyError(f"{source}: no entry for {len(missing)} of the game's information sets "
                          f"(for example {shown}); a policy must cover every state the player can act in: "
                          f"solve {game.name or 'the game'} again with python -m acpcbot.solve")


def action_of_char(ch: str) -> ActionType:
    """The action type of a policy action letter."""
    return ACTION_TYPES[ACTION_CHARS.index(ch)]
