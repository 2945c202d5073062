"""PHH export: hand-worked logs give hand-derived PHH text; seeded random hands keep chips and cards consistent.

The expected texts below were worked out by hand from phh-std 0.0.1: heads-up
p1 is the big blind and ``blinds_or_straddles`` is written [small, big]
(PHH reverses it back), ``cbr N`` is what the player has in on the street
after the bet (blinds count on the first street), and at a showdown the
last bettor of the final betting street shows first.
"""

import random
import tomllib

import pytest

from acpcbot.engine import Action, ActionType, State, raise_to
from acpcbot.gamedef import load_game, parse_game
from acpcbot.phh import PhhError, export_log, game_layout, hand_to_phh, log_to_phh, main, phhs_text

HEADER = ("# name/game/hands/seed fixture {game} {hands} 0\n#--t_response 600000\n#--t_hand 600000\n"
          "#--t_per_hand 7000\n")

# hunl, hand 0: Bob (small blind, position 1) raises to 300, Alice calls; Bob bets 600 on the flop
# (raise-to 900 in the hand), Alice calls; checks on the turn; Alice bets 600 on the river (1500 in
# the hand), Bob calls; Alice's kings beat Bob's queens: +1500.  Hand 1: the seats swap; Alice,
# now the small blind, folds: -50.
HUNL_LOG = HEADER.format(game="hunl", hands=2) + (
    "STATE:0:r300c/cr900c/cc/r1500c:AsKs|QhQd/2c7d9h/Kd/3d:1500|-1500:Alice|Bob\n"
    "STATE:1:f:8c3d|Jh4s:50|-50:Bob|Alice\n"
    "SCORE:1450|-1450:Alice|Bob\n")

HUNL_HAND_0 = """\
variant = "NT"
antes = [0, 0]
blinds_or_straddles = [50, 100]
min_bet = 100
starting_stacks = [20000, 20000]
actions = [
  "d dh p1 AsKs",
  "d dh p2 QhQd",
  "p2 cbr 300",
  "p1 cc",
  "d db 2c7d9h",
  "p1 cc",
  "p2 cbr 600",
  "p1 cc",
  "d db Kd",
  "p1 cc",
  "p2 cc",
  "d db 3d",
  "p1 cbr 600",
  "p2 cc",
  "p1 sm AsKs",
  "p2 sm QhQd",
]
event = "fixture"
hand = 0
seats = [1, 2]
players = ["Alice", "Bob"]
finishing_stacks = [21500, 18500]
"""

HUNL_HAND_1 = """\
variant = "NT"
antes = [0, 0]
blinds_or_straddles = [50, 100]
min_bet = 100
starting_stacks = [20000, 20000]
actions = [
  "d dh p1 8c3d",
  "d dh p2 Jh4s",
  "p2 f",
]
event = "fixture"
hand = 1
seats = [2, 1]
players = ["Bob", "Alice"]
finishing_stacks = [20050, 19950]
"""

# Three players, Ann short (1000).  Cat (the button) raises to 300, Ann moves in for 1000, Ben and
# Cat call.  Flop: Ben bets 1000 more (2000 in the hand), Cat calls.  Turn: Ben checks, Cat bets
# 2000 (4000 in the hand), Ben folds.  Ann is all-in, so the two left show -- Cat, the turn's last
# bettor, first -- before the river.  Ann's aces win the 3000 main pot; Cat takes the 2000 side pot
# and her uncalled 2000 back: Ann +2000, Ben -2000, Cat 0.
SHORT3_GAME = """\
GAMEDEF
nolimit
numPlayers = 3
numRounds = 4
stack = 1000 20000 20000
blind = 50 100 0
firstPlayer = 3 1 1 1
numSuits = 4
numRanks = 13
numHoleCards = 2
numBoardCards = 0 3 1 1
END GAMEDEF
"""
SHORT3_LOG = "STATE:0:r300r1000cc/r2000c/cr4000f/:AhAd|KcKd|QsJs/2c7d9h/3s/4h:2000|-2000|0:Ann|Ben|Cat\n"
SHORT3_HAND = """\
variant = "NT"
antes = [0, 0, 0]
blinds_or_straddles = [50, 100, 0]
min_bet = 100
starting_stacks = [1000, 20000, 20000]
actions = [
  "d dh p1 AhAd",
  "d dh p2 KcKd",
  "d dh p3 QsJs",
  "p3 cbr 300",
  "p1 cbr 1000",
  "p2 cc",
  "p3 cc",
  "d db 2c7d9h",
  "p2 cbr 1000",
  "p3 cc",
  "d db 3s",
  "p2 cc",
  "p3 cbr 2000",
  "p2 f",
  "p3 sm QsJs",
  "p1 sm AhAd",
  "d db 4h",
]
hand = 0
players = ["Ann", "Ben", "Cat"]
finishing_stacks = [3000, 18000, 20000]
"""

