"""Many freezeout tables: seatings and seeds, series that carry what players learn, parallel runs, results.

A run is a list of tables (:class:`TablePlan`: seed and the entry of each
seat), decided here from the run's base seed, so any machine plays the same
tables.  Without ``carry`` every table has fresh players and tables spread
over processes; with it the tables are played in order by the same player
objects (a tournament series: what a player learns in one table, like the
utility player's thresholds, carries to the next), one process per series.

Results per entry (:func:`summarise`): tables won with a 95% interval,
finishing places, chips at the end and the winner-take-all balance, each mean
with its interval; :func:`places_svg` draws the finishing-place distribution.
"""

from __future__ import annotations

import argparse
import json
import logging
import math
import os
import sys
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Sequence

from acpcbot.client import Client
from acpcbot.gamedef import GameDef, load_game
from acpcbot.strategies.registry import create
from acpcbot.world import MatchInfo

from .recipes import strategy_seed
from .report import PALETTE, _fit, _svg, _text, _title_lines
from .sitngo import BUTTONS, FreezeoutTable, TableResult, TableRules
from .stats import estimate

Z95 = 1.959963984540054


@dataclass(frozen=True)
class TablePlan:
    """One table to play: its seed and the entry (index into the run's players) of each seat."""

    index: int
    seed: int
    seats: tuple[int, ...]


def plan_tables(num_players: int, sizes: Sequence[int], tables: int, seed: int, duplicate: bool) -> list[TablePlan]:
    """The run's tables: sizes cycling through ``sizes``, seats filled round the entries from a rotating start.

    With ``duplicate`` each seed is played once per rotation of the entries,
    so every entry takes every seat of the same deals.
    """
    plans = []
    rotations = num_players if duplicate else 1
    for t in range(tables):
        group, r = divmod(t, rotations)
        size = sizes[group % len(sizes)]
        start = r if duplicate else t
        plans.append(TablePlan(t, seed + group, tuple((start + i) % num_players for i in range(size))))
    return plans


def seat_names(names: Sequence[str], seats: Sequence[int]) -> list[str]:
    """Unique log names of a table's seats: the entry's name, ``.2``, ``.3``... for its further copies."""
    seen: dict[int, int] = {}
    out = []
    for e in seats:
        seen[e] = seen.get(e, 0) + 1
        out.append(names[e] if seen[e] == 1 else f"{names[e]}.{seen[e]}")
    return out


def make_clients(game: GameDef, specs: Sequence[str], names: Sequence[str], seed: int) -> list[Client]:
    """One started client per seat: each strategy made for the table's game, seeded by the seed and its name."""
    clients = []
    for s, (spec, name) in enumerate(zip(specs, names)):
        sseed = strategy_seed(seed, name)
        strategy = create(spec, game, sseed)
        info = MatchInfo(game=game, name=name, seed=sseed, opponents=tuple(n for i, n in enumerate(names) if i != s),
                         spec=strategy.spec)
        strategy.start_match(info)
        clients.append(Client(strategy, info))
    return clients


def end_clients(clients: Sequence[Client]) -> None:
    """End every strategy's match (a failing one is logged, never stops the others)."""
    for c in clients:
        try:
            c.strategy.end_match()
        except Exception:  # noqa: BLE001 - a strategy failing at the end must not lose the tables
            logging.getLogger(__name__).exception("strategy %s failed in end_match", c.strategy.spec)


def play_tables(game_arg: str, rules: TableRules, specs: Sequence[str], names: Sequence[str],
                plans: Sequence[TablePlan], carry: bool, run_seed: int = 0,
                progress: Callable[[TableResult], None] | None = None,
                on_hand: Callable[..., None] | None = None) -> list[TableResult]:
    """Play ``plans`` in order in this process; with ``carry`` the same players play them all (a series).

    ``on_hand`` is called with every hand's finished state and its seats by position.
    """
    game = load_game(game_arg)
    results = []
    kept: dict[str, Client] = {}
    hand_id = 0
    try:
        for plan in plans:
            seat_specs = [specs[e] for e in plan.seats]
            seated = seat_names(names, plan.seats)
            if carry:
                if any(n not in kept for n in seated):  # the series' players: one object per name, whatever its seat
                    for n, c in zip(seated, make_clients(game, seat_specs, seated, run_seed)):
                        kept.setdefault(n, c)
                clients = [kept[n] for n in seated]
            else:
                clients = make_clients(game, seat_specs, seated, plan.seed)
            try:
                table = FreezeoutTable(game, rules, clients, seated, plan.seed, first_hand_id=hand_id,
                                       on_hand=on_hand)
                result = table.play()
                hand_id = table.hand_id
            finally:
                if not carry:
                    end_clients(clients)
            # what learning players hold after the table (a series: every player of it), e.g. utility's thresholds
            holders = kept if carry else dict(zip(seated, clients))
            result.learnt = {n: c.strategy.learnt() for n, c in holders.items() if hasattr(c.strategy, "learnt")}
            result.names = tuple(names[e] for e in plan.seats)  # results count by entry
            result.index = plan.index
            results.append(result)
            if progress is not None:
                progress(result)
    finally:
        end_clients(list(kept.values()))
    return results


