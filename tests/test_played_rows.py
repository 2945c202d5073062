"""Played rows: the row a seat played each decision from, kept in the match, read by AIVAT instead of a replay."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from acpcbot.engine import CALL, FOLD, RAISE, raise_to
from acpcbot.gamedef import load_game
from acpcbot.holdings import num_holdings
from acpcbot.notation.played import format_played_row, parse_played_row, read_played_rows
from acpcbot.protocol import ProtocolError
from acpcbot.strategies.base import ActionPolicy, Strategy
from acpcbot.strategies.blueprint import shipped_reason
from acpcbot.strategies.registration import _REGISTRY, register
from acpcbot.strategies.registry import create
from acpcbot.world import View
from dealer.arena.aivat import evaluate_run
from dealer.arena.recipes import Entry, build_plan
from dealer.arena.analysis import load_logs
from dealer.arena.runner import execute

HUNL = load_game("hunl")
HULHE = load_game("hulhe")


# ------------------------------------------------------------------ the line


def test_a_line_spells_the_actions_and_the_exact_floats() -> None:
    line = format_played_row(17, 3, [FOLD, CALL, raise_to(300)], [0.25, 0.1 + 0.2, 0.44999999999999996], True)
    assert line == "17 3 f=0.25 c=0.30000000000000004 r300=0.44999999999999996"
    row = parse_played_row(line, HUNL)
    assert (row.hand_id, row.step, row.actions) == (17, 3, (FOLD, CALL, raise_to(300)))
    assert row.probs == (0.25, 0.1 + 0.2, 0.44999999999999996)  # to the last bit


def test_limit_raises_comments_and_a_cut_last_line() -> None:
    assert format_played_row(0, 1, [CALL, RAISE], [0.5, 0.5], False) == "0 1 c=0.5 r=0.5"
    text = "# a comment\n0 1 c=0.5 r=0.5\n\n2 0 f=1.0 c=0.0 r=0.0\n3 1 c=0."  # the last line was cut mid-write
    rows = read_played_rows(text, HULHE)
    assert sorted(rows) == [(0, 1), (2, 0)]
    assert rows[0, 1].actions == (CALL, RAISE)


@pytest.mark.parametrize("line,what", [
    ("3", "needs a hand, a step"),
    ("x 1 c=1.0", "hand and step numbers"),
    ("-1 0 c=1.0", "negative"),
    ("1 0 c:1.0", "ACTION=PROBABILITY"),
    ("1 0 c=half", "not a probability"),
    ("1 0 c=1.5", "outside"),
    ("1 0 c=nan", "outside"),
    ("1 0 q=1.0", "unknown action"),
])
def test_a_bad_line_is_named_by_its_number(line: str, what: str) -> None:
    with pytest.raises(ProtocolError, match=what) as err:
        read_played_rows("0 0 c=1.0\n" + line + "\n", HUNL)
    assert "line 2" in str(err.value)


# ------------------------------------------------------------------ through the arena


class Mixer(Strategy):
    """A mixed strategy whose rows depend on the holding and the step, kept as played (counts its copies)."""

    name = "test-played-mixer"
    has_policy = True
    made = 0

    def __init__(self, game, rng, **params):
        super().__init__(game, rng, **params)
        type(self).made += 1

    def policy(self, view: View) -> ActionPolicy:
        legal = view.state.legal_actions()
        actions = tuple(a for a in (FOLD, CALL, RAISE) if a[0] in legal)
        h = np.arange(num_holdings(self.game), dtype=np.float64)[:, None]
        weights = 1.0 + (h * (3 + view.state.num_actions) % 7) * np.arange(1, len(actions) + 1)
        return ActionPolicy(actions, weights / weights.sum(axis=1, keepdims=True), self.game)

    def act(self, view: View, deadline: float):
        policy = self.policy(view)
        return policy.actions[int(np.searchsorted(np.cumsum(policy.row(view.hole)), self.rng.random()))]

    def played_policy(self, view: View) -> ActionPolicy:
        return self.policy(view)


@pytest.fixture(autouse=True, scope="module")
def _mixer_registered():
    register(Mixer)  # this module's alone: the registry is the shipped list everywhere else
    yield
    _REGISTRY.pop(Mixer.name, None)


def _run(tmp_path: Path) -> tuple[dict, Path]:
    entries = [Entry("mixer", Mixer.name), Entry("caller", "call")]
    plan = build_plan(name="played", game="hulhe", hands=40, seed=5, duplicate=True, mode="play", entries=entries,
                      transport="memory", parallel=1)
    doc = execute(plan, tmp_path)
    return doc, Path(doc["run_dir"])


def _evaluate(doc: dict, run_dir: Path):
    records = doc["matches"]
    played, logs = load_logs(records, run_dir, HULHE)
    return evaluate_run(played, logs, doc["players"], HULHE, parallel=1)


def test_aivat_reads_the_rows_played_instead_of_replaying(tmp_path: Path) -> None:
    doc, run_dir = _run(tmp_path)
    files = sorted(p.name for p in run_dir.glob("*.played"))
    # the mixer keeps its rows in both seatings; call gives none, so it leaves no file
    assert files == ["match-000.seat1-mixer.played", "match-001.seat2-mixer.played"]
    Mixer.made = 0
    kept = _evaluate(doc, run_dir)
    assert Mixer.made == 0 and kept.notes == [] and kept.mismatches == 0  # nothing replayed
    for path in run_dir.glob("*.played"):
        path.unlink()
    replayed = _evaluate(doc, run_dir)
    assert Mixer.made == 2  # one copy a match
    assert kept.aivat == replayed.aivat and kept.allin == replayed.allin
    assert any(v != 0 for v in kept.aivat[0]["mixer"])


def test_a_merge_carries_the_rows_with_the_logs(tmp_path: Path) -> None:
    from dealer.arena.runner import merge_runs

    doc, run_dir = _run(tmp_path / "run")
    assert doc["matches"][0]["files"]["seat1-played"] == "match-000.seat1-mixer.played"
    Mixer.made = 0
    merged = merge_runs([run_dir], tmp_path / "merged", name="merged")
    assert Mixer.made == 0  # its AIVAT read the copied rows
    assert sorted(p.name for p in Path(merged["run_dir"]).glob("*.played")) == \
        ["match-000.seat1-mixer.played", "match-001.seat2-mixer.played"]
    assert [r["aivat_mbb_per_hand"] for r in merged["results"]] == [r["aivat_mbb_per_hand"] for r in doc["results"]]


def test_a_file_missing_a_decision_is_left_for_the_replay(tmp_path: Path) -> None:
    doc, run_dir = _run(tmp_path)
    path = run_dir / "match-000.seat1-mixer.played"
    lines = path.read_text().splitlines(keepends=True)
    path.write_text("".join(lines[:5] + lines[6:]))
    cut = _evaluate(doc, run_dir)
    assert any("has no row for hand" in n and "replayed" in n for n in cut.notes)
    path.write_text("0 0 nonsense\n")
    bad = _evaluate(doc, run_dir)
    assert any("match-000.seat1-mixer.played: line 1" in n for n in bad.notes)
    for p in run_dir.glob("*.played"):
        p.unlink()
    assert _evaluate(doc, run_dir).aivat == cut.aivat == bad.aivat


# ------------------------------------------------------------------ the re-solving blueprint

RIVER = "MATCHSTATE:0:0:rc/cc/rc/:AsKd|/7h7c2c/9h/5s"


@pytest.mark.skipif(shipped_reason(HULHE) is not None, reason=str(shipped_reason(HULHE)))
def test_the_blueprints_played_rows_are_what_a_fresh_copy_replays() -> None:
    view = View.parse(RIVER, HULHE)
    player = create("blueprint", HULHE, 3)
    player.act(view, 0.0)
    played = player.played_policy(view)
    assert played is not None
    fresh = create("blueprint", HULHE, 3).policy(view)  # the replay's copy solves the river itself
    assert played.actions == fresh.actions and np.array_equal(played.probs, fresh.probs)
    # the table alone is cheap to replay: it keeps nothing
    table = create("blueprint:resolve=0", HULHE, 3)
    table.act(view, 0.0)
    assert table.played_policy(view) is None



@pytest.mark.skipif(shipped_reason(HUNL) is not None, reason=str(shipped_reason(HUNL)))
def test_adaptive_on_the_floor_keeps_the_row_its_policy_gives() -> None:
    from acpcbot.world import MatchInfo

    def player(spec: str) -> Strategy:
        made = create(spec, HUNL, 7)
        made.start_match(MatchInfo(HUNL, name="p1", seed=7, opponents=("p2",), spec=spec))
        return made

    flop = View.parse("MATCHSTATE:1:0:r300c/r450:|Kh9h/Qh7c2c", HUNL)  # facing a 3/4-pot bet on the flop
    floor = player("adaptive")
    floor.act(flop, 0.0)
    kept = floor.played_policy(flop)
    assert kept is not None
    full = floor.policy(flop)
    assert tuple(kept.actions) == tuple(full.actions)
    assert np.array_equal(kept.row(flop.hole), full.row(flop.hole))
    assert floor.played_policy(View.parse("MATCHSTATE:1:0:r300c/r450c/r900:|Kh9h/Qh7c2c/3d", HUNL)) is None  # not played
    off = player("adaptive:blueprint=0")  # off the floor adaptive is deterministic: AIVAT replays nothing
    off.act(flop, 0.0)
    assert off.played_policy(flop) is None


def test_lbrs_target_keeps_the_policy_lbr_recorded(tmp_path: Path) -> None:
    from dealer.arena.lbr import lbr_plan

    doc = execute(lbr_plan(Mixer.name, "leduc", 30, 4, "memory", jobs=1), tmp_path)
    run_dir = Path(doc["run_dir"])
    assert sorted(p.name for p in run_dir.glob("*.played")) == ["match-000.seat2-test-played-mixer.played",
                                                                "match-001.seat1-test-played-mixer.played"]
    game = load_game("leduc")
    played, logs = load_logs(doc["matches"], run_dir, game)
    Mixer.made = 0
    kept = evaluate_run(played, logs, doc["players"], game, parallel=1)
    assert Mixer.made == 0 and kept.notes == []
    assert any(v != 0 for values in kept.aivat for v in values[Mixer.name])
    for path in run_dir.glob("*.played"):
        path.unlink()
    assert evaluate_run(played, logs, doc["players"], game, parallel=1).aivat == kept.aivat
    # a target that keeps no rows of its own (cheap to replay) leaves none behind LBR either
    plain = execute(lbr_plan("random", "leduc", 6, 4, "memory", jobs=1), tmp_path / "random")
    assert list(Path(plain["run_dir"]).glob("*.played")) == []
