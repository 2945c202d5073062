"""The 2008 study's learning player: it plays average-reward tables built from logged matches.

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
Tables are built by :mod:`acpcbot.strategies.learner2008_train`
(``python -m acpcbot.strategies.learner2008_train train LOG... --out FILE``).
"""

from __future__ import annotations

import json
import random
import zipfile
import zlib
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources
from pathlib import Path
from typing import Any, ClassVar, Sequence

import numpy as np

from ..gamedef import GameDef
from .base import Param
from .registration import register
from .study2008 import DECISIONS, VARIABLES, Situation, Study2008Player, random_decision

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

# ------------------------------------------------------------------ table files

class TrainingError(ValueError):
    """A table file, or training input, that cannot be read; the message names the file (and line)."""


#: what np.load raises on a file that is not a readable .npz (a cut zip raises zipfile's own error)
UNREADABLE_NPZ = (OSError, ValueError, KeyError, EOFError, zipfile.BadZipFile, zlib.error)


def save_tables(path: str | Path, tables: dict[str, Table], meta: dict[str, Any] | None = None) -> None:
    """Write tables (by setting name) and metadata to a compressed ``.npz``."""
    arrays: dict[str, Any] = {"meta": np.array(json.dumps(meta or {}, sort_keys=True))}
    for name, t in tables.items():
        arrays[f"{name}.widths"] = np.array(t.setting.widths)
        arrays[f"{name}.levels"] = np.array(t.setting.levels)
        arrays[f"{name}.sums"] = t.sums  # sparse: compresses to little
        arrays[f"{name}.counts"] = t.counts
    with open(path, "wb") as f:
        np.savez_compressed(f, **arrays)


def load_table_file(path: str | Path) -> tuple[dict[str, Table], dict[str, Any]]:
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
    except UNREADABLE_NPZ as exc:
        raise TrainingError(f"{path}: not a learner2008 table file: {exc}") from None
    if not tables:
        raise TrainingError(f"{path}: holds no learner2008 table")
    return tables, meta


# ------------------------------------------------------------------ tuned settings

#: the study's ten genetic constants in its Table 5 order (Table 4 bounds): the eight widths, then the small
#: ("little") and big level counts
GENES: dict[str, tuple[str, float, float]] = {
    "pot": ("POT", 1, 50), "chance": ("CHANCE", 5, 25), "raise": ("RAISE", 1, 25), "odds": ("ODDS", 1, 10),
    "qtyraise": ("QTYRAISE", 1, 10), "followers": ("FOLLOWERS", 1, 10), "ingame": ("INGAME", 1, 10),
    "nplayers": ("NPLAYERS", 1, 10), "lq": ("", 2, 4), "bq": ("", 2, 10)}


def tuned_setting(base: Setting, widths: dict[str, float], big: int, small: int) -> Setting:
    """``base`` with the given variables' widths (``VARIABLES`` names) and level counts (0: keep base's)."""
    big_vars = ("POT", "ODDS", "RAISE", "CHANCE")
    w, n = list(base.widths), list(base.levels)
    for i, var in enumerate(VARIABLES):
        if var in widths:
            w[i] = float(widths[var])
        if w[i] == OFF:
            n[i] = 1
        elif var == "ROUND":
            n[i] = 2
        elif var in big_vars:
            n[i] = big or (n[i] if base.widths[i] != OFF else 4)
        else:
            n[i] = small or (n[i] if base.widths[i] != OFF else 2)
    return Setting("tuned", tuple(w), tuple(n))


