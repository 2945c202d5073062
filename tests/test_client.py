"""The client against scripted fake dealers on 127.0.0.1: exchanges, errors, deadlines and hooks."""

from __future__ import annotations

import asyncio
import io
import json
import logging
import random
import time

import pytest
from client_fakedealer import (
    EXCHANGES,
    HULHE_EXCHANGE,
    HUNL_EXCHANGE,
    ScriptedDealer,
    client_lines,
    closed_port,
    dealer_lines,
    script_of,
)

from acpcbot.client import (
    EXIT_DISCONNECTED,
    EXIT_OK,
    EXIT_PROTOCOL,
    EXIT_STRATEGY,
    MAX_LINE,
    Client,
    TimeBudget,
    strategy_deadline,
)
from acpcbot.connection import EXIT_CONNECT
from acpcbot.engine import CALL, FOLD, RAISE, Action, ActionType, raise_to
from acpcbot.gamedef import load_game
from acpcbot.protocol import VERSION_LINE, parse_action
from acpcbot.session import run
from acpcbot.strategies.base import RunMode, Strategy
from acpcbot.world import MatchInfo


class Scripted(Strategy):
    """Plays a fixed list of actions and records every hook call."""

    name = "scripted"

    def __init__(self, game, actions=(), delay: float = 0.0, inline: bool = True, time_limited: bool = True,
                 fail_act: bool = False, fail_observe: bool = False):
        super().__init__(game, random.Random(0))
        self.actions = list(actions)
        self.delay = delay
        # every state (it records every hook call); inline, guarded, or a person's untimed
        self.run_mode = RunMode("inline" if inline else "guarded" if time_limited else "untimed", "every")
        self.fail_act = fail_act
        self.fail_observe = fail_observe
        self.calls: list[tuple[str, str]] = []
        self.deadlines: list[float] = []

    def start_match(self, match):
        self.calls.append(("start_match", match.name))

    def observe(self, view):
        self.calls.append(("observe", view.text))
        if self.fail_observe:
            raise RuntimeError("observe bug")

    def act(self, view, deadline):
        self.calls.append(("act", view.text))
        self.deadlines.append(deadline - time.monotonic())
        if self.delay:
            time.sleep(self.delay)
        if self.fail_act:
            raise RuntimeError("act bug")
        return self.actions.pop(0) if self.actions else CALL

    def end_hand(self, view):
        self.calls.append(("end_hand", view.text))

    def end_match(self):
        self.calls.append(("end_match", ""))


def exchange_actions(exchange: str, game) -> list[Action]:
    return [parse_action(line.rpartition(":")[2], game) for line in client_lines(exchange)]


async def _play(script, strategy, game, start_after=0.0, retry_for=5.0, time_per_hand=7.0, history=None,
                port=None, deadline_alarm=True):
    dealer = ScriptedDealer(script, start_after=start_after)
    if port is None:
        port = await dealer.start()
    info = MatchInfo(game, name="tester", seed=1, time_per_hand=time_per_hand)
    try:
        code = await run(strategy, info, "127.0.0.1", port, history=history, retry_for=retry_for,
                         deadline_alarm=deadline_alarm)
        if port is not None and dealer.port:
            await asyncio.wait_for(dealer.done.wait(), 30)
    finally:
        await dealer.stop()
    return code, dealer


def play(script, strategy, game, **kw):
    return asyncio.run(asyncio.wait_for(_play(script, strategy, game, **kw), 120))


# ----------------------------------------------------------------- the protocol's example exchanges

