"""The log checker: a hand-worked log passes, corrupted copies fail naming the line."""

import random
from pathlib import Path

import pytest

from acpcbot.engine import Action, ActionType, State, raise_to
from acpcbot.gamedef import load_game
from acpcbot.logcheck import LogCheckError, check_log, main
from acpcbot.matchlog import format_header, format_score_line, format_state_line
from dealer.rng import Dealer

FIXTURE = Path(__file__).parent / "fixtures" / "hunl_3hands.log"

# The fixture, worked by hand from the seed-0 deals:
#  hand 0: check-down, 5d5c makes two pair (eights and fives) over 9hQd's pair of eights: Alice +100
#  hand 1: Alice, the small blind at position 1, folds: Bob +50
#  hand 2: all-in on the flop, Bob's pair of fours beats Alice's ace high: Bob +20000


def test_hand_worked_log_passes():
    summary = check_log(FIXTURE)
    assert summary.hands == 3 and summary.score_checked
    assert summary.totals == {"Alice": -19950.0, "Bob": 19950.0}
    assert summary.mbb_per_hand("Bob") == pytest.approx(1000 * 19950 / 100 / 3)


@pytest.mark.parametrize("old,new,line,message", [
    (":100|-100:", ":90|-90:", 5, "hand 0: logged values 90|-90 but the rules give 100|-100"),
    ("5d5c|9hQd", "5d5c|5dQd", 5, "appears twice"),
    ("cc/cc/cc/cc", "cc/cc/cc/cf", 5, "illegal"),
    ("cc/cc/cc/cc", "cc/cc/cc/c", 5, "stops before the hand is over"),
    ("6sKs|5dJd", "6sKs|", 6, "every player's hole cards"),
    ("/Qd7h6c/4s/Jc", "/Qd7h6c/4s", 7, "board groups"),
    ("SCORE:-19950|19950", "SCORE:-19951|19951", 8, "SCORE -19951|19951 but the hands sum to -19950|19950"),
    ("hunl 3 0", "hunl 4 0", 8, "announces 4 hands"),
    (":Bob|Alice", ":Bob|Carol", 6, "differ from earlier hands"),
    ("STATE:1:", "STATE:0:", 6, "hand number used twice"),
    ("STATE:1:f", "BOGUS:1:f", 6, "neither a comment"),
    ("SCORE:-19950|19950:Alice|Bob\n", "SCORE:-19950|19950:Alice|Bob\nSTATE:3:f:2c2d|3c3d:50|-50:Alice|Bob\n",
     9, "after the SCORE line"),
])
def test_corrupted_copies_fail_naming_the_line(tmp_path, old, new, line, message):
    text = FIXTURE.read_text()
    assert old in text
    bad = tmp_path / "bad.log"
    bad.write_text(text.replace(old, new, 1))
    with pytest.raises(LogCheckError) as err:
        check_log(bad)
    assert err.value.line == line
    assert message in str(err.value)


def test_binary_garbage_is_a_clear_error(tmp_path):
    bad = tmp_path / "garbage.log"
    bad.write_bytes(b"\xff\xfe\x00garbage")
    with pytest.raises(LogCheckError, match="not a text log"):
        check_log(bad)


def test_command_line_exit_status(tmp_path, capsys):
    assert main([str(FIXTURE)]) == 0
    out = capsys.readouterr().out
    assert "OK: 3 hands" in out and "Bob" in out and "+66500.00 mbb/hand" in out
    bad = tmp_path / "bad.log"
    bad.write_text(FIXTURE.read_text().replace(":100|-100:", ":0|0:"))
    assert main([str(bad)]) == 1
    assert "line 5" in capsys.readouterr().err