@lru_cache(maxsize=4)
def _records(path: str, mtime: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    try:
        with np.load(path, allow_pickle=False) as data:
            return (np.asarray(data["values"], dtype=np.float64), np.asarray(data["decisions"], dtype=np.int64),
                    np.asarray(data["rewards"], dtype=np.float64))
    except UNREADABLE_NPZ as exc:
        raise TrainingError(f"{path}: not a learner2008 data file: {exc}") from None


@lru_cache(maxsize=16)
def trained_table(path: str, mtime: float, setting: Setting) -> Table:
    """A table of ``setting`` counted from the decision records of ``path`` (a ``--save-data`` file)."""
    values, decisions, rewards = _records(path, mtime)
    table = Table(setting)
    table.add(values, decisions, rewards)
    return table


# ------------------------------------------------------------------ the player

def default_table_path(game: GameDef) -> Path:
    """The shipped table for a game: by its betting type."""
    kind = "limit" if game.is_limit else "nolimit"
    return Path(str(resources.files("acpcbot").joinpath("data", f"learner2008_{kind}.npz")))


@lru_cache(maxsize=8)
def _cached_tables(path: str, mtime: float) -> tuple[dict[str, Table], dict[str, Any]]:
    return load_table_file(path)


class Learner2008(Study2008Player):
    """The 2008 study's learner: plays the decision with the best average reward seen in its state's table cell.

    Rule: the state (study2008 variables, CHANCE included) is cut into
    levels by the ``setting`` ("common" sense or "genetic" widths of
    docs/studies.md, the 2008 study); among the decisions with data in that cell it
    plays the best (sum_win − sum_lose)/(n_win + n_lose) (ties: the less
    aggressive); an unseen state plays like random2008.  The table is fixed
    during play (learning happens offline, from logged matches).
    ``data=FILE`` (decision records, ``train --save-data`` or ``acpc-match
    sitngo --record``) counts the table from the records now, with the
    setting's widths or with the study's ten genetic constants given as
    parameters (``pot chance raise odds qtyraise followers ingame nplayers``
    widths, ``lq``/``bq`` level counts; ``tune_ranges`` holds its Table 4
    bounds for ``acpc-match tune``).
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
        "data": Param(str, "", "decision records (.npz from 'train --save-data') to count a table of the widths "
                               "given below from (empty: none)"),
        **{k: Param(float, 0.0, f"width of {var} (0: the setting's)", lambda v: v >= 0, "must be >= 0")
           for k, (var, _, _) in GENES.items() if var},
        "lq": Param(int, 0, "levels of the small variables (0: the setting's)", lambda v: v >= 0, "must be >= 0"),
        "bq": Param(int, 0, "levels of the big variables (0: the setting's)", lambda v: v >= 0, "must be >= 0"),
    }
    #: the study's genetic bounds (Table 4), for ``acpc-match tune``
    tune_ranges: ClassVar[dict[str, tuple[float, float]]] = {k: (lo, hi) for k, (_, lo, hi) in GENES.items()}

    def __init__(self, game: GameDef, rng: random.Random, **params: Any) -> None:
        super().__init__(game, rng, **params)
        #: whether the latest decision came from the table (False: an unseen state, played at random)
        self.last_seen = False
        widths = {var: getattr(self, k) for k, (var, _, _) in GENES.items() if var and getattr(self, k) > 0}
        if widths or self.bq or self.lq or self.data:  # type: ignore[attr-defined]
            # a table counted now from decision records: the setting's widths, or tuned ones (acpc-match tune)
            if not self.data:  # type: ignore[attr-defined]
                raise ValueError("learner2008: widths or level counts need data=FILE (decision records) to count "
                                 "their table from")
            setting = tuned_setting(SETTINGS[self.setting], widths, self.bq, self.lq)  # type: ignore[attr-defined]
            data = Path(self.data)  # type: ignore[attr-defined]
            try:
                self.lookup = trained_table(str(data), data.stat().st_mtime, setting)
            except OSError as exc:
                raise ValueError(f"learner2008: cannot read data file {data}: {exc}") from None
            self.meta = {"data": str(data)}
            return
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

    def decide(self, s: Situation | None) -> int:
        """The best decision of the state's cell, or random2008's when the state was never seen."""
        assert s is not None
        best = self.lookup.best(s.values())
        self.last_seen = best is not None
        return best if best is not None else random_decision(self.rng)


register(Learner2008)
