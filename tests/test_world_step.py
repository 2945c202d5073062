"""The world's quick reading of the usual line (one action more: the same cards, a new board, hole cards shown at
the end) gives what the full parse gives, and leaves every other line, however close, to the full parse."""

import copy
import random

import pytest
from test_world_continue import _hands, _mutations, _same

from acpcbot.gamedef import SHIPPED_GAMES, load_game
from acpcbot.protocol import ProtocolError, parse_match_state
from acpcbot.world import MatchHistory, World


def _probe(world: World) -> World:
    """A world in the same place as ``world`` whose updates leave ``world`` as it is."""
    probe = copy.copy(world)
    probe.match = MatchHistory()
    probe._reader = copy.copy(world._reader)
    probe._reader.cards = dict(world._reader.cards)
    probe.unrecorded = []
    return probe


def _card_mutations(text, rng):
    """Lines near ``text`` in its cards field: a card swapped for a card of the line or of the deck, a group moved."""
    head, betting, cards = text.rsplit(":", 2)
    seen = [cards[i:i + 2] for i in range(len(cards) - 1) if cards[i] in "23456789TJQKA" and cards[i + 1] in "cdhs"]
    for _ in range(4):
        if seen:
            old, new = rng.choice(seen), rng.choice(seen + ["As", "2c", "Kd", "Xx", "", "AsKd"])
            yield f"{head}:{betting}:{cards.replace(old, new, 1)}"
        i = rng.randrange(len(cards) + 1)
        yield f"{head}:{betting}:{cards[:i]}{rng.choice(['|', '/', '||', ''])}{cards[i:]}"


def _check(world, bad, game):
    previous = world.last.match_state if world.in_hand else None
    try:
        expected = parse_match_state(bad, game, previous)
    except ProtocolError:
        expected = None
    probe = _probe(world)
    try:
        got = probe.update(bad)
    except ProtocolError:
        got = None
    assert (got is None) == (expected is None), bad
    if got is not None:
        assert _same(got.state, expected.state), bad
        assert got.betting == expected.betting and got.match_state.betting == expected.betting, bad
        assert probe.in_hand == (not expected.state.finished)
        # the next line is read from where this one left the world: as from a full parse of this one
        again = _probe(probe)
        assert again.last is got


@pytest.mark.parametrize("game_name", SHIPPED_GAMES)
def test_the_usual_lines_and_lines_close_to_them_read_as_the_full_parse(game_name):
    game = load_game(game_name)
    rng = random.Random(game_name)
    world = World(game)
    checked = 0
    for text in _hands(game, 11, 40):
        for bad in [*_mutations(text, rng), *_card_mutations(text, rng)]:
            _check(world, bad, game)
            checked += 1
        view = world.update(text)
        assert _same(view.state, parse_match_state(text, game).state), text
    assert checked > 300


@pytest.mark.parametrize("game_name", ["hunl", "kuhn3p", "3pnl", "hulhe", "leduc"])
def test_a_whole_match_reads_as_full_parses_line_by_line(game_name):
    game = load_game(game_name)
    world, plain = World(game), World(game)
    for text in _hands(game, 3, 300):
        view = world.update(text)
        # a world that never continues a hand: every line parsed from scratch
        plain._reader.prefix = plain._reader.cards_text = None
        plain._reader.head = "-"
        expected = plain.update(text)
        assert _same(view.state, expected.state), text
        assert view.betting == expected.betting
    assert [h._replace() for h in world.match.hands] == [h._replace() for h in plain.match.hands]
    assert world.match.total == plain.match.total


def _hands_with_actions(game, seed, count):
    """(line, the action that follows it or None) over ``count`` random hands, the position rotating."""
    lines = list(_hands(game, seed, count))
    for text, after in zip(lines, lines[1:] + [None]):
        yield text, after


