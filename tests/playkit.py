"""Playing strategies against each other in tests: in memory through the arena, or through the TCP dealer.

``play_memory`` plays a match in this process with the arena's in-memory
transport (``dealer.arena.memory``): the dealer's own match loop, deals and
seat rotation, and each seat's real ``acpcbot.client.Client``, exactly as
over a socket but with no sockets: fast enough for duplicate sanity
matches.  ``play_dealer`` plays through the real TCP dealer
(``dealer.server``) on 127.0.0.1, every seat an in-process client.
"""

from __future__ import annotations

import asyncio
import logging
import math
import statistics
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

import pytest
from matchkit import serve

from acpcbot.client import EXIT_OK, Client
from acpcbot.engine import Action
from acpcbot.gamedef import GameDef, load_game
from acpcbot.matchlog import LoggedHand, read_match_log
from acpcbot.session import run
from acpcbot.strategies.base import Strategy
from acpcbot.strategies.registry import create
from acpcbot.world import MatchInfo, View
from dealer.arena.memory import play_match as arena_play_match
from dealer.config import MatchConfig

TIMEOUT = 120.0  # no match of these helpers may take longer

#: The issue's 2,000-hand runs: part of `make soak`; `make test` (-m "not slow") leaves them out.
slow = pytest.mark.slow


@dataclass
class PlayResult:
    """Chips won per seat over the match, per hand, the dealer's warnings, each seat's strategy and client, the log."""

    totals: list[float]
    per_hand: list[list[float]] = field(default_factory=list)  # per hand, chips per seat
    warnings: list[str] = field(default_factory=list)
    strategies: list[Strategy] = field(default_factory=list)
    clients: list[Client] = field(default_factory=list)
    #: the dealer's log, as written, and its hands (each a finished engine state: ``state.steps()`` gives the play)
    log: str = ""
    hands: list[LoggedHand] = field(default_factory=list)

    def seat_results(self, seat: int) -> list[float]:
        """One seat's chips per hand."""
        return [row[seat] for row in self.per_hand]


def started(spec: str, game: GameDef, seed: int = 1, opponents: tuple[str, ...] = ("them",)) -> Strategy:
    """A strategy made from ``spec`` for ``game``, told its match has begun (as "me", against ``opponents``)."""
    player = create(spec, game, seed)
    player.start_match(MatchInfo(game, name="me", opponents=opponents, seed=seed, spec=spec))
    return player


def make_seats(game_name: str, specs: list[str], seed: int, names: list[str] | None = None,
               strategies: list[Strategy] | None = None, seeds: list[int] | None = None,
               time_per_hand: float = 7.0) -> tuple[list[Strategy], list[MatchInfo]]:
    """Strategies (made from specs, seeded per seat, unless given) and their match infos (the clients' clock)."""
    game = load_game(game_name)
    names = names or [f"p{i + 1}" for i in range(len(specs))]
    seeds = seeds or [seed * 7919 + 31 * i for i in range(len(specs))]
    strategies = strategies or [create(spec, game, seeds[i]) for i, spec in enumerate(specs)]
    infos = [MatchInfo(game=game, name=names[i], seed=seed, opponents=tuple(n for j, n in enumerate(names) if j != i),
                       spec=strategies[i].spec, time_per_hand=time_per_hand) for i in range(len(specs))]
    return strategies, infos


#: called after each decision of a seat's strategy with (seat, strategy, its view, the action it chose)
OnAct = Callable[[int, Strategy, View, Action], None]


def _hook_act(seat: int, strategy: Strategy, on_act: OnAct) -> None:
    """Make ``strategy.act`` report every decision to ``on_act`` (the strategy's own act runs unchanged)."""
    act = strategy.act

    def hooked(view: View, deadline: float) -> Action:
        action = act(view, deadline)
        on_act(seat, strategy, view, action)
        return action

    strategy.act = hooked  # type: ignore[method-assign]  # the client looks act up on the object at each turn


