"""Client overhead per action around a trivial strategy: parse, world update, decide, format.

Plays seeded hands of a game in process (the engine deals and plays the
other positions at random; no sockets), feeding every state line this seat
would receive to ``Client.handle_line`` and timing it.  Prints one JSON
object: ``overhead_us_per_action`` is the mean time of a line this seat
answers (the default path: ``call`` declares ``inline``); ``amortized_us_per_action``
adds the lines it only observes; the peer ``parse_us_per_line`` is
``protocol.parse_match_state`` alone on the same lines, and ``ratio_to_parse``
compares the two; ``threaded_us_per_action`` is the same strategy run on
the worker thread (wall time: the hand-off is the point), the path a
strategy takes that declares nothing where no deadline alarm can run, or
once it overran; ``alarm_us_per_action`` is the same strategy declaring
nothing on the client's own thread under the deadline alarm (the default
path for such strategies: the alarm armed and disarmed around ``act``).  Inline
times are the thread's CPU time (``time.thread_time``), so that a busy
machine's waits for a core do not count; ``target_us_per_action`` is the
issue's bound (30).

    python benchmarks/client.py [--game hunl] [--hands 3000] [--strategy call]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import random
import statistics
import time

from acpcbot.cards import deck
from acpcbot.client import Client
from acpcbot.engine import CALL, FOLD, RAISE, ActionType, State, raise_to
from acpcbot.gamedef import load_game
from acpcbot.protocol import format_match_state, parse_action, parse_match_state
from acpcbot.strategies.base import RunMode
from acpcbot.strategies.registry import create
from acpcbot.world import MatchInfo


def opponent_action(state: State, rng: random.Random):
    """The reference example player's choice for another position."""
    legal = state.legal_actions()
    weights = {ActionType.FOLD: 0.06, ActionType.CALL: 0.47, ActionType.RAISE: 0.47}
    kind = rng.choices(legal, [weights[a] for a in legal])[0]
    if kind == ActionType.RAISE:
        if state.game.is_limit:
            return RAISE
        lo, hi = state.raise_bounds()
        return raise_to(rng.randint(lo, hi))
    return FOLD if kind == ActionType.FOLD else CALL


async def measure(game_name: str, hands: int, spec: str, seed: int = 0, threaded: bool = False,
                  alarm: bool = False) -> dict:
    """Time the handling of every line over ``hands`` hands; return the figures.

    ``threaded`` runs the strategy on the client's worker thread, which adds
    a thread hand-off per action; ``alarm`` runs it undeclared on this
    thread under the deadline alarm (a strategy that declares nothing).
    """
    game = load_game(game_name)
    strategy = create(spec, game, seed)
    if threaded or alarm:
        strategy.run_mode = RunMode("guarded", strategy.run_mode.sees)
    clock = time.perf_counter if threaded else time.thread_time
    client = Client(strategy, MatchInfo(game, time_per_hand=7.0), clock=clock)
    if threaded:
        # stay on the thread (a fast strategy would move inline after its probe)
        client.schedule.stay_on_thread(asyncio.get_running_loop())
    if alarm:
        # what the asyncio loop sets up for a guarded strategy where an alarm runs (its replies go nowhere here)
        client.schedule.use_alarm()
        client.send_now = lambda data: None
    rng = random.Random(seed)
    cards = deck(game.num_ranks, game.num_suits)
    k = game.num_hole_cards
    act_times: list[float] = []
    observe_times: list[float] = []
    lines: list[str] = []
    n = game.num_players
    for h in range(hands):
        dealt = rng.sample(cards, k * n + game.total_board_cards)
        hole, board = [dealt[p * k:(p + 1) * k] for p in range(n)], dealt[k * n:]
        state = State(game, h, hole, board)
        pos = h % n
        while True:
            line = format_match_state(state, pos) + "\r\n"
            lines.append(line)
            t0 = clock()
            if threaded:
                reply = await client.handle_line_threaded(line, t0)
            else:
                reply = client.handle_line(line, t0)
            t1 = clock()
            if state.finished:
                observe_times.append(t1 - t0)
                break
            if state.current_player == pos:
                act_times.append(t1 - t0)
                state.apply(parse_action(reply.rstrip("\r\n").rpartition(":")[2], game))
            else:
                observe_times.append(t1 - t0)
                state.apply(opponent_action(state, rng))
    if threaded:
        client.schedule.thread.close()
    if alarm:
        client.schedule.close_alarm()
    t0 = clock()
    for line in lines:
        parse_match_state(line, game)
    parse_us = (clock() - t0) / len(lines) * 1e6
    per_action = statistics.fmean(act_times) * 1e6
    return {"game": game_name, "strategy": spec, "hands": hands, "lines": len(lines), "actions": len(act_times),
            "overhead_us_per_action": round(per_action, 1),
            "median_us_per_action": round(statistics.median(act_times) * 1e6, 1),
            "observe_us_per_line": round(statistics.fmean(observe_times) * 1e6, 1),
            "amortized_us_per_action": round((sum(act_times) + sum(observe_times)) / len(act_times) * 1e6, 1),
            "parse_us_per_line": round(parse_us, 1),
            "ratio_to_parse": round(per_action / parse_us, 2), "target_us_per_action": 30}


def main() -> None:
    """Run the measurement and print one JSON object."""
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--game", default="hunl")
    p.add_argument("--hands", type=int, default=3000)
    p.add_argument("--strategy", default="call")
    args = p.parse_args()
    logging.basicConfig(level=logging.ERROR)
    asyncio.run(measure(args.game, 200, args.strategy))  # warm up
    result = asyncio.run(measure(args.game, args.hands, args.strategy))
    threaded = asyncio.run(measure(args.game, args.hands // 3, args.strategy, threaded=True))
    result["threaded_us_per_action"] = threaded["overhead_us_per_action"]
    alarmed = asyncio.run(measure(args.game, args.hands // 3, args.strategy, alarm=True))
    result["alarm_us_per_action"] = alarmed["overhead_us_per_action"]
    print(json.dumps(result))


if __name__ == "__main__":
    main()
