"""Training the 2008 study's learner: decisions read from logged matches, turned into its average-reward tables.

``python -m acpcbot.strategies.learner2008_train train LOG... --out FILE``
reads finished hands from dealer logs (``.log``: one ``STATE:`` line per
hand with every player's cards and result; the runner's run folders hold
them) and/or dealer transcripts (``.err``/stderr: ``TO``/``FROM`` lines;
each seat's own ``TO`` lines show its cards, the final states the
showdown, and the results come from the engine).  Every action of every
player becomes one record (state variables as in
:mod:`acpcbot.strategies.study2008`, the decision that explains the action,
the player's net result for the whole hand in SB).  Records persist as a
numpy file (``--save-data``) and can be trained from again.
``info FILE`` summarises a table file.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable, Iterator, Sequence

import numpy as np

from ..engine import IllegalAction, State
from ..gamedef import GameDef, GameDefError, load_game
from ..matchlog import MATCH_HEADER, Header, LogError, LogLineError, header_game, parse_header_line, read_entries
from ..notation.loglines import STATE_PREFIX
from ..notation.matchstate import betting_field
from ..notation.transcript import read_state_line
from ..protocol import ProtocolError, parse_match_state, replay_betting
from .common import holdem_only, study_blinds
from .learner2008 import SETTINGS, UNREADABLE_NPZ, Table, TrainingError, load_table_file, save_tables
from .study2008 import VARIABLES, action_decision, decisions_of_hand, situation


@dataclass
class DecisionData:
    """Logged decisions: state values (N, 9) in ``VARIABLES`` order, decisions 1..6 and rewards in SB."""

    values: np.ndarray = field(default_factory=lambda: np.zeros((0, len(VARIABLES))))
    decisions: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int8))
    rewards: np.ndarray = field(default_factory=lambda: np.zeros(0))
    #: games the records come from, with how many hands each
    games: dict[str, int] = field(default_factory=dict)

    def __len__(self) -> int:
        return len(self.decisions)

    def extend(self, other: "DecisionData") -> None:
        """Append another set of records."""
        self.values = np.concatenate([self.values, other.values])
        self.decisions = np.concatenate([self.decisions, other.decisions])
        self.rewards = np.concatenate([self.rewards, other.rewards])
        for g, n in other.games.items():
            self.games[g] = self.games.get(g, 0) + n

    def save(self, path: str | Path) -> None:
        """Write the records to a compressed ``.npz``."""
        with open(path, "wb") as f:
            np.savez_compressed(f, values=self.values, decisions=self.decisions, rewards=self.rewards,
                                variables=np.array(VARIABLES), games=np.array(json.dumps(self.games)))

    @classmethod
    def load(cls, path: str | Path) -> "DecisionData":
        """Read records written by :meth:`save`."""
        try:
            with np.load(path, allow_pickle=False) as data:
                if tuple(str(v) for v in data["variables"]) != VARIABLES:
                    raise ValueError(f"its variables are {list(data['variables'])}, expected {list(VARIABLES)}")
                out = cls(np.asarray(data["values"], dtype=np.float64), np.asarray(data["decisions"], dtype=np.int8),
                          np.asarray(data["rewards"], dtype=np.float64), json.loads(str(data["games"])))
        except UNREADABLE_NPZ as exc:
            raise TrainingError(f"{path}: not a learner2008 data file: {exc}") from None
        if not (out.values.shape == (len(out), len(VARIABLES)) and out.rewards.shape == (len(out),)):
            raise TrainingError(f"{path}: arrays of inconsistent lengths")
        return out


# ------------------------------------------------------------------ reading matches

@dataclass
class Hand:
    """A finished hand with every acting player's cards: the replayed state and each position's result in chips."""

    state: State
    results: list[float]


def hand_records(hand: Hand) -> DecisionData:
    """One record per action of the hand: the actor's state values, its decision and its result in SB."""
    state = hand.state
    sb = study_blinds(state.game)[0]
    rows, decisions, rewards = [], [], []
    for p, before, action in decisions_of_hand(state):
        s = situation(before, p)
        rows.append(s.values())
        decisions.append(action_decision(before, action))
        rewards.append(hand.results[p] / sb)
    return DecisionData(np.array(rows, dtype=np.float64).reshape(-1, len(VARIABLES)),
                        np.array(decisions, dtype=np.int8), np.array(rewards, dtype=np.float64),
                        {state.game.name: 1})



def _header(line: str, header: Any, where: str) -> tuple[Any, bool]:
    """A comment line read into the header; True when it starts a new match."""
    try:
        return parse_header_line(line, header), line.startswith(MATCH_HEADER)
    except LogError as exc:
        raise TrainingError(f"{where}: {exc}") from None


def _game_of(header: Header | None, override: GameDef | None, where: str) -> GameDef:
    if override is not None:
        return override
    try:
        return header_game(header)
    except LogError as exc:
        raise TrainingError(f"{where}: {exc}; pass --game") from None


