"""PHH hand histories: ACPC match logs exported to the poker hand history format.

``python -m acpcbot.phh LOG [LOG...] --out DIR [--phhs] [--game G]`` writes
every hand of each log as PHH, the TOML-based format of the pokerkit
project (phh-std, specification version 0.0.1): one ``DIR/<log>/<hand>.phh``
per hand, or with ``--phhs`` one ``DIR/<log>.phhs`` holding ``[1]``, ``[2]``...
tables.  Logs of the reference dealer and of ours read alike.

What the export writes, and why:

- Only Texas hold'em games export (52 cards, 2 hole cards, boards 0 3 1 1):
  limit as ``FT`` (its raise sizes must be small, small, big, big),
  no-limit as ``NT``.  Kuhn, Leduc and other decks have no PHH variant, so
  they are refused with a message naming the game rather than written under
  an invented code that no PHH reader knows.
- Player order: PHH lists players from the one who acts first after the
  flop (the small blind, or heads-up the big blind) round to the button.
  In the shipped games that is ACPC position order.  Heads-up,
  ``blinds_or_straddles`` is written reversed ([small, big]) because PHH
  reverses it back ("reverse-assigned for heads-up"), so p1 posts the big
  blind as ACPC position 0 does.
- ``cbr N``: N is what the player has put in on this street after the bet
  (blinds count on the first street), whereas ACPC's ``rN`` is the total for
  the whole hand; the engine's steps (the state before each action) give the difference.
- Showdowns: every player still in shows (``sm``), the last to bet or raise
  on the final betting street first, else the street's first player, then
  round the table.  After an all-in the cards are shown before the rest of
  the board is dealt, as the specification's examples do.
- ``starting_stacks`` are the game's stacks (2147483647 in ACPC limit games,
  whose stacks are that large); ``finishing_stacks`` add the engine's
  payoffs, fractional where the reference splits an odd chip.
- ``hand`` is the ACPC hand number (from 0), ``event`` the match name,
  ``seats`` each player's seat (1-based, from the SCORE line) when known.
"""

from __future__ import annotations

import argparse
import json
import os
import secrets
import shutil
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Sequence

from .atomic import atomic_write
from .cards import cards_to_text
from .engine import ActionType, State
from .gamedef import GameDef, GameDefError, load_game
from .matchlog import Header, LoggedHand, LogLineError, format_value, read_entries

PHH_SPEC_VERSION = "0.0.1"
EXIT_BAD_INPUT = 2



class PhhError(ValueError):
    """A log, game or output folder that cannot be exported to PHH; the message names the file and line."""


@dataclass(frozen=True)
class Layout:
    """How a game's hands are written: the variant's fixed lines and the player order."""

    variant: str
    #: ACPC position of each PHH player: p1 is ``order[0]``
    order: tuple[int, ...]
    #: the required lines that are the same for every hand of the game
    game_lines: tuple[str, ...]
    #: PHH index (0-based) of the player who opens the first street
    preflop_opener: int

    def index_of(self, position: int) -> int:
        """The 0-based PHH index of an ACPC position."""
        return self.order.index(position)


def game_layout(game: GameDef) -> Layout:
    """The PHH layout of a Texas hold'em game; PhhError naming the game for any other."""
    name = game.name or "the game"
    n = game.num_players
    if not game.is_holdem:
        raise PhhError(f"game {name} is not Texas hold'em ({game.num_suits} suits, {game.num_ranks} ranks, "
                       f"{game.num_hole_cards} hole cards, boards {' '.join(map(str, game.num_board_cards))}): "
                       f"PHH defines no variant for it; only hold'em (52 cards, 2 hole cards, boards 0 3 1 1) "
                       f"exports, as FT or NT")
    if len(set(game.first_player[1:])) != 1:
        raise PhhError(f"game {name}: the first player differs between the flop, turn and river; "
                       f"PHH's button games start every street after the first from the same seat")
    first = game.first_player[1]
    order = tuple((first + i) % n for i in range(n))
    blinds = [game.blind[p] for p in order]
    # PHH opens the first street after the largest forced bet (ties: the later player)
    biggest = max(range(n), key=lambda i: (blinds[i], i))
    opener = (biggest + 1) % n
    if order[opener] != game.first_player[0]:
        raise PhhError(f"game {name}: position {game.first_player[0]} acts first before the flop, but PHH "
                       f"would start with position {order[opener]}, the one after the big blind")
    written = blinds[::-1] if n == 2 else blinds  # heads-up PHH reverses the array back
    lines = [f"antes = {_array([0] * n)}", f"blinds_or_straddles = {_array(written)}"]
    if game.is_limit:
        small, big = game.raise_size[0], game.raise_size[2]
        if game.raise_size[1] != small or game.raise_size[3] != big:
            raise PhhError(f"game {name}: limit raise sizes {' '.join(map(str, game.raise_size))} are not "
                           f"small, small, big, big as PHH's fixed-limit hold'em (FT) has them")
        variant = "FT"
        lines += [f"small_bet = {small}", f"big_bet = {big}"]
    else:
        variant = "NT"
        lines.append(f"min_bet = {max(1, max(game.blind))}")  # the engine's smallest bet after the flop
    lines.append(f"starting_stacks = {_array([game.stack[p] for p in order])}")
    return Layout(variant, order, (f"variant = {_string(variant)}", *lines), opener)


