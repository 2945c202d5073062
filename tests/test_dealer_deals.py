"""The dealer deals what the reference deals: known vectors, seen through a whole TCP match."""

import asyncio
import tempfile
from pathlib import Path

import pytest
from dealerkit import always_call, config_for, play_match

# DESIGN.md's vectors (seed 0) and, for seed 1, vectors checked against an
# independent MT19937 (numpy's legacy RandomState) dealing from the
# reference's suit-by-suit deck.  Always-call play reaches every showdown,
# so the log shows every card.
VECTORS = {
    ("hunl", 0): ["5d5c|9hQd/8dAs8s/4h/6d", "6sKs|5dJd/2sTh2h/Qh/8h"],
    ("hunl", 1): ["8s2h|Kd5c/7hAdTd/4s/Kc", "JsKs|Qs8d/Qd7s9d/Ac/Td", "5s6c|2c5d/4c4hKc/Qh/Jd"],
    ("3pl", 0): ["5d5c|9hQd|8dAs/8s4h6d/5s/Js"],
    ("3pl", 1): ["8s2h|Kd5c|7hAd/Td4sKc/Kh/8h", "2d6c|6sKh|Ac5c/4d4cTc/Qd/Jc"],
    ("kuhn3p", 0): ["Js|As|Qs", "Js|Qs|Ks", "As|Qs|Ks"],
    ("kuhn3p", 1): ["Qs|Ks|Js", "Js|Qs|Ks", "As|Ks|Qs"],
    ("leduc", 0): ["Ah|Ks/Kh", "Qh|Qs/Ks"],
    ("leduc", 1): ["Kh|Ks/Qh", "Ah|Qs/Kh", "As|Kh/Qs"],
}


@pytest.mark.parametrize("game,seed", sorted(VECTORS))
def test_match_deals_the_reference_vectors(game, seed):
    expected = VECTORS[(game, seed)]
    config = config_for(game, len(expected), seed)
    with tempfile.TemporaryDirectory() as tmp:
        out = asyncio.run(play_match(config, [always_call] * config.game.num_players, Path(tmp)))
    assert out.result.finished
    cards = [line.split(":")[3] for line in out.log.splitlines() if line.startswith("STATE:")]
    assert cards == expected


def test_every_player_sees_only_its_own_cards_until_the_showdown():
    config = config_for("3pl", 1, 0)
    out = asyncio.run(play_match(config, [always_call] * 3))
    seat_views = [p.received for p in out.players]
    # hand 0: seat s plays position s; the first views show one hole group each
    assert [v[0] for v in seat_views] == ["MATCHSTATE:0:0::5d5c||", "MATCHSTATE:1:0::|9hQd|",
                                          "MATCHSTATE:2:0::||8dAs"]
    finals = {v[-1] for v in seat_views}
    assert {f.split(":", 3)[3] for f in finals} == {"ccc/ccc/ccc/ccc:5d5c|9hQd|8dAs/8s4h6d/5s/Js"}
