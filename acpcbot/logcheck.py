"""Check an ACPC match log against the rules engine.

``python -m acpcbot.logcheck FILE [--game G]`` replays every STATE line:
the betting must be legal and complete, the cards consistent with the game
and dealt from the seed in the header (as the reference dealer deals),
each logged value equal to the engine's payoff as the reference prints it,
and the SCORE line equal to the per-seat sums.  It prints per-player totals
and mbb/hand, and exits non-zero naming the first bad hand.
"""

from __future__ import annotations

import argparse
import os
import stat
import sys
from dataclasses import dataclass, field
from pathlib import Path

from .cards import cards_to_text
from .deals import Dealer
from .gamedef import GameDef, GameDefError, clip, load_game
from .matchlog import Header, LogError, LogLineError, format_value, header_game, read_entries

#: the longest message about one line (a log line may be a megabyte long; the message quotes from it)
MAX_MESSAGE = 400


class LogCheckError(Exception):
    """The first inconsistency found in a log, with its line number; the message is at most MAX_MESSAGE characters."""

    def __init__(self, line: int, message: str) -> None:
        if len(message) > MAX_MESSAGE:
            message = f"{message[:MAX_MESSAGE]}... ({len(message)} characters)"
        super().__init__(f"line {line}: {message}")
        self.line = line


@dataclass
class LogSummary:
    """What a checked log holds: hands, per-player totals (in first-seen order) and the unit."""

    hands: int = 0
    totals: dict[str, float] = field(default_factory=dict)
    big_blind: int = 1
    score_checked: bool = False
    header: Header | None = None

    def mbb_per_hand(self, name: str) -> float:
        """Milli-big-blinds per hand won by ``name``."""
        return 1000.0 * self.totals[name] / self.big_blind / self.hands if self.hands else 0.0


def check_log(path: str | Path, game: GameDef | None = None) -> LogSummary:
    """Replay and check a whole log; raise LogCheckError at the first bad line."""
    summary = LogSummary()
    seen_hands: set[int] = set()
    header: Header | None = None
    last = 0
    entries = read_entries(path, game)
    while True:
        try:
            entry = next(entries)
        except StopIteration:
            break
        except LogLineError as exc:
            raise LogCheckError(exc.number, f"{exc.reason}; pass --game" if exc.needs_game else exc.reason) from None
        number, kind, line = entry.number, entry.kind, entry.line
        last, header = number, entry.header
        if kind in ("comment", "blank"):
            continue
        if summary.score_checked:
            raise LogCheckError(number, "text after the SCORE line")
        if kind == "other":
            raise LogCheckError(number, f"neither a comment, a STATE nor a SCORE line: {clip(line.rstrip())}")
        if kind == "score":
            if game is None:
                try:
                    game = header_game(header)
                except LogError as exc:
                    raise LogCheckError(number, f"{exc}; pass --game") from None
            summary.big_blind = game.big_blind
            assert entry.score is not None
            _check_score(number, entry.score, summary)
            continue
        hand = entry.hand
        assert hand is not None
        state = hand.state
        summary.big_blind = state.game.big_blind
        what = f"hand {hand.hand_id}"
        if not state.finished:
            raise LogCheckError(number, f"{what}: the betting stops before the hand is over")
        if any(len(h) != state.game.num_hole_cards for h in state.hole):
            raise LogCheckError(number, f"{what}: every player's hole cards must be logged")
        if hand.hand_id in seen_hands:
            raise LogCheckError(number, f"{what}: hand number used twice")
        seen_hands.add(hand.hand_id)
        if len(set(hand.names)) != len(hand.names):
            raise LogCheckError(number, f"{what}: a name appears twice in {_short('|'.join(hand.names))}")
        expected = [format_value(v) for v in state.payoffs()]
        if expected != hand.values_text:
            raise LogCheckError(number, f"{what}: logged values {_short('|'.join(hand.values_text))} "
                                        f"but the rules give {'|'.join(expected)}")
        if summary.totals and set(hand.names) != set(summary.totals):
            raise LogCheckError(number, f"{what}: players {_short('|'.join(hand.names))} differ from earlier hands")
        for name, value in zip(hand.names, state.payoffs()):
            summary.totals[name] = summary.totals.get(name, 0.0) + value
        summary.hands += 1
    summary.header = header
    if header is not None and summary.score_checked and summary.hands != header.num_hands:
        raise LogCheckError(last, f"the header announces {header.num_hands} hands but the log holds {summary.hands}")
    return summary