def hand_to_phh(state: State, names: Sequence[str] | None = None, *, event: str | None = None,
                seats: Sequence[int] | None = None, layout: Layout | None = None) -> str:
    """One finished hand as PHH text (TOML key/value lines); names and seats per ACPC position."""
    game = state.game
    if not state.finished:
        raise PhhError(f"hand {state.hand_id} is not finished")
    lay = layout or game_layout(game)
    lines = list(lay.game_lines)
    lines.append("actions = [")
    lines += [f"  {_string(a)}," for a in phh_actions(state, lay)]
    lines.append("]")
    if event is not None:
        lines.append(f"event = {_string(event)}")
    lines.append(f"hand = {state.hand_id}")
    if seats is not None:
        lines.append(f"seats = {_array([seats[p] for p in lay.order])}")
    if names is not None:
        lines.append("players = [" + ", ".join(_string(names[p]) for p in lay.order) + "]")
    payoffs = state.payoffs()
    lines.append(f"finishing_stacks = {_array([game.stack[p] + payoffs[p] for p in lay.order])}")
    return "\n".join(lines) + "\n"


def phh_actions(state: State, layout: Layout) -> list[str]:
    """The ``actions`` of a finished hand: deals, bets with street amounts, showdown, the rest of the board."""
    game = state.game
    n = game.num_players
    k = game.num_hole_cards
    index = {p: i for i, p in enumerate(layout.order)}
    out = [f"d dh p{i + 1} {_cards(state.hole[p], k)}" for i, p in enumerate(layout.order)]
    # the last street anyone acted on; after it either the hand ended or the board runs out
    last = max((r for r, acts in enumerate(state.actions) if acts), default=0)
    street = -1
    street_start: list[int] = []
    for step in state.steps():
        if step.round != street:
            for r in range(street + 1, step.round + 1):
                if r > 0:
                    out.append(_board_deal(state, r))
            street = step.round
            # chips each player had in when the street began: PHH counts bets from there
            # (the engine keeps only the total per hand; blinds belong to the first street)
            street_start = [0] * n if street == 0 else step.before.spent
        who = f"p{index[step.player] + 1}"
        kind = step.action.type
        if kind == ActionType.FOLD:
            out.append(f"{who} f")
        elif kind == ActionType.CALL:
            out.append(f"{who} cc")
        else:
            out.append(f"{who} cbr {step.before.spent[step.player] + step.added - street_start[step.player]}")
    shown = set(state.shown_players())
    if shown:
        opener = _showdown_opener(state, layout, last)
        for j in range(n):
            i = (opener + j) % n
            p = layout.order[i]
            if p in shown:
                out.append(f"p{i + 1} sm {_cards(state.hole[p], k)}")
    for r in range(last + 1, state.round + 1):
        out.append(_board_deal(state, r))
    return out


def _showdown_opener(state: State, layout: Layout, street: int) -> int:
    """PHH index of the first to show: the street's last bettor or raiser, else its first player."""
    raisers = [a for act, a in zip(state.actions[street], state.actors[street]) if act.type == ActionType.RAISE]
    if raisers:
        return layout.index_of(raisers[-1])
    return layout.preflop_opener if street == 0 else 0


def _board_deal(state: State, r: int) -> str:
    nb = state.game.num_board_cards
    start = sum(nb[:r])
    return f"d db {_cards(state.board[start:start + nb[r]], nb[r])}"


def _cards(cards: Sequence[int], count: int) -> str:
    # PHH card text is ACPC's (rank then suit, same letters); unknown cards are '??'
    return cards_to_text(cards) + "??" * (count - len(cards))


