"""The heads-up limit hold'em blueprint's spec: abstraction CFR over 169 x 8 x 6 x 10 buckets, river re-solved.

The code is ``abstraction`` (buckets), ``blueprint_train`` (the build) and
``blueprint`` (the play-time table); this module only describes them for
the registry, loading each lazily so that a process which never plays
hold'em never reads their tables.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .blueprint_files import DEFAULT_BUCKETS, DEFAULT_POLICY, is_limit_holdem
from .blueprint_spec import BlueprintSpec, PathArg

if TYPE_CHECKING:
    from ..gamedef import GameDef
    from .blueprint import Blueprint


def _load(game: GameDef, policy: PathArg, buckets: PathArg | None) -> Blueprint:
    from .blueprint import Blueprint  # noqa: PLC0415 - numpy tables only for the games that use them
    return Blueprint(game, policy, buckets or DEFAULT_BUCKETS)


def _check(game: GameDef, policy: PathArg, buckets: PathArg | None) -> None:
    """``Blueprint``'s own refusal (its words) when the files' headers say they cannot be played in ``game``: the
    game the policy was trained for, the buckets' sizes; the tables are not read (a damaged one is refused at load)."""
    from .abstraction import bucket_counts  # noqa: PLC0415 - numpy only for the games that use it
    from .blueprint import check_fits  # noqa: PLC0415
    from .cfr_core import read_policy_header  # noqa: PLC0415
    buckets = buckets or DEFAULT_BUCKETS
    bucket_k = bucket_counts(buckets)
    game_text, k = read_policy_header(policy)
    check_fits(game, policy, buckets, game_text, k, bucket_k)


def _train(argv: list[str]) -> int:
    from .blueprint_train import main  # noqa: PLC0415
    return main(argv)


def _resolver(game: GameDef, table: Blueprint, iterations: int, seconds: float, start_round: int) -> Any:
    from .resolving.clock import Budget, nested_settings  # noqa: PLC0415 - the solver loads only when re-solving
    from .resolving.player import Resolver  # noqa: PLC0415
    return Resolver(game, table.probabilities_all, Budget(iterations, seconds), start_round=start_round,
                    **nested_settings(game.num_rounds, start_round, iterations, seconds))


HULHE = BlueprintSpec(
    name="hulhe",
    game="hulhe",
    fits=is_limit_holdem,
    card_abstraction="169 lossless preflop classes; flop: 8 k-means clusters per class of the distribution of river "
                     "strength over the runouts; turn: 6 clusters per (class, flop cluster); river: 10 strength "
                     "percentile buckets (acpcbot.solve.abstraction)",
    action_abstraction="none: the limit game's own betting (fold, call, raise)",
    cards_to_buckets="class from the hole pair; flop cluster from a table over the 1,755 suit-canonical flops; turn "
                     "and river buckets computed from the 48 river boards / the river board (acpcbot.solve.blueprint)",
    buckets=DEFAULT_BUCKETS,
    policy=DEFAULT_POLICY,
    build="python -m acpcbot.solve hulhe --checkpoint /tmp/blueprint.ckpt.npz",
    load=_load,
    check=_check,
    train=_train,
    resolver=_resolver,
    about="It plays blueprint: an approximate equilibrium of an abstraction of heads-up limit hold'em "
          "(169 preflop classes, then 8 flop, 6 turn and 10 river buckets), computed offline with "
          "discounted CFR (python -m acpcbot.solve hulhe) and sampled at each decision for its cards.  "
          "Its strategy is the same throughout a match: it models no opponent.  More CPU time, RAM or "
          "disk would not change its play during a match (a decision is a table lookup).",
)
