"""What fixes a match before it starts: the command line's settings, and the per-seat clock its time limits charge."""

from __future__ import annotations

from dataclasses import dataclass

from acpcbot.engine import position_of, seat_of
from acpcbot.gamedef import GameDef
from acpcbot.matchlog import format_header

#: a clock out of anyone's reach (a week per answer, per hand and per hand on average, in milliseconds): a match
#: whose seats are not to be timed by the dealer (a person; LBR, the measuring instrument)
NO_CLOCK_MS = 7 * 24 * 3600 * 1000
#: the dealer's command-line flags of such a match
NO_CLOCK_FLAGS = ("--t_response", str(NO_CLOCK_MS), "--t_hand", str(NO_CLOCK_MS), "--t_per_hand", str(NO_CLOCK_MS))


@dataclass
class MatchConfig:
    """What the command line fixes about a match (times in milliseconds, as the reference takes them)."""

    match_name: str
    game: GameDef
    game_arg: str  # the game as given on the command line; the log header repeats it
    num_hands: int
    seed: int
    names: list[str]
    fixed_seats: bool = False
    quiet: bool = False
    strict: bool = False
    t_response: int = 600000
    t_hand: int = 600000
    t_per_hand: int = 7000
    start_timeout: int = -1  # < 0: wait for connections forever
    spin_us: int = 200  # how long a read looks for a fast player's reply before it sleeps (0: never)

    def seat_of(self, hand_id: int, position: int) -> int:
        """The seat playing ``position`` in hand ``hand_id`` (the engine's rotation, or fixed seats)."""
        return seat_of(position, hand_id, self.game.num_players, self.fixed_seats)

    def position_of(self, hand_id: int, seat: int) -> int:
        """The position ``seat`` plays in hand ``hand_id``."""
        return position_of(seat, hand_id, self.game.num_players, self.fixed_seats)

    def header_lines(self) -> list[str]:
        """The reference's four header lines."""
        return format_header(self.match_name, self.game_arg, self.num_hands, self.seed,
                             self.t_response, self.t_hand, self.t_per_hand)


class SeatClock:
    """Time used per seat, charged and checked as the reference's ``checkErrorTimes`` does (microseconds)."""

    LIMITS = ("t_response", "t_hand", "t_per_hand")

    def __init__(self, num_seats: int, t_response_ms: int, t_hand_ms: int, t_per_hand_ms: int, num_hands: int) -> None:
        self.max_response = t_response_ms * 1000
        self.max_hand = t_hand_ms * 1000
        self.max_match = t_per_hand_ms * 1000 * num_hands  # the average is checked as a total
        self.used_hand = [0] * num_seats
        self.used_match = [0] * num_seats

    def new_hand(self) -> None:
        """Start a hand: the per-hand usage goes back to zero."""
        self.used_hand = [0] * len(self.used_hand)

    def charge(self, seat: int, send_us: int, recv_us: int) -> str | None:
        """Charge one line received; return the limit it breaks, if any.

        Every non-comment line is charged from the request's send time, also
        lines that are then ignored, as in the reference.  A clock that went
        backwards charges nothing.
        """
        if recv_us < send_us:
            return None
        response = recv_us - send_us
        self.used_hand[seat] += response
        self.used_match[seat] += response
        if response > self.max_response:
            return "t_response"
        if self.used_hand[seat] > self.max_hand:
            return "t_hand"
        if self.used_match[seat] > self.max_match:
            return "t_per_hand"
        return None

    def allowance(self, seat: int) -> tuple[int, str]:
        """How long after its request a line from ``seat`` may still arrive, and which limit sets that."""
        best, name = self.max_response, "t_response"
        left = self.max_hand - self.used_hand[seat]
        if left < best:
            best, name = left, "t_hand"
        left = self.max_match - self.used_match[seat]
        if left < best:
            best, name = left, "t_per_hand"
        return best, name
