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
import functools
import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("acpcbot", "dealer")


@functools.lru_cache(maxsize=None)
def _tree(path: Path) -> ast.Module:
    """The parsed source of ``path``, parsed once a run: a dozen checks below walk every module (no check changes
    a tree)."""
    return ast.parse(path.read_text(encoding="utf-8"))


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

    visit(_tree(path))
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
    above = ("acpcbot.strategies", "acpcbot.client", "acpcbot.cli", "acpcbot.solve", "acpcbot.measure")
    for module in ("acpcbot.world", "acpcbot.protocol", "acpcbot.matchlog"):
        assert [m for m in _reach(graph, module) if m.startswith(above)] == [], module


def test_the_notation_stands_on_the_engine_alone(graph):
    # cards/gamedef -> engine -> notation: the text formats know the rules, nothing above them
    below = {"acpcbot.engine"} | _reach(graph, "acpcbot.engine")
    notation = [m for m in graph if m.startswith("acpcbot.notation")]
    assert "acpcbot.notation.matchstate" in notation
    for module in notation:
        assert {m for m in _reach(graph, module) if not m.startswith("acpcbot.notation")} <= below, module


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
        for node in _tree(path).body:
            public = not node.name.startswith("_") if isinstance(node, (ast.ClassDef, ast.FunctionDef)) else False
            if public and (isinstance(node, ast.ClassDef) or node.name in ONE_MEANING_FUNCTIONS):
                where.setdefault(node.name, []).append(str(path.relative_to(ROOT)))
    assert {name: files for name, files in where.items() if len(files) > 1} == {}


def test_every_module_opens_with_the_idea_it_owns():
    """Each module of the project starts with a docstring whose first line says what it is for."""
    bare = [str(p.relative_to(ROOT)) for pkg in PACKAGES for p in (ROOT / pkg).rglob("*.py")
            if not (ast.get_docstring(_tree(p)) or "").strip()]
    assert bare == []


# ----------------------------------------------------------------------------- one owner of the text formats

#: where a text format is still spelled outside acpcbot.notation: (module, the literal) -> the notation call it
#: should make.  Each is another engineer's file, left as it was while the notation layer was built; the
#: integrator empties this list (nothing may be added to it).
ALLOWED_FORMAT_TEXT = {
}
#: what a format's text starts with, or holds, when it is built or read by hand
_FORMAT_MARKS = ("MATCHSTATE", "STATE:", "SCORE:", "VERSION:")
#: the letters the protocol writes for an action (the aliases k, b and capitals are only ever read)
_ACTION_LETTERS = {"f", "c", "r"}


def _docstrings(tree: ast.AST) -> set[int]:
    """ids of the docstring nodes of a module and its classes and functions (prose, not formats), and of the
    names an ``__all__`` lists (names, not formats)."""
    out = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "__all__" for t in node.targets):
            out |= {id(c) for c in ast.walk(node.value) if isinstance(c, ast.Constant)}
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)) and node.body:
            first = node.body[0]
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant) \
                    and isinstance(first.value.value, str):
                out.add(id(first.value))
    return out


def _format_text(tree: ast.AST) -> list[tuple[int, object]]:
    """(line, literal) of every place ``tree`` spells a format itself: a MATCHSTATE/STATE/SCORE/VERSION
    literal or the MATCHSTATE constant, an action written as ``r%d`` or ``f"r{size}"``, an action letter chosen by
    a conditional."""
    skip = _docstrings(tree)
    found: list[tuple[int, object]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, (str, bytes)) and id(node) not in skip:
            text = node.value if isinstance(node.value, str) else node.value.decode("latin-1")
            if any(mark in text for mark in _FORMAT_MARKS) or text in ("r%d", "r%s"):
                found.append((node.lineno, node.value))
        elif isinstance(node, ast.JoinedStr):
            for a, b in zip(node.values, node.values[1:]):
                if isinstance(a, ast.Constant) and a.value == "r" and isinstance(b, ast.FormattedValue):
                    found.append((node.lineno, 'f"r{...}"'))
        elif isinstance(node, ast.Name) and node.id == "MATCHSTATE":
            found.append((node.lineno, "the name MATCHSTATE"))
        elif isinstance(node, ast.IfExp):
            branches = (node.body, node.orelse)
            if all(isinstance(x, ast.Constant) and x.value in _ACTION_LETTERS for x in branches):
                found.append((node.lineno, "an action letter chosen by a conditional"))
    return found


@functools.lru_cache(maxsize=None)
def _format_text_of(path: Path) -> list[tuple[int, object]]:
    """``_format_text`` of a project module, found once a run (two checks below read it)."""
    return _format_text(_tree(path))


def test_every_text_format_is_spelled_in_the_notation_layer_only():
    """MATCHSTATE, STATE, SCORE and VERSION text and action letters are built and read in acpcbot.notation alone.

    Docstrings may describe a format; code outside the notation layer calls it instead of spelling it.
    """
    bad = {}
    for pkg in PACKAGES:
        for path in (ROOT / pkg).rglob("*.py"):
            module = _module_name(path)
            if module.startswith("acpcbot.notation"):
                continue
            for line, literal in _format_text_of(path):
                if (module, literal) not in ALLOWED_FORMAT_TEXT:
                    bad[f"{path.relative_to(ROOT)}:{line}"] = literal
    assert bad == {}