def _chunk(args: tuple) -> list[TableResult]:
    return play_tables(*args)


def run_tables(game_arg: str, rules: TableRules, specs: Sequence[str], names: Sequence[str],
               plans: Sequence[TablePlan], *, carry: bool = False, jobs: int = 1, run_seed: int = 0,
               stream: Any = None, record: str | None = None) -> list[TableResult]:
    """Play every table: one series in order with ``carry``, else spread over ``jobs`` processes.

    ``record`` names a file for learner2008's training records of every decision (tables then play in order).
    """
    done = [0]

    def tick(result: TableResult) -> None:
        done[0] += 1
        if stream is not None:
            stream.write(f"\rtables {done[0]}/{len(plans)}")
            stream.flush()

    if record:
        from acpcbot.strategies.learner2008_train import DecisionData, Hand, hand_records
        data = DecisionData()
        parts: list[DecisionData] = []

        def keep(state: Any, order: Any) -> None:
            parts.append(hand_records(Hand(state, state.payoffs())))
            if len(parts) >= 500:
                for part in parts:
                    data.extend(part)
                parts.clear()

        results = play_tables(game_arg, rules, specs, names, plans, carry, run_seed, tick, keep)
        for part in parts:
            data.extend(part)
        data.save(record)
    elif carry or jobs <= 1 or len(plans) <= 1:
        results = play_tables(game_arg, rules, specs, names, plans, carry, run_seed, tick)
    else:
        chunks = [list(plans[i::jobs]) for i in range(jobs)]
        results = []
        with ProcessPoolExecutor(max_workers=jobs) as pool:
            for chunk_results in pool.map(_chunk, [(game_arg, rules, specs, names, c, False, run_seed)
                                                   for c in chunks if c]):
                results.extend(chunk_results)
                for r in chunk_results:
                    tick(r)
        results.sort(key=lambda r: r.index)
    if stream is not None:
        stream.write("\n")
    return results


def wilson(k: int, n: int) -> tuple[float, float]:
    """The 95% Wilson interval of a proportion k/n."""
    if n == 0:
        return 0.0, 1.0
    p = k / n
    d = 1 + Z95 ** 2 / n
    c = (p + Z95 ** 2 / (2 * n)) / d
    h = Z95 * math.sqrt(p * (1 - p) / n + Z95 ** 2 / (4 * n * n)) / d
    return max(0.0, c - h), min(1.0, c + h)


def _mean(samples: Sequence[float]) -> dict[str, float | None]:
    e = estimate(samples)
    return {"mean": round(e.mean, 4), "ci95": None if e.ci95 is None else round(e.ci95, 4)}


def summarise(results: Sequence[TableResult], names: Sequence[str], stack: int) -> dict[str, dict[str, Any]]:
    """Per entry: tables played and won (rate with Wilson 95% interval), places, chips at the end, balance."""
    out: dict[str, dict[str, Any]] = {}
    for name in names:
        tables = won = 0
        places: list[int] = []
        chips: list[float] = []
        balance: list[float] = []
        for r in results:
            seats = [s for s, n in enumerate(r.names) if n == name]
            if not seats:
                continue
            tables += 1
            win = r.winner in seats
            won += win
            total = stack * len(r.names)
            for s in seats:
                places.append(r.places[s])
                chips.append(r.chips[s])
            # winner takes all: the table's chips to the winner, per seat the entry held
            balance.append((total if win else 0) - stack * len(seats))
        lo, hi = wilson(won, tables)
        hist: dict[str, int] = {}
        for p in sorted(places):
            hist[str(p)] = hist.get(str(p), 0) + 1
        learnt = [r.learnt[name] for r in results if name in r.learnt]
        out[name] = {"tables": tables, "won": won, "win_rate": round(won / tables, 4) if tables else None,
                     "win_ci95": [round(lo, 4), round(hi, 4)], "places": hist, "place": _mean(places),
                     "chips_end": _mean(chips), "balance": _mean(balance),
                     "balance_total": sum(balance)}
        if learnt:
            out[name]["learnt_end"] = learnt[-1]
    return out


