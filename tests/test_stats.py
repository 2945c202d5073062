"""Match statistics on hand-made logs whose figures are worked out by hand below."""

import math

import pytest

from acpcbot.gamedef import load_game
from acpcbot.logcheck import check_log
from acpcbot.matchlog import LoggedHand
from dealer.arena.stats import (
    Z95,
    Estimate,
    StatsError,
    bankroll_ranking,
    crosstable,
    duplicate_values,
    ending_stats,
    estimate,
    instant_runoff_ranking,
    player_totals,
    player_values,
    read_log,
    style_stats,
    summarize,
    table_results,
)

HEADER = "# name/game/hands/seed fixture hunl {n} 0\n#--t_response 600000\n#--t_hand 600000\n#--t_per_hand 7000\n"

# hunl: position 0 posts the big blind (100), position 1 the small blind (50) and acts first preflop.
#  hand 0  Alice BB, Bob SB folds                                  Alice +50   ends preflop
#  hand 1  Alice SB raises to 300, Bob calls, checked down, Bob's aces beat kings:  Bob +300   showdown
#  hand 2  Bob SB limps, Alice raises to 400, Bob folds            Alice +100  ends preflop
#  hand 3  Alice SB limps, Bob checks; flop Bob bets to 300, Alice calls;
#          turn Bob checks, Alice bets to 900, Bob folds           Alice +300  ends on the turn
FOUR_HANDS = HEADER.format(n=4) + """\
STATE:0:f:5d5c|9hQd:50|-50:Alice|Bob
STATE:1:r300c/cc/cc/cc:AsAh|KsKh/2c3d7h/9s/Jd:300|-300:Bob|Alice
STATE:2:cr400f:6sKs|5dJd:100|-100:Alice|Bob
STATE:3:cc/r300c/cr900f:2c7d|QhJh/As8c4d/Ts:-300|300:Bob|Alice
SCORE:150|-150:Alice|Bob
"""
ALICE = [50, -300, 100, 300]


@pytest.fixture
def four(tmp_path):
    path = tmp_path / "four.log"
    path.write_text(FOUR_HANDS)
    assert check_log(path).totals == {"Alice": 150, "Bob": -150}  # the fixture itself obeys the rules
    return read_log(path)


def test_estimate_known_values():
    e = estimate([1, 2, 3, 4])
    assert e.n == 4 and e.mean == 2.5
    assert e.se == pytest.approx(math.sqrt((1.5**2 * 2 + 0.5**2 * 2) / 3 / 4))
    assert e.ci95 == pytest.approx(1.959964 * 0.6454972, rel=1e-6)
    scaled = estimate([1, 2, 3, 4], 10.0)
    assert scaled.mean == 25.0 and scaled.se == pytest.approx(10 * e.se)


def test_estimate_small_samples_have_no_interval():
    assert estimate([]) == Estimate(0, 0.0, None)
    one = estimate([7.0], 2.0)
    assert one.mean == 14.0 and one.se is None and one.ci95 is None
    same = estimate([3.0, 3.0, 3.0])
    assert same.se == 0.0 and same.ci95 == 0.0


def test_z95_is_the_normal_quantile():
    from statistics import NormalDist
    assert Z95 == pytest.approx(NormalDist().inv_cdf(0.975), abs=1e-12)


def test_totals_and_mbb_per_hand_by_hand(four):
    assert four.players == ["Alice", "Bob"]
    assert player_values(four.hands) == {"Alice": ALICE, "Bob": [-v for v in ALICE]}
    assert player_totals(four.hands) == {"Alice": 150, "Bob": -150}
    s = summarize([four])
    alice = s["Alice"].result
    assert alice.n == 4
    assert alice.mean == pytest.approx(37.5 * 1000 / 100)  # 150 chips / 4 hands, big blind 100
    # deviations from 37.5: 12.5 -337.5 62.5 262.5; squares sum to 186875
    se_chips = math.sqrt(186875 / 3 / 4)
    assert alice.se == pytest.approx(se_chips * 10)
    assert alice.ci95 == pytest.approx(Z95 * se_chips * 10)
    assert s["Bob"].result.mean == pytest.approx(-375.0)
    assert s["Alice"].duplicate is None


