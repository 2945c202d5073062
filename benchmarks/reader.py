"""MATCHSTATE reader speed: a seat's lines read one from the last (``notation.reader.HandReader`` through ``World``).

Deals seeded hands of a game in process, the engine playing every
position at random, and keeps the lines one seat receives; then reads them
all through a ``World`` (what the client does per line: the incremental
reader, the full parse where it declines) and, as the peer in the same run,
through ``parse_match_state`` from scratch.  Each pass is timed in CPU time
(``time.process_time``) and repeated; the minimum over the repeats is the
figure (the least disturbed by other work on the machine).  Prints one JSON
object.

    python benchmarks/reader.py [--game hunl] [--hands 2000] [--repeat 7]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import sys
import time

_HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:] = [p for p in sys.path if os.path.abspath(p or ".") != _HERE]

from acpcbot.cards import deck  # noqa: E402
from acpcbot.engine import CALL, FOLD, RAISE, ActionType, State, raise_to  # noqa: E402
from acpcbot.gamedef import GameDef, load_game  # noqa: E402
from acpcbot.protocol import format_match_state, parse_match_state  # noqa: E402
from acpcbot.world import MatchInfo, World  # noqa: E402


def lines_of(game: GameDef, hands: int, seed: int = 0) -> list[str]:
    """The lines one seat (rotating over the hands) receives in ``hands`` seeded hands of random play."""
    rng = random.Random(seed)
    cards = deck(game.num_ranks, game.num_suits)
    n, k = game.num_players, game.num_hole_cards
    weights = {ActionType.FOLD: 0.06, ActionType.CALL: 0.47, ActionType.RAISE: 0.47}
    out: list[str] = []
    for h in range(hands):
        dealt = rng.sample(cards, k * n + game.total_board_cards)
        state = State(game, h, [dealt[p * k:(p + 1) * k] for p in range(n)], dealt[k * n:])
        pos = h % n
        while True:
            out.append(format_match_state(state, pos))
            if state.finished:
                break
            legal = state.legal_actions()
            kind = rng.choices(legal, [weights[a] for a in legal])[0]
            if kind == ActionType.RAISE:
                if state.game.is_limit:
                    state.apply(RAISE)
                else:
                    lo, hi = state.raise_bounds()
                    state.apply(raise_to(rng.randint(lo, hi)))
            else:
                state.apply(FOLD if kind == ActionType.FOLD else CALL)
    return out


def read_all(game: GameDef, lines: list[str]) -> float:
    """CPU seconds to read ``lines`` through a World, as the client does."""
    world = World(game, MatchInfo(game))
    t0 = time.process_time()
    for line in lines:
        world.update(line)
    return time.process_time() - t0


def parse_all(game: GameDef, lines: list[str]) -> float:
    """CPU seconds to parse ``lines`` from scratch, each on its own."""
    t0 = time.process_time()
    for line in lines:
        parse_match_state(line, game)
    return time.process_time() - t0


def main() -> None:
    """Run the measurement and print one JSON object."""
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--game", default="hunl")
    p.add_argument("--hands", type=int, default=2000)
    p.add_argument("--repeat", type=int, default=7)
    args = p.parse_args()
    game = load_game(args.game)
    lines = lines_of(game, args.hands)
    read_all(game, lines[:2000])  # warm up
    reads = [read_all(game, lines) for _ in range(args.repeat)]
    parses = [parse_all(game, lines) for _ in range(args.repeat)]
    per = 1e6 / len(lines)
    print(json.dumps({"game": args.game, "hands": args.hands, "lines": len(lines), "repeat": args.repeat,
                      "read_us_per_line": round(min(reads) * per, 2),
                      "read_median_us_per_line": round(sorted(reads)[len(reads) // 2] * per, 2),
                      "parse_us_per_line": round(min(parses) * per, 2),
                      "ratio_read_to_parse": round(min(reads) / min(parses), 3)}))


if __name__ == "__main__":
    main()
