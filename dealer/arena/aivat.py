"""AIVAT and all-in expectation for a run, from its dealer logs: the known players' policies replayed, hand by hand.

A player is *known* when its strategy exposes its policy
(``Strategy.has_policy``).  Its policy at each of its decisions is
recovered after the match by replaying the match log through a fresh copy
of the strategy, made from the same spec and seed as in the match and told
the same match information: the copy sees every state its seat saw, in
order (``observe``, ``end_hand``), and is asked for its ``policy`` where the
seat acted (never ``act``: a policy depends only on what the strategy has
seen, see ``Strategy.policy``).  Logs hold every card, so the same replay
works for matches played in memory, over TCP or merged from elsewhere.
Each hand is then valued by ``acpcbot.measure.aivat.Evaluator``; a decision
where the logged action has no probability under the replayed policy is
counted as a mismatch (the replay did not reproduce the player, or its
policy and play disagree) and reported beside the figures.  A strategy
declaring ``deterministic`` (one-hot rows that ``act`` plays) is not
replayed: each correction of its actions is zero, so only the board cards
are corrected (and no mismatch can be seen).  A strategy that kept the rows
it played from (``Strategy.played_policy``: the re-solving blueprint,
adaptive on its floor, LBR's target proxy) is not replayed either when its
played-rows file (``folders.played_rows_name``) has a row for every one of
its decisions in the log: those rows are its policy there, read instead of
solving every subgame again.

Heads-up runs only; without a known player there is no AIVAT figure (the
results say why), while all-in expectation needs no policy and is given for
every heads-up run.
"""

from __future__ import annotations

import contextlib
import gc
import multiprocessing
import os
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Sequence

import numpy as np

from acpcbot.engine import State, Step
from acpcbot.gamedef import GameDef
from acpcbot.matchlog import MatchLog
from acpcbot.measure.aivat import PREFLOP_BOARDS, Evaluator
from acpcbot.measure.matchup import preflop_ranks
from acpcbot.notation.matchstate import state_head, state_line
from acpcbot.notation.played import PlayedRow, read_played_rows
from acpcbot.policy_types import holding_free_policy
from acpcbot.protocol import CardsText, MatchState, ProtocolError, format_betting
from acpcbot.strategies.base import ActionPolicy, Strategy
from acpcbot.world import MatchInfo, World

from .folders import played_rows_name
from .handsteps import light_steps
from .prefetch import AIVAT_SEED, take_memo
from .recipes import strategy_seed
from .stats import Estimate, estimate, mbb_scale, pooled_cells

VALUE_FUNCTION = ("u_p = eq_p * 2M - M: the share of a pot both players fill to the bet M (capped at the smaller "
                  "stack) if both check/call to showdown, eq_p the showdown equity against the opponent's actual "
                  "hand with the rest of the board rolled out; corrections at every board card and at every "
                  "decision of a player with a known policy; hole cards uncorrected")


def known_policy(spec: str) -> bool:
    """Whether the strategy ``spec`` names exposes its policy (False for externals and unknown specs)."""
    return _policy_kind(spec) is not None


def _policy_kind(spec: str, game: GameDef | None = None) -> str | None:
    """"deterministic" (in ``game``, when given) or "mixed" for a strategy exposing its policy, None otherwise."""
    from acpcbot.strategies.registry import resolve

    try:
        cls, params = resolve(spec)
    except Exception:  # noqa: BLE001 - an unknown or external player simply has no known policy
        return None
    if not cls.has_policy:
        return None
    deterministic = cls.deterministic if game is None else cls.deterministic_for(game, params)
    return "deterministic" if deterministic else "mixed"


class Replay:
    """A fresh copy of one seat's strategy, fed the match's states as its seat saw them."""

    def __init__(self, spec: str, game: GameDef, name: str, seed: int, opponents: tuple[str, ...]) -> None:
        from acpcbot.strategies.registry import create

        self.name = name
        self.strategy: Strategy = create(spec, game, seed)
        info = MatchInfo(game=game, name=name, seed=seed, opponents=opponents, spec=self.strategy.spec)
        self.strategy.start_match(info)
        self.world = World(game, info)

    def hand(self, final: State, position: int, steps: Sequence[Step] | None = None) -> dict[int, ActionPolicy]:
        """Replay one finished hand from the seat at ``position``; its policy at each of its decisions."""
        out: dict[int, ActionPolicy] = {}
        steps = final.steps() if steps is None else steps
        states = [s.before for s in steps] + [final]
        strategy = self.strategy
        cards = CardsText(final)  # every line of the hand from one encoder, as the dealer writes them
        for i, state in enumerate(states):
            seen = state.view_of(position)
            betting = format_betting(state)
            text = state_line(state_head(position, state.hand_id), betting, cards.field(state, position))
            view = self.world.update(text, MatchState(position, state.hand_id, seen, betting))
            strategy.observe(view)
            if i < len(steps) and steps[i].player == position:
                out[i] = strategy.policy(view)
            if view.is_final:
                strategy.end_hand(view)
        return out


