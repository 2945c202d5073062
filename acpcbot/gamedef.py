"""Game definitions: the ACPC ``.game`` file format, parsed and validated like the reference.

A GameDef is the fixed description of a game (players, rounds, blinds,
stacks, betting type, deck, and the showdown ranking, poker's unless
another is plugged in); the rules of one hand live in ``engine.py``.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Callable, Sequence

from .evaluator.ranking import default_ranking

INT32_MAX = 2**31 - 1
INT32_MIN = -2**31
UINT32_MAX = 2**32 - 1
UNLIMITED_RAISES = 255  # the reference stores maxRaises in a uint8 and defaults to its maximum

MAX_PLAYERS = 10
MAX_ROUNDS = 4
MAX_SUITS = 4
MAX_RANKS = 13
MAX_HOLE_CARDS = 3
MAX_BOARD_CARDS = 7

LIMIT = "limit"
NOLIMIT = "nolimit"


class GameDefError(ValueError):
    """A game definition that cannot be parsed or is not a valid game."""


# ------------------------------------------------- numbers and text from untrusted input

_INT_TEXT = re.compile(r"([+-]?)0*([0-9]+)\Z")


def bounded_int(text: str, low: int, high: int) -> int | None:
    """The value of an ASCII integer text (``[+-]digits``) clamped into ``low..high``; None when it is not one.

    Only numbers short enough to matter are converted, so a text of any
    length is safe: Python refuses to convert more than 4,300 digits, and a
    5,000-digit number from a file or a socket must be an error, not a crash.
    Give ``high = limit + 1`` to tell "too large" from the largest value.
    """
    if len(text) <= 9 and text.isdigit() and text.isascii():
        return min(max(int(text), low), high)  # the usual field: a few ASCII digits (the same value as below)
    m = _INT_TEXT.match(text)
    if m is None:
        return None
    sign, digits = m.groups()
    if len(digits) > len(str(max(abs(low), abs(high)))):
        return low if sign == "-" else high
    return min(max(int(sign + digits), low), high)


def clip(text: str, limit: int = 80) -> str:
    """``repr`` of at most ``limit`` characters of ``text``, saying how long it was when cut (error messages)."""
    if len(text) <= limit:
        return repr(text)
    return f"{text[:limit]!r}... ({len(text)} characters)"


@dataclass(frozen=True)
class GameDef:
    """The fixed description of an ACPC game; per-player and per-round values are tuples."""

    betting: str
    num_players: int
    num_rounds: int
    stack: tuple[int, ...]
    blind: tuple[int, ...]
    raise_size: tuple[int, ...]
    first_player: tuple[int, ...]  # 0-based position acting first, per round
    max_raises: tuple[int, ...]
    num_suits: int
    num_ranks: int
    num_hole_cards: int
    num_board_cards: tuple[int, ...]
    name: str = field(default="", compare=False)
    #: the showdown ranking (cards -> value, higher is better); None: poker's, chosen by :attr:`ranking_for_showdown`
    ranking: Callable[[Sequence[int]], int] | None = field(default=None, compare=False, repr=False)

    @property
    def ranking_for_showdown(self) -> Callable[[Sequence[int]], int]:
        """The ranking a showdown uses: the one given, else poker's for this game's hand size (no tables below five cards)."""
        if self.ranking is not None:
            return self.ranking
        return default_ranking(self.num_hole_cards + self.total_board_cards)

    @property
    def is_limit(self) -> bool:
        """Whether raises have a fixed size (limit betting)."""
        return self.betting == LIMIT

    @property
    def is_nolimit(self) -> bool:
        """Whether raises carry a size (no-limit betting)."""
        return self.betting == NOLIMIT

    @property
    def big_blind(self) -> int:
        """The unit of mbb/hand: the largest blind, else the smallest raise size, else 1."""
        if max(self.blind) > 0:
            return max(self.blind)
        sizes = [s for s in self.raise_size if s > 0]
        return min(sizes) if sizes else 1

    @property
    def total_board_cards(self) -> int:
        """Board cards dealt over the whole hand."""
        return sum(self.num_board_cards)

    def board_cards_through(self, round_: int) -> int:
        """Board cards visible once round ``round_`` (0-based) has started."""
        return sum(self.num_board_cards[:round_ + 1])

    @property
    def deals_holdem_cards(self) -> bool:
        """Whether the cards are Texas hold'em's: two hole cards each from 52, five board cards over the hand."""
        return (self.num_hole_cards, self.num_ranks, self.num_suits, self.total_board_cards) == (2, 13, 4, 5)

    @property
    def has_holdem_streets(self) -> bool:
        """Whether the rounds are hold'em's streets: four, with boards of 0, 3, 1 and 1 cards (preflop .. river)."""
        return self.num_rounds == 4 and tuple(self.num_board_cards) == (0, 3, 1, 1)

    @property
    def is_holdem(self) -> bool:
        """Texas hold'em of any betting and size: its cards and its four streets."""
        return self.deals_holdem_cards and self.has_holdem_streets

    @property
    def deck_size(self) -> int:
        """Cards in the deck."""
        return self.num_suits * self.num_ranks

    def to_text(self) -> str:
        """The game as ``.game`` text that parses back to an equal GameDef."""
        def items(values: tuple[int, ...]) -> str:
            return " ".join(str(v) for v in values)

        lines = ["GAMEDEF", self.betting,
                 f"numPlayers = {self.num_players}", f"numRounds = {self.num_rounds}"]
        if any(s != INT32_MAX for s in self.stack):
            lines.append(f"stack = {items(self.stack)}")
        lines.append(f"blind = {items(self.blind)}")
        if self.is_limit or any(self.raise_size):
            lines.append(f"raiseSize = {items(self.raise_size)}")
        lines.append(f"firstPlayer = {items(tuple(p + 1 for p in self.first_player))}")
        if any(m != UNLIMITED_RAISES for m in self.max_raises):
            lines.append(f"maxRaises = {items(self.max_raises)}")
        lines += [f"numSuits = {self.num_suits}", f"numRanks = {self.num_ranks}",
                  f"numHoleCards = {self.num_hole_cards}",
                  f"numBoardCards = {items(self.num_board_cards)}", "END GAMEDEF"]
        return "\n".join(lines) + "\n"


