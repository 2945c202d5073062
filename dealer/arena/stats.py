"""Match statistics from dealer logs: mbb/hand, standard errors, 95% intervals, duplicate pairing,
where hands ended, and VPIP / PFR / aggression per player.

Everything here is a pure function of parsed logs (``acpcbot.matchlog``
lines replayed through the engine); the runner only arranges the inputs.

Why the normal approximation: stacks reset every hand and every hand's
cards come from the seeded deck stream, so for fixed strategies the
per-hand results are independent draws of one distribution; the mean of a
few hundred or more of them is close to normal (central limit theorem) and
the Student-t correction is below 0.3% of the interval from 400 hands on.
Adaptive strategies make hands weakly dependent; the interval then says how
sure we are of *this* match's average, which is what a match can tell.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterable, Mapping, Sequence

from acpcbot.engine import ActionType, State, Step
from acpcbot.gamedef import GameDef
from acpcbot.matchlog import LogError, LoggedHand, MatchLog, read_match_log

from .handsteps import light_steps

Z95 = 1.959963984540054  # two-sided 95% quantile of the standard normal
STREETS = ("preflop", "flop", "turn", "river")
ENDINGS = STREETS + ("showdown",)


def street_names(game: GameDef) -> tuple[str, ...]:
    """The rounds' names: preflop..river in hold'em-shaped games (0, 3, 1, 1 board cards), else round1, round2..."""
    if game.has_holdem_streets:
        return STREETS
    return tuple(f"round{r + 1}" for r in range(game.num_rounds))


def ending_names(game: GameDef) -> tuple[str, ...]:
    """Where a hand of ``game`` can end: each round's name, then ``showdown``."""
    return street_names(game) + ("showdown",)


class StatsError(ValueError):
    """Logs that cannot be read or combined, naming the file, line or hand."""


# ------------------------------------------------------------------ estimates

@dataclass(frozen=True)
class Estimate:
    """A mean over ``n`` samples with its standard error (None with fewer than two samples)."""

    n: int
    mean: float
    se: float | None

    @property
    def ci95(self) -> float | None:
        """Half-width of the 95% confidence interval of the mean (normal approximation)."""
        return None if self.se is None else Z95 * self.se


def estimate(samples: Sequence[float], scale: float = 1.0) -> Estimate:
    """Mean and standard error of the mean of ``samples`` times ``scale``.

    The standard error uses the sample standard deviation (n - 1); with
    fewer than two samples it is unknown (None), never zero.
    """
    n = len(samples)
    if n == 0:
        return Estimate(0, 0.0, None)
    mean = math.fsum(samples) / n
    if n < 2:
        return Estimate(n, mean * scale, None)
    var = math.fsum((x - mean) ** 2 for x in samples) / (n - 1)
    return Estimate(n, mean * scale, math.sqrt(var / n) * abs(scale))


def mbb_scale(game: GameDef) -> float:
    """Milli-big-blinds per chip: 1000 / the game's big blind (the larger blind)."""
    return 1000.0 / game.big_blind


# ------------------------------------------------------------------ reading logs

def read_log(path: str | Path, game: GameDef | None = None) -> MatchLog:
    """A dealer log as the statistics read it (``matchlog.read_match_log``); StatsError naming the file and line."""
    try:
        return read_match_log(path, game)
    except OSError as exc:
        raise StatsError(f"{path}: cannot read: {exc}") from None
    except LogError as exc:
        raise StatsError(str(exc)) from None


# ------------------------------------------------------------------ per-player results

def player_values(hands: Iterable[LoggedHand], values: Iterable[Sequence[float]] | None = None) -> dict[str, list[float]]:
    """Chips won per hand by each player (in first-seen order), hands in log order; ``values``: each hand's
    ``LoggedHand.values``, when the caller has them (parsed once)."""
    out: dict[str, list[float]] = {}
    for hand, chips in zip(hands, values) if values is not None else ((h, h.values) for h in hands):
        for name, value in zip(hand.names, chips):
            out.setdefault(name, []).append(value)
    return out


def player_totals(hands: Iterable[LoggedHand]) -> dict[str, float]:
    """Total chips won by each player."""
    return {name: math.fsum(values) for name, values in player_values(hands).items()}