def check_deals(path: str | Path, game: GameDef | None = None) -> int:
    """Check every hand's cards against the deal the seed in the log's header gives, as the reference dealer and
    ours deal; return the hands checked, raise LogCheckError at the first hand dealt otherwise.

    Run after :func:`check_log` (which checks everything else): a log whose cards were altered, or that was
    not dealt from its header's seed, passes every rule and still is not the match it says it is.
    """
    dealer: Dealer | None = None
    dealt = 0
    checked = 0
    for entry in read_entries(path, game):
        if entry.new_match:
            dealer, dealt = None, 0
        if entry.kind != "state" or entry.hand is None:
            continue
        hand, state = entry.hand, entry.hand.state
        if entry.header is None:
            raise LogCheckError(entry.number, "no header line with the seed: the cards cannot be checked")
        if dealer is None:
            dealer = Dealer(state.game, entry.header.seed)
        if hand.hand_id < dealt:
            raise LogCheckError(entry.number, f"hand {hand.hand_id}: comes after hand {dealt - 1}")
        while dealt <= hand.hand_id:  # a hand missing from the log still used its deal
            hole, board = dealer.deal()
            dealt += 1
        logged_board = list(state.board)
        if [tuple(h) for h in state.hole] != hole or logged_board != board[:len(logged_board)]:
            raise LogCheckError(entry.number, f"hand {hand.hand_id}: the cards are not the deal of seed "
                                              f"{entry.header.seed} (it deals {_deal_text(hole, board)})")
        checked += 1
    return checked


def _deal_text(hole: list[tuple[int, ...]], board: list[int]) -> str:
    return "|".join(cards_to_text(h) for h in hole) + (f"/{cards_to_text(board)}" if board else "")


def whole_log_problem(path: str | Path, game: GameDef | None, hands: int | None) -> str | None:
    """Why ``path`` is not the whole, consistent log of a finished match of ``hands`` hands, or None when it is.

    The checks of :func:`check_log` (every hand legal, values as the rules
    give, SCORE equal to the sums) plus: a regular file (a folder or FIFO is
    refused without opening it), a SCORE line present, and as many hands as
    the match was to play.  Merge and resume take a finished match's log in
    only when this says None.
    """
    try:
        mode = os.stat(path).st_mode
    except OSError as exc:
        return f"cannot read it: {exc.strerror or exc}"
    if not stat.S_ISREG(mode):
        kind = "a folder" if stat.S_ISDIR(mode) else "a FIFO" if stat.S_ISFIFO(mode) else "not a regular file"
        return f"it is {kind}, not a log file"
    try:
        summary = check_log(path, game)
    except LogCheckError as exc:
        return f"logcheck: {exc}"
    except (OSError, ValueError) as exc:  # unreadable; not UTF-8
        return f"cannot read it: {clip(str(exc))}"
    if not summary.score_checked:
        return f"cut short: {summary.hands} whole hands and no SCORE line"
    if hands is not None and summary.hands != hands:
        return f"it holds {summary.hands} hands, the match was to play {hands}"
    return None


def _short(text: str) -> str:
    # values and names as written when short, a cut quotation of them otherwise
    return text if len(text) <= 80 else clip(text)


def _check_score(number: int, score: tuple[list[str], list[str]], summary: LogSummary) -> None:
    values, names = score
    if set(names) != set(summary.totals) or len(names) != len(summary.totals):
        raise LogCheckError(number, f"SCORE names {_short('|'.join(names))} differ from the hands' players")
    expected = [format_value(summary.totals[n]) for n in names]
    if expected != values:
        raise LogCheckError(number, f"SCORE {_short('|'.join(values))} but the hands sum to {'|'.join(expected)}")
    summary.score_checked = True


def main(argv: list[str] | None = None) -> int:
    """Command line entry point."""
    parser = argparse.ArgumentParser(prog="python -m acpcbot.logcheck", description=__doc__.split("\n\n")[0])
    parser.add_argument("logs", nargs="+", metavar="FILE", help="ACPC .log files to check")
    parser.add_argument("--game", help="game name or .game path (default: the one the header names)")
    parser.add_argument("--no-deal-check", action="store_true",
                        help="skip checking the cards against the seed in the header (a log another dealer dealt)")
    args = parser.parse_args(argv)
    game = None
    if args.game:
        try:
            game = load_game(args.game)
        except GameDefError as exc:
            print(f"error: {exc}", file=sys.stderr)
            return 2
    status = 0
    for path in args.logs:
        try:
            summary = check_log(path, game)
            dealt = "" if args.no_deal_check or summary.hands == 0 else ", cards dealt from the seed in the header"
            if dealt:
                check_deals(path, game)
        except OSError as exc:
            print(f"{path}: cannot read: {exc}", file=sys.stderr)
            status = 1
            continue
        except LogCheckError as exc:
            print(f"{path}: BAD: {exc}", file=sys.stderr)
            status = 1
            continue
        score = "SCORE matches" if summary.score_checked else "no SCORE line (match not finished)"
        print(f"{path}: OK: {summary.hands} hands, {score}{dealt}")
        for name, total in summary.totals.items():
            print(f"  {name:<20} {format_value(total):>14}  {summary.mbb_per_hand(name):+12.2f} mbb/hand")
    return status


if __name__ == "__main__":
    try:
        sys.exit(main())
    except BrokenPipeError:
        # the reader went away (| head): stop quietly, as text tools do
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        sys.exit(1)