# Keys in the reference parser's order, matched case-insensitively as a prefix
# of the line; "end gamedef" must be tried before "gamedef".
_KEYS = ("end gamedef", "gamedef", "stack", "blind", "raisesize", "limit", "nolimit",
         "numplayers", "numrounds", "firstplayer", "maxraises", "numsuits", "numranks",
         "numholecards", "numboardcards")
_LIST_LIMIT = {"stack": MAX_PLAYERS, "blind": MAX_PLAYERS, "raisesize": MAX_ROUNDS,
               "firstplayer": MAX_ROUNDS, "maxraises": MAX_ROUNDS, "numboardcards": MAX_ROUNDS}
_SCALARS = ("numplayers", "numrounds", "numsuits", "numranks", "numholecards")
# the reference reads these keys into 32-bit signed integers (SCNd32), the others into bytes (SCNu8)
_INT32_KEYS = ("stack", "blind", "raisesize")
_DISPLAY = {"stack": "stack", "blind": "blind", "raisesize": "raiseSize", "numplayers": "numPlayers",
            "numrounds": "numRounds", "firstplayer": "firstPlayer", "maxraises": "maxRaises",
            "numsuits": "numSuits", "numranks": "numRanks", "numholecards": "numHoleCards",
            "numboardcards": "numBoardCards"}