def duplicate_values(logs: Sequence[Sequence[LoggedHand]]) -> dict[str, list[float]]:
    """Per deal, each player's result averaged over the seatings that played it.

    ``logs`` are matches of the same players from the same seed with the
    seats permuted (swapped heads-up, rotated with three or more).  Deals
    are matched by hand number and must have the same cards; a deal missing
    from one log (a match cut short) is left out of every log, so each
    average covers every seating.  The result per player lists the deals in
    hand-number order: its standard error is over pairs, not hands.
    """
    if not logs:
        return {}
    by_id = [{h.hand_id: h for h in log} for log in logs]
    common = sorted(set.intersection(*(set(d) for d in by_id)))
    players = set(by_id[0][common[0]].names) if common else set()
    out: dict[str, list[float]] = {}
    for hand_id in common:
        group = [d[hand_id] for d in by_id]
        first = group[0].state
        for other in group[1:]:
            shown = min(len(first.board), len(other.state.board))  # a log shows the board up to the hand's end
            if other.state.hole != first.hole or other.state.board[:shown] != first.board[:shown]:
                raise StatsError(f"hand {hand_id}: the seatings were dealt different cards; "
                                 f"duplicate matches need the same seed")
            if set(other.names) != players:
                raise StatsError(f"hand {hand_id}: the seatings have different players "
                                 f"({'|'.join(group[0].names)} and {'|'.join(other.names)})")
        sums: dict[str, float] = {}
        for hand in group:
            for name, value in zip(hand.names, hand.values):
                sums[name] = sums.get(name, 0.0) + value
        for name, total in sums.items():
            out.setdefault(name, []).append(total / len(group))
    return out


# ------------------------------------------------------------------ where hands ended

def ending(state: State) -> str:
    """Where a finished hand ended: the round of the last fold (named as :func:`street_names` does), or ``showdown``."""
    if state.is_showdown:
        return "showdown"
    names = street_names(state.game)
    return names[min(state.round, len(names) - 1)]


@dataclass
class EndingLine:
    """Hands of one player that ended on one street: how many, how many it won, chips won."""

    hands: int = 0
    won: int = 0
    chips: float = 0.0

    def as_dict(self, scale: float) -> dict[str, float | int | None]:
        """JSON form: hands, win rate and mbb/hand of these hands."""
        return {"hands": self.hands,
                "win_rate": self.won / self.hands if self.hands else None,
                "mbb_per_hand": self.chips * scale / self.hands if self.hands else None}


def ending_stats(hands: Iterable[LoggedHand],
                 values: Iterable[Sequence[float]] | None = None) -> dict[str, dict[str, EndingLine]]:
    """Per player, per ending (:func:`ending_names`), the hands that ended there and what the player won in them.

    A hand counts as won when the player's result is positive (a split pot
    that returns exactly the chips put in is not a win).  ``values``: as
    :func:`player_values` takes them.
    """
    out: dict[str, dict[str, EndingLine]] = {}
    for hand, chips in zip(hands, values) if values is not None else ((h, h.values) for h in hands):
        where = ending(hand.state)
        for name, value in zip(hand.names, chips):
            lines = out.get(name)
            if lines is None:
                lines = out[name] = {e: EndingLine() for e in ending_names(hand.state.game)}
            line = lines[where]
            line.hands += 1
            line.won += value > 0
            line.chips += value
    return out


# ------------------------------------------------------------------ playing style

@dataclass
class Style:
    """Counts behind VPIP, PFR and the aggression factor of one player."""

    hands: int = 0
    vpip_hands: int = 0  # hands where it called a bet or raised in the first round
    pfr_hands: int = 0  # hands where it raised in the first round
    raises: int = 0  # bets and raises, every round
    calls: int = 0  # calls of a bet, every round (checks are not calls)

    @property
    def vpip(self) -> float | None:
        """Share of hands with money put in voluntarily in the first round."""
        return self.vpip_hands / self.hands if self.hands else None

    @property
    def pfr(self) -> float | None:
        """Share of hands with a raise in the first round."""
        return self.pfr_hands / self.hands if self.hands else None

    @property
    def aggression(self) -> float | None:
        """Aggression factor: (bets + raises) / calls; None when it never called."""
        return self.raises / self.calls if self.calls else None

    def as_dict(self) -> dict[str, float | None]:
        """JSON form."""
        return {"vpip": self.vpip, "pfr": self.pfr, "aggression": self.aggression}


