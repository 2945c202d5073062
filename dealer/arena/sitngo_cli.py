"""The ``acpc-match sitngo`` and ``acpc-match tune`` commands, and ``kind = "sitngo"`` recipes.

``sitngo`` plays freezeout tables (:mod:`dealer.arena.sitngo`) in memory and
writes results.json and report.svg (finishing places) to a run folder;
``tune`` runs the genetic tuning of :mod:`dealer.arena.tune`.  Both are
registered on the main parser by :func:`add_parsers`, which sets the
function the main command calls (``args.experiment``).
"""

from __future__ import annotations

import argparse
import sys
import tomllib
from pathlib import Path
from typing import Any

from acpcbot.gamedef import GameDefError, load_game

from .folders import default_runs_dir, new_run_dir
from .recipes import RecipeError, check_strategy, game_path, make_entries, parse_player, safe_name
from .sitngo import TableRules, parse_schedule
from .sitngo_run import (
    add_sitngo_options,
    default_jobs,
    format_summary,
    plan_tables,
    progress_stream,
    results_document,
    run_tables,
    write_outputs,
)

#: the recipe keys of a sitngo recipe
RECIPE_KEYS = {"kind", "name", "description", "game", "players", "tables", "size", "stack", "blinds", "button",
               "max_hands", "short_stop", "seed", "duplicate", "carry", "jobs"}


def name_and_spec(text: str) -> tuple[str | None, str]:
    """Split ``NAME=SPEC`` when the part before the first ``=`` is a safe name (a spec's ``=`` follows a ``:``)."""
    head, eq, rest = text.partition("=")
    if eq and head and ":" not in head and safe_name(head) == head and rest.strip():
        return head, rest.strip()
    return None, text.strip()


def add_parsers(sub: Any) -> None:
    """Register ``sitngo`` and ``tune`` on the main command's subparsers."""
    p = sub.add_parser("sitngo", help="freezeout tables: stacks carried hand to hand, eliminations, places")
    add_sitngo_options(p)
    p.add_argument("--carry", action="store_true",
                   help="a series: the same player objects play every table in order (learning carries over)")
    p.add_argument("--record", help="save every decision of every player as learner2008 training records "
                                    "(.npz, as 'train --save-data' writes; plays in one process)")
    p.add_argument("--recipe", help="a TOML recipe with kind = \"sitngo\" instead of the options")
    p.add_argument("--jobs", type=int, help="processes (default: one per core; 1 with --carry)")
    p.add_argument("--name", default="", help="run name (folder RUNS_DIR/NAME-TIMESTAMP)")
    p.add_argument("--runs-dir", default=str(default_runs_dir()), help="where run folders go")
    p.add_argument("--json", action="store_true", help="print results.json's summary as JSON")
    p.add_argument("players", nargs="*", metavar="[NAME=]STRATEGY", help="the entrants")
    p.set_defaults(experiment=main)
    from .tune import add_parser as add_tune_parser
    add_tune_parser(sub)


def _sizes(text: str, players: int) -> list[int]:
    if not text:
        return [players]
    try:
        sizes = [int(x) for x in str(text).split(",")]
    except ValueError:
        raise RecipeError(f"--size: expected numbers like 4,6,8,10,2, got {text!r}") from None
    for s in sizes:
        if not 2 <= s <= 10:
            raise RecipeError(f"--size: a table seats 2 to 10 players, got {s}")
    return sizes


def settings_from(values: dict[str, Any], where: str) -> dict[str, Any]:
    """Validated run settings from options or a recipe; RecipeError naming the key."""
    raw = []
    for text in values["players"]:
        name, spec = name_and_spec(str(text))
        raw.append(parse_player(name, spec, f"{where}player {text!r}"))
    if not raw:
        raise RecipeError(f"{where}no players: give strategy specs")
    if any(e[2] is not None for e in raw):
        raise RecipeError(f"{where}external programs cannot play freezeout tables: the ACPC protocol does not "
                          f"carry stacks (see docs/experiments.md)")
    entries = make_entries(raw)
    try:
        game = load_game(values["game"])
    except GameDefError as exc:
        raise RecipeError(f"{where}game: {exc}") from None
    for e in entries:
        check_strategy(e.strategy or "", game, f"{where}player {e.name!r}")
    try:
        rules = TableRules(stack=int(values["stack"]), levels=parse_schedule(str(values["blinds"])),
                           button=values["button"], max_hands=values["max_hands"],
                           short_stop=bool(values["short_stop"]))
    except ValueError as exc:
        raise RecipeError(f"{where}{exc}") from None
    if values["tables"] < 1:
        raise RecipeError(f"{where}tables must be >= 1, got {values['tables']}")
    return {"entries": entries, "game": game, "rules": rules, "sizes": _sizes(values["size"], len(entries))}