# hulhe (blinds 10/5, bets 10 then 20): Ben (small blind) raises to 20, Ann re-raises to 30, Ben
# calls; Ann bets 10 on the flop, Ben calls; turn: Ann checks, Ben bets 20, Ann raises to 40, Ben
# calls; river checked.  Nobody bet on the river, so its first player, Ann (p1), shows first.
# Ben's heart flush wins 80.  Limit stacks are the engine's 2147483647.
HULHE_LOG = HEADER.format(game="hulhe", hands=1) + "STATE:0:rrc/rc/crrc/cc:7c2d|AhKh/QhJh4c/9s/3h:-80|80:Ann|Ben\n"
HULHE_HAND = """\
variant = "FT"
antes = [0, 0]
blinds_or_straddles = [5, 10]
small_bet = 10
big_bet = 20
starting_stacks = [2147483647, 2147483647]
actions = [
  "d dh p1 7c2d",
  "d dh p2 AhKh",
  "p2 cbr 20",
  "p1 cbr 30",
  "p2 cc",
  "d db QhJh4c",
  "p1 cbr 10",
  "p2 cc",
  "d db 9s",
  "p1 cc",
  "p2 cbr 20",
  "p1 cbr 40",
  "p2 cc",
  "d db 3h",
  "p1 cc",
  "p2 cc",
  "p1 sm 7c2d",
  "p2 sm AhKh",
]
event = "fixture"
hand = 0
players = ["Ann", "Ben"]
finishing_stacks = [2147483567, 2147483727]
"""


def _write(tmp_path, name, text):
    path = tmp_path / name
    path.write_text(text)
    return path


def test_hunl_raise_call_showdown_and_preflop_fold(tmp_path):
    hands = log_to_phh(_write(tmp_path, "fixture.log", HUNL_LOG))
    assert [h for h, _ in hands] == [0, 1]
    assert hands[0][1].splitlines() == HUNL_HAND_0.splitlines()
    assert hands[1][1].splitlines() == HUNL_HAND_1.splitlines()


def test_three_players_side_pot_all_in_shows_before_the_river(tmp_path):
    game = parse_game(SHORT3_GAME, "short3")
    hands = log_to_phh(_write(tmp_path, "short3.log", SHORT3_LOG), game)
    assert hands[0][1].splitlines() == SHORT3_HAND.splitlines()


def test_limit_hand(tmp_path):
    hands = log_to_phh(_write(tmp_path, "fixture.log", HULHE_LOG))
    assert hands[0][1].splitlines() == HULHE_HAND.splitlines()


def test_reference_log_line_converts():
    # The reference dealer's matchName.log, hand 1 (copied as a fact, not read from ../shared):
    # an all-in preflop written with empty later rounds '///'; 19015 and 20000 are hand totals.
    from acpcbot.matchlog import parse_state_line
    hand = parse_state_line("STATE:1:r19015r20000c///:6sKs|5dJd/2sTh2h/Qh/8h:20000|-20000:Bob|Alice",
                            load_game("hunl"))
    text = hand_to_phh(hand.state, hand.names)
    actions = tomllib.loads(text)["actions"]
    assert actions == ["d dh p1 6sKs", "d dh p2 5dJd", "p2 cbr 19015", "p1 cbr 20000", "p2 cc",
                       "p1 sm 6sKs", "p2 sm 5dJd", "d db 2sTh2h", "d db Qh", "d db 8h"]


def test_cli_writes_one_file_per_hand_and_a_phhs(tmp_path, capsys):
    log = _write(tmp_path, "fixture.log", HUNL_LOG)
    out = tmp_path / "out"
    assert main([str(log), "--out", str(out)]) == 0
    assert sorted(p.name for p in (out / "fixture").iterdir()) == ["0.phh", "1.phh"]
    assert (out / "fixture" / "0.phh").read_text() == HUNL_HAND_0
    assert main([str(log), "--out", str(out), "--phhs"]) == 0
    text = (out / "fixture.phhs").read_text()
    assert text == phhs_text([HUNL_HAND_0, HUNL_HAND_1])
    tables = tomllib.loads(text)
    assert list(tables) == ["1", "2"] and tables["2"]["hand"] == 1
    assert "2 hands" in capsys.readouterr().out


