"""Game definitions: the reference parser's rules, defaults, validation and round trips."""

import pytest

from acpcbot.gamedef import (
    INT32_MAX,
    OFFICIAL_NAMES,
    SHIPPED_GAMES,
    UNLIMITED_RAISES,
    GameDefError,
    load_game,
    parse_game,
)

HULHE = """GAMEDEF
limit
numPlayers = 2
numRounds = 4
blind = 10 5
raiseSize = 10 10 20 20
firstPlayer = 2 1 1 1
maxRaises = 3 4 4 4
numSuits = 4
numRanks = 13
numHoleCards = 2
numBoardCards = 0 3 1 1
END GAMEDEF
"""


def test_shipped_games_load_and_round_trip():
    for name in SHIPPED_GAMES:
        game = load_game(name)
        assert parse_game(game.to_text()) == game, name


def test_official_names_map_to_shipped_games():
    for official, short in OFFICIAL_NAMES.items():
        assert load_game("/some/other/machine/" + official) == load_game(short)


def test_heads_up_no_limit_facts():
    g = load_game("hunl")
    assert g.is_nolimit and g.num_players == 2 and g.stack == (20000, 20000)
    assert g.blind == (100, 50) and g.first_player == (1, 0, 0, 0) and g.big_blind == 100
    assert g.max_raises == (UNLIMITED_RAISES,) * 4


def test_six_player_no_limit():
    g = load_game("6pnl")
    assert g.num_players == 6 and g.blind == (50, 100, 0, 0, 0, 0) and g.first_player == (2, 0, 0, 0)


def test_reference_defaults():
    g = parse_game("numPlayers 2\nnumRounds 1\nblind 1 1\nraiseSize 1\nnumSuits 1\nnumRanks 3\n"
                   "numHoleCards 1\nnumBoardCards 0\n")
    assert g.is_limit  # limit betting unless told otherwise
    assert g.first_player == (0,)  # firstPlayer 1
    assert g.max_raises == (UNLIMITED_RAISES,)
    assert g.stack == (INT32_MAX, INT32_MAX)  # unlimited stacks


def test_keys_are_case_insensitive_prefixes_and_equals_is_optional():
    text = "# comment\n\ngamedef\nLIMIT\nNUMPLAYERS 2\nnumrounds=4\nBlind = 10 5\nraisesize 10 10 20 20\n" \
           "firstplayer= 2 1 1 1\nmaxraises 3 4 4 4\nnumsuits 4\nnumranks 13\nnumholecards 2\n" \
           "numboardcards 0 3 1 1\nend gamedef\nthis line is after the end and ignored\n"
    assert parse_game(text) == parse_game(HULHE)


def test_extra_values_are_ignored_like_the_reference():
    g = parse_game(HULHE.replace("blind = 10 5", "blind = 10 5 7"))
    assert g.blind == (10, 5)


def test_to_text_keeps_every_field():
    g = parse_game(HULHE)
    text = g.to_text()
    assert "maxRaises = 3 4 4 4" in text and "firstPlayer = 2 1 1 1" in text and "stack" not in text


@pytest.mark.parametrize("change,message", [
    (("numPlayers = 2", "numPlayers = 1"), r"line 3 \(numPlayers\): invalid number of players 1"),
    (("numPlayers = 2", "numPlayers = 11"), "invalid number of players 11"),
    (("numRounds = 4", "numRounds = 5"), r"line 4 \(numRounds\): invalid number of rounds 5"),
    (("numRounds = 4\n", ""), r"numRounds not given"),
    (("numSuits = 4", "numSuits = 5"), "invalid number of suits"),
    (("numRanks = 13", "numRanks = 14"), "invalid number of ranks"),
    (("numHoleCards = 2", "numHoleCards = 4"), "invalid number of hole cards"),
    (("numBoardCards = 0 3 1 1", "numBoardCards = 0 3 1"), r"numBoardCards\): only 3 values, need 4"),
    (("raiseSize = 10 10 20 20", "raiseSize = 10 10"), r"raiseSize\): only 2 values, need 4 \(one per round\)"),
    (("blind = 10 5", "blind = 10"), r"blind\): only 1 values, need 2 \(one per player\)"),
    (("firstPlayer = 2 1 1 1", "firstPlayer = 3 1 1 1"), "invalid first player 3 on round 1"),
    (("firstPlayer = 2 1 1 1", "firstPlayer = 0 1 1 1"), "invalid first player 0"),
    (("numPlayers = 2", "numPlayers = two"), r"line 3: numPlayers expects whole numbers, got 'two'"),
    (("numPlayers = 2", "numPlayers ="), "numPlayers has no value"),
    (("limit", "limit\nnumPlayerz = 2"), "line 3: unknown key"),
    (("numRanks = 13", "numRanks = 2"), "too many hole and board cards"),
    (("blind = 10 5", "blind = 10 -5"), "blind of player 2 must not be negative"),
    (("maxRaises = 3 4 4 4", "maxRaises = 3 4 4 300"), "maxRaises of round 4 must be 0..255"),
])
def test_broken_game_files(change, message):
    old, new = change
    assert old in HULHE
    with pytest.raises(GameDefError, match=message):
        parse_game(HULHE.replace(old, new, 1), "broken.game")


def test_blind_above_stack_is_refused():
    text = HULHE.replace("limit", "nolimit").replace("raiseSize = 10 10 20 20\n", "stack = 8 8\n")
    with pytest.raises(GameDefError, match="blind for player 1 is greater than stack size"):
        parse_game(text)


def test_errors_name_the_source(tmp_path):
    path = tmp_path / "mine.game"
    path.write_text(HULHE.replace("numSuits = 4", "numSuits = 0"))
    with pytest.raises(GameDefError, match=r"mine\.game, line 9 \(numSuits\)"):
        load_game(path)


def test_unknown_game_name():
    with pytest.raises(GameDefError, match="no game named 'nope'"):
        load_game("nope")


@pytest.mark.parametrize("name,cards,streets", [
    ("hulhe", True, True), ("hunl", True, True), ("3pl", True, True), ("3pnl", True, True), ("6pnl", True, True),
    ("kuhn2p", False, False), ("kuhn3p", False, False), ("leduc", False, False), ("leducnl", False, False),
])
def test_holdem_is_told_by_the_game_itself(name, cards, streets):
    # one owner for "is this hold'em" (issue 28): its cards, its four streets, and both
    game = load_game(name)
    assert (game.deals_holdem_cards, game.has_holdem_streets, game.is_holdem) == (cards, streets, cards and streets)


def test_holdem_cards_on_other_streets_are_not_holdem():
    # five board cards dealt all on the flop: hold'em's cards, not its streets
    text = load_game("hulhe").to_text().replace("numBoardCards = 0 3 1 1", "numBoardCards = 0 5 0 0")
    game = parse_game(text)
    assert game.deals_holdem_cards and not game.has_holdem_streets and not game.is_holdem


def test_the_shipped_games_are_the_files_in_the_games_folder():
    # discovered, not listed by hand: a NAME.game dropped into acpcbot/games/ is one more game; the default first
    from pathlib import Path

    import acpcbot
    folder = Path(acpcbot.__file__).parent / "games"
    assert sorted(SHIPPED_GAMES) == sorted(p.stem for p in folder.glob("*.game"))
    assert SHIPPED_GAMES[0] == "hunl" and len(SHIPPED_GAMES) == 9
