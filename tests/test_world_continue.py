"""A line that continues its hand is read by replaying only what it adds: the same state as a full parse, the same errors."""

import random

import pytest

from acpcbot.engine import CALL, FOLD, RAISE, ActionType, State, raise_to
from acpcbot.gamedef import SHIPPED_GAMES, load_game
from acpcbot.protocol import ProtocolError, format_match_state, parse_match_state
from acpcbot.world import KEEP_HANDS, World
from dealer.rng import Dealer

ATTRS = ("actions", "actors", "spent", "round", "finished", "folded", "board", "current_player", "max_spent",
         "min_raise_to", "hand_id")


def _same(a: State, b: State) -> bool:
    return all(getattr(a, k) == getattr(b, k) for k in ATTRS) and \
        [tuple(h) for h in a.hole] == [tuple(h) for h in b.hole]


def _hands(game, seed, count):
    """Every line one position receives over ``count`` random hands (the position rotates)."""
    dealer = Dealer(game, seed)
    rng = random.Random(seed)
    for h in range(count):
        hole, board = dealer.deal()
        state = State(game, h, hole, board)
        viewer = h % game.num_players
        while True:
            yield format_match_state(state, viewer)
            if state.finished:
                break
            kind = rng.choice(state.legal_actions())
            if kind == ActionType.RAISE:
                lo, hi = state.raise_bounds()
                action = raise_to(rng.choice([lo, hi, rng.randint(lo, hi)])) if game.is_nolimit else RAISE
            else:
                action = CALL if kind == ActionType.CALL else FOLD
            state.apply(action)


@pytest.mark.parametrize("game_name", SHIPPED_GAMES)
def test_every_view_equals_a_full_parse_of_its_line(game_name):
    game = load_game(game_name)
    world = World(game)
    lines = 0
    for text in _hands(game, 5, 150):
        view = world.update(text)
        assert _same(view.state, parse_match_state(text, game).state), text
        assert (view.position, view.hand_id) == (int(text.split(":")[1]), int(text.split(":")[2]))
        lines += 1
    assert lines > 150 * 2
    assert world.match.hands_played == 150


def _mutations(text, rng):
    """Lines near ``text``: a character changed, dropped or added in the betting or cards."""
    head, betting, cards = text.rsplit(":", 2)
    alphabet = "cfr0123456789/|:AKQJT98765432shdcx"
    for _ in range(6):
        part = rng.choice(["betting", "cards"])
        body = betting if part == "betting" else cards
        i = rng.randrange(len(body) + 1)
        op = rng.choice(["change", "drop", "add"])
        if op == "change" and i < len(body):
            body = body[:i] + rng.choice(alphabet) + body[i + 1:]
        elif op == "drop" and i < len(body):
            body = body[:i] + body[i + 1:]
        else:
            body = body[:i] + rng.choice(alphabet) + body[i:]
        yield f"{head}:{body}:{cards}" if part == "betting" else f"{head}:{betting}:{body}"


@pytest.mark.parametrize("game_name", ["hunl", "hulhe", "3pnl", "leduc"])
def test_a_malformed_continuation_fails_or_reads_exactly_as_the_full_parse(game_name):
    game = load_game(game_name)
    rng = random.Random(game_name)
    world = World(game)
    checked = 0
    for text in _hands(game, 9, 60):
        before = world.last if world.in_hand else None
        for bad in _mutations(text, rng):
            probe = World(game)
            if before is not None:
                probe.last, probe._hand_finished = before, False
            previous = before.match_state if before is not None else None
            try:
                expected = parse_match_state(bad, game, previous).state
            except ProtocolError:
                expected = None
            try:
                got = probe.update(bad).state
            except ProtocolError:
                got = None
            assert (got is None) == (expected is None), bad
            if got is not None:
                assert _same(got, expected), bad
            checked += 1
        world.update(text)
    assert checked > 500


def test_the_history_keeps_running_figures_and_a_bounded_number_of_hands():
    game = load_game("kuhn3p")
    world = World(game)
    hands = KEEP_HANDS * 3
    for text in _hands(game, 1, hands):
        world.update(text)
    match = world.match
    assert match.hands_played == hands
    assert len(match.hands) == KEEP_HANDS
    assert [h.index for h in match.hands] == list(range(hands - KEEP_HANDS, hands))
    assert [h.hand_id for h in match.hands] == list(range(hands - KEEP_HANDS, hands))