@dataclass
class RunAIVAT:
    """Per-hand values of a run: for each log, per player, AIVAT and all-in values in log order."""

    known: list[str]
    aivat: list[dict[str, list[float]]] = field(default_factory=list)
    allin: list[dict[str, list[float]]] = field(default_factory=list)
    mismatches: int = 0
    notes: list[str] = field(default_factory=list)


#: parallel evaluation (one worker per core) from this many hands on, over two or more matches
PARALLEL_HANDS = 1_500
#: one match's equities computed on every core from this many hands on
#: (a second process costs more CPU than it saves below that: a 20,000-hand match's equities take about
#: half a second of one core)
PARALLEL_EQUITY_HANDS = 100_000


@dataclass
class MatchAIVAT:
    """One match's values: per player, AIVAT and all-in values in log order; mismatches and notes."""

    aivat: dict[str, list[float]]
    allin: dict[str, list[float]]
    mismatches: int
    notes: list[str]
    #: per player, each hand's corrections taken out of its payoff (payoff = aivat + chance + action): the board
    #: cards' and the known decisions' (arrays in log order)
    chance: dict[str, np.ndarray] = field(default_factory=dict)
    action: dict[str, np.ndarray] = field(default_factory=dict)


def evaluate_match(rec: dict[str, Any], mlog: MatchLog, spec_of: dict[str, str], known: Sequence[str],
                   game: GameDef, steps: Sequence[Sequence[Step]] | None = None,
                   starmap: Any = None) -> MatchAIVAT:
    """Every hand of one match: the known seats' policies replayed, each hand valued.

    ``steps``: each hand's ``handsteps.light_steps``, when the caller has
    them; hands with a policy to replay use ``State.steps()`` (the replay
    reads whole states).  ``starmap``: a process pool's, to compute the
    equities on several cores (``Evaluator.equities``).
    """
    seat_names = [s["player"] for s in rec["seats"]]
    notes: list[str] = []
    replays: dict[str, Replay] = {}
    played: dict[str, dict[tuple[int, int], PlayedRow]] = {}
    for s, name in enumerate(seat_names):
        # a deterministic policy's corrections are all zero: nothing to replay
        if name not in known or _policy_kind(spec_of.get(name, ""), game) == "deterministic":
            continue
        rows = played_rows(rec, mlog, s, name, game, notes)
        if rows is not None:  # the rows it played from, kept in the match: nothing to replay
            played[name] = rows
            continue
        try:
            replays[name] = Replay(spec_of.get(name, rec["seats"][s].get("strategy", "")), game, name,
                                   strategy_seed(rec["seed"], name), tuple(n for t, n in enumerate(seat_names) if t != s))
        except Exception as exc:  # noqa: BLE001 - a player we cannot rebuild is left unknown here
            notes.append(f"{rec['label']}: {name}'s policy cannot be replayed ({type(exc).__name__}: {exc}); "
                         f"its decisions are not corrected there")
    evaluator = Evaluator(game, seed=AIVAT_SEED, memo=take_memo(mlog.path))  # a follower's equities, if any
    out = MatchAIVAT({}, {}, 0, notes)
    finals: list[State] = []
    all_steps: list[Sequence[Step]] = []
    all_policies: list[dict[int, ActionPolicy]] = []
    for k, hand in enumerate(mlog.hands):
        policies: dict[int, ActionPolicy] = {}
        if replays or played:
            hand_steps: Sequence[Step] = hand.state.steps()
        else:
            hand_steps = steps[k] if steps is not None else light_steps(hand.state)
        for name, rows in played.items():
            position = hand.names.index(name)
            for step in hand_steps:
                if step.player == position:
                    row = rows[hand.hand_id, step.index]
                    policies[step.index] = holding_free_policy(game, row.actions, row.probs)
        for name, replay in list(replays.items()):
            try:
                policies.update(replay.hand(hand.state, hand.names.index(name), hand_steps))
            except Exception as exc:  # noqa: BLE001 - a failing replay stops correcting that player
                notes.append(f"{rec['label']} hand {hand.hand_id}: replaying {name} failed "
                             f"({type(exc).__name__}: {exc}); its later decisions are not corrected")
                del replays[name]
        finals.append(hand.state)
        all_steps.append(hand_steps)
        all_policies.append(policies)
    # the equities of every hand at once, a numpy pass per street, and the terms a betting line at a time
    values = evaluator.batch(finals, all_policies, all_steps, starmap)
    out.mismatches += int(values.mismatches.sum())
    first = [hand.names[0] for hand in mlog.hands]
    order = list(dict.fromkeys(n for hand in mlog.hands for n in hand.names))
    seated_first = np.array(first, dtype=object)
    for name in order:
        is_first = seated_first == name
        # position 1's values are position 0's negated, as Evaluator.hand gives them
        out.aivat[name] = np.where(is_first, values.aivat, -values.aivat).tolist()
        out.allin[name] = np.where(is_first, values.allin, -values.allin).tolist()
        out.chance[name] = np.where(is_first, values.chance, -values.chance)
        out.action[name] = np.where(is_first, values.action, -values.action)
    return out