def file_kind(path: Path) -> str:
    """'log' (STATE lines), 'transcript' (TO/FROM lines), 'data' (.npz records) or 'other' (none of these)."""
    if path.suffix == ".npz":
        return "data"
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            for line in f:
                if line.startswith(STATE_PREFIX):
                    return "log"
                if line.startswith(("TO ", "FROM ", "STARTED")):
                    return "transcript"
    except OSError as exc:
        raise TrainingError(f"{path}: cannot read: {exc}") from None
    return "other"


def read_log_hands(path: Path, game: GameDef | None = None) -> Iterator[Hand]:
    """Every hand of a dealer log, or of several concatenated (results as logged)."""
    entries = read_entries(path, game)
    while True:
        try:
            entry = next(entries)
        except StopIteration:
            return
        except LogLineError as exc:
            where = f"{path}:{exc.number}" if exc.number else f"{path}"
            raise TrainingError(f"{where}: {exc.reason}" + ("; pass --game" if exc.needs_game else "")) from None
        hand = entry.hand
        if hand is None:
            continue  # headers, SCORE lines and anything else carry no decision
        if not hand.state.finished:
            raise TrainingError(f"{path}:{entry.number}: hand {hand.hand_id} is not finished")
        yield Hand(hand.state, hand.values)


def read_transcript(path: Path, game: GameDef | None = None) -> Iterator[Hand]:
    """Every finished hand of a dealer transcript; results computed by the engine from the cards seen.

    Each seat's ``TO`` lines show its own hole cards, the final state shows
    the showdown; a hand cut short (an error ends the match) is left out.
    """
    header = None
    g: GameDef | None = None
    hand_id: int | None = None
    holes: dict[int, tuple[int, ...]] = {}
    done = False
    with open(path, encoding="utf-8", errors="replace") as f:
        for number, line in enumerate(f, start=1):
            where = f"{path}:{number}"
            if line.startswith("#"):
                header, new_match = _header(line, header, where)
                if new_match:
                    g, hand_id, holes, done = None, None, {}, False
                continue
            m = read_state_line(line)
            if m is None or m[0] != "TO":
                continue  # FROM lines repeat a state already sent; the next TO lines hold the action applied
            if g is None:
                g = _game_of(header, game, where)
            try:
                ms = parse_match_state(m[2], g)
            except ProtocolError as exc:
                raise TrainingError(f"{where}: {exc}") from None
            if ms.hand_id != hand_id:
                hand_id, holes, done = ms.hand_id, {}, False
            for p, h in enumerate(ms.state.hole):
                if h:
                    holes[p] = tuple(h)
            if done or not ms.state.finished:
                continue
            done = True
            n = g.num_players
            if len(holes) < n:
                raise TrainingError(f"{where}: hand {hand_id}: the hole cards of positions "
                                    f"{sorted(set(range(n)) - set(holes))} were never sent")
            betting = betting_field(m[2])
            try:
                full = replay_betting(betting, g, State(g, hand_id, [holes[p] for p in range(n)], ms.state.board))
                results = full.payoffs()
            except (ProtocolError, IllegalAction, ValueError) as exc:
                raise TrainingError(f"{where}: hand {hand_id}: {exc}") from None
            yield Hand(full, results)


def _header_key(path: Path) -> str | None:
    with open(path, encoding="utf-8", errors="replace") as f:
        for line in f:
            if line.startswith(MATCH_HEADER):
                return line.strip()
            if not line.startswith("#"):
                return None
    return None


def _is_record_file(path: Path) -> bool:
    try:
        with np.load(path, allow_pickle=False) as data:
            return "decisions" in data.files
    except UNREADABLE_NPZ:
        return False


def expand_inputs(paths: Iterable[str | Path]) -> list[tuple[Path, str]]:
    """(file, kind) for each input; a folder gives its ``*.log``, ``*.err`` and ``*.npz`` files, recursively.

    Files found in a folder that hold no hands (a quiet transcript, a
    table) are passed over; a file named explicitly must hold some.  A
    transcript is skipped when a log of the same match (same folder, same
    header line) is among the inputs: the log says the same with less work.
    """
    files: list[tuple[Path, bool]] = []
    for p in map(Path, paths):
        if p.is_dir():
            found = sorted(q for q in p.rglob("*") if q.is_file() and q.suffix in (".log", ".err", ".npz"))
            files.extend((q, False) for q in found)
        elif p.is_file():
            files.append((p, True))
        else:
            raise TrainingError(f"{p}: no such file or folder")
    kinds = []
    seen = set()
    for f, explicit in files:
        if f.resolve() in seen:
            continue
        seen.add(f.resolve())
        kind = file_kind(f)
        if kind == "data" and not explicit and not _is_record_file(f):
            continue
        if kind == "other":
            if explicit:
                raise TrainingError(f"{f}: neither a dealer log (STATE lines) nor a transcript (TO/FROM lines)")
            continue
        kinds.append((f, kind))
    logged = {(f.parent.resolve(), _header_key(f)) for f, k in kinds if k == "log"}
    return [(f, k) for f, k in kinds if k != "transcript" or (f.parent.resolve(), _header_key(f)) not in logged]