def load_recipe(path: str) -> dict[str, Any]:
    """A ``kind = "sitngo"`` recipe's values (paths read against its folder); RecipeError naming the key."""
    try:
        data = tomllib.loads(Path(path).read_text())
    except (OSError, tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise RecipeError(f"{path}: {exc}") from None
    unknown = sorted(set(data) - RECIPE_KEYS)
    if unknown:
        raise RecipeError(f"{path}: unknown key {unknown[0]!r} (known: {', '.join(sorted(RECIPE_KEYS))})")
    base = Path(path).parent.absolute()
    return {"players": data.get("players", []), "game": game_path(data.get("game", "hunl"), base),
            "tables": int(data.get("tables", 100)), "size": ",".join(str(s) for s in data["size"])
            if isinstance(data.get("size"), list) else str(data.get("size", "")),
            "stack": data.get("stack", 1000), "blinds": data.get("blinds", "10/20"),
            "button": data.get("button", "moving"), "max_hands": data.get("max_hands"),
            "short_stop": data.get("short_stop", False), "seed": data.get("seed", 0),
            "duplicate": data.get("duplicate", False), "carry": data.get("carry", False),
            "jobs": data.get("jobs"), "name": data.get("name", Path(path).stem)}


def run(values: dict[str, Any], runs_dir: str, where: str = "") -> dict[str, Any]:
    """Play a sitngo run described by ``values``; the results document (also written to its run folder)."""
    s = settings_from(values, where)
    entries = s["entries"]
    specs = [e.strategy or "" for e in entries]
    names = [e.name for e in entries]
    plans = plan_tables(len(entries), s["sizes"], values["tables"], values["seed"], values["duplicate"])
    jobs = values["jobs"] or default_jobs()
    name = safe_name(values["name"] or "sitngo")
    folder = new_run_dir(runs_dir, name)
    record = values.get("record")
    results = run_tables(values["game"], s["rules"], specs, names, plans, carry=values["carry"], jobs=jobs,
                         run_seed=values["seed"], stream=progress_stream(), record=record)
    doc = results_document(name, values["game"], s["rules"], specs, names, results, values["seed"],
                           values["carry"], values["duplicate"])
    doc["run_dir"] = str(folder)
    write_outputs(doc, folder)
    return doc


def main(args: argparse.Namespace) -> int:
    """``acpc-match sitngo``: 0 done, 2 bad input."""
    import json
    try:
        if args.command == "run" or args.recipe:
            values = load_recipe(args.recipe)
            where = f"{args.recipe}: "
        else:
            values = {k: getattr(args, k) for k in ("players", "game", "tables", "size", "stack", "blinds",
                                                    "button", "max_hands", "short_stop", "seed", "duplicate",
                                                    "carry", "jobs", "name", "record")}
            where = ""
        doc = run(values, getattr(args, "runs_dir", None) or str(default_runs_dir()), where)
    except RecipeError as exc:
        print(f"acpc-match: error: {exc}", file=sys.stderr)
        return 2
    if getattr(args, "json", False):
        print(json.dumps({k: doc[k] for k in ("name", "run_dir", "rules", "summary")}))
    else:
        print(format_summary(doc))
        print(f"results: {doc['run_dir']}/results.json, picture: {doc['run_dir']}/report.svg")
    return 0


def recipe_main(path: str, runs_dir: str, json_out: bool = False) -> int:
    """``acpc-match run RECIPE`` for a ``kind = "sitngo"`` recipe."""
    return main(argparse.Namespace(command="run", recipe=path, runs_dir=runs_dir, json=json_out))