def style_stats(hands: Iterable[LoggedHand], steps: Iterable[Sequence[Step]] | None = None) -> dict[str, Style]:
    """VPIP, PFR and aggression counts per player, from each hand's betting replayed in the engine.

    Blinds are not voluntary; a call with nothing to call is a check and
    counts neither for VPIP nor as a call.  ``steps``: each hand's steps
    when the caller has them (``handsteps.light_steps`` will do).
    """
    out: dict[str, Style] = {}
    hands = list(hands)
    steps_of = iter(steps) if steps is not None else (light_steps(h.state) for h in hands)
    # hands sharing one steps list (one betting line, see handsteps.run_steps) share its counts
    counted: dict[int, tuple[Sequence[Step], list[tuple[int, int, bool, bool]]]] = {}
    for hand, hand_steps in zip(hands, steps_of):
        got = counted.get(id(hand_steps))
        if got is None:
            got = counted[id(hand_steps)] = (hand_steps, _style_counts(hand_steps, len(hand.names)))
        for name, (raises, calls, put_in, raised) in zip(hand.names, got[1]):
            style = out.get(name)
            if style is None:
                style = out[name] = Style()
            style.raises += raises
            style.calls += calls
            style.hands += 1
            style.vpip_hands += put_in
            style.pfr_hands += raised
    return out


def _style_counts(steps: Sequence[Step], players: int) -> list[tuple[int, int, bool, bool]]:
    """Per position of one hand: raises, calls, whether it put money in and whether it raised in the first round."""
    raises = [0] * players
    calls = [0] * players
    put_in = [False] * players
    raised = [False] * players
    for step in steps:
        p, kind = step.player, step.action.type
        if kind == ActionType.RAISE:
            raises[p] += 1
            if step.round == 0:
                put_in[p] = raised[p] = True
        elif kind == ActionType.CALL and step.before.to_call(p) > 0:
            calls[p] += 1
            if step.round == 0:
                put_in[p] = True
    return list(zip(raises, calls, put_in, raised))


# ------------------------------------------------------------------ combining matches

@dataclass
class PlayerSummary:
    """One player's figures over a set of matches (mbb/hand estimates, endings, style)."""

    name: str
    result: Estimate
    duplicate: Estimate | None = None
    endings: dict[str, EndingLine] = field(default_factory=dict)
    style: Style = field(default_factory=Style)


def summarize(logs: Sequence[MatchLog], duplicate_groups: Sequence[Sequence[int]] = (),
              steps: Sequence[Sequence[Sequence[Step]]] | None = None) -> dict[str, PlayerSummary]:
    """Every player's figures over ``logs`` in mbb/hand; ``duplicate_groups`` lists indices of logs replaying one seed.

    ``steps``: per log, each hand's steps, when the caller has them.

    The plain figure pools every hand a player played; the duplicate figure
    pools the per-deal averages of each group (its standard error is over
    deals).  Players keep their first-seen order.
    """
    if not logs:
        return {}
    game = logs[0].game
    for log in logs[1:]:
        if log.game != game:
            raise StatsError(f"{log.path}: the game differs from {logs[0].path}'s; cannot combine")
    scale = mbb_scale(game)
    all_hands = [h for log in logs for h in log.hands]
    parsed = [h.values for h in all_hands]  # the logged values' text parsed once for both
    values = player_values(all_hands, parsed)
    endings = ending_stats(all_hands, parsed)
    styles = style_stats(all_hands, None if steps is None else [s for per_log in steps for s in per_log])
    dup: dict[str, list[float]] = {}
    for group in duplicate_groups:
        for name, per_deal in duplicate_values([logs[i].hands for i in group]).items():
            dup.setdefault(name, []).extend(per_deal)
    out = {}
    for name, chips in values.items():
        out[name] = PlayerSummary(name, estimate(chips, scale),
                                  estimate(dup[name], scale) if name in dup else None,
                                  endings[name], styles[name])
    return out


