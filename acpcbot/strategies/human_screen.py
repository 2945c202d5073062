"""What the human player reads: the table in poker terms, not ACPC's (names, blinds and button, chips per street).

ACPC states give raise-to totals for the whole hand and positions by
number; a person thinks in names, blinds, the button and the chips put in
*this* street ("bets 20" on the river, not "raise to 90").  Everything here
is a pure function of a :class:`~acpcbot.world.View` and the seat names, so
the screen can be tested line by line.
"""

from __future__ import annotations

from typing import Sequence

from ..cards import cards_to_text
from ..engine import ActionType
from ..gamedef import GameDef
from ..world import MatchInfo, View

_F, _C, _R = ActionType.FOLD, ActionType.CALL, ActionType.RAISE
HOLDEM_STREETS = ("Preflop", "Flop", "Turn", "River")


def cards(cs: Sequence[int]) -> str:
    """Cards as ``Kh Kd``."""
    text = cards_to_text(cs)
    return " ".join(text[i:i + 2] for i in range(0, len(text), 2)) or "-"


def street_name(game: GameDef, round_: int) -> str:
    """Preflop/Flop/Turn/River in hold'em-shaped games, else ``Round N``."""
    if game.has_holdem_streets:
        return HOLDEM_STREETS[round_]
    return f"Round {round_ + 1}"


def names_by_position(view: View, info: MatchInfo | None) -> list[str]:
    """Who sits at each position of this hand: ``you`` for this seat, the others by name when known.

    The seat of a position follows the dealer's rotation (``View.seat``);
    ``MatchInfo.opponents`` lists the others in seat order.
    """
    n = view.num_players
    others = list(info.opponents) if info is not None else []
    names = []
    for p in range(n):
        if p == view.position:
            names.append("you")
            continue
        if len(others) == n - 1:
            by_seat = others[:view.seat] + ["you"] + others[view.seat:]
            names.append(by_seat[view.state.seat_of(p)])
        else:
            names.append(f"player at position {p + 1}")
    return names


def button(game: GameDef) -> int | None:
    """The button's position: the one acting just before the first to act after the first round (None in one-round games)."""
    if game.num_rounds < 2:
        return None
    return (game.first_player[1] - 1) % game.num_players


def roles(game: GameDef, position: int) -> list[str]:
    """What a position posts and whether it has the button: ``["small blind 50", "button"]``."""
    out = []
    blinds = sorted({b for b in game.blind if b > 0})
    b = game.blind[position]
    if b > 0:
        if len(blinds) == 1:
            out.append(f"ante {b}" if all(x == b for x in game.blind) else f"blind {b}")
        else:
            out.append(("small blind" if b == blinds[0] else "big blind") + f" {b}")
    if button(game) == position:
        out.append("button")
    return out


def street_in(view: View, position: int, round_: int | None = None) -> int:
    """Chips ``position`` has put in during one street (default: the current one), blinds counted in the first."""
    r = view.round if round_ is None else round_
    total = view.game.blind[position] if r == 0 else 0
    return total + sum(a.added for a in view.actions if a.round == r and a.player == position)


def describe_action(view: View, index: int, names: Sequence[str]) -> str:
    """Action ``index`` of the hand in poker terms: ``bot raises to 300``, ``you bet 20``, ``bot calls 200``."""
    a = view.actions[index]
    who = names[a.player]
    you = who == "you"
    if a.type == _F:
        return f"{who} fold" + ("" if you else "s")
    before = [x for x in view.actions[:index] if x.round == a.round]
    if a.type == _C:
        if a.added == 0:
            return f"{who} check" + ("" if you else "s")
        return f"{who} call" + ("" if you else "s") + f" {a.added}"
    put_before = (view.game.blind[a.player] if a.round == 0 else 0) + sum(x.added for x in before
                                                                           if x.player == a.player)
    now = put_before + a.added
    facing_bet = a.round == 0 or any(x.type == _R for x in before)
    verb = ("raise" if facing_bet else "bet") + ("" if you else "s")
    return f"{who} {verb} {'to ' if facing_bet else ''}{now}"


