"""Seeded fuzzing of every parser of outside input: only the documented error types may come out.

Each parser gets valid samples built here from the project's own writers,
mutated by truncation, byte flips, huge numbers (beyond Python's 4,300-digit
conversion limit and beyond 32 and 64 bits), NUL bytes, invalid UTF-8,
separators, long runs, deleted and doubled slices, and plain random bytes.
Whatever comes back is fine; an exception is fine only when it is the
parser's documented error (ProtocolError, GameDefError, RecipeError,
PolicyError, ModelFileError, TrainingError, LogCheckError / LogError,
TransactionFileError / ResumeError, RunError for a run folder's plan.json and
results.json; the dealer's reply reader raises none).
Everything is seeded (SEED) and bounded by a count, a few seconds a parser.
"""

from __future__ import annotations

import json
import random
import re
from pathlib import Path
from typing import Callable, Iterator

import pytest
from dealerkit import config_for

from acpcbot.engine import CALL, FOLD, RAISE, ActionType, State, raise_to, seat_of
from acpcbot.gamedef import GameDefError, load_game, parse_game
from acpcbot.logcheck import LogCheckError, check_log
from acpcbot.matchlog import LogError, format_header, format_score_line, format_state_line, read_match_log
from acpcbot.protocol import (
    ProtocolError,
    format_betting,
    format_cards,
    format_match_state,
    parse_action,
    parse_match_state,
    replay_betting,
)
from acpcbot.solve import PolicyError, build_tree, policy_from_strategy, write_policy
from acpcbot.solve.policy import read_policy
from acpcbot.world import World
from dealer.logs import TransactionFileError, read_transactions
from dealer.replies import interpret_reply, read_reply_action
from dealer.resume import ResumeError, open_match_files, replay_transactions
from dealer.rng import Dealer

SEED = 20251125
HUGE = [b"9" * 5000, b"-" + b"9" * 5000, b"0" * 5000 + b"7", b"4294967296", b"2147483648",
        b"18446744073709551616", b"-1", b"99999999999999999999"]
SPECIAL = [b"\x00", b"\xff\xfe", b"\xc3\x28", b"\xed\xa0\x80", b"\r", b"\n", b"\r\n", b"|", b":", b"/", b" ",
           b"\t", b"#", b"=", b"\"", b"{", b"[", b"\xe2\x82\xac", b"nan", b"inf", b"1e999"]
_DIGITS = re.compile(rb"[0-9]+")


def mutate(rng: random.Random, data: bytes) -> bytes:
    """One to three random mutations of ``data``."""
    for _ in range(rng.randint(1, 3)):
        op = rng.randrange(9)
        at = rng.randrange(len(data) + 1)
        if op == 0:
            data = data[:at]  # truncation
        elif op == 1 and data:
            b = bytearray(data)
            for _ in range(rng.randint(1, 8)):
                b[rng.randrange(len(b))] = rng.randrange(256)
            data = bytes(b)
        elif op == 2:
            runs = list(_DIGITS.finditer(data))
            if runs:
                m = rng.choice(runs)
                data = data[:m.start()] + rng.choice(HUGE) + data[m.end():]
            else:
                data = data[:at] + rng.choice(HUGE) + data[at:]
        elif op == 3:
            data = data[:at] + rng.choice(SPECIAL) + data[at:]
        elif op == 4:
            end = min(len(data), at + rng.randint(1, 40))
            data = data[:at] + data[end:]
        elif op == 5:
            end = min(len(data), at + rng.randint(1, 40))
            data = data[:at] + data[at:end] * rng.randint(2, 50) + data[at:]
        elif op == 6:
            data = data[:at] + rng.choice([b"x", b"9", b"|", b"r", b"["]) * rng.choice([100, 5000, 200_000]) + data[at:]
        elif op == 7:
            data = bytes(rng.randrange(256) for _ in range(rng.randrange(200)))
        else:
            data = data[:at] + data[at:][::-1]
    return data


def inputs(samples: list[bytes], count: int, seed: int = SEED) -> Iterator[tuple[int, bytes]]:
    """``count`` inputs: every sample once as it is, then seeded mutants of random samples."""
    rng = random.Random(seed)
    for i, sample in enumerate(samples):
        yield i, sample
    for i in range(count):
        yield len(samples) + i, mutate(rng, rng.choice(samples))


