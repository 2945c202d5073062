"""The layers point one way: this test states the architecture and fails when an import breaks it.

cards/gamedef/evaluator ranking -> engine -> protocol/world -> strategies ->
client; the dealer core imports acpcbot's core but never strategies, the
client or the arena; the arena (dealer.arena) imports both; acpcbot never
imports dealer.  Imports are read from the source (also those inside
functions; only ``if TYPE_CHECKING:`` blocks, which never run, are left
out), and no module may take part in an import cycle.
"""

from __future__ import annotations

import ast
import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("acpcbot", "dealer")


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _is_type_checking(node: ast.If) -> bool:
    test = node.test
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or \
        (isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING")


def _imports(path: Path, modules: set[str]) -> set[str]:  # noqa: C901 - one walk of the tree
    """Project modules ``path`` imports (a ``from pkg import name`` of a submodule counts as that submodule)."""
    name = _module_name(path)
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found: set[str] = set()

    def visit(node: ast.AST) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.If) and _is_type_checking(child):
                for sub in child.orelse:
                    visit(sub)
                continue
            if isinstance(child, ast.Import):
                for alias in child.names:
                    found.add(alias.name)
            elif isinstance(child, ast.ImportFrom):
                if child.level:
                    base = package.split(".")
                    base = base[:len(base) - (child.level - 1)]
                    target = ".".join(base + ([child.module] if child.module else []))
                else:
                    target = child.module or ""
                subs = {f"{target}.{alias.name}" for alias in child.names}
                # ``from pkg import submodule`` imports the submodule; anything else comes from pkg itself
                found.update(subs & modules if subs <= modules else subs | {target})
            visit(child)

    visit(ast.parse(path.read_text(encoding="utf-8")))
    return {m for m in found if m in modules and m != name}


@pytest.fixture(scope="module")
def graph() -> dict[str, set[str]]:
    paths = [p for pkg in PACKAGES for p in (ROOT / pkg).rglob("*.py")]
    modules = {_module_name(p) for p in paths}
    return {_module_name(p): _imports(p, modules) for p in paths}


def _reach(graph: dict[str, set[str]], start: str) -> set[str]:
    seen, todo = set(), [start]
    while todo:
        for m in graph.get(todo.pop(), ()):
            if m not in seen:
                seen.add(m)
                todo.append(m)
    return seen


def test_acpcbot_never_imports_the_dealer(graph):
    bad = {m: sorted(d for d in deps if d.split(".")[0] == "dealer")
           for m, deps in graph.items() if m.startswith("acpcbot")}
    assert {m: d for m, d in bad.items() if d} == {}


def test_the_engine_stands_on_cards_gamedef_and_the_ranking_only(graph):
    allowed = {"acpcbot", "acpcbot.cards", "acpcbot.gamedef", "acpcbot.hand", "acpcbot.showdown", "acpcbot.evaluator",
               "acpcbot.evaluator.ranking", "acpcbot.evaluator.tables", "acpcbot.atomic",
               "acpcbot.arrayfile"}
    assert _reach(graph, "acpcbot.engine") <= allowed


def test_the_atomic_writer_stands_on_the_standard_library_alone(graph):
    # every layer writes its files through it, so it may import nothing of ours
    assert _reach(graph, "acpcbot.atomic") <= {"acpcbot"}
    assert _reach(graph, "acpcbot.arrayfile") <= {"acpcbot"}  # the checked reader of caches, likewise


def test_the_world_and_protocol_import_nothing_from_strategies_or_above(graph):
    above = ("acpcbot.strategies", "acpcbot.client", "acpcbot.cli", "acpcbot.solve")
    for module in ("acpcbot.world", "acpcbot.protocol", "acpcbot.matchlog"):
        assert [m for m in _reach(graph, module) if m.startswith(above)] == [], module