@pytest.mark.parametrize("inline", [True, False], ids=["inline", "threaded"])
@pytest.mark.parametrize("game_name", sorted(EXCHANGES))
def test_example_exchange_reproduced_exactly(game_name, inline):
    game = load_game(game_name)
    exchange = EXCHANGES[game_name]
    strategy = Scripted(game, exchange_actions(exchange, game), inline=inline)
    code, dealer = play(script_of(exchange, eol="\n", comments=True), strategy, game)
    assert code == EXIT_OK
    assert dealer.error is None
    assert dealer.received[0] == VERSION_LINE
    assert dealer.received[1:] == [line + "\r\n" for line in client_lines(exchange)]
    # every state observed (also where the seat does not act), act only on its turns, in order
    observed = [text for kind, text in strategy.calls if kind == "observe"]
    assert observed == dealer_lines(exchange)
    assert [text for kind, text in strategy.calls if kind == "act"] == \
        [line.rpartition(":")[0] for line in client_lines(exchange)]
    finals = [text for kind, text in strategy.calls if kind == "end_hand"]
    assert len(finals) == len({line.split(":")[2] for line in dealer_lines(exchange)})
    assert strategy.calls[0] == ("start_match", "tester") and strategy.calls[-1] == ("end_match", "")
    # the hooks of a state come in order: observe, then act; end_hand after observing the final state
    for i, (kind, text) in enumerate(strategy.calls):
        if kind in ("act", "end_hand"):
            assert strategy.calls[i - 1] == ("observe", text)


def test_history_file_has_one_json_line_per_hand():
    game = load_game("hulhe")
    history = io.StringIO()
    strategy = Scripted(game, exchange_actions(HULHE_EXCHANGE, game))
    code, _ = play(script_of(HULHE_EXCHANGE), strategy, game, history=history)
    assert code == EXIT_OK
    records = [json.loads(line) for line in history.getvalue().splitlines()]
    assert [(r["hand"], r["position"], r["hole"], r["betting"], r["result"], r["total"]) for r in records] == [
        (0, 0, "TdAs", "rrc/rc/crc/crc", -80.0, -80.0),
        (1, 1, "Qd7c", "rrc/rc/rf", -40.0, -120.0),
        (2, 0, "9d7s", "rc/cc/crf", -20.0, -140.0)]
    assert records[0]["board"] == ["", "2c8c3h", "9c", "Kh"]
    assert records[0]["shown"] == {"1": "8hTc"}
    assert records[1]["shown"] == {}


# ----------------------------------------------------------------- failures of the dealer

def test_garbage_line_is_a_clear_protocol_error(caplog):
    game = load_game("hunl")
    script = [("send", "MATCHSTATE:0:30::9s8h|\r\n"), ("send", "# fine\r\n"), ("send", "HELLO WORLD\r\n"),
              ("sleep", 0.2)]
    code, _ = play(script, Scripted(game), game)
    assert code == EXIT_PROTOCOL
    assert "protocol error on line 3 from the dealer" in caplog.text
    assert "HELLO WORLD" in caplog.text


def test_impossible_betting_is_a_protocol_error(caplog):
    game = load_game("hunl")
    code, _ = play([("send", "MATCHSTATE:0:30:r50:9s8h|\r\n"), ("sleep", 0.2)], Scripted(game), game)
    assert code == EXIT_PROTOCOL
    assert "r50" in caplog.text and "is --game hunl the dealer's game?" in caplog.text


def test_wrong_game_is_named(caplog):
    game = load_game("hunl")
    code, _ = play([("send", "MATCHSTATE:2:55::||AsTs\r\n"), ("sleep", 0.2)], Scripted(game), game)
    assert code == EXIT_PROTOCOL
    assert "is --game hunl the dealer's game?" in caplog.text


def test_non_ascii_line_is_a_protocol_error(caplog):
    game = load_game("hunl")
    code, _ = play([("send", "MATCHSTATE:0:30::9s8h|\r\n".encode() + b"\xff\xfe\r\n"), ("sleep", 0.2)],
                   Scripted(game), game)
    assert code == EXIT_PROTOCOL
    assert "not ASCII" in caplog.text


def test_overlong_line_is_refused(caplog):
    game = load_game("hunl")
    code, _ = play([("send", "#" + "x" * (MAX_LINE + 10) + "\r\n"), ("sleep", 0.2)], Scripted(game), game)
    assert code == EXIT_PROTOCOL
    assert f"longer than {MAX_LINE} bytes" in caplog.text