def test_where_hands_ended(four):
    endings = ending_stats(four.hands)
    alice = {k: (v.hands, v.won, v.chips) for k, v in endings["Alice"].items()}
    assert alice == {"preflop": (2, 2, 150), "flop": (0, 0, 0), "turn": (1, 1, 300),
                     "river": (0, 0, 0), "showdown": (1, 0, -300)}
    bob = endings["Bob"]
    assert (bob["showdown"].hands, bob["showdown"].won) == (1, 1)
    assert bob["turn"].as_dict(10.0) == {"hands": 1, "win_rate": 0.0, "mbb_per_hand": -3000.0}
    assert bob["flop"].as_dict(10.0) == {"hands": 0, "win_rate": None, "mbb_per_hand": None}


def test_vpip_pfr_aggression(four):
    styles = style_stats(four.hands)
    a, b = styles["Alice"], styles["Bob"]
    # Alice: raised preflop in hands 1 and 2, limped in hand 3 -> VPIP 3/4, PFR 2/4;
    # raises 300, 400, 900 and calls of the limp and the flop bet -> aggression 3/2
    assert (a.hands, a.vpip_hands, a.pfr_hands, a.raises, a.calls) == (4, 3, 2, 3, 2)
    assert a.as_dict() == {"vpip": 0.75, "pfr": 0.5, "aggression": 1.5}
    # Bob: called the raise in hand 1 and limped in hand 2 (his check as big blind in hand 3 is not voluntary);
    # one bet on the flop of hand 3
    assert (b.hands, b.vpip_hands, b.pfr_hands, b.raises, b.calls) == (4, 2, 0, 1, 2)
    assert b.aggression == 0.5


def test_aggression_without_calls_is_unknown(tmp_path):
    path = tmp_path / "f.log"
    path.write_text(HEADER.format(n=1) + "STATE:0:f:5d5c|9hQd:50|-50:Alice|Bob\n")
    styles = style_stats(read_log(path).hands)
    assert styles["Bob"].aggression is None and styles["Bob"].vpip == 0.0


# Duplicate: the same two deals with the seats swapped.
#  deal 0: log A Bob (SB) folds: Alice +50;      log B Alice (SB) folds: Alice -50      -> Alice 0
#  deal 1: log A checked down, position 0 (Bob) wins 100: Alice -100;
#          log B Bob raises to 300, Alice (position 0) calls and wins: Alice +300    -> Alice +100
DUP_A = HEADER.format(n=2) + """\
STATE:0:f:5d5c|9hQd:50|-50:Alice|Bob
STATE:1:cc/cc/cc/cc:AsAh|KsKh/2c3d7h/9s/Jd:100|-100:Bob|Alice
SCORE:-50|50:Alice|Bob
"""
DUP_B = HEADER.format(n=2) + """\
STATE:0:f:5d5c|9hQd:50|-50:Bob|Alice
STATE:1:r300c/cc/cc/cc:AsAh|KsKh/2c3d7h/9s/Jd:300|-300:Alice|Bob
SCORE:-250|250:Bob|Alice
"""


@pytest.fixture
def dup(tmp_path):
    logs = []
    for name, text in (("a", DUP_A), ("b", DUP_B)):
        path = tmp_path / f"{name}.log"
        path.write_text(text)
        check_log(path)
        logs.append(read_log(path))
    return logs


def test_duplicate_pairs_average_each_deal(dup):
    a, b = dup
    assert a.players == ["Alice", "Bob"] and b.players == ["Bob", "Alice"]
    per_deal = duplicate_values([a.hands, b.hands])
    assert per_deal == {"Alice": [0.0, 100.0], "Bob": [0.0, -100.0]}
    s = summarize([a, b], duplicate_groups=[[0, 1]])
    d = s["Alice"].duplicate
    assert d.n == 2 and d.mean == pytest.approx(500.0)  # 50 chips per deal
    assert d.se == pytest.approx(500.0)  # sd of (0, 100) is 70.71 chips, over sqrt(2) pairs: 50 chips
    plain = s["Alice"].result  # the four hands pooled: 50 -100 -50 300
    assert plain.n == 4 and plain.mean == pytest.approx(500.0)


def test_duplicate_needs_the_same_deals(dup):
    a, b = dup
    other = read_log_text(b.path, DUP_B.replace("AsAh|KsKh", "AsAh|KsKd"))
    with pytest.raises(StatsError, match="hand 1: the seatings were dealt different cards"):
        duplicate_values([a.hands, other.hands])


