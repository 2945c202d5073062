"""The 2008 study's learning player: average-reward tables built from logged matches, and its training command.

Training (``python -m acpcbot.strategies.learner2008 train LOG... --out FILE``)
reads finished hands from dealer logs (``.log``: one ``STATE:`` line per
hand with every player's cards and result; the runner's run folders hold
them) and/or dealer transcripts (``.err``/stderr: ``TO``/``FROM`` lines;
each seat's own ``TO`` lines show its cards, the final states the
showdown, and the results come from the engine).  Every action of every
player becomes one record (state variables as in
:mod:`acpcbot.strategies.study2008`, the decision that explains the action,
the player's net result for the whole hand in SB).  Records persist as a
numpy file (``--save-data``) and can be trained from again.

A setting cuts each variable into levels: level = min(floor(value/width)+1,
levels), a width of -1 switches a variable off (one level).  ROUND has two
levels, preflop and later (width 1 on the 0-based round).  The table,
indexed by (levels of each variable..., win/lose, decision), holds the sum
of |reward| and a count; win means reward >= 0.  :func:`discretise` is the
one function that turns values into levels, at training and at play.

Play (``learner2008:table=FILE,setting=S``): compute the state, look up its
cell, and among the decisions with data play the one with the best
(sum_win - sum_lose) / (n_win + n_lose); a state never seen plays like
random2008.  Without ``table`` it plays the shipped default table of the
game's betting type (``acpcbot/data/learner2008_limit.npz`` or
``learner2008_nolimit.npz``; ``tools/train_learner2008.py`` rebuilds them).
"""

from __future__ import annotations

import argparse
import json
import math
import random
import re
import sys
import zipfile
import zlib
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from functools import lru_cache
from importlib import resources
from pathlib import Path
from typing import Any, ClassVar, Iterable, Iterator, Sequence

import numpy as np

from ..engine import IllegalAction, State
from ..gamedef import GameDef, GameDefError, load_game
from ..matchlog import Header, LogError, header_game, parse_header_line, parse_state_line
from ..protocol import ProtocolError, parse_match_state, replay_betting
from .base import Param
from .common import holdem_only, study_blinds
from .registry import register
from .study2008 import (DECISIONS, VARIABLES, Situation, Study2008Player, action_decision, decisions_of_hand,
                        random_decision, situation)

OFF = -1.0


@dataclass(frozen=True)
class Setting:
    """How each variable (``VARIABLES`` order) is cut into levels: widths (-1 = off) and level counts."""

    name: str
    widths: tuple[float, ...]
    levels: tuple[int, ...]

    def __post_init__(self) -> None:
        if len(self.widths) != len(VARIABLES) or len(self.levels) != len(VARIABLES):
            raise ValueError(f"setting {self.name!r}: one width and one level count per variable")
        for var, w, n in zip(VARIABLES, self.widths, self.levels):
            if (w == OFF and n != 1) or (w != OFF and (w <= 0 or n < 1)):
                raise ValueError(f"setting {self.name!r}: {var} has width {w} and {n} levels")

    @property
    def shape(self) -> tuple[int, ...]:
        """The table's shape: levels per variable, then win/lose, then the six decisions."""
        return self.levels + (2, len(DECISIONS))


def _setting(name: str, widths: dict[str, float], big: int, small: int) -> Setting:
    big_vars = ("POT", "ODDS", "RAISE", "CHANCE")
    w, n = [], []
    for var in VARIABLES:
        width = widths.get(var, OFF)
        w.append(float(width))
        n.append(1 if width == OFF else 2 if var == "ROUND" else big if var in big_vars else small)
    return Setting(name, tuple(w), tuple(n))