def test_dealer_closing_mid_hand_is_a_clear_error(caplog):
    game = load_game("hunl")
    strategy = Scripted(game)
    script = [("send", "MATCHSTATE:0:30::9s8h|\r\n"), ("send", "MATCHSTATE:0:30:c:9s8h|\r\n"), ("recv",),
              ("send", "MATCHSTATE:0:30:cc/:9s8h|/8c8d5c\r\n"), ("recv",), ("close",)]
    code, dealer = play(script, strategy, game)
    assert code == EXIT_DISCONNECTED
    assert "in the middle of hand 30" in caplog.text
    assert dealer.received[1:] == ["MATCHSTATE:0:30:c:9s8h|:c\r\n", "MATCHSTATE:0:30:cc/:9s8h|/8c8d5c:c\r\n"]
    assert strategy.calls[-1] == ("end_match", "")


def test_connection_reset_mid_hand_is_a_clear_error(caplog):
    game = load_game("hunl")
    code, _ = play([("send", "MATCHSTATE:0:30::9s8h|\r\n"), ("sleep", 0.1), ("reset",)], Scripted(game), game)
    assert code == EXIT_DISCONNECTED
    assert "in the middle of hand 30" in caplog.text and "reading failed" in caplog.text


def test_connection_reset_after_a_finished_hand_ends_the_match_normally(caplog):
    game = load_game("hunl")
    first_hand = "\n".join(HUNL_EXCHANGE.splitlines()[:13])
    strategy = Scripted(game, exchange_actions(first_hand, game))
    with caplog.at_level(logging.INFO):
        code, _ = play(script_of(first_hand) + [("sleep", 0.1), ("reset",)], strategy, game)
    assert code == EXIT_OK
    assert "the connection ended between hands" in caplog.text
    assert strategy.calls[-1] == ("end_match", "")


def test_dealer_closing_in_the_middle_of_a_line(caplog):
    game = load_game("hunl")
    code, _ = play([("send", "MATCHSTATE:0:30::9s8h|\r\nMATCHSTATE:0:30:c:9s")], Scripted(game), game)
    # the cut line is not a reply request (nobody would read the reply): the dealer left mid-hand
    assert code == EXIT_DISCONNECTED
    assert "in the middle of hand 30" in caplog.text


def test_final_state_without_line_end_before_close_still_counts():
    game = load_game("hunl")
    first_hand = "\n".join(HUNL_EXCHANGE.splitlines()[:13])
    script = script_of(first_hand)
    assert script[-1][1].startswith("MATCHSTATE:0:30:cc/r250c/r500c/r1250c:")
    script[-1] = ("send", script[-1][1].rstrip("\r\n"))
    strategy = Scripted(game, exchange_actions(first_hand, game))
    code, dealer = play(script, strategy, game)
    assert code == EXIT_OK
    assert dealer.received[1:] == [line + "\r\n" for line in client_lines(first_hand)]
    assert strategy.calls[-3:] == [("observe", script[-1][1]), ("end_hand", script[-1][1]), ("end_match", "")]


def test_dealer_closing_before_any_state(caplog):
    game = load_game("hunl")
    code, _ = play([("send", "# only a comment\r\n"), ("close",)], Scripted(game), game)
    assert code == EXIT_DISCONNECTED
    assert "before sending any state" in caplog.text


def test_dealer_slow_to_start_is_waited_for():
    game = load_game("hunl")
    exchange = HUNL_EXCHANGE
    strategy = Scripted(game, exchange_actions(exchange, game))
    code, dealer = play(script_of(exchange), strategy, game, start_after=0.6, retry_for=5.0)
    assert code == EXIT_OK
    assert dealer.received[1:] == [line + "\r\n" for line in client_lines(exchange)]