def played_rows(rec: dict[str, Any], mlog: MatchLog, seat: int, name: str, game: GameDef,
                notes: list[str]) -> dict[tuple[int, int], PlayedRow] | None:
    """The rows ``name`` (0-based ``seat``) played from in this match, by (hand, step), when it kept one for every
    decision it made in the log (``acpcbot.notation.played``); None when there is no such file, it cannot be
    read or misses a decision (said in ``notes``): the strategy is replayed then."""
    if not mlog.path:
        return None
    path = Path(mlog.path).parent / played_rows_name(rec["label"], seat + 1, name)
    try:
        text = path.read_text(encoding="ascii")
    except FileNotFoundError:
        return None
    except (OSError, UnicodeDecodeError) as exc:
        notes.append(f"{rec['label']}: {path.name} cannot be read ({exc}); {name}'s policy is replayed")
        return None
    try:
        rows = read_played_rows(text, game)
    except ProtocolError as exc:
        notes.append(f"{rec['label']}: {path.name}: {exc}; {name}'s policy is replayed")
        return None
    for hand in mlog.hands:
        position = hand.names.index(name)
        step = 0
        for actors in hand.state.actors:
            for player in actors:
                if player == position and (hand.hand_id, step) not in rows:
                    notes.append(f"{rec['label']}: {path.name} has no row for hand {hand.hand_id}, action {step}; "
                                 f"{name}'s policy is replayed")
                    return None
                step += 1
    return rows


def _evaluate_file(rec: dict[str, Any], path: str, spec_of: dict[str, str], known: Sequence[str],
                   game: GameDef) -> MatchAIVAT:
    """:func:`evaluate_match` in a worker process: the log is read there again (cheaper than sending it)."""
    from acpcbot.matchlog import read_match_log

    return evaluate_match(rec, read_match_log(path, game), spec_of, known, game)


def evaluate_run(records: Sequence[dict[str, Any]], logs: Sequence[MatchLog], players: Sequence[dict[str, str]],
                 game: GameDef, parallel: int | None = None,
                 steps: Sequence[Sequence[Sequence[Step]]] | None = None) -> RunAIVAT | None:
    """Every hand's AIVAT and all-in values; None for games that are not heads-up.

    Matches are valued one per core (``parallel``, default: the cores) when
    there are several and at least ``PARALLEL_HANDS`` hands in all;
    ``steps``: per log, each hand's ``handsteps.light_steps`` (for the
    matches valued here).
    """
    if game.num_players != 2:
        return None
    with _collecting():
        return _evaluate_run(records, logs, players, game, parallel, steps)


@contextlib.contextmanager
def _collecting() -> Iterator[None]:
    """The garbage collector on while strategies are replayed, over what the replays allocate.

    A replayed strategy leaves cyclic garbage behind every decision (a
    re-solver's subgames, adaptive's search), and the analysis around this
    turns the collector off for its own millions of small objects: with it
    off, a worker replaying adaptive on the HUNL floor grew past 5 GB.  What
    is allocated so far is frozen, so the collector's passes skip it (and
    the forked workers inherit it frozen and the collector on).
    """
    was_on = gc.isenabled()
    gc.freeze()
    gc.enable()
    try:
        yield
    finally:
        if not was_on:
            gc.disable()
        gc.unfreeze()


