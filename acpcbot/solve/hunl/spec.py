"""The heads-up no-limit hold'em blueprint's spec for the registry: MCCFR over pot-fraction sizes and EMD buckets.

The re-solver (``resolver``): ``acpcbot.solve.resolving.player.Resolver``
over the table's rows and actions, the subgame's betting the policy's own
ladder of pot fractions (``LadderSizes``) plus the opponent's real sizes,
and a ``MatchClock`` (2 s a hand on average, 6 s a solve at most); see
docs/resolving-hunl.md.
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING, Any

from ..blueprint_files import DEFAULT_BUCKETS
from ..blueprint_spec import BlueprintSpec, PathArg
from .files import DEFAULT_POLICY, fits

if TYPE_CHECKING:
    from ...gamedef import GameDef
    from ..subgame.abstraction import LadderSizes
    from .policy import HunlBlueprint


def _load(game: GameDef, policy: PathArg, buckets: PathArg | None) -> HunlBlueprint:
    from .policy import HunlBlueprint  # noqa: PLC0415 - the tree and tables only for the games that use them
    return HunlBlueprint(game, policy, buckets or DEFAULT_BUCKETS)


def _check(game: GameDef, policy: PathArg, buckets: PathArg | None) -> None:
    from .header import check_header  # noqa: PLC0415 - numpy only for the games that use it
    check_header(game, policy, buckets or DEFAULT_BUCKETS)


def _train(argv: list[str]) -> int:
    from .train import main  # noqa: PLC0415
    return main(argv)


def _resolver(game: GameDef, table: HunlBlueprint, iterations: int, seconds: float, start_round: int) -> Any:
    from ..resolving.clock import Budget, MatchClock, nested_settings  # noqa: PLC0415 - only when re-solving
    from ..resolving.player import Resolver  # noqa: PLC0415
    from ..subgame.abstraction import LadderSizes  # noqa: PLC0415
    abstraction = table.tree.abstraction
    assert abstraction is not None  # a no-limit policy's tree has its sizes
    ladder = LadderSizes(bet_fractions=(), raise_fractions=(), min_raise=False, ladder=abstraction.sizes,
                         caps=abstraction.max_raises)
    # from the turn: the river inside the turn's subgame as classes of cards, re-solved at its start (as hold'em's);
    # the turn's subgame on a ladder of its own (the blueprint's has 344 decision nodes there: minutes a solve)
    last = game.num_rounds - 1
    coarse = turn_ladder(ladder, last)
    return Resolver(game, table.probabilities_all, Budget(iterations, seconds), start_round=start_round,
                    actions=table.actions, sizes=lambda root: ladder if root.round >= last else coarse,
                    clock=MatchClock(), **nested_settings(game.num_rounds, start_round, iterations, seconds))


#: a subgame rooted before the river bets a pot or all-in, and after TURN_RAISES raises a street only all-in; the
#: opponent's real sizes enter it as everywhere (nested solving), the river is re-solved on the full ladder at its
#: start.  32 decision nodes from a turn's start (the blueprint's ladder: 344), under a second of CPU for 40
#: iterations with the river as 3 classes (docs/resolving-hunl.md, "From the turn")
TURN_FRACTIONS = (1.0,)
TURN_RAISES = 1


def turn_ladder(ladder: LadderSizes, last_round: int) -> LadderSizes:
    """``ladder`` with every round from the turn on (before ``last_round``'s, and the last's inside a turn subgame)
    betting TURN_FRACTIONS of the pot and all-in, TURN_RAISES raises a street before all-in only."""
    early = last_round - 1
    rounds = len(ladder.ladder)
    return replace(ladder, ladder=ladder.ladder[:early] + ((TURN_FRACTIONS,),) * (rounds - early),
                   caps=tuple(ladder.caps[:early]) + (TURN_RAISES,) * (rounds - early))


HUNL = BlueprintSpec(
    name="hunl",
    game="hunl",
    fits=fits,
    card_abstraction="169 lossless preflop classes; flop and turn: k-means under the earth mover's distance (64 and 48 "
                     "keys) over the hold'em bucket histories' river-strength distributions; river: 10 strength "
                     "buckets (acpcbot.solve.hunl.cards over hulhe_buckets.npz)",
    action_abstraction="pot fractions: preflop opens 0.5/0.75/1/1.5 pot (2-4 bb), 3-bets 0.7/1/1.5, 4-bets 0.6; "
                       "flop bets 1/3, 1/2, 3/4, 1, 2 pots, turn and river 1/2, 1, 2; raises of a pot; all-in always; "
                       "at most 3/2/2/2 raises a round before all-in; sizes below the minimum raise lifted to it; "
                       "the opponent's sizes read by pseudo-harmonic translation (acpcbot.solve.hunl.actions)",
    cards_to_buckets="the hold'em bucket history of the hole pair on the board (acpcbot.solve.blueprint), then the "
                     "policy file's flop/turn key maps; river keys are the strength bucket",
    buckets=DEFAULT_BUCKETS,
    policy=DEFAULT_POLICY,
    build="python -m acpcbot.solve hunl --minutes 120 --checkpoint hunl.ckpt.npz",
    # adaptive standing on it is hunl's default: LBR wins +1,397 against the blueprint under S2 and loses against
    # adaptive on it; under `full` they are level on the same 2,000 deals a seating (+2,509 and +2,735, where
    # adaptive alone gave ~10,000); both beat the whole field at 300 deals a seating (docs/results.md)
    default_players=True,
    default_strategy="adaptive",
    load=_load,
    check=_check,
    train=_train,
    resolver=_resolver,
    about="It plays blueprint: an approximate equilibrium of an abstraction of heads-up no-limit hold'em "
          "(169 preflop classes, then 64 flop, 48 turn and 10 river buckets; bets of fractions of the pot, the "
          "opponent's other sizes read by pseudo-harmonic translation), computed offline with external-sampling "
          "Monte Carlo CFR (python -m acpcbot.solve hunl) and sampled at each decision for its cards; on the river it "
          "re-solves the subgame over the real cards (safe re-solving: both ranges the blueprint's reach, the "
          "opponent's real bet sizes in the tree, at most 6 s a decision and 2 s a hand on average).  It models no "
          "opponent.  More CPU time would let it re-solve more iterations or from the turn.",
)