def crosstable(logs: Sequence[MatchLog], duplicate_groups: Sequence[Sequence[int]] = ()) -> dict[tuple[str, str], Estimate]:
    """Row-versus-column cells: the row player's mbb/hand over the matches where the column player also sat.

    Matches of a duplicate group count through their per-deal averages (one
    sample per deal, so the interval is over pairs); other matches count
    hand by hand.
    """
    if not logs:
        return {}
    samples: list[dict[str, list[float]]] = []
    grouped: set[int] = set()
    for group in duplicate_groups:
        samples.append(duplicate_values([logs[i].hands for i in group]))
        grouped.update(group)
    samples += [player_values(log.hands) for i, log in enumerate(logs) if i not in grouped]
    return pooled_cells(samples, mbb_scale(logs[0].game))


def pooled_cells(samples: Sequence[Mapping[str, list[float]]], scale: float) -> dict[tuple[str, str], Estimate]:
    """Row-versus-column estimates from samples of tables: each sample maps every player who sat to its values
    there (per deal or per hand); a row's values count in its cell with every other player of the sample."""
    pooled: dict[tuple[str, str], list[float]] = {}
    for values in samples:
        for row, chips in values.items():
            for col in values:
                if col != row:
                    pooled.setdefault((row, col), []).extend(chips)
    return {cell: estimate(chips, scale) for cell, chips in pooled.items()}


def table_results(logs: Sequence[MatchLog]) -> dict[frozenset[str], dict[str, float]]:
    """Per table (the set of players of a match), each player's mbb/hand over all its seatings."""
    if not logs:
        return {}
    scale = mbb_scale(logs[0].game)
    pooled: dict[frozenset[str], dict[str, list[float]]] = {}
    for log in logs:
        values = player_values(log.hands)
        table = pooled.setdefault(frozenset(values), {})
        for name, chips in values.items():
            table.setdefault(name, []).extend(chips)
    return {t: {name: math.fsum(c) * scale / len(c) for name, c in per.items()} for t, per in pooled.items()}


def _bankrolls(tables: Mapping[frozenset[str], Mapping[str, float]], players: Sequence[str]) -> dict[str, float] | None:
    """Each player's mean mbb/hand over the tables made only of ``players``; None when there is no such table."""
    inside = [t for t in tables if t <= set(players)]
    if not inside:
        return None
    out = {}
    for p in players:
        mine = [tables[t][p] for t in inside if p in t]
        out[p] = math.fsum(mine) / len(mine) if mine else 0.0
    return out


def bankroll_ranking(tables: Mapping[frozenset[str], Mapping[str, float]], players: Sequence[str]) -> list[str]:
    """Players by total bankroll (mean mbb/hand over all their tables), best first; ties keep the given order."""
    totals = _bankrolls(tables, players) or {}
    return sorted(players, key=lambda p: -totals.get(p, 0.0))


def instant_runoff_ranking(tables: Mapping[frozenset[str], Mapping[str, float]], players: Sequence[str]) -> list[str]:
    """The ACPC's bankroll instant runoff, best first.

    Repeatedly drop the player with the lowest bankroll counted over the
    tables of the players still in; the last one left wins.  Once too few
    remain to fill a table (three or more players per match), the rest keep
    the order of the last round that had tables.  Of players tied for last,
    the one with the lower bankroll over all tables drops, then the
    later-listed one.
    """
    remaining = list(players)
    dropped: list[str] = []
    last: dict[str, float] = {}
    overall = _bankrolls(tables, players) or {}
    while remaining:
        totals = _bankrolls(tables, remaining)
        if totals is None:
            order = sorted(remaining, key=lambda p: -last.get(p, 0.0))
            return order + dropped[::-1]
        last = totals
        # ties drop the one with the lower bankroll over every table, then the later-listed
        worst = sorted(remaining, key=lambda p: (-totals[p], -overall.get(p, 0.0)))[-1]
        remaining.remove(worst)
        dropped.append(worst)
    return dropped[::-1]