def _number(value: float) -> str:
    if float(value).is_integer():
        return str(int(value))
    return format_value(value)  # %.6f without trailing zeros: always has a point, so TOML reads a float


def _array(values: Sequence[float]) -> str:
    return "[" + ", ".join(_number(v) for v in values) + "]"


def _string(text: str) -> str:
    # JSON's escapes are all TOML basic-string escapes; TOML also wants DEL escaped
    return json.dumps(text, ensure_ascii=False).replace("\x7f", "\\u007f")


# ------------------------------------------------------------------ reading logs

@dataclass
class LogHands:
    """A log's finished hands with the line each came from, its header, and seat order when known."""

    hands: list[tuple[int, LoggedHand]]
    header: Header | None
    seat_names: list[str] | None
    game: GameDef | None


def read_hands(path: str | Path, game: GameDef | None = None) -> LogHands:
    """Read and replay every STATE line of a log (``matchlog.read_entries``); PhhError naming ``path:line``."""
    header: Header | None = None
    hands: list[tuple[int, LoggedHand]] = []
    seen: dict[int, int] = {}
    seat_names: list[str] | None = None
    try:
        entries = read_entries(path, game)
        for entry in entries:
            header = entry.header
            if entry.kind == "other":
                raise PhhError(f"{path}:{entry.number}: neither a comment, a STATE nor a SCORE line: "
                               f"{entry.line.rstrip()[:80]!r}")
            if entry.kind == "score":
                assert entry.score is not None
                seat_names = entry.score[1]
            elif entry.kind == "state":
                assert entry.hand is not None
                game = entry.hand.state.game
                _check_hand(entry.hand, f"{path}:{entry.number}", seen, entry.number)
                hands.append((entry.number, entry.hand))
    except LogLineError as exc:
        where = f"{path}:{exc.number}" if exc.number else f"{path}"
        raise PhhError(f"{where}: {exc.reason}" + ("; pass --game" if exc.needs_game else "")) from None
    except OSError as exc:
        raise PhhError(f"{path}: cannot read: {exc.strerror or exc}") from None
    return LogHands(hands, header, seat_names, game)


def _check_hand(hand: LoggedHand, where: str, seen: dict[int, int], number: int) -> None:
    state = hand.state
    if not state.finished:
        raise PhhError(f"{where}: hand {hand.hand_id}: the betting stops before the hand is over")
    if hand.hand_id in seen:
        raise PhhError(f"{where}: hand {hand.hand_id}: hand number already used on line {seen[hand.hand_id]}")
    seen[hand.hand_id] = number
    try:
        expected = [format_value(v) for v in state.payoffs()]
    except ValueError as exc:  # a showdown whose cards are not all in the log
        raise PhhError(f"{where}: hand {hand.hand_id}: {exc}") from None
    if expected != hand.values_text:
        raise PhhError(f"{where}: hand {hand.hand_id}: logged values {'|'.join(hand.values_text)} "
                       f"but the rules give {'|'.join(expected)}")


def log_to_phh(path: str | Path, game: GameDef | None = None) -> list[tuple[int, str]]:
    """Every hand of a log as (hand number, PHH text), in log order."""
    log = read_hands(path, game)
    if not log.hands:
        return []
    assert log.game is not None
    try:
        layout = game_layout(log.game)
    except PhhError as exc:
        raise PhhError(f"{path}:{log.hands[0][0]}: {exc}") from None
    event = log.header.match_name if log.header else None
    out = []
    for number, hand in log.hands:
        seats = None
        if log.seat_names is not None and sorted(log.seat_names) == sorted(hand.names):
            seats = [log.seat_names.index(name) + 1 for name in hand.names]
        try:
            out.append((hand.hand_id, hand_to_phh(hand.state, hand.names, event=event, seats=seats, layout=layout)))
        except PhhError as exc:
            raise PhhError(f"{path}:{number}: {exc}") from None
    return out


def phhs_text(texts: Sequence[str]) -> str:
    """Several hands as one ``.phhs`` file: tables ``[1]``, ``[2]``... in order."""
    return "\n".join(f"[{i}]\n{text}" for i, text in enumerate(texts, start=1))


