"""``acpc-match tune``: genetic tuning of a strategy's numeric parameters against a field, by freezeout tables.

A strategy takes part when its class declares ``tune_ranges`` (parameter ->
(low, high)); a parameter whose type is ``int`` is tuned in whole numbers.
The default scheme is the 2008 study's (:mod:`dealer.arena.genetic`:
population 10, 2 elite, 1 mutant, 7 scattered-crossover children,
stochastic-uniform selection).  An individual's fitness is a weighted sum,
over the field's opponents (``W*SPEC``, weight 1 when not given), of its
share of the tables won against that opponent: duplicate tables (each seed
played with the seats rotated), 2 seats by default ("heads-up matches") or
the sizes of ``--size`` (the 2008 study cycled 4,6,8,10,2) filled
alternately by the individual and the opponent.  Every generation is
evaluated on the same seeds for all its individuals (common random
numbers), new seeds each generation.

Each (individual, opponent) pair is one task; a generation's tasks run over
``--jobs`` processes.  After each generation the whole run is written to the
checkpoint file (JSON), so an interrupted run (Ctrl-C) resumes from its last
finished generation when started again with the same command.  Progress goes
to stderr; the result is the best individual as a spec string that plays.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import sys
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any, Sequence

from acpcbot.gamedef import load_game
from acpcbot.strategies.registry import create, resolve

from .genetic import Gene, next_generation, random_genome
from .recipes import RecipeError
from .sitngo import TableRules, parse_schedule
from .sitngo_run import add_sitngo_options, default_jobs, plan_tables, play_tables


def genes_of(base_spec: str, only: Sequence[str] = ()) -> list[Gene]:
    """The tunable parameters of the strategy ``base_spec`` names (its class's ``tune_ranges``), minus those set."""
    cls, values = resolve(base_spec)
    ranges = getattr(cls, "tune_ranges", {})
    if not ranges:
        raise RecipeError(f"strategy {cls.name!r} declares no parameter ranges (tune_ranges): nothing to tune")
    names = list(only) or [k for k in ranges if k not in values]
    unknown = [k for k in names if k not in ranges]
    if unknown:
        raise RecipeError(f"--genes: {cls.name!r} has no tunable parameter {unknown[0]!r} "
                          f"(it has {', '.join(ranges)})")
    return [Gene(k, float(ranges[k][0]), float(ranges[k][1]), cls.params[k].type is int) for k in names]


def spec_of(base_spec: str, genes: Sequence[Gene], genome: Sequence[float]) -> str:
    """The spec string of an individual: the base spec with each gene as a parameter."""
    parts = [f"{g.name}={int(v) if g.integer else round(v, 3)}" for g, v in zip(genes, genome)]
    sep = "," if ":" in base_spec else ":"
    return base_spec + sep + ",".join(parts)


def parse_field(items: Sequence[str]) -> list[tuple[float, str]]:
    """``W*SPEC`` (or SPEC, weight 1) items as (weight, spec)."""
    out = []
    for text in items:
        head, star, rest = text.partition("*")
        if star:
            try:
                out.append((float(head), rest.strip()))
                continue
            except ValueError:
                pass
        out.append((1.0, text.strip()))
    if not out:
        raise RecipeError("--field: name at least one opponent")
    return out


def _task(args: tuple) -> tuple[int, int, float]:
    cand, opp, game_arg, rules, specs, plans = args
    results = play_tables(game_arg, rules, specs, ["tuned", "opponent"], plans, False)
    won = sum(1 for r in results if r.names[r.winner] == "tuned")
    return cand, opp, won / len(results)


def evaluate(specs: Sequence[str], field: Sequence[tuple[float, str]], game_arg: str, rules: TableRules,
             sizes: Sequence[int], tables: int, seed: int, jobs: int) -> list[float]:
    """Each spec's fitness: the weighted mean of its share of tables won against each opponent of the field."""
    plans = plan_tables(2, sizes, tables, seed, duplicate=True)
    tasks = [(c, o, game_arg, rules, [spec, opp], plans) for c, spec in enumerate(specs) for o, (_, opp) in
             enumerate(field)]
    shares: dict[tuple[int, int], float] = {}
    if jobs <= 1:
        for t in tasks:
            c, o, share = _task(t)
            shares[c, o] = share
    else:
        with ProcessPoolExecutor(max_workers=jobs) as pool:
            for c, o, share in pool.map(_task, tasks):
                shares[c, o] = share
    total = sum(w for w, _ in field)
    return [sum(w * shares[c, o] for o, (w, _) in enumerate(field)) / total for c in range(len(specs))]


def tune(base_spec: str, field: Sequence[tuple[float, str]], game_arg: str, rules: TableRules, *,
         sizes: Sequence[int] = (2,), tables: int = 20, generations: int = 10, population: int = 10, elite: int = 2,
         mutants: int = 1, seed: int = 0, jobs: int = 1, checkpoint: str | None = None, only: Sequence[str] = (),
         stream: Any = sys.stderr) -> dict[str, Any]:
    """Run the genetic tuning (resuming from ``checkpoint`` when it holds this run); the run's record."""
    genes = genes_of(base_spec, only)
    config = {"base": base_spec, "field": [list(f) for f in field], "game": game_arg, "sizes": list(sizes),
              "tables": tables, "population": population, "elite": elite, "mutants": mutants, "seed": seed,
              "genes": [g.name for g in genes],
              "rules": {"stack": rules.stack, "blinds": [[lv.start, lv.small, lv.big] for lv in rules.levels],
                        "button": rules.button, "max_hands": rules.max_hands, "short_stop": rules.short_stop}}
    state: dict[str, Any] = {"config": config, "history": []}
    if checkpoint and Path(checkpoint).is_file():
        saved = json.loads(Path(checkpoint).read_text())
        if saved.get("config") != config:
            raise RecipeError(f"{checkpoint}: the checkpoint is of another run (other options); remove it or "
                              f"give another --checkpoint")
        state = saved
        if stream:
            stream.write(f"tune: resuming after generation {len(state['history'])} from {checkpoint}\n")
    if state["history"]:
        last = state["history"][-1]
        done = len(state["history"])
        pop = next_generation(last["population"], last["fitness"], genes, random.Random(f"{seed}:{done}"),
                              elite=elite, mutants=mutants, generation=done, generations=generations)
    else:
        pop = [random_genome(genes, random.Random(f"{seed}:init:{i}")) for i in range(population)]
    for gen in range(len(state["history"]), generations):
        specs = [spec_of(base_spec, genes, g) for g in pop]
        fitness = evaluate(specs, field, game_arg, rules, sizes, tables, seed + 100_003 * gen, jobs)
        best = max(range(len(pop)), key=lambda i: fitness[i])
        state["history"].append({"generation": gen, "population": pop, "fitness": fitness,
                                 "best": specs[best], "best_fitness": fitness[best],
                                 "mean_fitness": sum(fitness) / len(fitness)})
        state["best"] = {"spec": specs[best], "fitness": fitness[best], "generation": gen}
        if checkpoint:
            tmp = Path(checkpoint + ".tmp")
            tmp.write_text(json.dumps(state, indent=1))
            os.replace(tmp, checkpoint)
        if stream:
            stream.write(f"tune: generation {gen + 1}/{generations}: best {fitness[best]:.3f} "
                         f"mean {sum(fitness) / len(fitness):.3f}: {specs[best]}\n")
            stream.flush()
        if gen + 1 < generations:
            pop = next_generation(pop, fitness, genes, random.Random(f"{seed}:{gen + 1}"), elite=elite,
                                  mutants=mutants, generation=gen + 1, generations=generations)
    return state


def add_parser(sub: Any) -> None:
    """Register ``acpc-match tune``."""
    p = sub.add_parser("tune", help="genetic tuning of a strategy's parameters against a field of opponents")
    add_sitngo_options(p)
    p.set_defaults(tables=20, size="2")
    p.add_argument("strategy", help="the strategy to tune, with any fixed parameters (learner2008:data=FILE)")
    p.add_argument("--field", nargs="+", required=True, metavar="[W*]SPEC",
                   help="the opponents, each with a weight (2*mfs:t=1); fitness = weighted share of tables won")
    p.add_argument("--genes", default="", help="tune only these parameters (comma-separated; default: every "
                                               "declared range not set in the spec)")
    p.add_argument("--generations", type=int, default=10, help="generations (default: 10)")
    p.add_argument("--population", type=int, default=10, help="individuals per generation (default: 10)")
    p.add_argument("--elite", type=int, default=2, help="best individuals kept each generation (default: 2)")
    p.add_argument("--mutants", type=int, default=1, help="mutants each generation (default: 1)")
    p.add_argument("--jobs", type=int, help="processes (default: one per core)")
    p.add_argument("--checkpoint", default="tune-checkpoint.json",
                   help="the run's file, rewritten after each generation; a run resumes from it "
                        "(default: tune-checkpoint.json)")
    p.add_argument("--json", action="store_true", help="print the run's record as JSON")
    p.set_defaults(experiment=main)


def main(args: argparse.Namespace) -> int:
    """``acpc-match tune``: 0 done, 2 bad input, 130 interrupted (the checkpoint keeps finished generations)."""
    try:
        game = load_game(args.game)
        field = parse_field(args.field)
        for _, spec in field:
            create(spec, game, 0)
        base = create(args.strategy, game, 0)
        del base
        rules = TableRules(stack=args.stack, levels=parse_schedule(args.blinds), button=args.button,
                           max_hands=args.max_hands, short_stop=args.short_stop)
        sizes = [int(s) for s in str(args.size).split(",")]
        if any(not 2 <= s <= 10 for s in sizes):
            raise RecipeError("--size: a table seats 2 to 10 players")
        if args.tables < 1 or args.generations < 1 or args.population < 2:
            raise RecipeError("--tables and --generations must be >= 1, --population >= 2")
        state = tune(args.strategy, field, args.game, rules, sizes=sizes, tables=args.tables,
                     generations=args.generations, population=args.population, elite=args.elite,
                     mutants=args.mutants, seed=args.seed, jobs=args.jobs or default_jobs(),
                     checkpoint=args.checkpoint, only=[g for g in args.genes.split(",") if g])
    except KeyboardInterrupt:
        print(f"acpc-match tune: interrupted; finished generations are in {args.checkpoint}: run the same "
              f"command again to resume", file=sys.stderr)
        return 130
    except (RecipeError, ValueError, TypeError) as exc:
        print(f"acpc-match: error: {exc}", file=sys.stderr)
        return 2
    best = state["best"]["spec"]
    create(best, load_game(args.game), 0)  # the spec plays
    if args.json:
        print(json.dumps(state))
    else:
        print(best)
    return 0