def write_random_log(path, game_name, hands, seed):
    """A log of random legal play dealt like the reference, written with the engine."""
    game = load_game(game_name)
    dealer = Dealer(game, seed)
    rng = random.Random(seed)
    names = [f"p{i + 1}" for i in range(game.num_players)]
    totals = [0.0] * game.num_players
    lines = format_header("random", game_name, hands, seed, 600000, 600000, 7000)
    for h in range(hands):
        hole, board = dealer.deal()
        st = State(game, h, hole, board)
        while not st.finished:
            kind = rng.choice(st.legal_actions())
            if kind == ActionType.RAISE and game.is_nolimit:
                lo, hi = st.raise_bounds()
                st.apply(raise_to(rng.randint(lo, hi)))
            else:
                st.apply(Action(kind))
        seat_of = [(p + h) % game.num_players for p in range(game.num_players)]
        pay = st.payoffs()
        for p in range(game.num_players):
            totals[seat_of[p]] += pay[p]
        lines.append(format_state_line(st, [names[s] for s in seat_of], pay))
    lines.append(format_score_line(totals, names))
    path.write_text("\n".join(lines) + "\n")


@pytest.mark.parametrize("game_name", ["hunl", "3pnl", "3pl", "kuhn3p", "leduc"])
def test_engine_written_logs_check_clean(tmp_path, game_name):
    path = tmp_path / "random.log"
    write_random_log(path, game_name, 300, 3)
    summary = check_log(path)
    assert summary.hands == 300 and summary.score_checked
    assert abs(sum(summary.totals.values())) < 1e-6


def test_reference_logs_check_clean(reference):
    logs = [reference / "matchName.log"] + sorted((reference / "dealer_logs").glob("*.r0.log"))
    for path in logs:
        summary = check_log(path)
        assert summary.hands == 1000 and summary.score_checked, path


def test_the_game_comes_from_the_header_or_a_clear_error(tmp_path):
    from acpcbot.matchlog import Header, LogError, header_game
    assert header_game(Header("m", "holdem.limit.2p.reverse_blinds.game", 10, 1)).name == load_game("hulhe").name
    with pytest.raises(LogError, match="no '# name/game/hands/seed' header names the game"):
        header_game(None)
    with pytest.raises(LogError, match="cannot load the header's game: .*nosuch"):
        header_game(Header("m", "nosuch.game", 10, 1))
    # logcheck says what to do about it
    path = tmp_path / "headless.log"
    path.write_text("STATE:0:cc/cc/cc/cc:5d5c|9hQd/8dAs8s/4h/6d:0|0:a|b\n")
    with pytest.raises(LogCheckError, match=r"line 1: no '# name/game/hands/seed' header names the game; pass --game"):
        check_log(path)


# ------------------------------------------------------------------ the cards against the header's seed (issue 32)

def test_the_hand_worked_log_was_dealt_from_its_seed():
    from acpcbot.logcheck import check_deals

    assert check_deals(FIXTURE) == 3


def test_the_reference_dealers_logs_were_dealt_from_their_seeds():
    from acpcbot.logcheck import check_deals

    logs = sorted((Path(__file__).parent / "fixtures" / "dealer").glob("*.log"))
    assert len(logs) >= 4
    for log in logs:
        assert check_deals(log) == check_log(log).hands > 0, log.name


@pytest.mark.parametrize("old,new,line", [
    ("hunl 3 0", "hunl 3 1", 5),         # another seed: every rule still holds, the cards are not its deal
    ("5d5c|9hQd", "5c5d|9hQd", 5),       # two hole cards swapped: the same hand, not the same deal
])
def test_cards_that_are_not_the_seeds_deal_are_found(tmp_path, capsys, old, new, line):
    from acpcbot.logcheck import check_deals

    bad = tmp_path / "bad.log"
    bad.write_text(FIXTURE.read_text().replace(old, new, 1))
    check_log(bad)  # the rules alone cannot tell
    with pytest.raises(LogCheckError, match=rf"^line {line}: hand 0: the cards are not the deal of seed"):
        check_deals(bad)
    assert main([str(bad)]) == 1 and "the cards are not the deal of seed" in capsys.readouterr().err
    assert main([str(bad), "--no-deal-check"]) == 0
    assert "cards dealt from the seed" not in capsys.readouterr().out
    assert main([str(FIXTURE)]) == 0 and "cards dealt from the seed in the header" in capsys.readouterr().out
