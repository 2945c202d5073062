"""The 2008 study's players over ACPC: hunl and hulhe against random through our dealer, and sanity results.

The dealer runs as its command line (``python -m dealer``) on 127.0.0.1;
the two seats are this process's clients.  All ten matches run at once so
that they share the two cores.  The issue's 2,000-hand runs (about 40 s
together) and the 150-hand ones are marked slow, run by ``make soak``
(ten matches through the dealer are a long run either way: about 17 s of
``make test`` at 150 hands); the policies' rules are checked in memory by
test_study2008.py and test_study2008_policy.py.  The sanity results use
duplicate matches in memory (``acpc-match play --duplicate --transport
memory``), strength matches: make soak's too.
"""

from __future__ import annotations

import asyncio
import contextlib
import io
import json
import logging

import pytest
from matchkit import dealer_process

import acpcbot.strategies.learner2008  # noqa: F401  registers learner2008
import acpcbot.strategies.study2008  # noqa: F401  registers random2008, constant, mfs, rh
from acpcbot.gamedef import load_game
from acpcbot.matchlog import parse_score_line
from acpcbot.session import run
from acpcbot.strategies import create
from acpcbot.world import MatchInfo

HANDS = 2000
SHORT_HANDS = 150
TIMEOUT = 400.0  # all ten matches together, on a loaded two-core machine
SPECS = ("random2008", "constant:d=4", "mfs:t=1", "rh:t=0.1", "learner2008")
GAMES = ("hunl", "hulhe")


async def _match(workdir, game_name: str, spec: str, seed: int, hands: int) -> dict:
    game = load_game(game_name)
    names = ["study", "random"]
    workdir.mkdir()
    args = ["m", game_name, str(hands), str(seed), *names, "-q", "--start_timeout", "60000"]
    async with dealer_process(workdir, args, timeout=60) as (proc, ports):
        players = [create(spec, game, seed=seed), create("random", game, seed=seed + 1)]
        clients = [run(players[s], MatchInfo(game, name=names[s], seed=seed + s), "127.0.0.1", ports[s],
                       retry_for=10.0) for s in range(2)]
        codes, (out, err) = await asyncio.gather(asyncio.gather(*clients), proc.communicate())
    values, score_names = parse_score_line(out.decode().splitlines()[-1]) if out else ([], [])
    return {"dealer_code": proc.returncode, "codes": codes, "transcript": err.decode(),
            "score": dict(zip(score_names, map(float, values))),
            "logged": sum(line.startswith("STATE:") for line in (workdir / "m.log").read_text().splitlines())}


def _play_all(root, hands: int) -> tuple[dict, list[str]]:
    """Every spec against random in every game, ``hands`` hands each, all at once; results and client warnings."""
    handler = _Collect()
    logging.getLogger("acpcbot").addHandler(handler)
    try:
        jobs = [(g, s) for g in GAMES for s in SPECS]

        async def everything():
            return await asyncio.gather(*[_match(root / f"{g}-{i}", g, s, 300 + i, hands)
                                          for i, (g, s) in enumerate(jobs)])

        results = asyncio.run(asyncio.wait_for(everything(), TIMEOUT))
    finally:
        logging.getLogger("acpcbot").removeHandler(handler)
    return dict(zip(jobs, results)), handler.records


@pytest.fixture(scope="module")
def short_matches(tmp_path_factory):
    return _play_all(tmp_path_factory.mktemp("study2008_dealer_short"), SHORT_HANDS)


@pytest.fixture(scope="module")
def matches(tmp_path_factory):
    return _play_all(tmp_path_factory.mktemp("study2008_dealer"), HANDS)


class _Collect(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.records: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.records.append(record.getMessage())


def _check_match(played: tuple[dict, list[str]], game_name: str, spec: str, hands: int) -> None:
    results, client_warnings = played
    m = results[(game_name, spec)]
    assert m["dealer_code"] == 0, m["transcript"][-2000:]
    assert m["codes"] == [0, 0]
    assert not [ln for ln in m["transcript"].splitlines() if "WARNING" in ln or "ERROR" in ln], m["transcript"][-2000:]
    assert m["logged"] == hands
    assert set(m["score"]) == {"study", "random"}
    assert client_warnings == []  # no client or strategy warned (no corrected action, no fallback)


@pytest.mark.slow  # ten matches of 150 hands through the dealer process: make soak
@pytest.mark.parametrize("game_name", GAMES)
@pytest.mark.parametrize("spec", SPECS)
def test_plays_random_through_the_dealer(short_matches, game_name, spec):
    _check_match(short_matches, game_name, spec, SHORT_HANDS)


@pytest.mark.slow
@pytest.mark.parametrize("game_name", GAMES)
@pytest.mark.parametrize("spec", SPECS)
def test_2000_hands_against_random_through_the_dealer(matches, game_name, spec):
    _check_match(matches, game_name, spec, HANDS)


# ----------------------------------------------------------------- sanity results (duplicate matches, fixed seeds)

def duplicate(game: str, hands: int, seed: int, a: str, b: str, tmp_path) -> dict:
    """mbb/hand and 95% interval of ``a`` against ``b`` over a duplicate match in memory."""
    from dealer.arena.cli import main

    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        code = main(["play", "--game", game, "--hands", str(hands), "--seed", str(seed), "--duplicate",
                     "--transport", "memory", "--jobs", "1", "--json", "--runs-dir", str(tmp_path), a, b])
    assert code == 0
    first = json.loads(buf.getvalue())["results"][0]
    return {"mbb": first["mbb_per_hand"], "ci95": first["ci95"]}


@pytest.mark.slow  # a duplicate strength match (2 x 300 hands): make soak
def test_mfs_beats_random(tmp_path):
    # Measured: about +26 bb/hand (95% interval +-5) over 2 x 1000 hands of hunl; here 2 x 300 with a wide margin
    r = duplicate("hunl", 300, 11, "mfs:t=1", "random2008", tmp_path)
    assert r["mbb"] - r["ci95"] > 0 and r["mbb"] > 5000, r
    r = duplicate("hulhe", 300, 12, "mfs:t=1", "random2008", tmp_path)
    assert r["mbb"] - r["ci95"] > 0, r
    # and the reference example player (measured: about +29 bb/hand over 2 x 1000 hands of hunl)
    r = duplicate("hunl", 300, 14, "mfs:t=1", "random", tmp_path)
    assert r["mbb"] - r["ci95"] > 0, r


@pytest.mark.slow  # a duplicate strength match (2 x 300 hands): make soak
def test_learner_beats_random(tmp_path):
    # Measured: about +21 bb/hand (95% interval +-4) over 2 x 2000 hands of hunl with the shipped table
    r = duplicate("hunl", 300, 13, "learner2008", "random2008", tmp_path)
    assert r["mbb"] - r["ci95"] > 0, r