def test_refused_connection_gives_up_with_a_clear_message(caplog):
    port = asyncio.run(closed_port())
    game = load_game("hunl")
    strategy = Scripted(game)
    info = MatchInfo(game)
    code = asyncio.run(asyncio.wait_for(run(strategy, info, "127.0.0.1", port, retry_for=0.3), 60))
    assert code == EXIT_CONNECT
    assert f"cannot connect to the dealer at 127.0.0.1:{port}" in caplog.text
    assert strategy.calls[-1] == ("end_match", "")


def test_strategy_failing_to_start_ends_before_connecting(caplog):
    class Broken(Scripted):
        def start_match(self, match):
            raise OSError("policy file missing")

    game = load_game("hunl")
    code = asyncio.run(asyncio.wait_for(run(Broken(game), MatchInfo(game), "127.0.0.1", 9, retry_for=0), 60))
    assert code == EXIT_STRATEGY
    assert "policy file missing" in caplog.text


# ----------------------------------------------------------------- what the client sends

HUNL_TURN = [("send", "MATCHSTATE:1:31::|JdTc\r\n"), ("recv",), ("sleep", 0.05)]


def _reply_to_first_state(strategy, game, caplog, script=None):
    script = script or [("send", "MATCHSTATE:1:31::|JdTc\r\n"), ("recv",)]
    with caplog.at_level(logging.WARNING):
        _, dealer = play(script, strategy, game)
    return dealer.received[1]


@pytest.mark.parametrize("chosen,sent,warning", [
    (raise_to(120), "r200", "raise of 120 increased to 200"),
    (raise_to(10 ** 6), "r20000", "raise of 1000000 decreased to 20000"),
    (Action(ActionType.RAISE), "r200", "increased to 200"),
    ((2, 600), "r600", None),
    ("fold", "f", "not an action"),
    (None, "f", "not an action"),
])
def test_illegal_actions_are_corrected_through_the_engine(chosen, sent, warning, caplog):
    game = load_game("hunl")
    reply = _reply_to_first_state(Scripted(game, [chosen]), game, caplog)
    assert reply == f"MATCHSTATE:1:31::|JdTc:{sent}\r\n"
    if warning:
        assert warning in caplog.text
    else:
        assert "WARNING" not in caplog.text


def test_fold_when_free_becomes_a_check(caplog):
    game = load_game("hunl")
    script = [("send", "MATCHSTATE:0:30::9s8h|\r\n"), ("send", "MATCHSTATE:0:30:c:9s8h|\r\n"), ("recv",)]
    reply = _reply_to_first_state(Scripted(game, [FOLD]), game, caplog, script)
    assert reply == "MATCHSTATE:0:30:c:9s8h|:c\r\n"
    assert "invalid action, changed to call" in caplog.text


def test_raise_when_no_raise_is_left_becomes_a_call(caplog):
    game = load_game("hulhe")
    script = [("send", "MATCHSTATE:0:7:rrr:9d7s|\r\n"), ("recv",)]  # the third raise of the round: capped at 3
    reply = _reply_to_first_state(Scripted(game, [RAISE]), game, caplog, script)
    assert reply == "MATCHSTATE:0:7:rrr:9d7s|:c\r\n"
    assert "changed to call" in caplog.text


def test_limit_raise_with_a_size_is_sent_as_r(caplog):
    game = load_game("hulhe")
    script = [("send", "MATCHSTATE:0:7:r:9d7s|\r\n"), ("recv",)]
    reply = _reply_to_first_state(Scripted(game, [raise_to(40)]), game, caplog, script)
    assert reply == "MATCHSTATE:0:7:r:9d7s|:r\r\n"