def _parse_values(rest: str, key: str, where: str) -> list[int]:
    rest = rest.strip()
    if rest.startswith("="):
        rest = rest[1:]
    words = rest.split()
    if not words:
        raise GameDefError(f"{where}: {_DISPLAY[key]} has no value")
    if key in _INT32_KEYS:
        low, high, field_range, field = INT32_MIN, INT32_MAX, f"{INT32_MIN}..{INT32_MAX}", "a 32-bit integer"
    else:
        # small numbers go on to each key's own check below; longer ones cannot fit the byte at all
        low, high, field_range, field = -999, 999, "0..255", "a byte"
    values = []
    for word in words:
        value = bounded_int(word, low - 1, high + 1)
        if value is None:
            raise GameDefError(f"{where}: {_DISPLAY[key]} expects whole numbers, got {clip(rest.strip())}")
        if not low <= value <= high:
            # the reference would wrap it into its field (a stack of 3e9 becomes negative there and is refused)
            raise GameDefError(f"{where}: {_DISPLAY[key]} value {clip(word, 40)} is out of range {field_range} "
                               f"(the reference reads it into {field})")
        values.append(value)
    limit = 1 if key in _SCALARS else _LIST_LIMIT[key]
    # the reference reads at most this many items and ignores the rest
    return values[:limit]


def parse_game(text: str, name: str = "<string>") -> GameDef:
    """Parse ``.game`` text; errors name the source, the line and the key."""
    values: dict[str, list[int]] = {}
    line_of: dict[str, int] = {}
    betting = LIMIT
    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        lower = line.lower()
        key = next((k for k in _KEYS if lower.startswith(k)), None)
        at = f"{name}, line {number}"
        if key is None:
            raise GameDefError(f"{at}: unknown key in {clip(line)}")
        if key == "end gamedef":
            break
        if key == "gamedef":
            continue
        if key in (LIMIT, NOLIMIT):
            betting = key
            continue
        values[key] = _parse_values(line[len(key):], key, at)
        line_of[key] = number

    def where(key: str) -> str:
        if key in line_of:
            return f"{name}, line {line_of[key]} ({_DISPLAY[key]})"
        return f"{name} ({_DISPLAY[key]} not given)"

    def scalar(key: str) -> int:
        return values[key][0] if key in values else 0

    num_rounds = scalar("numrounds")
    if not 1 <= num_rounds <= MAX_ROUNDS:
        raise GameDefError(f"{where('numrounds')}: invalid number of rounds {num_rounds}, need 1..{MAX_ROUNDS}")
    num_players = scalar("numplayers")
    if not 2 <= num_players <= MAX_PLAYERS:
        raise GameDefError(f"{where('numplayers')}: invalid number of players {num_players}, need 2..{MAX_PLAYERS}")

    def listed(key: str, default: int | None, count: int, each: str) -> tuple[int, ...]:
        # extra values are ignored, as the reference does
        got = values.get(key)
        if got is None and default is not None:
            return (default,) * count
        got = got or []
        if len(got) < count:
            raise GameDefError(f"{where(key)}: only {len(got)} values, need {count} (one per {each})")
        return tuple(got[:count])

    def per_player(key: str, default: int | None) -> tuple[int, ...]:
        return listed(key, default, num_players, "player")

    def per_round(key: str, default: int | None) -> tuple[int, ...]:
        return listed(key, default, num_rounds, "round")

    stack = per_player("stack", INT32_MAX)
    blind = per_player("blind", None)
    for p in range(num_players):
        if stack[p] < 1:
            raise GameDefError(f"{where('stack')}: stack of player {p + 1} must be positive, got {stack[p]}")
        if blind[p] < 0:
            raise GameDefError(f"{where('blind')}: blind of player {p + 1} must not be negative, got {blind[p]}")
        if blind[p] > stack[p]:
            raise GameDefError(f"{where('blind')}: blind for player {p + 1} is greater than stack size")
    if betting == LIMIT:
        raise_size = per_round("raisesize", None)
        for r, size in enumerate(raise_size):
            if size < 1:
                raise GameDefError(f"{where('raisesize')}: raise size of round {r + 1} must be positive, got {size}")
    else:
        raise_size = per_round("raisesize", 0) if "raisesize" in values else (0,) * num_rounds
    first_player = per_round("firstplayer", 1)
    for r, fp in enumerate(first_player):
        if not 1 <= fp <= num_players:
            raise GameDefError(f"{where('firstplayer')}: invalid first player {fp} on round {r + 1}, need 1..{num_players}")
    max_raises = per_round("maxraises", UNLIMITED_RAISES)
    for r, m in enumerate(max_raises):
        if not 0 <= m <= UNLIMITED_RAISES:
            raise GameDefError(f"{where('maxraises')}: maxRaises of round {r + 1} must be 0..255, got {m}")
    num_suits = scalar("numsuits")
    if not 1 <= num_suits <= MAX_SUITS:
        raise GameDefError(f"{where('numsuits')}: invalid number of suits {num_suits}, need 1..{MAX_SUITS}")
    num_ranks = scalar("numranks")
    if not 1 <= num_ranks <= MAX_RANKS:
        raise GameDefError(f"{where('numranks')}: invalid number of ranks {num_ranks}, need 1..{MAX_RANKS}")
    num_hole = scalar("numholecards")
    if not 1 <= num_hole <= MAX_HOLE_CARDS:
        raise GameDefError(f"{where('numholecards')}: invalid number of hole cards {num_hole}, need 1..{MAX_HOLE_CARDS}")
    board = per_round("numboardcards", None)
    if any(b < 0 for b in board) or sum(board) > MAX_BOARD_CARDS:
        raise GameDefError(f"{where('numboardcards')}: board cards {list(board)} must be >= 0 and total at most {MAX_BOARD_CARDS}")
    if num_hole * num_players + sum(board) > num_suits * num_ranks:
        raise GameDefError(f"{name}: too many hole and board cards ({num_hole * num_players + sum(board)}) "
                           f"for a deck of {num_suits * num_ranks}")
    return GameDef(betting=betting, num_players=num_players, num_rounds=num_rounds, stack=stack,
                   blind=blind, raise_size=raise_size, first_player=tuple(f - 1 for f in first_player),
                   max_raises=max_raises, num_suits=num_suits, num_ranks=num_ranks,
                   num_hole_cards=num_hole, num_board_cards=board, name=name)