#: the study's two settings; ROUND (0-based) with width 1 and 2 levels is preflop / later in both
SETTINGS: dict[str, Setting] = {
    "common": _setting("common", {"ODDS": 2, "CHANCE": 10, "POT": 10, "RAISE": 5, "FOLLOWERS": 1, "ROUND": 1},
                       big=10, small=2),
    "genetic": _setting("genetic", {"ODDS": 9.6, "CHANCE": 23.3, "POT": 37.4, "RAISE": 13.2, "FOLLOWERS": 2.6,
                                    "NPLAYERS": 3.5, "QTYRAISE": 3.5, "INGAME": 5.6, "ROUND": 1},
                        big=4, small=2),
}


def discretise(values: np.ndarray | Sequence[float], setting: Setting) -> np.ndarray:
    """Levels (1-based ints) of state values (``VARIABLES`` order, any leading shape): min(floor(v/w)+1, levels)."""
    v = np.asarray(values, dtype=np.float64)
    if v.shape[-1] != len(VARIABLES):
        raise ValueError(f"expected {len(VARIABLES)} values per state, got shape {v.shape}")
    widths = np.array(setting.widths)
    levels = np.array(setting.levels)
    on = widths != OFF
    safe = np.where(on, widths, 1.0)
    lv = np.floor(v / safe).astype(np.int64) + 1
    lv = np.clip(lv, 1, levels)
    return np.where(on, lv, 1)


WIN, LOSE = 0, 1


class Table:
    """One setting's table: sum of |reward| and count per (levels..., win/lose, decision)."""

    def __init__(self, setting: Setting, sums: np.ndarray | None = None, counts: np.ndarray | None = None) -> None:
        self.setting = setting
        shape = setting.shape
        self.sums = np.zeros(shape) if sums is None else np.asarray(sums, dtype=np.float64)
        self.counts = np.zeros(shape, dtype=np.int64) if counts is None else np.asarray(counts, dtype=np.int64)
        if self.sums.shape != shape or self.counts.shape != shape:
            raise ValueError(f"table of setting {setting.name!r} must have shape {shape}, "
                             f"got {self.sums.shape} and {self.counts.shape}")

    def add(self, values: np.ndarray, decisions: np.ndarray, rewards: np.ndarray) -> None:
        """Count records: state values (N, 9), decisions 1..6 (N,), rewards in SB (N,)."""
        if len(values) == 0:
            return
        lv = discretise(values, self.setting) - 1
        lose = (np.asarray(rewards) < 0).astype(np.int64)
        index = tuple(lv[:, i] for i in range(lv.shape[1])) + (lose, np.asarray(decisions, dtype=np.int64) - 1)
        np.add.at(self.sums, index, np.abs(rewards))
        np.add.at(self.counts, index, 1)

    def scores(self, values: Sequence[float]) -> dict[int, float]:
        """Average reward of each decision with data in the state of ``values``."""
        idx = tuple(int(x) - 1 for x in discretise(values, self.setting))
        sums = self.sums[idx]
        n = self.counts[idx].sum(axis=0)
        return {d: float((sums[WIN, i] - sums[LOSE, i]) / n[i]) for i, d in enumerate(DECISIONS) if n[i] > 0}

    def best(self, values: Sequence[float]) -> int | None:
        """The decision with the best average reward in this state (ties: the smaller); None when unseen."""
        scores = self.scores(values)
        if not scores:
            return None
        return max(scores, key=lambda d: (scores[d], -d))

    @property
    def records(self) -> int:
        """Records counted."""
        return int(self.counts.sum())

    @property
    def states_seen(self) -> int:
        """States with at least one record."""
        return int((self.counts.sum(axis=(-2, -1)) > 0).sum())


# ------------------------------------------------------------------ files

class TrainingError(ValueError):
    """Training input that cannot be read, with the file and line."""


#: what np.load raises on a file that is not a readable .npz (a cut zip raises zipfile's own error)
_UNREADABLE = (OSError, ValueError, KeyError, EOFError, zipfile.BadZipFile, zlib.error)


