"""Match helpers for the utility and uc3m tests (and tests of the helpers themselves).

``play_memory`` plays a match in this process through the real client code
(acpcbot.client.Client: the same views, corrections and replies as over TCP)
with the reference's deals and seat rotation, but no sockets: fast enough
for the duplicate sanity matches.  ``play_dealer`` plays through the real
TCP dealer (dealer.server) on 127.0.0.1, every seat an in-process client.
"""

from __future__ import annotations

import asyncio
import math
import statistics
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from acpcbot.client import EXIT_OK, Client, run
from acpcbot.engine import State
from acpcbot.gamedef import load_game
from acpcbot.protocol import format_match_state, parse_action, parse_reply
from acpcbot.strategies.base import Strategy
from acpcbot.strategies.registry import create
from acpcbot.world import MatchInfo
from dealer.config import MatchConfig
from dealer.rng import Dealer
from matchkit import serve

import acpcbot.strategies.uc3m  # noqa: F401  (registers uc3m, uc3m-simple)
import acpcbot.strategies.utility  # noqa: F401  (registers utility)

TIMEOUT = 120.0  # no match of these tests may take longer


@dataclass
class MatchResult:
    """Chips won per seat over the match, per hand, and the dealer's corrections."""

    totals: list[float]
    per_hand: list[list[float]] = field(default_factory=list)  # per hand, chips per seat
    warnings: list[str] = field(default_factory=list)
    strategies: list[Strategy] = field(default_factory=list)


def make_seats(game_name: str, specs: list[str], seed: int, names: list[str] | None = None,
               strategies: list[Strategy] | None = None) -> tuple[list[Strategy], list[MatchInfo]]:
    """Strategies (made from specs, seeded per seat, unless given) and their match infos."""
    game = load_game(game_name)
    names = names or [f"p{i + 1}" for i in range(len(specs))]
    strategies = strategies or [create(spec, game, seed * 7919 + 31 * i) for i, spec in enumerate(specs)]
    infos = [MatchInfo(game=game, name=names[i], seed=seed, opponents=tuple(n for j, n in enumerate(names) if j != i),
                       spec=strategies[i].spec) for i in range(len(specs))]
    return strategies, infos


def play_memory(game_name: str, specs: list[str], hands: int, seed: int, names: list[str] | None = None,
                strategies: list[Strategy] | None = None) -> MatchResult:
    """Play ``hands`` hands in memory with the reference deals and rotation; seats in spec order."""
    game = load_game(game_name)
    n = game.num_players
    strategies, infos = make_seats(game_name, specs, seed, names, strategies)
    clients = []
    for s, info in zip(strategies, infos):
        s.start_match(info)
        clients.append(Client(s, info))
    deals = Dealer(game, seed)
    out = MatchResult([0.0] * n, strategies=strategies)
    try:
        for h in range(hands):
            hole, board = deals.deal()
            state = State(game, h, hole, board)
            while True:
                replies = [clients[(p + h) % n].handle_line(format_match_state(state, p) + "\r\n") for p in range(n)]
                if state.finished:
                    break
                reply = replies[state.current_player]
                assert reply is not None, "the seat to act did not reply"
                ms, text = parse_reply(reply, game)
                action, warnings = state.fix(parse_action(text, game))
                out.warnings.extend(warnings)
                state.apply(action)
            payoffs = state.payoffs()
            row = [0.0] * n
            for p in range(n):
                row[(p + h) % n] = payoffs[p]
                out.totals[(p + h) % n] += payoffs[p]
            out.per_hand.append(row)
    finally:
        for s in strategies:
            s.end_match()
    return out


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


async def _play_dealer(game_name: str, specs: list[str], hands: int, seed: int, workdir: Path,
                       names: list[str] | None, strategies: list[Strategy] | None) -> DealerOutcome:
    game = load_game(game_name)
    names = names or [f"p{i + 1}" for i in range(len(specs))]
    strategies, infos = make_seats(game_name, specs, seed, names, strategies)
    config = MatchConfig(match_name=str(workdir / "m"), game=game, game_arg=game_name, num_hands=hands, seed=seed,
                         names=names, start_timeout=20000)
    dealer = await serve(config)
    seats = [asyncio.create_task(run(s, i, "127.0.0.1", port, retry_for=5)) for s, i, port in
             zip(strategies, infos, dealer.ports)]
    await dealer.result(TIMEOUT)
    codes = await asyncio.wait_for(asyncio.gather(*seats), TIMEOUT)
    return DealerOutcome(list(codes), dealer.transcript, dealer.stdout.getvalue(), strategies)


def play_dealer(game_name: str, specs: list[str], hands: int, seed: int, workdir: Path,
                names: list[str] | None = None, strategies: list[Strategy] | None = None) -> DealerOutcome:
    """Play a match through the real TCP dealer on 127.0.0.1; every seat is an in-process acpcbot client."""
    return asyncio.run(asyncio.wait_for(_play_dealer(game_name, specs, hands, seed, workdir, names, strategies),
                                        TIMEOUT))


def score_line(stdout: str) -> dict[str, float]:
    """The dealer's ``SCORE:a|b:name|name`` line as name -> chips."""
    line = next(ln for ln in stdout.splitlines() if ln.startswith("SCORE:"))
    _, values, names = line.split(":")
    return {n: float(v) for n, v in zip(names.split("|"), values.split("|"))}


# ----------------------------------------------------------------- the helpers' own tests

def test_memory_match_agrees_with_the_tcp_dealer(tmp_path):
    """Same seed, same deterministic players: the in-memory loop and the real dealer score alike."""
    mem = play_memory("hunl", ["call", "raise:size=pot"], 60, 11)
    tcp = play_dealer("hunl", ["call", "raise:size=pot"], 60, 11, tmp_path)
    assert tcp.codes == [EXIT_OK, EXIT_OK] and tcp.warnings() == []
    score = score_line(tcp.stdout)
    assert score == {"p1": pytest.approx(mem.totals[0]), "p2": pytest.approx(mem.totals[1])}
    assert mem.totals[0] != 0 and sum(mem.totals) == pytest.approx(0)


def test_duplicate_cancels_the_deal():
    """A player against itself in a duplicate pair scores exactly 0 when it is deterministic."""
    mean, se = duplicate("hunl", "call", "call", 50, 3)
    assert mean == 0 and se == 0