def _shipped_games() -> tuple[str, ...]:
    """The short names of the games in ``acpcbot/games/`` (each ``NAME.game``), the default game first, then by name."""
    names = sorted(entry.name[:-len(".game")] for entry in resources.files("acpcbot").joinpath("games").iterdir()
                   if entry.name.endswith(".game"))
    return tuple(sorted(names, key=lambda name: name != DEFAULT_GAME))


#: the game a player or match plays when none is named
DEFAULT_GAME = "hunl"
#: the games shipped in ``acpcbot/games/``: a ``.game`` file dropped there is one more, by its file name
SHIPPED_GAMES = _shipped_games()

# The official distribution's file names, so logs that name them (often with
# a path from another machine) can be checked without the file at hand.
OFFICIAL_NAMES = {"holdem.nolimit.2p.reverse_blinds.game": "hunl",
                  "holdem.limit.2p.reverse_blinds.game": "hulhe",
                  "holdem.limit.3p.game": "3pl",
                  "holdem.nolimit.3p.game": "3pnl",
                  "kuhn.limit.3p.game": "kuhn3p"}


def _is_file(path: Path) -> bool:
    # a name from a log header or a recipe may be no possible path at all (too long, a NUL byte)
    try:
        return path.is_file()
    except (OSError, ValueError):
        return False


def load_game(name_or_path: str | os.PathLike[str]) -> GameDef:
    """Load a game by short name (``hunl``, ``kuhn3p``...), from a ``.game`` file path, or by an official file name."""
    text_name = os.fspath(name_or_path)
    path = Path(text_name)
    is_file = _is_file(path)
    if not is_file and path.name in OFFICIAL_NAMES:
        text_name = OFFICIAL_NAMES[path.name]
    if text_name in SHIPPED_GAMES:
        text = resources.files("acpcbot").joinpath("games", f"{text_name}.game").read_text()
        return parse_game(text, text_name)
    if not is_file:
        raise GameDefError(f"no game named {clip(text_name)}: not a file and not one of {', '.join(SHIPPED_GAMES)}")
    try:
        text = path.read_text()
    except (OSError, UnicodeDecodeError) as exc:
        raise GameDefError(f"cannot read game file {clip(text_name)}: {exc}") from None
    return parse_game(text, text_name)