def _evaluate_run(records: Sequence[dict[str, Any]], logs: Sequence[MatchLog], players: Sequence[dict[str, str]],
                  game: GameDef, parallel: int | None,
                  steps: Sequence[Sequence[Sequence[Step]]] | None) -> RunAIVAT:
    spec_of = {p["player"]: p["strategy"] for p in players}
    known = [p["player"] for p in players if known_policy(p["strategy"])]
    out = RunAIVAT(known)
    workers = min(parallel or os.cpu_count() or 1, len(logs))
    big = sum(len(m.hands) for m in logs) >= PARALLEL_HANDS
    # a pool worker may not start processes of its own
    if workers > 1 and big and all(m.path for m in logs) and not multiprocessing.current_process().daemon:
        with multiprocessing.get_context().Pool(workers) as pool:
            parts = pool.starmap(_evaluate_file, [(rec, m.path, spec_of, known, game) for rec, m in zip(records, logs)])
    else:
        # one match (or few hands): its equities, the bulk of the work, on every core when it is big
        pool = None
        if (parallel or os.cpu_count() or 1) > 1 and big and len(logs) == 1 and game.deals_holdem_cards and \
                sum(len(m.hands) for m in logs) >= PARALLEL_EQUITY_HANDS and \
                not multiprocessing.current_process().daemon and "fork" in multiprocessing.get_all_start_methods():
            # forked, so the workers start at once and share the preflop table already loaded here
            preflop_ranks(AIVAT_SEED, PREFLOP_BOARDS)
            pool = multiprocessing.get_context("fork").Pool(min(parallel or os.cpu_count() or 1, 4))
        try:
            parts = [evaluate_match(rec, m, spec_of, known, game, None if steps is None else steps[i],
                                    pool.starmap if pool is not None else None)
                     for i, (rec, m) in enumerate(zip(records, logs))]
        finally:
            if pool is not None:
                pool.close()
                pool.join()
    for part in parts:
        out.aivat.append(part.aivat)
        out.allin.append(part.allin)
        out.mismatches += part.mismatches
        out.notes.extend(part.notes)
    if out.mismatches:
        out.notes.append(f"{out.mismatches} decisions of known players took an action their replayed policy gives "
                         f"no probability: the AIVAT figures are doubtful")
    return out


def paired_values(per_log: Sequence[dict[str, list[float]]], logs: Sequence[MatchLog],
                  groups: Sequence[Sequence[int]]) -> dict[str, list[float]]:
    """Per deal of each duplicate group, each player's value averaged over its seatings (as stats does for payoffs)."""
    out: dict[str, list[float]] = {}
    for group in groups:
        by_id = [{h.hand_id: k for k, h in enumerate(logs[i].hands)} for i in group]
        common = sorted(set.intersection(*(set(d) for d in by_id)))
        for hand_id in common:
            sums: dict[str, float] = {}
            for i, index in zip(group, by_id):
                k = index[hand_id]
                for name, values in per_log[i].items():
                    sums[name] = sums.get(name, 0.0) + values[k]
            for name, total in sums.items():
                out.setdefault(name, []).append(total / len(group))
    return out


def estimates(run: RunAIVAT, logs: Sequence[MatchLog], groups: Sequence[Sequence[int]],
              game: GameDef) -> dict[str, dict[str, Estimate]]:
    """Per player: ``aivat``, ``allin`` and, with duplicate groups, ``aivat_duplicate``, ``allin_duplicate``."""
    scale = mbb_scale(game)
    out: dict[str, dict[str, Estimate]] = {}
    for kind, per_log in (("aivat", run.aivat), ("allin", run.allin)):
        if kind == "aivat" and not run.known:
            continue
        pooled: dict[str, list[float]] = {}
        for values in per_log:
            for name, v in values.items():
                pooled.setdefault(name, []).extend(v)
        for name, v in pooled.items():
            out.setdefault(name, {})[kind] = estimate(v, scale)
        if groups:
            for name, v in paired_values(per_log, logs, groups).items():
                out.setdefault(name, {})[f"{kind}_duplicate"] = estimate(v, scale)
    return out


def crosstable_cells(run: RunAIVAT, logs: Sequence[MatchLog], groups: Sequence[Sequence[int]],
                     game: GameDef) -> dict[tuple[str, str], Estimate]:
    """Row against column, AIVAT's figure as ``stats.crosstable`` gives the payoffs' (a duplicate group per deal,
    other matches hand by hand); empty when no player's policy is known."""
    if not run.known:
        return {}
    return pooled_cells(deal_samples(run.aivat, logs, groups), mbb_scale(game))


def deal_samples(per_log: Sequence[dict[str, list[float]]], logs: Sequence[MatchLog],
                 groups: Sequence[Sequence[int]]) -> list[dict[str, list[float]]]:
    """Per player, a value per deal of each duplicate group (averaged over its seatings), then each other match's
    values hand by hand: the samples of a figure as ``stats.crosstable`` counts the payoffs."""
    grouped = {i for group in groups for i in group}
    samples = [paired_values(per_log, logs, [group]) for group in groups]
    return samples + [values for i, values in enumerate(per_log) if i not in grouped]


def series(run: RunAIVAT, name: str) -> list[float]:
    """One player's AIVAT value per hand over the run's logs, in play order (for the report)."""
    return [v for values in run.aivat for v in values.get(name, [])]
