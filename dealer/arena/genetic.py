"""The genetic operators of the 2008 study's tuning: stochastic-uniform selection, scattered crossover, mutation.

One generation (:func:`next_generation`) keeps the ``elite`` best
individuals, adds ``mutants`` mutated copies and fills the rest with
scattered-crossover children, as the study's MATLAB setup did (population
10: 2 elite, 1 mutant, 7 children).  Fitness is maximised here (the study
minimised the opponents' share of tables, the same order).

- Selection, "stochastic uniform": a line of segments, one per individual,
  each as long as its fitness; one random start in the first step, then
  equally spaced pointers; each pointer picks the individual it lands on.
- Scattered crossover: a random binary mask, one bit per gene; the child
  takes the gene of parent 1 where the bit is 1, of parent 2 where it is 0
  (the study's Table 5 is the worked example, reproduced by the tests).
- Mutation (the study left it to MATLAB's default; chosen here): each gene
  moves by a Gaussian step of sd 0.25 x its range x (1 - generation /
  generations), clipped into its bounds; integer genes are rounded.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Sequence

Genome = list[float]


@dataclass(frozen=True)
class Gene:
    """One tuned parameter: its name, bounds and whether it is a whole number."""

    name: str
    low: float
    high: float
    integer: bool = False

    def clip(self, value: float) -> float:
        """``value`` inside the bounds (rounded for an integer gene)."""
        v = min(self.high, max(self.low, value))
        return float(round(v)) if self.integer else v


def random_genome(genes: Sequence[Gene], rng: random.Random) -> Genome:
    """An individual drawn uniformly inside the bounds."""
    return [g.clip(rng.uniform(g.low, g.high)) for g in genes]


def scattered_mask(size: int, rng: random.Random) -> list[int]:
    """A random binary mask: 1 takes the gene from parent 1, 0 from parent 2."""
    return [1 if rng.random() < 0.5 else 0 for _ in range(size)]


def scattered_crossover(parent1: Sequence[float], parent2: Sequence[float], mask: Sequence[int]) -> Genome:
    """The child of two parents under ``mask``: gene i from parent 1 where mask[i] is 1, else from parent 2."""
    if not len(parent1) == len(parent2) == len(mask):
        raise ValueError("parents and mask must have the same length")
    return [a if m else b for a, b, m in zip(parent1, parent2, mask)]


def stochastic_uniform(fitness: Sequence[float], count: int, rng: random.Random) -> list[int]:
    """``count`` parent indexes: equally spaced pointers from one random start over fitness-long segments.

    Negative fitness counts as 0; when every fitness is 0 the segments are equal.
    """
    weights = [max(0.0, f) for f in fitness]
    total = sum(weights)
    if total <= 0:
        weights = [1.0] * len(fitness)
        total = float(len(fitness))
    step = total / count
    pointer = rng.random() * step
    chosen = []
    edge = weights[0]
    i = 0
    for _ in range(count):
        while pointer >= edge and i < len(weights) - 1:
            i += 1
            edge += weights[i]
        chosen.append(i)
        pointer += step
    return chosen


def mutate(genome: Sequence[float], genes: Sequence[Gene], rng: random.Random, generation: int,
           generations: int) -> Genome:
    """A Gaussian step on every gene, shrinking linearly to 0 over the run, clipped into the bounds."""
    shrink = max(0.0, 1.0 - generation / max(1, generations))
    return [g.clip(v + rng.gauss(0.0, 0.25 * (g.high - g.low) * shrink)) for v, g in zip(genome, genes)]


def next_generation(population: Sequence[Sequence[float]], fitness: Sequence[float], genes: Sequence[Gene],
                    rng: random.Random, *, elite: int = 2, mutants: int = 1, generation: int = 0,
                    generations: int = 1) -> list[Genome]:
    """The next population: the ``elite`` fittest, ``mutants`` mutants, the rest scattered-crossover children."""
    size = len(population)
    if not 0 <= elite <= size or not 0 <= mutants <= size - elite:
        raise ValueError(f"elite {elite} and mutants {mutants} do not fit a population of {size}")
    ranked = sorted(range(size), key=lambda i: -fitness[i])
    out = [list(population[i]) for i in ranked[:elite]]
    children = size - elite - mutants
    parents = stochastic_uniform(fitness, 2 * children + mutants, rng)
    rng.shuffle(parents)
    for k in range(mutants):
        out.append(mutate(population[parents[k]], genes, rng, generation, generations))
    rest = parents[mutants:]
    for k in range(children):
        p1, p2 = population[rest[2 * k]], population[rest[2 * k + 1]]
        out.append([g.clip(v) for g, v in zip(genes, scattered_crossover(p1, p2, scattered_mask(len(genes), rng)))])
    return out