def test_the_allowed_format_text_is_still_there():
    """An entry of ALLOWED_FORMAT_TEXT whose literal is gone must leave the list (it only shrinks)."""
    present = set()
    for pkg in PACKAGES:
        for path in (ROOT / pkg).rglob("*.py"):
            module = _module_name(path)
            present |= {(module, literal) for _, literal in _format_text_of(path)}
    assert set(ALLOWED_FORMAT_TEXT) - present == set()


def test_no_module_reaches_into_the_notation_layers_private_names():
    """Nothing outside acpcbot.notation imports a ``_private`` name of it (or of protocol, which gathers it)."""
    bad = []
    for pkg in PACKAGES:
        for path in (ROOT / pkg).rglob("*.py"):
            module = _module_name(path)
            if module.startswith("acpcbot.notation"):
                continue
            for node in ast.walk(_tree(path)):
                if isinstance(node, ast.ImportFrom) and node.module and \
                        ("notation" in node.module.split(".") or node.module.split(".")[-1] == "protocol"):
                    bad += [f"{module}: {alias.name}" for alias in node.names if alias.name.startswith("_")]
    assert bad == []


def test_the_format_checks_catch_what_they_are_for():
    """The checks above find a line built by hand, an action written by hand and a private import."""
    built = ast.parse('head = f"MATCHSTATE:{p}:{h}:"\nlog = "STATE:%d" % h\n'
                      'text = "r%d" % size\nother = f"r{size}"\nletter = "c" if call else "f"\n'
                      'line = f"{MATCHSTATE}:{p}"\n')
    assert sorted(line for line, _ in _format_text(built)) == [1, 2, 3, 4, 5, 6]
    prose = ast.parse('"""A MATCHSTATE line, described."""\ndef f():\n    """STATE: lines."""\n')
    assert _format_text(prose) == []


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


def test_measurement_stands_apart_from_the_solvers(graph):
    # LBR, AIVAT and the equities they need may walk a solver's tree; no solver, blueprint or re-solver
    # depends on how it will be measured
    measure = [m for m in graph if m.startswith("acpcbot.measure.")]
    assert "acpcbot.measure.lbr" in measure and "acpcbot.measure.aivat" in measure
    for module in [m for m in graph if m.startswith("acpcbot.solve")]:
        assert [m for m in _reach(graph, module) if m.startswith("acpcbot.measure")] == [], module


# ----------------------------------------------------------------------------- one game-family property

#: the values a GameDef field takes in Texas hold'em: comparing a field with one of them is a hold'em detector
_HOLDEM_VALUES = {"num_hole_cards": 2, "num_ranks": 13, "num_suits": 4, "total_board_cards": 5, "num_rounds": 4,
                  "num_board_cards": (0, 3, 1, 1)}
_HOLDEM_NAMES = {"hunl", "hulhe", "3pl", "3pnl", "6pnl"}


def _holdem_detectors(tree: ast.AST) -> list[int]:
    """Lines comparing a game's card or round counts with hold'em's, or a game's name with a hold'em game's."""
    found = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Compare):
            continue
        sides = [node.left, *node.comparators]
        fields = {s.attr for s in sides if isinstance(s, ast.Attribute)}
        for s in sides:
            if isinstance(s, ast.Tuple):  # (g.num_hole_cards, g.num_ranks) == (2, 13) or the other way round
                fields |= {e.attr for e in s.elts if isinstance(e, ast.Attribute)}
            elif isinstance(s, ast.Call) and isinstance(s.func, ast.Name) and s.func.id == "tuple" and s.args \
                    and isinstance(s.args[0], ast.Attribute):  # tuple(g.num_board_cards) == (0, 3, 1, 1)
                fields.add(s.args[0].attr)
        values: set[object] = set()
        for s in sides:
            try:
                value = ast.literal_eval(s)
            except ValueError:
                continue
            values |= set(value) if isinstance(value, (tuple, set, list)) else {value}
            if isinstance(value, tuple):
                values.add(value)
        holdem = {f for f in fields if f in _HOLDEM_VALUES and _HOLDEM_VALUES[f] in values}
        named = "name" in fields and bool(values & _HOLDEM_NAMES)
        if holdem or named:
            found.append(node.lineno)
    return found


def test_hold_em_is_told_by_the_game_definition_only():
    """``GameDef.is_holdem`` (and ``deals_holdem_cards``, ``has_holdem_streets``) is the one hold'em detector:
    no other module compares a game's counts or name with hold'em's."""
    bad = {}
    for pkg in PACKAGES:
        for path in (ROOT / pkg).rglob("*.py"):
            if _module_name(path) == "acpcbot.gamedef":
                continue
            lines = _holdem_detectors(_tree(path))
            if lines:
                bad[str(path.relative_to(ROOT))] = lines
    assert bad == {}