class Shadowed(Strategy):
    """Seats adaptive; a fresh copy (same spec and seed) sees every state as AIVAT's replay feeds it (observe,
    end_hand, and ``policy`` where the seat acts, never ``act``); each real action is kept with the copy's row."""

    name = "shadowed"

    def __init__(self, game, spec: str, seed: int) -> None:
        super().__init__(game, create(spec, game, seed).rng)
        self.target, self.copy = create(spec, game, seed), create(spec, game, seed)
        self.spec = spec
        self.played: list[tuple[int, int, object, float]] = []

    def start_match(self, match: MatchInfo) -> None:
        self.target.start_match(match)
        self.copy.start_match(match)

    def observe(self, view: View) -> None:
        self.target.observe(view)
        self.copy.observe(view)

    def act(self, view: View, deadline: float) -> object:
        policy = self.copy.policy(view)
        action = self.target.act(view, 0.0)
        row = policy.row(view.hole)
        self.played.append((view.hand_id, view.state.round, action,
                            float(row[policy.actions.index(action)]) if action in policy.actions else 0.0))
        return action

    def end_hand(self, view: View) -> None:
        self.target.end_hand(view)
        self.copy.end_hand(view)


def play_memory(game_name: str, specs: list[str], hands: int, seed: int, names: list[str] | None = None,
                strategies: list[Strategy] | None = None, seeds: list[int] | None = None,
                on_act: OnAct | None = None, time_per_hand: float = 7.0) -> PlayResult:
    """Play ``hands`` hands in memory through the arena's transport; seats in spec order, deals from ``seed``.

    ``on_act`` (optional) sees each decision as the strategy makes it, before the client sends it.
    ``time_per_hand`` is the clients' clock (seconds): a test whose play must not depend on how busy the
    machine is gives a very large one, so that no decision is cut off by its deadline.
    """
    game = load_game(game_name)
    names = names or [f"p{i + 1}" for i in range(len(specs))]
    strategies, infos = make_seats(game_name, specs, seed, names, strategies, seeds, time_per_hand)
    if on_act is not None:
        for seat, strategy in enumerate(strategies):
            _hook_act(seat, strategy, on_act)
    config = MatchConfig(match_name="m", game=game, game_arg=game_name, num_hands=hands, seed=seed, names=names,
                         quiet=True)
    with tempfile.TemporaryDirectory() as tmp:
        log_path, transcript_path = Path(tmp) / "m.log", Path(tmp) / "m.err"
        played = arena_play_match(config, list(zip(names, specs)), log_path, transcript_path,
                                  players=list(zip(strategies, infos)))
        assert played.finished, played.error
        log = read_match_log(log_path, game)
        log_text = log_path.read_text(encoding="utf-8")
        transcript = transcript_path.read_text(encoding="utf-8", errors="replace")
    seat_of = {name: s for s, name in enumerate(names)}
    out = PlayResult([0.0] * len(names), strategies=strategies, clients=played.clients,
                     warnings=[ln for ln in transcript.splitlines() if ln.startswith("WARNING")],
                     log=log_text, hands=log.hands)
    for hand in log.hands:
        row = [0.0] * len(names)
        # the engine's payoffs, not the log's 6-decimal values: split pots stay exact
        for name, value in zip(hand.names, hand.state.payoffs()):
            row[seat_of[name]] = value
            out.totals[seat_of[name]] += value
        out.per_hand.append(row)
    return out


def play_match(game_name: str, specs: list[str], hands: int, seed: int) -> list[list[float]]:
    """Play in memory; seat s plays ``specs[s]``; per-seat results per hand (chips).

    Every reply must be legal as sent: the dealer warns of none, the clients corrected none and fell back on none.
    """
    result = play_memory(game_name, specs, hands, seed, names=[f"p{s}" for s in range(len(specs))],
                         seeds=[seed * 1000 + s + 1 for s in range(len(specs))])
    assert result.warnings == []
    for c in result.clients:
        assert c.corrections == 0 and c.fallbacks == 0
    return [result.seat_results(s) for s in range(len(specs))]


def duplicate(game_name: str, spec_a: str, spec_b: str, hands: int, seed: int) -> tuple[float, float]:
    """A's mean result in mbb/hand over a duplicate pair (same deals, seats swapped) and its standard error.

    The pair's two hands with the same cards are summed (that is what cancels
    the luck of the deal); the error comes from those sums.
    """
    game = load_game(game_name)
    bb = max(game.blind) or 1
    first = play_memory(game_name, [spec_a, spec_b], hands, seed)
    second = play_memory(game_name, [spec_b, spec_a], hands, seed)
    pairs = [(x[0] + y[1]) / 2 for x, y in zip(first.per_hand, second.per_hand)]
    mean = statistics.fmean(pairs)
    se = statistics.stdev(pairs) / math.sqrt(len(pairs))
    return 1000 * mean / bb, 1000 * se / bb