def test_duplicate_leaves_out_deals_one_seating_did_not_play(dup):
    a, b = dup
    short = read_log_text(b.path, "\n".join(DUP_B.splitlines()[:5]) + "\n")  # header and hand 0 only
    assert duplicate_values([a.hands, short.hands]) == {"Alice": [0.0], "Bob": [0.0]}


def read_log_text(path, text):
    from pathlib import Path
    p = Path(path).with_suffix(".edited.log")
    p.write_text(text)
    return read_log(p)


def test_read_log_errors_name_the_line(tmp_path):
    path = tmp_path / "bad.log"
    path.write_text(FOUR_HANDS.replace("STATE:2:cr400f", "STATE:2:cr400x"))
    with pytest.raises(StatsError, match=r"bad.log, line 7: .*cr400x"):
        read_log(path)
    path.write_text("STATE:0:f:5d5c|9hQd:50|-50:Alice|Bob\n")
    with pytest.raises(StatsError, match="no '# name/game/hands/seed' header"):
        read_log(path)
    assert read_log(path, load_game("hunl")).hands[0].values == [50, -50]
    with pytest.raises(StatsError, match="cannot read"):
        read_log(tmp_path / "missing.log")


def test_unfinished_log_has_no_score_but_reads(tmp_path):
    path = tmp_path / "cut.log"
    path.write_text("\n".join(FOUR_HANDS.splitlines()[:6]) + "\n")
    log = read_log(path)
    assert log.score is None and len(log.hands) == 2 and log.players == ["Alice", "Bob"]


def test_three_player_seats_and_crosstable(tmp_path):
    # kuhn3p (antes of 1, one bet of 1): position p of hand h is seat (p + h) mod 3
    #  hand 0: everyone checks, A (position 2) holds the ace: A +2, the others -1
    #  hand 1: position 0 (B) bets, the others fold: B +2
    text = ("# name/game/hands/seed k kuhn3p 2 0\n"
            "STATE:0:ccc:Js|Qs|As:-1|-1|2:X|Y|A\n"
            "STATE:1:rff:Ks|Js|Qs:2|-1|-1:Y|A|X\n")
    path = tmp_path / "k.log"
    path.write_text(text)
    check_log(path)
    log = read_log(path)
    assert log.players == ["X", "Y", "A"]
    cells = crosstable([log])
    assert cells[("A", "X")].mean == pytest.approx(1000 * 0.5)  # (2 - 1) / 2 hands, unit 1 chip
    assert cells[("Y", "A")].mean == pytest.approx(1000 * 0.5)
    assert table_results([log]) == {frozenset("XYA"): {"X": -1000.0, "Y": 500.0, "A": 500.0}}


def test_rankings_bankroll_and_instant_runoff_differ():
    # A beats B by 100, B beats C by 50, C beats A by 10 (mbb/hand)
    tables = {frozenset("AB"): {"A": 100.0, "B": -100.0},
              frozenset("BC"): {"B": 50.0, "C": -50.0},
              frozenset("AC"): {"A": -10.0, "C": 10.0}}
    # bankrolls: A (100 - 10)/2 = 45, B (-100 + 50)/2 = -25, C (-50 + 10)/2 = -20
    assert bankroll_ranking(tables, ["A", "B", "C"]) == ["A", "C", "B"]
    # runoff: B drops first; then C beats A head to head
    assert instant_runoff_ranking(tables, ["A", "B", "C"]) == ["C", "A", "B"]


def test_runoff_with_three_player_tables():
    tables = {frozenset("ABC"): {"A": 30.0, "B": -10.0, "C": -20.0},
              frozenset("ABD"): {"A": -5.0, "B": 10.0, "D": -5.0},
              frozenset("ACD"): {"A": 1.0, "C": 2.0, "D": -3.0},
              frozenset("BCD"): {"B": 1.0, "C": 1.0, "D": -2.0}}
    # bankrolls: A 26/3, B 1/3, C -17/3, D -10/3 -> D, B... ; C drops first (lowest), then only ABD is left:
    assert bankroll_ranking(tables, list("ABCD")) == list("ABDC")
    # after C: table ABD -> A -5, B 10, D -5 -> D drops (tie with A, later listed); then too few for a table
    assert instant_runoff_ranking(tables, list("ABCD")) == list("BADC")


def test_summarize_refuses_mixed_games(four, tmp_path):
    path = tmp_path / "k.log"
    path.write_text("# name/game/hands/seed k kuhn3p 1 0\nSTATE:0:ccc:Js|Qs|As:-1|-1|2:X|Y|A\n")
    with pytest.raises(StatsError, match="the game differs"):
        summarize([four, read_log(path)])