def test_the_hold_em_check_catches_the_six_old_detectors():
    """The shapes the six detectors of issue 28 had are each found."""
    code = ('a = game.num_hole_cards == 2 and game.num_ranks == 13\n'
            'b = (g.num_hole_cards, g.num_ranks, g.num_suits) == (2, 13, 4)\n'
            'c = g.num_rounds == 4 and tuple(g.num_board_cards) == (0, 3, 1, 1)\n'
            'd = game.name in ("hulhe", "hunl")\n'
            'e = g.total_board_cards != 5\n'
            'f = game.num_hole_cards != 1 or game.num_rounds < 2\n')  # one-card games, one-round games: no detector
    assert sorted(set(_holdem_detectors(ast.parse(code)))) == [1, 2, 3, 4, 5]


# ----------------------------------------------------------------------------- the client's own methods

def _client_private_names() -> set[str]:
    tree = ast.parse((ROOT / "acpcbot" / "client.py").read_text(encoding="utf-8"))
    client = next(n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == "Client")
    return {n.name for n in client.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))
            and n.name.startswith("_") and not n.name.startswith("__")}


def _private_reaches(tree: ast.AST, names: set[str]) -> list[tuple[int, str]]:
    """(line, name) of every ``obj._name`` with ``_name`` one of ``names`` on anything but ``self``."""
    return [(n.lineno, n.attr) for n in ast.walk(tree) if isinstance(n, ast.Attribute) and n.attr in names
            and not (isinstance(n.value, ast.Name) and n.value.id in ("self", "cls"))]


def test_no_caller_reaches_into_the_clients_private_methods():
    """The loops (session, direct, the arena's seats) use ``Client``'s public methods only."""
    names = _client_private_names()
    assert "_act" in names  # what the check is about: the decision path's own steps
    bad = {}
    for pkg in PACKAGES:
        for path in (ROOT / pkg).rglob("*.py"):
            if _module_name(path) == "acpcbot.client":
                continue
            found = _private_reaches(_tree(path), names)
            if found:
                bad[str(path.relative_to(ROOT))] = found
    assert bad == {}


def test_the_private_reach_check_catches_a_call():
    tree = ast.parse("client._act(view, 0.0)\nself._act(view)\n")
    assert _private_reaches(tree, {"_act"}) == [(1, "_act")]


# ----------------------------------------------------------------------------- one play_job

def test_one_play_job_plays_a_match_in_memory():
    """``dealer.arena.memory.play_job`` is the one in-memory job; any other ``play_job_*`` there hands its job to
    it (LBR's seats pass their seating) rather than copying it (TCP's is the other transport)."""
    defs = {}
    for path in (ROOT / "dealer").rglob("*.py"):
        for node in ast.walk(_tree(path)):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name.startswith("play_job"):
                defs[(_module_name(path), node.name)] = node
    assert ("dealer.arena.memory", "play_job") in defs
    assert [k for k in defs if k[1] == "play_job"] == [("dealer.arena.memory", "play_job")]
    for (module, name), node in defs.items():
        if name in ("play_job", "play_job_tcp"):
            continue
        calls = {ast.unparse(c.func) for c in ast.walk(node) if isinstance(c, ast.Call)}
        assert calls & {"play_job", "memory.play_job"}, f"{module}.{name} does not hand its job to memory.play_job"


#: the engine's modules: they own a state's cards (deal, reveal, observe, show, swap_cards, views)
_CARD_OWNERS = {"acpcbot/engine.py", "acpcbot/showdown.py", "acpcbot/hand.py"}


def _card_writes(source: str | ast.Module) -> list[str]:
    """Assignments to another object's ``hole`` or ``board`` (``state.board = ...``): cards set by hand."""
    found = []
    for node in ast.walk(ast.parse(source) if isinstance(source, str) else source):
        targets = node.targets if isinstance(node, ast.Assign) else \
            [node.target] if isinstance(node, (ast.AugAssign, ast.AnnAssign)) else []
        for target in targets:
            for t in target.elts if isinstance(target, ast.Tuple) else [target]:
                if isinstance(t, ast.Attribute) and t.attr in ("hole", "board") and \
                        not (isinstance(t.value, ast.Name) and t.value.id == "self"):
                    found.append(f"{node.lineno}: {ast.unparse(t)}")
    return found


def test_cards_enter_a_state_through_the_engine_only():
    # issue 28: deal/reveal/observe/show (checked) or swap_cards (the dealer's fast loops), never a field written
    assert _card_writes("state.hole, state.board = seen, board\ns.board += [3]\nself.hole = None\n") == \
        ["1: state.hole", "1: state.board", "2: s.board"]
    bad = {}
    for path in sorted([*ROOT.glob("acpcbot/**/*.py"), *ROOT.glob("dealer/**/*.py")]):
        rel = path.relative_to(ROOT).as_posix()
        if rel not in _CARD_OWNERS and (found := _card_writes(_tree(path))):
            bad[rel] = found
    assert bad == {}
