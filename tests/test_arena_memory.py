"""The in-memory transport hands each seat a state equal to the one its line parses to."""

import pytest

from acpcbot.engine import Action, ActionType, raise_to
from acpcbot.gamedef import load_game
from acpcbot.protocol import parse_match_state
from acpcbot.strategies.base import INLINE_ENDS, RunMode, Strategy
from acpcbot.strategies.registration import _REGISTRY, register
from dealer.arena.memory import play_match
from dealer.config import MatchConfig

CHECKED: list[int] = []
MISMATCHES: list[str] = []  # the client catches exceptions in observe, so failures are collected here


class StateSpy(Strategy):
    """Plays at random and checks every view's state against a parse of its text."""

    name = "test-state-spy"
    description = "test helper"
    run_mode = RunMode("inline", "every")

    def observe(self, view):
        try:
            self._compare(view)
        except Exception as exc:  # the client would log and swallow it: the test must see it
            MISMATCHES.append(f"{exc!r} in {view.text}")

    def _compare(self, view):
        parsed = parse_match_state(view.text, self.game).state
        state = view.state
        for attr in ("actions", "actors", "spent", "round", "finished", "folded", "board",
                     "current_player", "max_spent", "min_raise_to"):
            if getattr(state, attr) != getattr(parsed, attr):
                MISMATCHES.append(f"{attr} in {view.text}")
        if [tuple(h) for h in state.hole] != [tuple(h) for h in parsed.hole]:
            MISMATCHES.append(f"hole cards in {view.text}")
        if state.legal_actions() != parsed.legal_actions():
            MISMATCHES.append(f"legal actions in {view.text}")
        if state.finished and state.payoffs() != parsed.payoffs():
            MISMATCHES.append(f"payoffs in {view.text}")
        CHECKED.append(1)

    def act(self, view, deadline):
        kind = self.rng.choice(view.legal_actions)
        if kind == ActionType.RAISE and self.game.is_nolimit:
            lo, hi = view.raise_bounds
            return raise_to(self.rng.randint(lo, hi))
        return Action(kind)


@pytest.mark.parametrize("game_name", ["hunl", "hulhe", "3pnl", "leduc", "kuhn3p"])
def test_memory_states_equal_parsed_lines(tmp_path, game_name):
    game = load_game(game_name)
    names = [f"p{i}" for i in range(game.num_players)]
    config = MatchConfig(match_name="m", game=game, game_arg=game_name, num_hands=200, seed=5, names=names)
    CHECKED.clear()
    MISMATCHES.clear()
    played = play_match(config, [(n, "test-state-spy") for n in names], tmp_path / "m.log")
    finished, error = played.finished, played.error
    assert finished and error is None
    assert len(CHECKED) > 200 * game.num_players
    assert MISMATCHES == []


def test_a_strategy_that_only_acts_sees_its_turns_and_the_ends_of_hands(tmp_path):
    from acpcbot.client import Client
    from acpcbot.strategies.registry import create
    from acpcbot.world import MatchInfo

    game = load_game("hunl")
    assert not Client(create("call", game, 1), MatchInfo(game=game)).needs_every_state
    assert Client(create("test-state-spy", game, 1), MatchInfo(game=game)).needs_every_state


ENDED: list[str] = []


class EndSpy(Strategy):
    """Records that its match ended."""

    name = "test-end-spy"
    description = "test helper"
    run_mode = INLINE_ENDS

    def act(self, view, deadline):
        return view.fold_or_check()

    def end_match(self):
        ENDED.append(self.name)


def test_strategies_started_before_a_seat_that_fails_still_end_their_match(tmp_path):
    game = load_game("hunl")
    config = MatchConfig(match_name="m", game=game, game_arg="hunl", num_hands=5, seed=1, names=["a", "b"])
    ENDED.clear()
    with pytest.raises(Exception, match="nosuch"):
        play_match(config, [("a", "test-end-spy"), ("b", "nosuch")], tmp_path / "m.log")
    assert ENDED == ["test-end-spy"]


@pytest.fixture(autouse=True, scope="module")
def _spies_registered():
    # registered for this module's tests only: the registry is the shipped list everywhere else
    # (test_readme checks the README's strategies table against it, maybe in this same process)
    spies = (StateSpy, EndSpy)
    for cls in spies:
        register(cls)
    yield
    for cls in spies:
        _REGISTRY.pop(cls.name, None)