@pytest.mark.parametrize("inline", [True, False], ids=["inline", "threaded"])
def test_crash_in_act_sends_the_fallback_and_play_continues(inline, caplog):
    game = load_game("hunl")
    strategy = Scripted(game, inline=inline, fail_act=True, fail_observe=True)
    script = [("send", "MATCHSTATE:1:31::|JdTc\r\n"), ("recv",), ("send", "MATCHSTATE:1:31:f:|JdTc\r\n"),
              ("send", "MATCHSTATE:0:32:c:9s8h|\r\n"), ("recv",), ("send", "MATCHSTATE:0:32:cr300:9s8h|\r\n"),
              ("send", "MATCHSTATE:0:32:cr300f:9s8h|\r\n")]
    code, dealer = play(script, strategy, game)
    assert code == EXIT_OK
    assert dealer.received[1:] == ["MATCHSTATE:1:31::|JdTc:f\r\n", "MATCHSTATE:0:32:c:9s8h|:c\r\n"]
    assert "act bug" in caplog.text and "observe bug" in caplog.text
    assert ("end_match", "") in strategy.calls


def test_slow_strategy_gets_the_fallback_at_its_deadline(caplog):
    game = load_game("hunl")
    # 40 ms per hand: the allowance is a few ms, the strategy sleeps 0.3 s
    strategy = Scripted(game, [raise_to(300), raise_to(300)], delay=0.3, inline=False)
    script = [("send", "MATCHSTATE:1:31::|JdTc\r\n"), ("recv",), ("send", "MATCHSTATE:1:31:f:|JdTc\r\n"),
              ("send", "MATCHSTATE:0:32:c:9s8h|\r\n"), ("recv",), ("send", "MATCHSTATE:0:32:cc/:9s8h|/8c8d5c\r\n"),
              ("recv",), ("send", "MATCHSTATE:0:32:cc/cr300:9s8h|/8c8d5c\r\n"), ("recv",),
              ("send", "MATCHSTATE:0:32:cc/cr300f:9s8h|/8c8d5c\r\n"), ("sleep", 0.1)]
    # on the worker thread from the start (no deadline alarm): what a strategy that overran once meets there
    code, dealer = play(script, strategy, game, time_per_hand=0.04, deadline_alarm=False)
    assert code == EXIT_OK
    # facing a bet: fold; free to check: check
    assert dealer.received[1:] == ["MATCHSTATE:1:31::|JdTc:f\r\n", "MATCHSTATE:0:32:c:9s8h|:c\r\n",
                                   "MATCHSTATE:0:32:cc/:9s8h|/8c8d5c:c\r\n",
                                   "MATCHSTATE:0:32:cc/cr300:9s8h|/8c8d5c:f\r\n"]
    assert caplog.text.count("did not answer within") == 4
    # the first call ran on past its deadline; the three queued behind it were
    # abandoned before they started, so the strategy does not fall further behind
    kinds = [k for k, _ in strategy.calls]
    assert kinds.count("act") == 1
    assert kinds.count("observe") >= 5  # every state is still observed
    assert strategy.calls[-1] == ("end_match", "")


def test_a_strategy_that_overran_catches_up(caplog):
    game = load_game("hunl")

    class SlowThenFast(Scripted):
        slow = {"MATCHSTATE:1:31::|JdTc", "MATCHSTATE:0:32:c:9s8h|"}

        def act(self, view, deadline):
            self.delay = 0.3 if view.text in self.slow else 0.0
            return super().act(view, deadline)

    strategy = SlowThenFast(game, [raise_to(300)] * 3, inline=False)
    script = [("send", "MATCHSTATE:1:31::|JdTc\r\n"), ("recv",), ("send", "MATCHSTATE:1:31:f:|JdTc\r\n"),
              ("send", "MATCHSTATE:0:32:c:9s8h|\r\n"), ("recv",), ("sleep", 0.45),
              ("send", "MATCHSTATE:0:32:cc/:9s8h|/8c8d5c\r\n"), ("recv",),
              ("send", "MATCHSTATE:0:32:cc/r300f:9s8h|/8c8d5c\r\n"), ("sleep", 0.1)]
    code, dealer = play(script, strategy, game, time_per_hand=0.04, deadline_alarm=False)
    assert code == EXIT_OK
    # two fallbacks while the first call overran; the second call, queued behind
    # it and abandoned, never ran, so the third answered in time
    assert dealer.received[1:] == ["MATCHSTATE:1:31::|JdTc:f\r\n", "MATCHSTATE:0:32:c:9s8h|:c\r\n",
                                   "MATCHSTATE:0:32:cc/:9s8h|/8c8d5c:r300\r\n"]
    assert [k for k, _ in strategy.calls].count("act") == 2