def hand_header(view: View, names: Sequence[str], game: GameDef) -> str:
    """The first lines of a hand: who posts what, who has the button, your cards and the stacks."""
    parts = []
    for p, name in enumerate(names):
        r = roles(game, p)
        if r:
            verb = "are" if name == "you" else "is"
            parts.append(f"{name} {verb} {' and '.join(r)}")
    head = f"=== Hand {view.hand_id + 1}: " + "; ".join(parts) if parts else f"=== Hand {view.hand_id + 1}"
    return head + f"\nYour cards: {cards(view.hole)}" + (f"    stacks: {stacks(view, names)}" if game.is_nolimit else "")


def stacks(view: View, names: Sequence[str]) -> str:
    """Chips behind per player still in the hand (before this street's bets are settled)."""
    return ", ".join(f"{names[p]} {view.stacks[p]}" for p in range(view.num_players) if not view.folded[p])


def table(view: View, names: Sequence[str]) -> str:
    """What you need to decide: pot, this street's bets, stacks, the price to call."""
    here = ", ".join(f"{names[p]} {street_in(view, p)}" for p in range(view.num_players) if not view.folded[p])
    line = f"Pot {view.pot}; this street: {here}"
    if view.game.is_nolimit:
        line += f"; stacks: {stacks(view, names)}"
    return line


def options(view: View) -> str:
    """The legal actions with their sizes in chips for this street."""
    out = []
    for a in view.legal_actions:
        if a == _F:
            out.append("f fold")
        elif a == _C:
            out.append(f"c call {view.to_call}" if view.to_call else "c check")
        else:
            lo, hi = street_bounds(view)
            verb = "raise to" if view.to_call or view.round == 0 else "bet"
            if view.game.is_limit:
                out.append(f"r {verb} {lo}")
            else:
                out.append(f"r N {verb} N this street, N from {lo} to {hi} (or: min, allin)")
    return "Your options: " + " | ".join(out)


def street_bounds(view: View) -> tuple[int, int]:
    """The smallest and largest raise as chips put in this street by you (the engine counts the whole hand)."""
    lo, hi = view.raise_bounds  # type: ignore[misc]
    before = view.spent[view.position] - street_in(view, view.position)
    return lo - before, hi - before


def hand_name(hole: Sequence[int], board: Sequence[int], game: GameDef) -> str:
    """The name of a shown hand: treys' class names (``Two Pair``) for five cards or more, else pair / high card."""
    every = list(hole) + list(board)
    if len(every) >= 5 and game.deck_size == 52:
        from ..evaluator import hand_description

        return hand_description(every)
    ranks = [cards_to_text([c])[0] for c in every]
    order = {r: i for i, r in enumerate("23456789TJQKA")}
    paired = [r for r in set(ranks) if ranks.count(r) >= 2]
    if paired:
        return f"pair of {max(paired, key=lambda r: order.get(r, -1))}"
    return f"{max(ranks, key=lambda r: order.get(r, -1))} high"


def hand_end(view: View, names: Sequence[str], total: float, hands: int) -> list[str]:
    """The end of a hand: board, shown cards with hand names, who won how much, the match so far."""
    game = view.game
    board = view.board_cards
    lines = []
    if view.state.is_showdown:
        lines.append("-- Showdown" + (f": board {cards(board)}" if board else ""))
        for p in range(view.num_players):
            hole = view.holes[p]
            if hole and not view.folded[p]:
                verb = "show" if names[p] == "you" else "shows"
                lines.append(f"  {names[p]} {verb} {cards(hole)}: {hand_name(hole, board, game)}")
    payoffs = view.payoffs
    if payoffs is not None:
        winners = [p for p, v in enumerate(payoffs) if v > 0]
        you = chips(payoffs[view.position])
        if len(winners) == 1:
            w = winners[0]
            lines.append(f"  {names[w]} win{'' if names[w] == 'you' else 's'} the pot of {view.pot}; you {you}")
        else:  # several won, or nobody did: an even split gives every player still in 0
            split = winners or [p for p in range(view.num_players) if not view.folded[p]]
            lines.append(f"  the pot of {view.pot} is split between {', '.join(names[w] for w in split)}; "
                         f"you {you}")
    lines.append(f"  match: you {chips(total)} after {hands} hand{'' if hands == 1 else 's'}")
    return lines


def chips(amount: float) -> str:
    """A signed chip amount as a person reads it: ``+3450040``, ``-0.5``, never ``+3.45004e+06``."""
    return f"{amount:+.15g}"
