"""The LBR figures of a run: LBR's duplicate mbb/g, where it won them (by the street of its first raise), in results.json.

``acpc-match lbr`` plays an ordinary duplicate run (LBR against its
target) and then adds an ``lbr`` object to the run's results.json.  The
run is recognised from its players (a player ``lbr`` whose strategy is
``lbr:target=...`` and the target beside it), so a run interrupted and
finished by ``acpc-match resume`` gets the same object (:func:`attach`).
The whole summary, with LBR's action setting and the figures by street,
goes to ``lbr.json`` in the run folder.

By street: each hand's LBR winnings are put under the street of LBR's
first raise in that hand (``none`` when it never raised: it won or lost by
checking, calling and folding), per deal averaged over the two seatings;
the streets' figures add up to the total.  They say which of LBR's
decisions find the chips: where a strategy would have to play better first.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

from acpcbot.engine import ActionType
from acpcbot.gamedef import GameDef
from acpcbot.matchlog import LogError, read_match_log

from .folders import RESULTS

LBR_NAME = "lbr"
#: the whole LBR summary, beside results.json in the run folder
LBR_FILE = "lbr.json"
#: the summary's keys kept out of results.json's ``lbr`` (they are in lbr.json)
EXTRA_KEYS = ("actions", "by_street")
HOLDEM_STREETS = ("preflop", "flop", "turn", "river")
NO_RAISE = "none"
Z95 = 1.959964


def lbr_target(doc: dict[str, Any]) -> tuple[str, str] | None:
    """(the target's player name, its strategy spec) when ``doc`` is an LBR run's results, else None."""
    players = doc.get("players")
    if not isinstance(players, list) or len(players) != 2 or not doc.get("duplicate"):
        return None
    names = [p.get("player") for p in players if isinstance(p, dict)]
    if LBR_NAME not in names or len(names) != 2:
        return None
    me = names.index(LBR_NAME)
    spec = str(players[me].get("strategy") or "")
    if not spec.startswith(f"{LBR_NAME}:") or "target=" not in spec:
        return None
    other = players[1 - me]
    return str(other["player"]), str(other.get("strategy") or "")


def lbr_setting(doc: dict[str, Any]) -> str:
    """The action setting the run's LBR played (``full`` unless its spec names one)."""
    for p in doc.get("players") or ():
        if isinstance(p, dict) and p.get("player") == LBR_NAME:
            for item in str(p.get("strategy") or "").split(","):
                key, _, value = item.partition("=")
                if key.strip() == "actions":
                    return value.strip()
    return "full"


def street_names(game: GameDef) -> tuple[str, ...]:
    """The names of the game's rounds: preflop..river in hold'em, ``round1``.. otherwise."""
    if game.has_holdem_streets:
        return HOLDEM_STREETS
    return tuple(f"round{r + 1}" for r in range(game.num_rounds))


def _first_raise(state: Any, position: int) -> int | None:
    for r, (acts, actors) in enumerate(zip(state.actions, state.actors)):
        for action, p in zip(acts, actors):
            if p == position and action[0] == ActionType.RAISE:
                return r
    return None


def _chips_by_street(state: Any, position: int, value: float) -> list[float]:
    """``value`` split over the rounds in proportion to the chips at stake there (the loser's, put in that round)."""
    loser = 1 - position if value > 0 else position
    put = [0.0] * state.game.num_rounds
    for step in state.steps():
        if step.player == loser:
            put[step.round] += step.added
    put[0] += state.game.blind[loser]  # the blind is the first round's stake
    total = sum(put)
    return [value * x / total if total > 0 else 0.0 for x in put]


def by_street(doc: dict[str, Any], run_dir: str | Path | None = None) -> dict[str, Any] | None:
    """LBR's duplicate mbb/g split by street three ways, each figure with a 95% half-width.

    ``first_raise``: each hand's winnings under the street of LBR's first
    raise (``none``: it never raised), with the share of hands;
    ``chips_in``: each hand's winnings split over the streets in proportion
    to the chips the hand's loser put in on each (where the chips won were
    staked); ``ended``: by the street the hand ended on and how (the target
    folded, LBR folded, showdown), with the hands; ``per_deal``: LBR's
    mbb/hand on each deal, both seatings averaged.  None when the logs
    cannot be read.  Deals are paired by hand number across the two
    seatings (a deal played in one seating counts alone).
    """
    folder = Path(run_dir or doc.get("run_dir") or ".")
    big_blind = float(doc.get("big_blind") or 1)
    #: per deal (match seed, hand number): the seatings that played it, and LBR's chips under each grouping
    seatings: dict[tuple[int, int], int] = {}
    won: dict[tuple[int, int], dict[str, float]] = {}
    counts: dict[str, int] = {}
    names: tuple[str, ...] = ()
    for m in doc.get("matches") or ():
        log_name = (m.get("files") or {}).get("log")
        if not log_name or m.get("played") is False:
            continue
        try:
            log = read_match_log(folder / log_name)
        except (OSError, LogError):
            return None
        names = street_names(log.game)
        for hand in log.hands:
            if LBR_NAME not in hand.names:
                continue
            position = hand.names.index(LBR_NAME)
            r = _first_raise(hand.state, position)
            key = NO_RAISE if r is None else names[r]
            deal = (int(m.get("seed", 0)), hand.hand_id)
            seatings[deal] = seatings.get(deal, 0) + 1
            chips = won.setdefault(deal, {})
            chips[key] = chips.get(key, 0.0) + hand.values[position]
            counts[key] = counts.get(key, 0) + 1
            for r, x in enumerate(_chips_by_street(hand.state, position, hand.values[position])):
                chips[f"in:{names[r]}"] = chips.get(f"in:{names[r]}", 0.0) + x
            state = hand.state
            how = "target_folds" if state.folded[1 - position] else "lbr_folds" if state.folded[position] else \
                "showdown"
            end_key = f"end:{names[state.round]}:{how}"
            chips[end_key] = chips.get(end_key, 0.0) + hand.values[position]
            counts[end_key] = counts.get(end_key, 0) + 1
    n = len(seatings)
    if not n:
        return None
    total = sum(seatings.values())
    per_deal = {f"{seed}:{hand}": 1000.0 * sum(v for k, v in won[(seed, hand)].items() if ":" not in k)
                / k / big_blind for (seed, hand), k in seatings.items()}

    def figure(key: str) -> dict[str, float]:
        xs = [1000.0 * won[deal].get(key, 0.0) / k / big_blind for deal, k in seatings.items()]
        mean = sum(xs) / n
        var = sum((x - mean) ** 2 for x in xs) / (n - 1) if n > 1 else 0.0
        return {"mbb_per_hand": round(mean, 3), "ci95": round(Z95 * math.sqrt(var / n), 3)}

    first = {key: figure(key) | {"hands": counts.get(key, 0), "share": round(counts.get(key, 0) / total, 4)}
             for key in (NO_RAISE, *names)}
    ended = {name: {how: figure(f"end:{name}:{how}") | {"hands": counts.get(f"end:{name}:{how}", 0)}
                    for how in ("target_folds", "lbr_folds", "showdown") if counts.get(f"end:{name}:{how}")}
             for name in names}
    return {"deals": n, "first_raise": first, "chips_in": {name: figure(f"in:{name}") for name in names},
            "ended": ended, "per_deal": per_deal}


def summary(doc: dict[str, Any], spec: str, game: str, hands: int, streets: bool = True) -> dict[str, Any]:
    """The LBR figures of a finished run: LBR's duplicate mbb/g and 95% half-width (with AIVAT's when known)."""
    row = next((r for r in doc["results"] if r["player"] == LBR_NAME), None)
    out: dict[str, Any] = {"strategy": spec, "game": game, "hands": hands, "actions": lbr_setting(doc),
                           "lbr_mbb_per_hand": None, "ci95": None, "pairs": 0}
    if row is not None:
        out.update({"lbr_mbb_per_hand": row.get("duplicate_mbb_per_hand"), "ci95": row.get("duplicate_ci95"),
                    "pairs": row.get("duplicate_pairs", 0)})
        if row.get("aivat_duplicate_mbb_per_hand") is not None:
            out.update({"aivat_mbb_per_hand": row["aivat_duplicate_mbb_per_hand"],
                        "aivat_ci95": row["aivat_duplicate_ci95"]})
    out.update({"seed": doc.get("seed"), "transport": doc.get("transport"), "seconds": doc.get("seconds"),
                "run_dir": doc.get("run_dir"), "complete": all(m["complete"] for m in doc["matches"])})
    if streets and row is not None:
        out["by_street"] = by_street(doc)
        if out["by_street"] is not None:
            out["by_street"].pop("per_deal")  # kept out of results.json: one number a deal
    return out


def paired_difference(a: dict[str, float], b: dict[str, float]) -> dict[str, float] | None:
    """Mean and 95% half-width of ``a - b`` over the deals both played (mbb/g; e.g. two LBR settings' per-deal values)."""
    common = sorted(set(a) & set(b))
    n = len(common)
    if n < 2:
        return None
    xs = [a[d] - b[d] for d in common]
    mean = sum(xs) / n
    var = sum((x - mean) ** 2 for x in xs) / (n - 1)
    return {"mbb_per_hand": round(mean, 3), "ci95": round(Z95 * math.sqrt(var / n), 3), "deals": n}


def format_summary(s: dict[str, Any]) -> str:
    """One line: LBR's winnings against the strategy (and, when known, by the street of its first raise)."""
    setting = "" if s.get("actions", "full") == "full" else f" (actions {s['actions']})"
    if s["lbr_mbb_per_hand"] is None:
        return f"LBR{setting} against {s['strategy']} in {s['game']}: no hands played  ->  {s['run_dir']}"
    ci = "?" if s["ci95"] is None else f"{s['ci95']:.1f}"
    line = (f"LBR{setting} against {s['strategy']} in {s['game']}: {s['lbr_mbb_per_hand']:+.1f} ± {ci} mbb/g (95%, "
            f"duplicate, {s['pairs']} deals x 2 seatings)")
    if s.get("aivat_mbb_per_hand") is not None:
        line += f"; AIVAT {s['aivat_mbb_per_hand']:+.1f} ± {s['aivat_ci95']:.1f}"
    streets = (s.get("by_street") or {}).get("first_raise")
    if streets:
        parts = [f"{k} {v['mbb_per_hand']:+.0f} ± {v['ci95']:.0f}" for k, v in streets.items() if v["hands"]]
        line += "\n  by the street of LBR's first raise (mbb/g): " + ", ".join(parts)
    return line + f"  ->  {s['run_dir']}"


def attach(doc: dict[str, Any], run_dir: str | Path | None = None, spec: str | None = None,
           game: str | None = None) -> dict[str, Any] | None:
    """Add the ``lbr`` summary to an LBR run's results and files; return the whole summary (None for other runs).

    results.json's ``lbr`` holds the documented figures; the whole summary
    (with the action setting and the figures by street) goes to the run
    folder's ``lbr.json`` beside it.
    """
    target = lbr_target(doc)
    if target is None:
        return None
    hands = int(doc.get("hands") or 0)
    full = summary(doc, spec if spec is not None else target[1], game or str(doc.get("game")), hands)
    doc["lbr"] = {k: v for k, v in full.items() if k not in EXTRA_KEYS}
    folder = Path(run_dir or doc["run_dir"])
    (folder / RESULTS).write_text(json.dumps(doc, indent=1) + "\n", encoding="utf-8")
    (folder / LBR_FILE).write_text(json.dumps(full, indent=1) + "\n", encoding="utf-8")
    return full
