"""The client's reply line is the state text, ':', the action's protocol text and CRLF, whatever the action."""

import random

import pytest

from acpcbot.client import Client
from acpcbot.engine import CALL, FOLD, RAISE, raise_to
from acpcbot.gamedef import load_game
from acpcbot.protocol import format_action
from acpcbot.strategies.base import INLINE_ENDS, Strategy
from acpcbot.world import MatchInfo


class Scripted(Strategy):
    """Answers with the next action of its script."""

    name = "scripted"
    run_mode = INLINE_ENDS

    def __init__(self, game, actions):
        super().__init__(game, random.Random(0))
        self.script = list(actions)

    def act(self, view, deadline):
        return self.script.pop(0)


@pytest.mark.parametrize("game_name,lines,actions,sent", [
    ("hunl", ["MATCHSTATE:1:1::|AhKh", "MATCHSTATE:1:1:r250r500:|AhKh", "MATCHSTATE:1:1:r250r500r1000r5000:|AhKh"],
     [raise_to(500), raise_to(1000), FOLD], ["r500", "r1000", "f"]),
    ("hunl", ["MATCHSTATE:0:2:r300:AhKh|", "MATCHSTATE:0:2:r300c/:AhKh|/2c3c4c"],
     [CALL, CALL], ["c", "c"]),
    ("hulhe", ["MATCHSTATE:1:3::|AhKh", "MATCHSTATE:1:3:rr:|AhKh"], [RAISE, CALL], ["r", "c"]),
    # an illegal answer is corrected before it is written: a raise too small, a fold for free, not an action
    ("hunl", ["MATCHSTATE:1:4::|AhKh", "MATCHSTATE:1:4:r200c/c:|AhKh/2c3c4c",
              "MATCHSTATE:1:4:r200c/cc/r600:|AhKh/2c3c4c/5d"],
     [raise_to(120), FOLD, "nonsense"], ["r200", "c", "f"]),
])
def test_the_reply_is_the_state_and_the_action_text(game_name, lines, actions, sent):
    game = load_game(game_name)
    client = Client(Scripted(game, actions), MatchInfo(game))
    got = []
    for line in lines:
        out = client.handle_line(line + "\r\n")
        view = client.world.last
        assert (out is not None) == view.is_my_turn, line
        if out is not None:
            assert out == f"{line}:{format_action(client._answered, game)}\r\n"
            got.append(out[len(line) + 1:-2])
    assert got == sent