def save_tables(path: str | Path, tables: dict[str, Table], meta: dict[str, Any] | None = None) -> None:
    """Write tables (by setting name) and metadata to a compressed ``.npz``."""
    arrays: dict[str, np.ndarray] = {"meta": np.array(json.dumps(meta or {}, sort_keys=True))}
    for name, t in tables.items():
        arrays[f"{name}.widths"] = np.array(t.setting.widths)
        arrays[f"{name}.levels"] = np.array(t.setting.levels)
        arrays[f"{name}.sums"] = t.sums  # sparse: compresses to little
        arrays[f"{name}.counts"] = t.counts
    with open(path, "wb") as f:
        np.savez_compressed(f, **arrays)


def load_tables(path: str | Path) -> tuple[dict[str, Table], dict[str, Any]]:
    """Tables by setting name and metadata from a file written by :func:`save_tables`."""
    try:
        with np.load(path, allow_pickle=False) as data:
            files = set(data.files)
            meta = json.loads(str(data["meta"])) if "meta" in files else {}
            tables = {}
            for key in sorted(files):
                if not key.endswith(".sums"):
                    continue
                name = key[:-len(".sums")]
                setting = Setting(name, tuple(float(x) for x in data[f"{name}.widths"]),
                                  tuple(int(x) for x in data[f"{name}.levels"]))
                tables[name] = Table(setting, data[f"{name}.sums"], data[f"{name}.counts"])
    except _UNREADABLE as exc:
        raise TrainingError(f"{path}: not a learner2008 table file: {exc}") from None
    if not tables:
        raise TrainingError(f"{path}: holds no learner2008 table")
    return tables, meta


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
        except _UNREADABLE as exc:
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


#: the header line that starts a match in logs and transcripts (they may hold several matches)
_MATCH_HEADER = "# name/game/hands/seed"


def _header(line: str, header: Any, where: str) -> tuple[Any, bool]:
    """A comment line read into the header; True when it starts a new match."""
    try:
        return parse_header_line(line, header), line.startswith(_MATCH_HEADER)
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
                if line.startswith("STATE:"):
                    return "log"
                if line.startswith(("TO ", "FROM ", "STARTED")):
                    return "transcript"
    except OSError as exc:
        raise TrainingError(f"{path}: cannot read: {exc}") from None
    return "other"


def read_log(path: Path, game: GameDef | None = None) -> Iterator[Hand]:
    """Every hand of a dealer log (results as logged)."""
    header = None
    g: GameDef | None = None
    with open(path, encoding="utf-8", errors="replace") as f:
        for number, line in enumerate(f, start=1):
            where = f"{path}:{number}"
            if line.startswith("#"):
                header, new_match = _header(line, header, where)
                if new_match:
                    g = None  # logs may be concatenated
                continue
            if not line.startswith("STATE:"):
                continue
            if g is None:
                g = _game_of(header, game, where)
            try:
                logged = parse_state_line(line, g)
            except LogError as exc:
                raise TrainingError(f"{where}: {exc}") from None
            if not logged.state.finished:
                raise TrainingError(f"{where}: hand {logged.hand_id} is not finished")
            yield Hand(logged.state, logged.values)


_TRANSCRIPT_LINE = re.compile(r"^(TO|FROM) (\d+) at \S+ (MATCHSTATE:\S*)\s*$")


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
            m = _TRANSCRIPT_LINE.match(line)
            if m is None or m.group(1) != "TO":
                continue  # FROM lines repeat a state already sent; the next TO lines hold the action applied
            if g is None:
                g = _game_of(header, game, where)
            try:
                ms = parse_match_state(m.group(3), g)
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
            betting = m.group(3).split(":")[3]
            try:
                full = replay_betting(betting, g, State(g, hand_id, [holes[p] for p in range(n)], ms.state.board))
                results = full.payoffs()
            except (ProtocolError, IllegalAction, ValueError) as exc:
                raise TrainingError(f"{where}: hand {hand_id}: {exc}") from None
            yield Hand(full, results)


def _header_key(path: Path) -> str | None:
    with open(path, encoding="utf-8", errors="replace") as f:
        for line in f:
            if line.startswith(_MATCH_HEADER):
                return line.strip()
            if not line.startswith("#"):
                return None
    return None