def export_log(path: str | Path, out_dir: str | Path, *, single_file: bool = False,
               game: GameDef | None = None) -> list[Path]:
    """Write a log's hands under ``out_dir`` (``<log>/<hand>.phh``, or ``<log>.phhs``); return the files written.

    Every file is written whole or not at all (a full disk leaves no torn
    file), and a new folder appears whole, by one rename.  What is already
    there must be hands of the same match: a folder or .phhs holding other
    hands (another log of the same name, ``match.log`` of another run) is
    refused, never mixed with these.
    """
    hands = log_to_phh(path, game)
    stem = Path(path).stem
    out = Path(out_dir)
    try:
        if single_file:
            target = out / f"{stem}.phhs"
            text = phhs_text([text for _, text in hands])
            if target.exists() or target.is_symlink():
                if not target.is_file() or target.read_text(encoding="utf-8", errors="replace") != text:
                    raise PhhError(_mixing(target, path))
                return [target]  # the same hands again: nothing to write
            out.mkdir(parents=True, exist_ok=True)
            with atomic_write(target) as fh:
                fh.write(text)
            return [target]
        folder = out / stem
        files = {f"{hand_id}.phh": text for hand_id, text in hands}
        if folder.exists() or folder.is_symlink():
            return _add_to_folder(folder, files, path)
        out.mkdir(parents=True, exist_ok=True)
        tmp = out / f".{stem}.{os.getpid()}.{secrets.token_hex(4)}.tmp"  # a plain mkdir's permissions
        tmp.mkdir()
        try:
            for name, text in files.items():
                (tmp / name).write_text(text, encoding="utf-8")
            os.rename(tmp, folder)
        except BaseException:
            shutil.rmtree(tmp, ignore_errors=True)
            raise
        return [folder / name for name in files]
    except OSError as exc:
        raise PhhError(f"{out}: cannot write: {exc.strerror or exc} (nothing torn is left)") from None


def _mixing(target: Path, log: str | Path) -> str:
    return (f"{target} holds hands of another match than {log} (another log of that name?); exporting would mix "
            f"two matches: remove it or choose another --out")


def _add_to_folder(folder: Path, files: dict[str, str], log: str | Path) -> list[Path]:
    """Write into an existing export folder the hands it lacks, when every hand it holds is one of ``files``."""
    if not folder.is_dir() or folder.is_symlink():
        raise PhhError(f"{folder} exists and is not a folder of hands; not writing there")
    for entry in folder.iterdir():
        if entry.name not in files or not entry.is_file() or \
                entry.read_text(encoding="utf-8", errors="replace") != files[entry.name]:
            raise PhhError(_mixing(folder, log))
    for name, text in files.items():
        if not (folder / name).exists():
            with atomic_write(folder / name) as fh:
                fh.write(text)
    return [folder / name for name in files]


def main(argv: Sequence[str] | None = None) -> int:
    """Command line entry point; 0 when every log was exported, 2 on bad input."""
    parser = argparse.ArgumentParser(prog="python -m acpcbot.phh",
                                     description="Export ACPC match logs to PHH hand histories "
                                                 f"(phh-std {PHH_SPEC_VERSION}).")
    parser.add_argument("logs", nargs="+", metavar="LOG", help="ACPC .log files (ours or the reference dealer's)")
    parser.add_argument("--out", required=True, metavar="DIR",
                        help="output folder: DIR/<log>/<hand>.phh, or DIR/<log>.phhs with --phhs")
    parser.add_argument("--phhs", action="store_true", help="one .phhs file per log instead of one .phh per hand")
    parser.add_argument("--game", metavar="G", help="game name or .game path (default: the one the header names)")
    args = parser.parse_args(argv)
    prog = parser.prog
    game = None
    if args.game:
        try:
            game = load_game(args.game)
        except GameDefError as exc:
            print(f"{prog}: error: --game: {exc}", file=sys.stderr)
            return EXIT_BAD_INPUT
    stems: dict[str, str] = {}
    for path in args.logs:
        other = stems.setdefault(Path(path).stem, path)
        if other != path:
            print(f"{prog}: error: {path} and {other} would both be written as {Path(path).stem}", file=sys.stderr)
            return EXIT_BAD_INPUT
    for path in args.logs:
        try:
            files = export_log(path, args.out, single_file=args.phhs, game=game)
        except PhhError as exc:
            print(f"{prog}: error: {exc}", file=sys.stderr)
            return EXIT_BAD_INPUT
        if args.phhs:
            print(f"{path}: -> {files[0]}")
        else:
            print(f"{path}: {len(files)} hands -> {Path(args.out) / Path(path).stem}{os.sep}")
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except BrokenPipeError:
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        sys.exit(1)