def test_untimed_strategy_is_waited_for(caplog):
    game = load_game("hunl")
    strategy = Scripted(game, [raise_to(300)], delay=0.2, inline=False, time_limited=False)
    script = [("send", "MATCHSTATE:1:31::|JdTc\r\n"), ("recv",), ("send", "MATCHSTATE:1:31:r300f:|JdTc\r\n")]
    code, dealer = play(script, strategy, game, time_per_hand=0.01)
    assert code == EXIT_OK
    assert dealer.received[1] == "MATCHSTATE:1:31::|JdTc:r300\r\n"
    assert "did not answer" not in caplog.text


def test_deadlines_follow_the_budget_on_a_fake_clock():
    game = load_game("hunl")
    seen = []

    class Recorder(Scripted):
        def act(self, view, deadline):
            seen.append(deadline)
            return CALL

    now = [100.0]
    client = Client(Recorder(game), MatchInfo(game, time_per_hand=2.0), clock=lambda: now[0])
    client.handle_line("MATCHSTATE:0:30::9s8h|")
    client.handle_line("MATCHSTATE:0:30:c:9s8h|")
    quota = 2.0 * TimeBudget.SAFETY
    first = quota / game.num_rounds - TimeBudget.RESERVE
    assert seen == [pytest.approx(strategy_deadline(100.0, first))]


# ----------------------------------------------------------------- the time budget

def test_budget_spreads_the_hand_over_expected_actions():
    budget = TimeBudget(per_hand=1.0, prior_actions=4)
    budget.new_hand()
    first = budget.allowance()
    assert first == pytest.approx(0.75 / 4 - TimeBudget.RESERVE)
    budget.spend(first)
    assert budget.allowance() == pytest.approx((0.75 - first) / 3 - TimeBudget.RESERVE)


def test_budget_savings_are_capped_and_overspending_is_floored():
    budget = TimeBudget(per_hand=1.0, prior_actions=1)
    for _ in range(100):
        budget.new_hand()
    assert budget.allowance() <= 2 * 0.75
    budget.spend(1000.0)
    assert budget.allowance() == TimeBudget.FLOOR


def test_budget_learns_actions_per_hand():
    budget = TimeBudget(per_hand=1.0, prior_actions=4)
    for _ in range(200):
        budget.new_hand()
        budget.spend(0.0)
    budget.new_hand()
    assert budget.expected_actions() == pytest.approx(1.0, abs=0.1)


def test_match_average_stays_under_the_budget():
    # whatever a strategy does, spending at most each allowance keeps the average under the budget
    rng = random.Random(3)
    budget = TimeBudget(per_hand=0.5, prior_actions=3)
    used = 0.0
    hands = 500
    for _ in range(hands):
        budget.new_hand()
        for _ in range(rng.randint(0, 8)):
            take = budget.allowance() * rng.choice((0.0, 0.5, 1.0)) + TimeBudget.RESERVE * rng.random()
            used += take
            budget.spend(take)
    assert used / hands < 0.5


def test_strategy_deadline_keeps_a_grace():
    assert strategy_deadline(10.0, 1.0) == pytest.approx(10.95)
    assert strategy_deadline(10.0, 0.1) == pytest.approx(10.09)


def test_handle_line_is_usable_without_a_socket():
    game = load_game("hunl")
    client = Client(Scripted(game, [raise_to(250)]), MatchInfo(game))
    assert client.handle_line("# comment\r\n") is None
    assert client.handle_line("MATCHSTATE:0:30::9s8h|\r\n") is None
    assert client.handle_line("MATCHSTATE:0:30:c:9s8h|\n") == "MATCHSTATE:0:30:c:9s8h|:r250\r\n"