def _is_record_file(path: Path) -> bool:
    try:
        with np.load(path, allow_pickle=False) as data:
            return "decisions" in data.files
    except _UNREADABLE:
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
    reader = read_log if kind == "log" else read_transcript
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


# ------------------------------------------------------------------ the player

def default_table_path(game: GameDef) -> Path:
    """The shipped table for a game: by its betting type."""
    kind = "limit" if game.is_limit else "nolimit"
    return Path(str(resources.files("acpcbot").joinpath("data", f"learner2008_{kind}.npz")))


@lru_cache(maxsize=8)
def _cached_tables(path: str, mtime: float) -> tuple[dict[str, Table], dict[str, Any]]:
    return load_tables(path)


class Learner2008(Study2008Player):
    """The 2008 study's learner: plays the decision with the best average reward seen in its state's table cell.

    Rule: the state (study2008 variables, CHANCE included) is cut into
    levels by the ``setting`` ("common" sense or "genetic" widths of
    STRATEGIES.md section 1); among the decisions with data in that cell it
    plays the best (sum_win − sum_lose)/(n_win + n_lose) (ties: the less
    aggressive); an unseen state plays like random2008.  The table is fixed
    during play (learning happens offline, from logged matches).
    Deviations: the study's two bugs are not repeated (CHANCE uses its own
    width; ROUND is cut the same way in training and play, by the same
    function); decisions are read back from observed actions (see
    ``study2008.action_decision``), so a fold when checking was free counts
    as a check and a limit raise as a small raise; the common conventions.
    The shipped tables saw far less than the study's 60 million decisions:
    a heads-up round robin of the static players, 90,000 hands per betting
    type (710,051 no-limit and 1,082,099 limit decisions); in games with
    more players, states never seen heads-up play like random2008.
    """

    name = "learner2008"
    description = "2008 study: average-reward learner over discretised states (tables from logged matches)."
    params: ClassVar[dict[str, Param]] = {
        "table": Param(str, "", "the table file (.npz from 'train'); default: the shipped table for the game"),
        "setting": Param(str, "common", "which setting's table to play", choices=tuple(SETTINGS)),
    }

    def __init__(self, game: GameDef, rng: random.Random, **params: Any) -> None:
        super().__init__(game, rng, **params)
        path = Path(self.table) if self.table else default_table_path(game)  # type: ignore[attr-defined]
        try:
            tables, self.meta = _cached_tables(str(path), path.stat().st_mtime)
        except OSError as exc:
            raise ValueError(f"learner2008: cannot read table file {path}: {exc}") from None
        setting = self.setting  # type: ignore[attr-defined]
        if setting not in tables:
            raise ValueError(f"learner2008: {path} has no {setting!r} table (it has {', '.join(tables)})")
        self.lookup = tables[setting]
        if self.lookup.setting.widths != SETTINGS[setting].widths or \
                self.lookup.setting.levels != SETTINGS[setting].levels:
            raise ValueError(f"learner2008: the {setting!r} table of {path} was cut with other widths or levels")
        #: whether the latest decision came from the table (False: an unseen state, played at random)
        self.last_seen = False

    def decide(self, s: Situation | None) -> int:
        """The best decision of the state's cell, or random2008's when the state was never seen."""
        assert s is not None
        best = self.lookup.best(s.values())
        self.last_seen = best is not None
        return best if best is not None else random_decision(self.rng)


# Run with ``python -m`` this file is ``__main__``: it must not register a second class named learner2008.
if __name__ != "__main__":
    register(Learner2008)


# ------------------------------------------------------------------ command line

def build_parser() -> argparse.ArgumentParser:
    """The ``python -m acpcbot.strategies.learner2008`` command line."""
    parser = argparse.ArgumentParser(prog="python -m acpcbot.strategies.learner2008",
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
            tables, meta = load_tables(args.table)
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