def test_cli_game_option_reads_a_log_without_header(tmp_path):
    log = _write(tmp_path, "short3.log", SHORT3_LOG)
    game = _write(tmp_path, "short3.game", SHORT3_GAME)
    assert main([str(log), "--out", str(tmp_path / "o"), "--game", str(game)]) == 0
    assert tomllib.loads((tmp_path / "o" / "short3" / "0.phh").read_text())["finishing_stacks"] == [3000, 18000, 20000]


@pytest.mark.parametrize("text,where,message", [
    (HEADER.format(game="kuhn2p", hands=1) + "STATE:0:cc:Ks|Qs:1|-1:a|b\n", ":5:",
     "game kuhn2p is not Texas hold'em"),
    (HEADER.format(game="leduc", hands=1) + "STATE:0:cc/cc:Ks|Qs/Kh:1|-1:a|b\n", ":5:", "game leduc"),
    (HUNL_LOG.replace(":1500|-1500:", ":1400|-1400:"), ":5:", "logged values 1400|-1400 but the rules give 1500|-1500"),
    (HUNL_LOG.replace("/r1500c:", "/r1500:"), ":5:", "stops before the hand is over"),
    (HUNL_LOG.replace("STATE:1:f", "BOGUS"), ":6:", "neither a comment"),
    (HUNL_LOG.replace("STATE:1:", "STATE:0:"), ":6:", "already used on line 5"),
    (HUNL_LOG.replace("8c3d|Jh4s", "8c3d|8c4s"), ":6:", "appears twice"),
    ("STATE:0:f:8c3d|Jh4s:50|-50:Bob|Alice\n", ":1:", "pass --game"),
])
def test_bad_input_exits_2_naming_file_and_line(tmp_path, capsys, text, where, message):
    log = _write(tmp_path, "bad.log", text)
    assert main([str(log), "--out", str(tmp_path / "o")]) == 2
    err = capsys.readouterr().err
    assert f"{log}{where}" in err and message in err
    assert "Traceback" not in err
    assert not (tmp_path / "o" / "bad").exists()  # a bad log writes nothing


def test_cli_usage_errors(tmp_path, capsys):
    assert main([str(tmp_path / "missing.log"), "--out", str(tmp_path)]) == 2
    assert "missing.log: cannot read" in capsys.readouterr().err
    log = _write(tmp_path, "fixture.log", HUNL_LOG)
    assert main([str(log), "--out", str(tmp_path), "--game", "nosuchgame"]) == 2
    assert "--game" in capsys.readouterr().err
    (tmp_path / "b").mkdir()
    _write(tmp_path / "b", "fixture.log", HUNL_LOG)
    assert main([str(log), str(tmp_path / "b" / "fixture.log"), "--out", str(tmp_path / "o")]) == 2
    assert "would both be written as fixture" in capsys.readouterr().err
    binary = tmp_path / "bin.log"
    binary.write_bytes(b"\xff\xfe\x00")
    assert main([str(binary), "--out", str(tmp_path / "o")]) == 2
    assert "not a text log" in capsys.readouterr().err


def test_layout_maps_positions_blinds_and_bets():
    hunl = game_layout(load_game("hunl"))  # position 0 posts the big blind: PHH's heads-up p1
    assert hunl.order == (0, 1) and hunl.preflop_opener == 1
    six = game_layout(load_game("6pnl"))
    assert six.order == tuple(range(6)) and six.preflop_opener == 2
    assert "blinds_or_straddles = [50, 100, 0, 0, 0, 0]" in six.game_lines
    assert "small_bet = 10" in game_layout(load_game("3pl")).game_lines
    # a game whose postflop order starts at position 1 is listed from there
    shifted = parse_game(SHORT3_GAME.replace("firstPlayer = 3 1 1 1", "firstPlayer = 1 2 2 2")
                         .replace("blind = 50 100 0", "blind = 0 50 100"), "shifted")
    lay = game_layout(shifted)
    assert lay.order == (1, 2, 0) and "blinds_or_straddles = [50, 100, 0]" in lay.game_lines
    assert "starting_stacks = [20000, 20000, 1000]" in lay.game_lines
    with pytest.raises(PhhError, match="acts first before the flop"):
        game_layout(parse_game(SHORT3_GAME.replace("firstPlayer = 3 1 1 1", "firstPlayer = 2 1 1 1"), "odd"))
    with pytest.raises(PhhError, match="small, small, big, big"):
        game_layout(parse_game(load_game("hulhe").to_text().replace("raiseSize = 10 10 20 20",
                                                                     "raiseSize = 10 20 20 20"), "odd"))