def test_the_dealer_core_imports_no_strategy_client_or_arena(graph):
    core = [m for m in graph if m.split(".")[0] == "dealer" and not m.startswith("dealer.arena")]
    assert "dealer.match" in core and "dealer.server" in core
    for module in core:
        bad = [m for m in _reach(graph, module)
               if m.startswith(("acpcbot.strategies", "acpcbot.client", "acpcbot.cli", "dealer.arena"))]
        assert bad == [], module


def test_strategies_sit_below_the_client(graph):
    for module in graph:
        if module.startswith("acpcbot.strategies"):
            assert not ({"acpcbot.client", "acpcbot.cli"} & _reach(graph, module)), module


def test_no_import_cycle(graph):
    # Tarjan's strongly connected components: any component of two or more modules is a cycle
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    cycles: list[list[str]] = []
    counter = [0]
    sys.setrecursionlimit(max(sys.getrecursionlimit(), 10_000))

    def strong(v: str) -> None:
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on_stack.add(v)
        for w in graph.get(v, ()):
            if w not in index:
                strong(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                cycles.append(sorted(component))

    for v in graph:
        if v not in index:
            strong(v)
    assert cycles == []


def test_the_dealer_entry_point_loads_no_strategy():
    code = ("import json, sys; import dealer.cli; "
            "print(json.dumps(sorted(m for m in sys.modules if m.startswith(('acpcbot.strategies', 'acpcbot.client', "
            "'dealer.arena')))))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, cwd=ROOT,
                         env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"})
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout) == []


def test_no_module_is_over_600_lines():
    # the project's modules only: test modules (tests/) are long lists of cases and are not held to it
    long = {str(p.relative_to(ROOT)): n for pkg in PACKAGES for p in (ROOT / pkg).rglob("*.py")
            if (n := len(p.read_text(encoding="utf-8").splitlines())) > 600}
    assert long == {}


#: functions that were once defined twice with different meanings: each keeps one
ONE_MEANING_FUNCTIONS = {"read_log", "load_tables"}


def test_one_name_per_concept():
    """No public class (nor a function once defined twice) in two modules, the tests' helper modules included."""
    paths = [p for pkg in PACKAGES for p in (ROOT / pkg).rglob("*.py")]
    paths += [p for p in (ROOT / "tests").glob("*.py") if not p.name.startswith("test_")]
    where: dict[str, list[str]] = {}
    for path in paths:
        for node in ast.parse(path.read_text(encoding="utf-8")).body:
            public = not node.name.startswith("_") if isinstance(node, (ast.ClassDef, ast.FunctionDef)) else False
            if public and (isinstance(node, ast.ClassDef) or node.name in ONE_MEANING_FUNCTIONS):
                where.setdefault(node.name, []).append(str(path.relative_to(ROOT)))
    assert {name: files for name, files in where.items() if len(files) > 1} == {}


def test_every_module_opens_with_the_idea_it_owns():
    """Each module of the project starts with a docstring whose first line says what it is for."""
    bare = [str(p.relative_to(ROOT)) for pkg in PACKAGES for p in (ROOT / pkg).rglob("*.py")
            if not (ast.get_docstring(ast.parse(p.read_text(encoding="utf-8"))) or "").strip()]
    assert bare == []


def _package_of(module: str, packages: set[str]) -> str:
    """The node a module counts as in the package graph: its first-level subpackage (``acpcbot.solve`` for
    ``acpcbot.solve.subgame.dcfr``), or the module itself when it sits at a package's top."""
    head = ".".join(module.split(".")[:2])
    return head if head in packages and "." in head else module


def test_no_package_import_cycle(graph):
    """Subpackages import each other one way only (solve never imports strategies, which stands on solve)."""
    packages = {m for m in graph if (ROOT / m.replace(".", "/") / "__init__.py").is_file()}
    above: dict[str, set[str]] = {}
    for module, deps in graph.items():
        for dep in deps:
            a, b = _package_of(module, packages), _package_of(dep, packages)
            if a != b:
                above.setdefault(a, set()).add(b)
    cycles = sorted(p for p in above if p in _reach(above, p))
    assert cycles == []