@pytest.mark.parametrize("game_name", ["hunl", "kuhn3p", "3pnl", "hulhe", "leduc"])
def test_a_state_prepared_for_the_seats_own_action_reads_as_the_full_parse(game_name):
    game = load_game(game_name)
    rng = random.Random(7)
    world, plain = World(game), World(game)
    used = 0
    for text, after in _hands_with_actions(game, 4, 200):
        view = world.update(text)
        expected = plain.update(text)
        assert _same(view.state, expected.state), text
        if view.is_my_turn and after is not None:
            # the action the next line shows (when it continues this hand), or another legal one
            nxt = parse_match_state(after, game)
            shown = nxt.state.actions[view.round][len(view.state.actions[view.round]):] \
                if nxt.hand_id == view.hand_id and nxt.state.round >= view.round else []
            choice = shown[0] if shown and rng.random() < 0.8 else view.state.fold_or_check()
            reader_before = world._reader._ahead
            world.prepare(view, choice)
            assert world._reader._ahead is not reader_before
            used += bool(shown) and choice == shown[0]
    assert used > 100
    assert [h for h in world.match.hands] == [h for h in plain.match.hands]


def test_a_prepared_state_is_used_once_and_only_for_its_line():
    game = load_game("hunl")
    world = World(game)
    view = world.update("MATCHSTATE:0:3::AhKh|")
    assert not view.is_my_turn
    view = world.update("MATCHSTATE:0:3:r300:AhKh|")
    assert view.is_my_turn
    world.prepare(view, parse_match_state("MATCHSTATE:0:3:r300c/:AhKh|/2c3c4c", game).state.actions[0][1])
    prepared = world._reader._ahead[2]
    nxt = world.update("MATCHSTATE:0:3:r300c/:AhKh|/2c3c4c")
    assert nxt.state is prepared and world._reader._ahead is None
    assert _same(nxt.state, parse_match_state("MATCHSTATE:0:3:r300c/:AhKh|/2c3c4c", game).state)
    # prepared for a call, the line shows a fold: read as usual
    view = world.update("MATCHSTATE:0:3:r300c/r600:AhKh|/2c3c4c")
    world.prepare(view, parse_match_state("MATCHSTATE:0:3:r300c/r600c/:AhKh|/2c3c4c/5d", game).state.actions[1][1])
    stale = world._reader._ahead
    fold = world.update("MATCHSTATE:0:3:r300c/r600f:AhKh|/2c3c4c")
    assert fold.state.finished and fold.state is not stale[2]
    assert _same(fold.state, parse_match_state("MATCHSTATE:0:3:r300c/r600f:AhKh|/2c3c4c", game).state)
    # a view that is not the latest state, or a hand over: nothing is prepared
    world.prepare(view, stale[1])
    world.prepare(fold, stale[1])
    assert world._reader._ahead is stale


def test_the_line_expected_after_the_seats_own_action_is_only_taken_when_it_is_that_line():
    game = load_game("hunl")
    world = World(game)
    world.update("MATCHSTATE:1:8::|9s9h")
    view = world.update("MATCHSTATE:1:8:r250:|9s9h")
    world.prepare(view, parse_match_state("MATCHSTATE:1:8:r250r750:|9s9h", game).state.actions[0][1])
    assert world._reader._expected[0] == "MATCHSTATE:1:8:r250r750:|9s9h"
    # a different line (a bigger raise): read as usual, and the expectation is gone
    other = world.update("MATCHSTATE:1:8:r250r7500:|9s9h")
    assert other.state.max_spent == 7500 and world._reader._expected is None
    assert _same(other.state, parse_match_state("MATCHSTATE:1:8:r250r7500:|9s9h", game).state)
    again = world.update("MATCHSTATE:1:8:r250r7500c/:|9s9h/2c3c4c")
    assert _same(again.state, parse_match_state("MATCHSTATE:1:8:r250r7500c/:|9s9h/2c3c4c", game).state)
    world.prepare(again, again.state.raise_or_call(9000))
    expected = world._reader._expected
    assert expected[0] == "MATCHSTATE:1:8:r250r7500c/r9000:|9s9h/2c3c4c"
    got = world.update(expected[0])
    assert got.match_state is expected[1] and got.betting == "r250r7500c/r9000"
    assert _same(got.state, parse_match_state(expected[0], game).state)
    follow = world.update("MATCHSTATE:1:8:r250r7500c/r9000c/:|9s9h/2c3c4c/Kd")
    assert _same(follow.state, parse_match_state("MATCHSTATE:1:8:r250r7500c/r9000c/:|9s9h/2c3c4c/Kd", game).state)