def test_names_are_toml_strings():
    state = State(load_game("hunl"), 7, hole=[(0, 1), (2, 3)])
    state.apply(Action(ActionType.FOLD))
    names = ['a "quoted"\\name', "tab\there\x7f"]
    assert tomllib.loads(hand_to_phh(state, names))["players"] == names


# ------------------------------------------------------------------ seeded property check

def _random_hand(game, rng, hand_id):
    """A finished hand of random legal play with a random deal."""
    from acpcbot.cards import deck
    cards = list(deck(game.num_ranks, game.num_suits))
    rng.shuffle(cards)
    n, k = game.num_players, game.num_hole_cards
    hole = [tuple(cards[i * k:(i + 1) * k]) for i in range(n)]
    state = State(game, hand_id, hole=hole, board=cards[n * k:n * k + game.total_board_cards])
    while not state.finished:
        kinds = state.legal_actions()
        kind = rng.choice(kinds)
        if kind == ActionType.RAISE and game.is_nolimit:
            lo, hi = state.raise_bounds()
            state.apply(raise_to(rng.choice([lo, hi, rng.randint(lo, hi)])))
        else:
            state.apply(Action(kind))
    return state


def _replay_phh(record):
    """Chips each PHH player commits, read from the actions alone (a small independent PHH interpreter)."""
    n = len(record["starting_stacks"])
    committed = [0] * n
    street = list(record["blinds_or_straddles"])
    if n == 2:
        street.reverse()  # PHH's heads-up reversal
    folded, shown, holes, board = set(), [], {}, []
    for action in record["actions"]:
        words = action.split()
        if words[:2] == ["d", "dh"]:
            holes[int(words[2][1:]) - 1] = words[3]
            continue
        if words[:2] == ["d", "db"]:
            committed = [c + s for c, s in zip(committed, street)]
            street = [0] * n
            board.append(words[2])
            continue
        p = int(words[0][1:]) - 1
        if words[1] == "f":
            folded.add(p)
        elif words[1] == "cc":
            left = record["starting_stacks"][p] - committed[p] - street[p]
            street[p] += min(max(street) - street[p], left)
        elif words[1] == "cbr":
            street[p] = int(words[2])
        elif words[1] == "sm":
            shown.append((p, words[2]))
    committed = [c + s for c, s in zip(committed, street)]
    return committed, folded, shown, holes, "".join(board)


@pytest.mark.parametrize("game_name", ["hunl", "hulhe", "3pl", "3pnl", "6pnl", "short3"])
def test_random_hands_round_trip_through_toml(game_name):
    game = parse_game(SHORT3_GAME, "short3") if game_name == "short3" else load_game(game_name)
    layout = game_layout(game)
    rng = random.Random(20240 + len(game_name))
    from acpcbot.cards import cards_to_text
    for hand_id in range(150):
        state = _random_hand(game, rng, hand_id)
        names = [f"n{p}" for p in range(game.num_players)]
        record = tomllib.loads(hand_to_phh(state, names, layout=layout))
        order = layout.order
        assert record["players"] == [names[p] for p in order]
        payoffs = state.payoffs()
        # fractional results (odd-chip splits) are written to 6 decimals, as the reference prints values
        assert record["finishing_stacks"] == pytest.approx([game.stack[p] + payoffs[p] for p in order], abs=1e-6)
        assert sum(record["finishing_stacks"]) == pytest.approx(sum(record["starting_stacks"]), abs=1e-5)
        committed, folded, shown, holes, board = _replay_phh(record)
        assert committed == [state.spent[p] for p in order]
        assert folded == {i for i, p in enumerate(order) if state.folded[p]}
        assert holes == {i: cards_to_text(state.hole[p]) for i, p in enumerate(order)}
        assert board == cards_to_text(state.board[:game.board_cards_through(state.round)])
        assert sorted(i for i, _ in shown) == sorted(order.index(p) for p in state.shown_players())
        assert all(cards == holes[i] for i, cards in shown)


def test_export_log_returns_written_files(tmp_path):
    log = _write(tmp_path, "fixture.log", HULHE_LOG)
    files = export_log(log, tmp_path / "o")
    assert [f.name for f in files] == ["0.phh"] and files[0].read_text() == HULHE_HAND
    assert export_log(log, tmp_path / "o", single_file=True) == [tmp_path / "o" / "fixture.phhs"]