def test_duplicate_compares_only_the_board_both_logs_show(dup, tmp_path):
    a, b = dup
    # the same deal 1 ended preflop in one seating: its log shows no board
    folded = read_log_text(b.path, DUP_B.replace("STATE:1:r300c/cc/cc/cc:AsAh|KsKh/2c3d7h/9s/Jd:300|-300",
                                                 "STATE:1:r300f:AsAh|KsKh:-100|100"))
    assert duplicate_values([a.hands, folded.hands])["Alice"] == [0.0, -100.0]
    other = read_log_text(b.path, DUP_B.replace("/2c3d7h/", "/2c3d8h/"))
    with pytest.raises(StatsError, match="hand 1: the seatings were dealt different cards"):
        duplicate_values([a.hands, other.hands])


def test_runoff_ties_fall_back_to_the_whole_bankroll():
    # B and C draw each other exactly; A loses to both, but C beat A by more
    tables = {frozenset("AB"): {"A": -10.0, "B": 10.0},
              frozenset("AC"): {"A": -30.0, "C": 30.0},
              frozenset("BC"): {"B": 0.0, "C": 0.0}}
    assert instant_runoff_ranking(tables, ["A", "B", "C"]) == ["C", "B", "A"]
    assert instant_runoff_ranking(tables, ["A", "C", "B"]) == ["C", "B", "A"]


def test_crosstable_of_a_duplicate_pair_is_over_deals(dup):
    a, b = dup
    plain = crosstable([a, b])[("Alice", "Bob")]
    paired = crosstable([a, b], duplicate_groups=[[0, 1]])[("Alice", "Bob")]
    assert plain.n == 4 and paired.n == 2
    assert plain.mean == paired.mean == pytest.approx(500.0)
    assert paired.se == pytest.approx(500.0)


def test_reference_logs_totals_equal_their_score_lines(reference):
    from acpcbot.matchlog import format_value
    logs = [reference / "matchName.log", *sorted((reference / "dealer_logs").glob("*.r0.log"))]
    assert len(logs) == 5
    for path in logs:
        log = read_log(path)
        totals = player_totals(log.hands)
        assert len(log.hands) == 1000
        assert {n: format_value(t) for n, t in totals.items()} == dict(zip(log.score[1], log.score[0])), path.name
        s = summarize([log])
        for summary in s.values():
            # the reference example player: fold .06, call .47, raise .47
            assert 0.4 < summary.style.pfr < 0.6 and 0.75 < summary.style.vpip < 0.95
    # both seed-0 heads-up no-limit logs were dealt the same cards: a duplicate pair would compare them
    a, b = read_log(reference / "matchName.log"), read_log(reference / "dealer_logs" / "2p.nolimit.h1000.r0.log")
    renamed = [LoggedHand(h.hand_id, h.state, h.values_text, [{"p1": "Alice", "p2": "Bob"}[n] for n in h.names])
               for h in b.hands]
    per_deal = duplicate_values([a.hands, renamed])
    assert len(per_deal["Alice"]) == 1000


def test_a_cut_off_last_line_leaves_the_finished_hands(tmp_path, caplog):
    # a dealer stopped while writing hand 3: hands 0-2 stand, the cut line is reported, not fatal
    text = FOUR_HANDS[:FOUR_HANDS.index("STATE:3:") + 20]
    path = tmp_path / "cut.log"
    path.write_text(text)
    log = read_log(path)
    assert [h.hand_id for h in log.hands] == [0, 1, 2]
    assert "cut-off last line" in caplog.text


def test_a_bad_line_that_is_complete_is_still_an_error(tmp_path):
    path = tmp_path / "bad.log"
    path.write_text(FOUR_HANDS.replace("STATE:2:cr400f", "STATE:2:cr400x"))
    with pytest.raises(StatsError, match="line 7"):
        read_log(path)


def test_rounds_are_named_by_the_game():
    from acpcbot.gamedef import load_game
    from dealer.arena.stats import ending_names

    # hold'em deals 0, 3, 1, 1 board cards: its streets have names; Kuhn has one round, Leduc two
    assert ending_names(load_game("hunl")) == ("preflop", "flop", "turn", "river", "showdown")
    assert ending_names(load_game("kuhn2p")) == ("round1", "showdown")
    assert ending_names(load_game("leduc")) == ("round1", "round2", "showdown")
