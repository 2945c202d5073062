"""LBR's matches are not timed by the dealer: the measuring instrument must not end a match by running out of time."""

from __future__ import annotations

from pathlib import Path

from acpcbot.gamedef import load_game
from acpcbot.logcheck import whole_log_problem
from dealer.arena.lbr import lbr_plan
from dealer.arena.recipes import Entry, build_plan
from dealer.arena.runner import execute
from dealer.config import NO_CLOCK_MS


def _header(log: Path) -> list[str]:
    return [line for line in log.read_text().splitlines() if line.startswith("#--")]


def test_an_lbr_match_is_unclocked_and_a_played_one_keeps_the_competitions_clock(tmp_path: Path) -> None:
    lbr = execute(lbr_plan("call", "leduc", 4, 1, "memory", jobs=1), tmp_path / "lbr")
    log = Path(lbr["run_dir"]) / "match-000.log"
    assert _header(log) == [f"#--t_response {NO_CLOCK_MS}", f"#--t_hand {NO_CLOCK_MS}", f"#--t_per_hand {NO_CLOCK_MS}"]
    assert whole_log_problem(log, load_game("leduc"), 4) is None  # the reference's header, with its longer limits
    plan = build_plan(name="p", game="leduc", hands=4, seed=1, duplicate=False, mode="play",
                      entries=[Entry("a", "call"), Entry("b", "random")], transport="memory", parallel=1)
    played = execute(plan, tmp_path / "play")
    assert _header(Path(played["run_dir"]) / "match-000.log") == \
        ["#--t_response 600000", "#--t_hand 600000", "#--t_per_hand 7000"]