def places_svg(summary: dict[str, dict[str, Any]], title: str, notes: Sequence[str] = ()) -> str:
    """A bar per entry split by finishing place (share of its seats), first place on the left, with a legend."""
    width = 640.0
    head, top = _title_lines(width, title, notes)
    names = list(summary)
    max_place = max((int(p) for s in summary.values() for p in s["places"]), default=1)
    left, right, bar_h, gap = 150.0, 20.0, 22.0, 10.0
    body = head[:]
    y = top + 10
    span = width - left - right
    for name in names:
        s = summary[name]
        total = sum(s["places"].values()) or 1
        x = left
        body.append(_text(left - 8, y + bar_h * 0.7, _fit(name, 11, left - 14), 11, "end"))
        for place in range(1, max_place + 1):
            share = s["places"].get(str(place), 0) / total
            w = share * span
            if w > 0:
                body.append(f'<rect x="{x:.1f}" y="{y:.1f}" width="{w:.1f}" height="{bar_h:.1f}" '
                            f'fill="{PALETTE[(place - 1) % len(PALETTE)]}"/>')
                if w > 34:
                    body.append(_text(x + w / 2, y + bar_h * 0.7, f"{share:.0%}", 10, "middle", ' fill="white"'))
            x += w
        y += bar_h + gap
    lx = left
    for place in range(1, max_place + 1):
        body.append(f'<rect x="{lx:.1f}" y="{y + 4:.1f}" width="10" height="10" '
                    f'fill="{PALETTE[(place - 1) % len(PALETTE)]}"/>')
        label = f"place {place}" if place == 1 else str(place)
        body.append(_text(lx + 14, y + 13, label, 10))
        lx += 24 + 7 * len(label)
    return _svg(width, y + 30, body)


def results_document(name: str, game_name: str, rules: TableRules, specs: Sequence[str], names: Sequence[str],
                     results: Sequence[TableResult], seed: int, carry: bool, duplicate: bool) -> dict[str, Any]:
    """The run's results.json: rules, players, per-entry summary and every table."""
    return {"kind": "sitngo", "name": name, "game": game_name, "seed": seed, "carry": carry, "duplicate": duplicate,
            "rules": {"stack": rules.stack, "blinds": [[lv.start, lv.small, lv.big] for lv in rules.levels],
                      "button": rules.button, "max_hands": rules.max_hands, "short_stop": rules.short_stop},
            "players": [{"name": n, "strategy": s} for n, s in zip(names, specs)],
            "summary": summarise(results, names, rules.stack),
            "tables": [r.to_json() for r in results]}


def write_outputs(doc: dict[str, Any], folder: Path) -> None:
    """results.json and report.svg in the run folder."""
    (folder / "results.json").write_text(json.dumps(doc, indent=1) + "\n")
    rules = doc["rules"]
    note = (f"{len(doc['tables'])} tables, {rules['stack']} chips, blinds "
            + ", ".join(f"{s}/{b}" for _, s, b in rules["blinds"]) + f", button {rules['button']}"
            + (f", at most {rules['max_hands']} hands" if rules["max_hands"] else ""))
    (folder / "report.svg").write_text(places_svg(doc["summary"], f"{doc['name']}: finishing places", [note]))


def format_summary(doc: dict[str, Any]) -> str:
    """The per-entry table as text."""
    lines = [f"{'player':24} {'tables':>6} {'won':>5} {'win% (95%)':>18} {'place':>12} {'chips end':>16}"]
    for name, s in doc["summary"].items():
        lo, hi = s["win_ci95"]
        rate = f"{100 * (s['win_rate'] or 0):.1f} ({100 * lo:.0f}-{100 * hi:.0f})"
        ci = s["place"]["ci95"]
        place = f"{s['place']['mean']:.2f}" + (f"±{ci:.2f}" if ci is not None else "")
        cci = s["chips_end"]["ci95"]
        chips = f"{s['chips_end']['mean']:.0f}" + (f"±{cci:.0f}" if cci is not None else "")
        lines.append(f"{name[:24]:24} {s['tables']:>6} {s['won']:>5} {rate:>18} {place:>12} {chips:>16}")
    return "\n".join(lines)


def default_jobs() -> int:
    """Processes to use: the cores this process may run on."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


def progress_stream() -> Any:
    """stderr when it is a terminal (progress lines), else None."""
    return sys.stderr if sys.stderr.isatty() else None


def add_sitngo_options(p: argparse.ArgumentParser) -> None:
    """The table options shared by ``sitngo`` and ``tune``."""
    p.add_argument("--game", default="hunl", help="the poker game whose rules, deck and betting the tables play "
                                                  "(its stacks and blinds are replaced; default: hunl)")
    p.add_argument("--tables", type=int, default=100, help="tables to play (default: 100)")
    p.add_argument("--size", default="", help="players per table, or a list cycled over the tables "
                                              "(4,6,8,10,2); default: one seat per player")
    p.add_argument("--stack", type=int, default=1000, help="starting chips of every player (default: 1000)")
    p.add_argument("--blinds", default="10/20", help="SMALL/BIG, or a schedule 10/20,20/40@50,... (blinds from "
                                                     "hand N on; default: 10/20)")
    p.add_argument("--button", choices=BUTTONS, default="moving",
                   help="moving: the button moves to the next live seat; random: drawn each hand (the 2008 study)")
    p.add_argument("--max-hands", type=int, help="hand limit per table (most chips wins; equal: lower seat)")
    p.add_argument("--short-stop", action="store_true",
                   help="end a table when at most one player can post the big blind (the 2008 study)")
    p.add_argument("--seed", type=int, default=0, help="seed of the first table (default: 0)")
    p.add_argument("--duplicate", action="store_true", help="play each seed once per rotation of the players")