def extract_file(path: str | Path, kind: str, game: GameDef | None = None) -> DecisionData:
    """Every logged decision of one log or transcript (``kind`` as :func:`file_kind` says) or record file."""
    path = Path(path)
    if kind == "data":
        return DecisionData.load(path)
    reader = read_log_hands if kind == "log" else read_transcript
    chunks = []
    games: dict[str, int] = {}
    for hand in reader(path, game):
        g = hand.state.game
        if holdem_only(g) is not None:
            raise TrainingError(f"{path}: {g.name} is not Texas hold'em")
        chunks.append(hand_records(hand))
        games[g.name] = games.get(g.name, 0) + 1
    if not chunks:
        return DecisionData()
    return DecisionData(np.concatenate([c.values for c in chunks]), np.concatenate([c.decisions for c in chunks]),
                        np.concatenate([c.rewards for c in chunks]), games)


def extract(paths: Iterable[str | Path], game: GameDef | None = None, progress: Any = None,
            jobs: int = 1) -> DecisionData:
    """Every logged decision of the inputs (logs, transcripts, folders of them, ``.npz`` record files), in input order.

    ``jobs`` > 1 reads that many files at once in worker processes (CHANCE's
    Monte Carlo dominates); the result does not depend on it.
    """
    files = expand_inputs(paths)
    data = DecisionData()

    def add(path: Path, part: DecisionData) -> None:
        data.extend(part)
        if progress is not None:
            progress(f"{path}: {sum(part.games.values())} hands, {len(data)} decisions so far")

    if jobs <= 1 or len(files) <= 1:
        for path, kind in files:
            add(path, extract_file(path, kind, game))
        return data
    with ProcessPoolExecutor(min(jobs, len(files))) as pool:
        futures = [pool.submit(extract_file, path, kind, game) for path, kind in files]
        for (path, _), future in zip(files, futures):
            add(path, future.result())
    return data


def train(data: DecisionData, settings: Sequence[str] = tuple(SETTINGS)) -> dict[str, Table]:
    """A table per setting from the records."""
    tables = {}
    for name in settings:
        if name not in SETTINGS:
            raise TrainingError(f"unknown setting {name!r}; known: {', '.join(SETTINGS)}")
        t = Table(SETTINGS[name])
        t.add(data.values, data.decisions, data.rewards)
        tables[name] = t
    return tables


# ------------------------------------------------------------------ command line

def build_parser() -> argparse.ArgumentParser:
    """The ``python -m acpcbot.strategies.learner2008_train`` command line."""
    parser = argparse.ArgumentParser(prog="python -m acpcbot.strategies.learner2008_train",
                                     description="Build and inspect the 2008 study learner's tables.")
    sub = parser.add_subparsers(dest="command", required=True)
    tr = sub.add_parser("train", help="build tables from logged matches")
    tr.add_argument("inputs", nargs="+", metavar="LOG",
                    help="dealer logs, dealer transcripts, run folders, or .npz record files from --save-data")
    tr.add_argument("--out", required=True, help="the table file to write (.npz)")
    tr.add_argument("--game", help="the game of inputs whose header does not name it")
    tr.add_argument("--settings", default=",".join(SETTINGS),
                    help=f"comma-separated settings to build (default: {','.join(SETTINGS)})")
    tr.add_argument("--save-data", metavar="FILE", help="also write the extracted records (.npz)")
    tr.add_argument("--jobs", type=int, default=1, help="files read at once (default: 1)")
    tr.add_argument("--quiet", action="store_true", help="no progress lines")
    info = sub.add_parser("info", help="summarise a table file")
    info.add_argument("table")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; 0 done, 2 bad input."""
    args = build_parser().parse_args(argv)
    try:
        if args.command == "info":
            tables, meta = load_table_file(args.table)
            print(json.dumps({"meta": meta, "tables": {n: {"records": t.records, "states_seen": t.states_seen,
                                                             "states": math.prod(t.setting.levels)}
                                                         for n, t in tables.items()}}, indent=1))
            return 0
        settings = [s.strip() for s in args.settings.split(",") if s.strip()]
        game = load_game(args.game) if args.game else None
        say = None if args.quiet else (lambda text: print(text, file=sys.stderr, flush=True))
        data = extract(args.inputs, game, say, args.jobs)
        if not len(data):
            raise TrainingError("the inputs hold no decisions")
        if args.save_data:
            data.save(args.save_data)
        tables = train(data, settings)
        meta = {"records": len(data), "games": data.games, "settings": settings}
        save_tables(args.out, tables, meta)
        if say:
            say(f"{args.out}: {len(data)} decisions from {sum(data.games.values())} hands "
                f"({', '.join(f'{g} {n}' for g, n in sorted(data.games.items()))})")
    except (TrainingError, GameDefError, OSError) as exc:
        print(f"learner2008: error: {exc}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