def duplicate_mbb(game_name: str, spec_a: str, spec_b: str, hands: int, seeds: list[int]) -> tuple[float, float]:
    """A's result against B in mbb/hand over duplicate pairs (each seed twice, seats swapped), and its standard error.

    One value per seed: A's mean result over both seatings, per hand; the
    error is the standard error of those per-seed values.
    """
    bb = max(load_game(game_name).blind)
    per_seed = []
    for seed in seeds:
        first = play_match(game_name, [spec_a, spec_b], hands, seed)[0]
        second = play_match(game_name, [spec_b, spec_a], hands, seed)[1]
        per_seed.append(1000 * (sum(first) + sum(second)) / (2 * hands) / bb)
    mean = statistics.fmean(per_seed)
    se = statistics.stdev(per_seed) / len(per_seed) ** 0.5 if len(per_seed) > 1 else float("inf")
    return mean, se


# ----------------------------------------------------------------- through the TCP dealer

@dataclass
class DealerOutcome:
    """A TCP match: its exit codes, the dealer transcript and score line, the strategies."""

    codes: list[int]
    transcript: str
    stdout: str
    strategies: list[Strategy]

    def warnings(self) -> list[str]:
        """The transcript's WARNING and ERROR lines."""
        return [ln for ln in self.transcript.splitlines() if ln.startswith(("WARNING", "ERROR"))]


async def _play_dealer(game_name: str, specs: list[str], hands: int, seed: int, names: list[str] | None,
                       strategies: list[Strategy] | None, seeds: list[int] | None,
                       timeout: float = TIMEOUT) -> DealerOutcome:
    game = load_game(game_name)
    names = names or [f"p{i + 1}" for i in range(len(specs))]
    strategies, infos = make_seats(game_name, specs, seed, names, strategies, seeds)
    config = MatchConfig(match_name="m", game=game, game_arg=game_name, num_hands=hands, seed=seed, names=names,
                         start_timeout=20000, quiet=True)
    dealer = await serve(config)  # no files: the transcript (warnings, errors, score) is kept in memory
    seats = [asyncio.create_task(run(s, i, "127.0.0.1", port, retry_for=5)) for s, i, port in
             zip(strategies, infos, dealer.ports)]
    result = await dealer.result(timeout)
    codes = await asyncio.wait_for(asyncio.gather(*seats), timeout)
    assert result is not None and result.finished, dealer.transcript
    return DealerOutcome(list(codes), dealer.transcript, dealer.stdout.getvalue(), strategies)


def play_dealer(game_name: str, specs: list[str], hands: int, seed: int, names: list[str] | None = None,
                strategies: list[Strategy] | None = None, seeds: list[int] | None = None,
                timeout: float | None = None) -> DealerOutcome:
    """Play a match through the real TCP dealer on 127.0.0.1; every seat is an in-process acpcbot client.

    ``timeout``: the most the match may take; by default 1 s a hand, at least ``TIMEOUT``. It only catches a
    hang, never a slow machine: a player on a re-solving floor spends up to about 0.25 s of CPU a hand, and a
    2,000-hand hulhe match of adaptive took over 600 s on a 2-core machine at load 4 (2026-11-29)."""
    if timeout is None:
        timeout = max(TIMEOUT, 1.0 * hands)
    return asyncio.run(asyncio.wait_for(_play_dealer(game_name, specs, hands, seed, names, strategies, seeds,
                                                     timeout), timeout))


def score_line(stdout: str) -> dict[str, float]:
    """The dealer's ``SCORE:a|b:name|name`` line as name -> chips."""
    line = next(ln for ln in stdout.splitlines() if ln.startswith("SCORE:"))
    _, values, names = line.split(":")
    return {n: float(v) for n, v in zip(names.split("|"), values.split("|"))}


def check_dealer_match(game_name: str, spec: str, hands: int, seed: int, caplog, opponent: str = "random") -> None:
    """``spec`` against ``opponent`` through the TCP dealer: both exit 0, no warning on either side, a SCORE line."""
    caplog.set_level(logging.WARNING)
    out = play_dealer(game_name, [spec, opponent], hands, seed, names=["p0", "p1"], seeds=[seed, seed + 1])
    assert out.codes == [EXIT_OK, EXIT_OK]
    assert out.warnings() == []
    assert out.stdout.splitlines()[-1].startswith("SCORE:")
    assert set(score_line(out.stdout)) == {"p0", "p1"}
    # no correction, fallback or strategy failure on the clients' side either
    assert [r.getMessage() for r in caplog.records if r.levelno >= logging.WARNING] == []