def fuzz(samples: list[bytes], count: int, call: Callable[[bytes], object],
         allowed: tuple[type[BaseException], ...]) -> int:
    """Run ``call`` on every input; fail naming the input at the first exception outside ``allowed``."""
    refused = 0
    for i, data in inputs(samples, count):
        try:
            call(data)
        except allowed:
            refused += 1
        except Exception as exc:  # noqa: BLE001 - what this test is about
            shown = data[:200] + (b"... (%d bytes)" % len(data) if len(data) > 200 else b"")
            pytest.fail(f"input {i} (seed {SEED}) raised {type(exc).__name__}: {str(exc)[:300]}\ninput: {shown!r}")
    return refused


def _random_hands(game, hands: int, seed: int) -> Iterator[State]:
    """Every state of ``hands`` hands of random legal play over real deals."""
    rng = random.Random(seed)
    deals = Dealer(game, seed)
    for h in range(hands):
        hole, board = deals.deal()
        state = State(game, h, hole, board)
        while True:
            yield state.copy()
            if state.finished:
                break
            kind = rng.choice(state.legal_actions())
            if kind == ActionType.RAISE and game.is_nolimit:
                lo, hi = state.raise_bounds()
                state.apply(raise_to(rng.choice([lo, hi, (lo + hi) // 2])))
            else:
                state.apply({ActionType.FOLD: FOLD, ActionType.CALL: CALL, ActionType.RAISE: RAISE}[kind])


GAMES = ["hunl", "hulhe", "3pl", "kuhn3p", "leduc", "leducnl"]


# ------------------------------------------------------------------ the network

@pytest.mark.parametrize("game_name", GAMES)
def test_matchstate_lines(game_name):
    game = load_game(game_name)
    states = list(_random_hands(game, 6, 1))
    samples = [format_match_state(s, v).encode() for s in states for v in range(game.num_players)][:60]

    def call(data: bytes) -> None:
        parse_match_state(data.decode("latin-1"), game)

    assert fuzz(samples, 400, call, (ProtocolError,)) > 0


def test_a_stream_of_matchstate_lines_through_the_clients_world():
    # the client's path: one World per match, each line parsed on top of the one before
    game = load_game("hunl")
    states = list(_random_hands(game, 8, 2))
    lines = [format_match_state(s, 0).encode() for s in states]
    world = World(game)

    def call(data: bytes) -> None:
        for line in data.split(b"\n"):
            world.update(line.decode("latin-1"))

    chunks = [b"\n".join(lines[i:i + 6]) for i in range(0, len(lines), 6)]
    assert fuzz(chunks, 300, call, (ProtocolError,)) > 0


@pytest.mark.parametrize("game_name", ["hunl", "hulhe", "kuhn3p"])
def test_replies_to_the_dealer(game_name):
    game = load_game(game_name)
    states = [s for s in _random_hands(game, 6, 3) if not s.finished][:30]
    samples = []
    for s in states:
        line = format_match_state(s, s.current_player).encode()
        samples.append(line + b":" + (b"r%d" % s.raise_bounds()[0] if game.is_nolimit and s.raise_bounds()
                                      else b"c") + b"\r\n")

    def call(data: bytes) -> None:
        # the reply to the first sample's request; the reader never raises, whatever it gets
        s = states[0]
        expected = format_match_state(s, s.current_player).encode() + b":"
        for strict in (False, True):
            status, action, warnings = interpret_reply(data, expected, s, s.current_player, strict)
            assert status in (0, 1, 2) and isinstance(warnings, tuple)
            if status == 0:
                assert s.is_legal(action), (action, warnings)
        read_reply_action(data.decode("latin-1"), game)

    fuzz(samples, 500, call, ())


def test_action_texts():
    game = load_game("hunl")
    samples = [b"c", b"f", b"r200", b"r20000", b"k", b"b300", b"R-5", b"r+7"]

    def call(data: bytes) -> None:
        parse_action(data.decode("latin-1"), game)

    assert fuzz(samples, 400, call, (ProtocolError,)) > 0


# ------------------------------------------------------------------ files

def test_game_files(tmp_path):
    samples = [load_game(name).to_text().encode() for name in ("hunl", "hulhe", "3pnl", "kuhn3p", "leduc")]
    path = tmp_path / "g.game"

    def call(data: bytes) -> None:
        parse_game(data.decode("latin-1"), "g.game")
        path.write_bytes(data)
        load_game(path)

    assert fuzz(samples, 400, call, (GameDefError,)) > 0


def test_recipes(tmp_path):
    from dealer.arena.recipes import RecipeError, load_recipe

    samples = [b'game = "kuhn2p"\nhands = 10\nseed = 3\nseats = ["call", "raise"]\n',
               b'game = "leduc"\nhands = 20\nduplicate = true\ntransport = "memory"\njobs = 1\n'
               b'players = ["cfr", "call", {strategy = "random", name = "r"}]\n',
               b'game = "hunl"\nhands = 5\nhero = "raise:size=pot"\nopponents = ["call", "fold"]\n']
    path = tmp_path / "r.toml"

    def call(data: bytes) -> None:
        path.write_bytes(data)
        load_recipe(path)

    assert fuzz(samples, 200, call, (RecipeError,)) > 0


def test_policies(tmp_path):
    game = load_game("kuhn2p")
    tree = build_tree(game)
    good = tmp_path / "good.json"
    write_policy(good, policy_from_strategy(tree, tree.uniform()))
    samples = [good.read_bytes()]
    path = tmp_path / "p.json"

    def call(data: bytes) -> None:
        path.write_bytes(data)
        read_policy(path, game)
        from acpcbot.strategies import create
        from acpcbot.strategies.cfr import _load  # the load path: read, then check the coverage

        _load.cache_clear()
        create(f"cfr:policy={path}", game, seed=1)

    assert fuzz(samples, 150, call, (PolicyError,)) > 0


def _model_samples() -> dict[str, bytes]:
    """One valid model file per strategy that keeps one (entries under the opponent name 'villain')."""
    from acpcbot.strategies.adaptive import MODEL_KIND as ADAPTIVE, MODEL_VERSION as ADAPTIVE_V
    from acpcbot.strategies.adaptive.stats import OpponentStats
    from acpcbot.strategies.persist import FORMAT
    from acpcbot.strategies.uc3m import MODEL_KIND as UC3M, MODEL_VERSION as UC3M_V
    from acpcbot.strategies.uc3m_tree import OpponentModel
    from acpcbot.strategies.utility import MODEL_KIND as UTILITY, MODEL_VERSION as UTILITY_V

    game = load_game("hunl")
    model = OpponentModel(2)
    for line, position, result, shown in [("r300c/cc/cc/cc", 1, 300, 0.9), ("cr300f", 0, -100, None),
                                          ("r250r750c/r1500c/cc/cc", 1, -1500, 0.4)]:
        model.record(replay_betting(line, game, State(game, 0)), position, result, shown)

    def doc(kind: str, version: int, entry: object) -> bytes:
        return json.dumps({"format": FORMAT, "kind": kind, "version": version, "entries": {"villain": entry}},
                          indent=1).encode()

    return {"uc3m": doc(UC3M, UC3M_V, model.to_json()),
            "adaptive": doc(ADAPTIVE, ADAPTIVE_V, OpponentStats().to_json()),
            "utility": doc(UTILITY, UTILITY_V, {"R": 0.55, "F": 0.3, "hands": 40, "steps": 2})}


#: adaptive reads its model file the same on the blueprint floor or off it; off it, a player costs no floor to set up
#: (50 ms each on hunl's, most of the 60 players' CPU)
OFF_FLOOR = {"adaptive": "blueprint=0,"}


@pytest.mark.parametrize("strategy", ["uc3m", "adaptive", "utility"])
def test_model_files(tmp_path, strategy):
    from acpcbot.strategies import create
    from acpcbot.strategies.persist import ModelFileError
    from acpcbot.world import MatchInfo, View

    game = load_game("hunl")
    sample = _model_samples()[strategy]
    path = tmp_path / "model.json"
    view = View.parse("MATCHSTATE:0:0::AsKs|", game)
    info = MatchInfo(game, opponents=("villain",))

    def call(data: bytes) -> None:
        path.write_bytes(data)
        player = create(f"{strategy}:{OFF_FLOOR.get(strategy, '')}model={path}", game, seed=1)  # uc3m and adaptive
        # read the file here
        player.start_match(info)
        player.observe(view)  # utility reads its entry at the first state

    assert fuzz([sample], 60, call, (ModelFileError,)) > 0


def test_learner2008_tables(tmp_path):
    from acpcbot.strategies.learner2008 import TrainingError, default_table_path, load_table_file

    sample = default_table_path(load_game("hunl")).read_bytes()
    path = tmp_path / "t.npz"

    def call(data: bytes) -> None:
        path.write_bytes(data)
        load_table_file(path)

    assert fuzz([sample], 60, call, (TrainingError,)) > 0


def _log_sample(game_name: str, hands: int) -> bytes:
    """A good log of ``hands`` hands of random play, as the dealer writes it."""
    game = load_game(game_name)
    names = [f"p{i}" for i in range(game.num_players)]
    lines = format_header("m", game_name, hands, 7, 600000, 600000, 7000)
    totals = [0.0] * game.num_players
    for state in _random_hands(game, hands, 7):
        if state.finished:
            seats = [seat_of(p, state.hand_id, game.num_players) for p in range(game.num_players)]
            lines.append(format_state_line(state, [names[s] for s in seats]))
            for p, v in enumerate(state.payoffs()):
                totals[seats[p]] += v
    lines.append(format_score_line(totals, names))
    return ("\n".join(lines) + "\n").encode()


@pytest.mark.parametrize("game_name", ["hunl", "3pl"])
def test_logs(tmp_path, game_name):
    sample = _log_sample(game_name, 12)
    path = tmp_path / "m.log"
    path.write_bytes(sample)
    assert check_log(path).score_checked  # the sample is a good log

    def call(data: bytes) -> None:
        path.write_bytes(data)
        try:
            check_log(path)
        except LogCheckError as exc:
            assert len(str(exc)) < 1000
            raise
        read_match_log(path)

    assert fuzz([sample], 300, call, (LogCheckError, LogError)) > 0


def test_transaction_files(tmp_path, monkeypatch):
    config = config_for("hunl", 6, 0)
    # the transaction file of three hands of always-call seats, written as the dealer writes it
    lines = []
    deals = Dealer(config.game, config.seed)
    for h in range(3):
        hole, board = deals.deal()
        state = State(config.game, h, hole, board)
        while not state.finished:
            lines.append(f"STATE:{h}:{format_betting(state)}:{format_cards(state, None)}:c 1.000000 1.000100")
            state.apply(CALL)
    sample = ("\n".join(lines) + "\n").encode()
    monkeypatch.chdir(tmp_path)
    path = tmp_path / "m.tlog"
    path.write_bytes(sample)
    assert len(replay_transactions(config, read_transactions(path)[0])[1]) == 3  # the sample replays

    def call(data: bytes) -> None:
        path.write_bytes(data)
        transactions, _ = read_transactions(path)
        replay_transactions(config, transactions)

    assert fuzz([sample], 300, call, (TransactionFileError, ResumeError)) > 0

    def resume(data: bytes) -> None:
        # resuming as the dealer's -a does: the files are checked, then reopened
        path.write_bytes(data)
        Path("m.log").write_bytes(data[: len(data) // 3])
        files = open_match_files(config, use_log=True, use_tlog=True, append=True)
        files.log.close()
        files.tlog.close()

    fuzz([sample], 100, resume, (ResumeError,))


# ------------------------------------------------------------------ run folders (acpc-match resume)

def _run_folder(tmp_path: Path) -> Path:
    """A finished two-match run of acpc-match in memory: its plan.json and results.json are the samples."""
    from dealer.arena.recipes import Entry, build_plan
    from dealer.arena.runner import execute

    plan = build_plan(name="fz", game="kuhn2p", hands=10, seed=4, duplicate=True, mode="play",
                      entries=[Entry("a", "call"), Entry("b", "raise")], transport="memory", parallel=1)
    return Path(execute(plan, tmp_path / "runs")["run_dir"])


def test_plan_files(tmp_path):
    from dealer.arena.folders import RunError
    from dealer.arena.planfile import PLAN, finished_records, read_plan

    folder = _run_folder(tmp_path)
    sample = (folder / PLAN).read_bytes()
    samples = [sample, b"[" * 100_000 + b"]" * 100_000, sample.replace(b'"seed": 4', b'"seed": ' + b"9" * 5000)]

    def call(data: bytes) -> None:
        (folder / PLAN).write_bytes(data)
        finished_records(folder, read_plan(folder)[0])

    assert fuzz(samples, 300, call, (RunError,)) > 0


def test_results_files(tmp_path):
    from dealer.arena.folders import RESULTS, RunError
    from dealer.arena.planfile import finished_records, read_plan

    folder = _run_folder(tmp_path)
    plan = read_plan(folder)[0]
    sample = (folder / RESULTS).read_bytes()
    samples = [sample, b"{" + b'"a":[' * 100_000, sample.replace(b'"seed": 4', b'"seed": ' + b"9" * 5000)]

    def call(data: bytes) -> None:
        (folder / RESULTS).write_bytes(data)
        for record in finished_records(folder, plan).values():
            assert isinstance(record, dict)

    assert fuzz(samples, 200, call, (RunError,)) > 0
