"""What to play: players and their log names, match jobs with their seats and seeds, and TOML recipes.

A run is a list of :class:`Job` objects, each one match of the dealer
(game, seats, seed, hands).  Jobs are independent, so a tournament can be
played on one machine or split over many and merged afterwards: the seeds
and seat orders are decided here, from the run's base seed, never by the
machine that plays them.
"""

from __future__ import annotations

import itertools
import os
import re
import shlex
import shutil
import tomllib
import zlib
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Sequence

from acpcbot.gamedef import GameDef, GameDefError, load_game

TRANSPORTS = ("tcp", "memory")
EXTERNAL_PREFIX = "external:"  # a player spec naming a program rather than a strategy
MAX_SEED = 2**32 - 1  # the dealer seeds a 32-bit MT19937
MAX_HANDS = 2**32 - 1  # the most #Hands the dealer's command line takes, as the reference's
_UNSAFE = re.compile(r"[^A-Za-z0-9._-]+")
_INTERPRETERS = re.compile(r"^(python[0-9.]*|pypy[0-9.]*|sh|bash|dash|env|node|ruby|perl|java|exec|nice|stdbuf)$")
_SCRIPT_RUNNERS = re.compile(r"^(python[0-9.]*|pypy[0-9.]*|sh|bash|dash|node|ruby|perl)$")
_SCRIPT_SUFFIXES = (".py", ".sh", ".bash", ".js", ".mjs", ".rb", ".pl", ".jar")


class RecipeError(ValueError):
    """A recipe or command line that cannot be played, naming the key or argument at fault."""


# ------------------------------------------------------------------ players and names

@dataclass(frozen=True)
class Entry:
    """One player of a run: its log name and either a strategy spec or an external command."""

    name: str
    strategy: str | None = None
    external: str | None = None

    @property
    def spec(self) -> str:
        """What the results call this player's strategy: the spec, or ``external:CMD``."""
        return self.strategy if self.strategy is not None else f"{EXTERNAL_PREFIX}{self.external}"


def safe_name(text: str, default: str = "player") -> str:
    """A player or run name the log format and a folder can carry: runs of anything but letters, digits, ``.``,
    ``_``, ``-`` become ``-``; no leading dot (``..`` or a hidden folder), ``default`` when nothing is left."""
    name = _UNSAFE.sub("-", text).strip("-").lstrip(".").strip("-")
    return name or default


def strategy_name(spec: str) -> str:
    """The log name of a strategy spec: ``raise:size=pot`` -> ``raise-size-pot``."""
    return safe_name(spec)


def external_name(command: str) -> str:
    """The log name of an external program: its file's stem, looking past an interpreter (``python3 bot.py`` -> ``bot``)."""
    try:
        words = shlex.split(command)
    except ValueError:
        words = command.split()
    program = words[0] if words else "external"
    if _INTERPRETERS.match(Path(program).name):
        rest = [w for w in words[1:] if not w.startswith("-") and "=" not in w]
        if rest:
            program = rest[0]
    return safe_name(Path(program).stem or Path(program).name)


def parse_player(name: str | None, spec: str, where: str) -> tuple[str | None, str | None, str | None]:
    """(name, strategy, external) of a player spec: ``external:CMD`` is a program, anything else a strategy."""
    spec = spec.strip()
    if spec.startswith(EXTERNAL_PREFIX):
        command = spec[len(EXTERNAL_PREFIX):].strip()
        if not command:
            raise RecipeError(f"{where}: empty external command")
        return name, None, command
    if not spec:
        raise RecipeError(f"{where}: empty strategy spec")
    return name, spec, None


def make_entries(raw: Sequence[tuple[str | None, str | None, str | None]]) -> list[Entry]:
    """Entries from (name or None, strategy or None, external or None); names made unique.

    A name given explicitly is kept as it is (checked); a derived name used
    by more than one entry gets the entry's 1-based place as a suffix
    (``call-1``, ``call-2``), the same in every seating of the run.
    """
    derived = []
    for name, strategy, external in raw:
        if name is not None:
            if safe_name(name) != name:
                raise RecipeError(f"player name {name!r} may only hold letters, digits, '.', '_' and '-'")
            derived.append(name)
        elif strategy is not None:
            derived.append(strategy_name(strategy))
        else:
            derived.append(external_name(external or ""))
    explicit = {i for i, (name, _, _) in enumerate(raw) if name is not None}
    counts: dict[str, int] = {}
    for n in derived:
        counts[n] = counts.get(n, 0) + 1
    names = [n if i in explicit or counts[n] == 1 else f"{n}-{i + 1}" for i, n in enumerate(derived)]
    seen: set[str] = set()
    for n in names:
        if n in seen:
            raise RecipeError(f"player name {n!r} is used twice; give the players distinct names")
        seen.add(n)
    return [Entry(n, s, e) for n, (_, s, e) in zip(names, raw)]


def resolve_external(command: str, base: str | Path, where: str) -> str:
    """``command`` with its program, its script and every argument naming an existing file made absolute.

    Paths are read against ``base`` (the folder the command was given in, or
    the recipe's), as a shell there would; a program or script that does not
    exist is a RecipeError naming ``where``.  A bare program name is looked
    up on PATH.
    """
    try:
        words = shlex.split(command)
    except ValueError as exc:
        raise RecipeError(f"{where}: cannot split the command {command!r}: {exc}") from None
    if not words:
        raise RecipeError(f"{where}: empty external command")

    def path_of(word: str) -> Path:
        return Path(os.path.abspath(os.path.join(base, os.path.expanduser(word))))

    out = list(words)
    program = words[0]
    if "/" in program or program.startswith("~"):
        if not path_of(program).is_file():
            raise RecipeError(f"{where}: no such program {path_of(program)}")
        out[0] = str(path_of(program))
    elif shutil.which(program) is None:
        if not path_of(program).is_file():
            raise RecipeError(f"{where}: program {program!r} is not on PATH (write ./{program} for a file here)")
        out[0] = str(path_of(program))
    script_next = bool(_SCRIPT_RUNNERS.match(Path(program).name))
    skip = False
    for i, word in enumerate(words[1:], start=1):
        if skip:
            skip = False
            continue
        if script_next and word in ("-m", "-c"):
            script_next, skip = False, True  # a module name or code follows, not a file
            continue
        if word.startswith("-") or "=" in word:
            continue
        candidate = path_of(word)
        if script_next:
            script_next = False
            if "/" in word or word.endswith(_SCRIPT_SUFFIXES) or candidate.exists():
                if not candidate.is_file():
                    raise RecipeError(f"{where}: no such file {candidate} (the script {program} runs)")
                out[i] = str(candidate)
            continue
        if candidate.exists() or word.startswith(("./", "../", "~")):
            out[i] = str(candidate)
    return shlex.join(out)


def resolve_entries(entries: Sequence[Entry], keys: Sequence[str], base: str | Path, where: str = "") -> list[Entry]:
    """Entries with their file paths made absolute against ``base``; RecipeError naming the key of a missing file."""
    from acpcbot.strategies.registry import with_absolute_paths

    out = []
    for entry, key in zip(entries, keys):
        at = f"{where}: key {key!r}" if where else key
        if entry.strategy is not None:
            try:
                entry = replace(entry, strategy=with_absolute_paths(entry.strategy, base))
            except ValueError as exc:
                raise RecipeError(f"{at}: {exc}") from None
        elif entry.external is not None:
            entry = replace(entry, external=resolve_external(entry.external, base, at))
        out.append(entry)
    return out


def game_path(game: str, base: str | Path) -> str:
    """``game`` made absolute when it names a file in ``base`` (else a short or official name, kept)."""
    path = os.path.join(base, os.path.expanduser(game))
    return os.path.abspath(path) if os.path.isfile(path) else game


def check_strategy(spec: str, game: GameDef, where: str) -> None:
    """Raise RecipeError naming ``where`` when ``spec`` is unknown, malformed or cannot play ``game``."""
    from acpcbot.strategies.registry import resolve

    try:
        cls, params = resolve(spec)
    except ValueError as exc:
        raise RecipeError(f"{where}: {exc}") from None
    reason = cls.unsupported_reason_for(game, params)
    if reason:
        raise RecipeError(f"{where}: strategy {spec!r} cannot play {game.name}: {reason}")


def strategy_seed(match_seed: int, name: str) -> int:
    """The seed of a player's own generator in a match: fixed by the match seed and the player, not the seat."""
    return zlib.crc32(f"{match_seed}:{name}".encode()) & 0x7FFFFFFF


# ------------------------------------------------------------------ jobs

@dataclass(frozen=True)
class Job:
    """One match: the seats in order (seat 1 first), its seed, its hands and the table it belongs to."""

    index: int
    seats: tuple[Entry, ...]
    seed: int
    hands: int
    table: int = 0

    @property
    def label(self) -> str:
        """File stem of the match's logs in the run folder."""
        return f"match-{self.index:03d}"


@dataclass
class Plan:
    """A whole run: game, players, jobs and how to play them."""

    name: str
    game_name: str
    game: GameDef
    hands: int
    seed: int
    duplicate: bool
    mode: str  # "play" or "tournament"
    entries: list[Entry]
    jobs: list[Job] = field(default_factory=list)
    transport: str = "tcp"
    parallel: int | None = None  # matches played at once (None: one per core)


def seatings(table: Sequence[Entry], duplicate: bool) -> list[tuple[Entry, ...]]:
    """Seat orders of one table: as given, plus with ``duplicate`` the swap (heads-up) or every rotation."""
    seats = tuple(table)
    if not duplicate:
        return [seats]
    return [seats[k:] + seats[:k] for k in range(len(seats))]


def plan_jobs(tables: Sequence[Sequence[Entry]], seed: int, hands: int, duplicate: bool) -> list[Job]:
    """Jobs for ``tables``: table ``i`` gets seed ``seed + i``, shared by all its seatings."""
    jobs: list[Job] = []
    for t, table in enumerate(tables):
        for seats in seatings(table, duplicate):
            jobs.append(Job(len(jobs), seats, (seed + t) & MAX_SEED, hands, t))
    return jobs


def tournament_tables(entries: Sequence[Entry], num_players: int, hero: Entry | None = None) -> list[tuple[Entry, ...]]:
    """Every table of a round robin (each set of ``num_players`` entries), or the hero with each set of the others."""
    if hero is not None:
        return [(hero,) + rest for rest in itertools.combinations(entries, num_players - 1)]
    return list(itertools.combinations(entries, num_players))


def build_plan(*, name: str, game: str, hands: int, seed: int, duplicate: bool, mode: str,
               entries: Sequence[Entry], hero: Entry | None = None, transport: str = "tcp",
               parallel: int | None = None, where: str = "") -> Plan:
    """Validate a run's settings and lay out its jobs; errors name the setting (as a key of ``where`` if given)."""
    def at(key: str) -> str:
        return f"{where}: key {key!r}" if where else key

    try:
        gamedef = load_game(game)
    except GameDefError as exc:
        raise RecipeError(f"{at('game')}: {exc}") from None
    if hands < 1:
        raise RecipeError(f"{at('hands')}: must be at least 1, got {hands}")
    if hands > MAX_HANDS:
        raise RecipeError(f"{at('hands')}: must be at most {MAX_HANDS} (the dealer's limit), got {hands}")
    if not 0 <= seed <= MAX_SEED:
        raise RecipeError(f"{at('seed')}: must be 0..{MAX_SEED}, got {seed}")
    if transport not in TRANSPORTS:
        raise RecipeError(f"{at('transport')}: must be one of {', '.join(TRANSPORTS)}, got {transport!r}")
    if parallel is not None and parallel < 1:
        raise RecipeError(f"{at('jobs')}: must be at least 1, got {parallel}")
    n = gamedef.num_players
    everyone = ([hero] if hero is not None else []) + list(entries)
    if transport == "memory":
        for e in everyone:
            if e.external is not None:
                raise RecipeError(f"{at('transport')}: an external program ({e.external!r}) needs the tcp transport")
    if mode == "play":
        if len(entries) != n:
            raise RecipeError(f"{at('seats')}: {gamedef.name} needs {n} players, got {len(entries)}")
        tables = [tuple(entries)]
    else:
        need = n - 1 if hero is not None else n
        if len(entries) < need:
            what = "opponents" if hero is not None else "players"
            raise RecipeError(f"{at(what)}: a {gamedef.name} tournament needs at least {need}, got {len(entries)}")
        tables = tournament_tables(entries, n, hero)
    plan = Plan(name=name, game_name=game, game=gamedef, hands=hands, seed=seed, duplicate=duplicate, mode=mode,
                entries=everyone, transport=transport, parallel=parallel)
    plan.jobs = plan_jobs(tables, seed, hands, duplicate)
    return plan


# ------------------------------------------------------------------ recipes

_KEYS = {"kind", "name", "description", "game", "hands", "seed", "duplicate", "transport", "jobs",
         "seats", "players", "hero", "opponents"}


#: recipe kinds: the default plays dealer matches; "sitngo" plays freezeout tables (dealer.arena.sitngo_cli)
RECIPE_KINDS = ("match", "sitngo")


def recipe_kind(path: str | Path) -> str:
    """The ``kind`` key of a recipe (default ``match``); a file that cannot be read is left to the loader."""
    try:
        kind = tomllib.loads(Path(path).read_text(encoding="utf-8")).get("kind", "match")
    except (OSError, ValueError, UnicodeDecodeError, RecursionError):
        return "match"
    return kind if kind in RECIPE_KINDS else "match"  # another kind: recipe_plan names the key


def load_recipe(path: str | Path, overrides: dict[str, Any] | None = None) -> Plan:
    """Read and validate a TOML recipe; every error names the file and the key.

    Paths in the recipe (game file, strategy files, external programs) are
    read against the recipe's folder.  ``overrides`` replace recipe keys
    (``hands``, ``seed``, ``jobs`` from the command line).
    """
    path = Path(path)
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise RecipeError(f"{path}: cannot read: {exc}") from None
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise RecipeError(f"{path}: not valid TOML: {exc}") from None
    except RecursionError:
        raise RecipeError(f"{path}: not readable TOML: nested too deeply") from None
    except ValueError as exc:  # a number of thousands of digits: Python's own text names a setting, not the file
        reason = "a number of more than 4,300 digits" if "digits" in str(exc) else str(exc)[:200]
        raise RecipeError(f"{path}: not readable TOML: {reason}") from None
    data.update({k: v for k, v in (overrides or {}).items() if v is not None})
    from acpcbot.strategies.registry import add_plugin_dir

    add_plugin_dir(path.parent)  # a plugin module beside the recipe is found from any folder
    return recipe_plan(data, str(path), default_name=path.stem, base=os.path.abspath(path.parent))


def recipe_plan(data: dict[str, Any], where: str, default_name: str = "recipe", base: str | Path | None = None) -> Plan:
    """Validate recipe data (parsed TOML) into a plan; errors say ``where: key 'K': ...``.

    With ``base``, paths are made absolute against it (missing files are
    errors naming the key); without, they are kept as written.
    """
    unknown = sorted(set(data) - _KEYS)
    if unknown:
        raise RecipeError(f"{where}: unknown key {unknown[0]!r} (known: {', '.join(sorted(_KEYS))})")

    def key_error(key: str, message: str) -> RecipeError:
        return RecipeError(f"{where}: key {key!r}: {message}")

    def get(key: str, kind: type | tuple[type, ...], default: Any = None, required: bool = False) -> Any:
        if key not in data:
            if required:
                raise key_error(key, "is required")
            return default
        value = data[key]
        if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
            names = " or ".join(k.__name__ for k in (kind if isinstance(kind, tuple) else (kind,)))
            raise key_error(key, f"must be {_KIND.get(names, names)}, got {value!r}")
        return value

    if data.get("kind", "match") != "match":
        raise key_error("kind", f"must be one of {', '.join(RECIPE_KINDS)}, got {data['kind']!r}")
    name = get("name", str, default_name)
    get("description", str)
    game = get("game", str, required=True)
    hands = get("hands", int, required=True)  # build_plan checks the ranges
    seed = get("seed", int, 0)
    duplicate = get("duplicate", bool, False)
    transport = get("transport", str, "tcp")
    parallel = get("jobs", int)
    if safe_name(name) != name:
        raise key_error("name", f"may only hold letters, digits, '.', '_' and '-' (not first), got {name!r}")
    if base is not None:
        game = game_path(game, base)
    try:
        gamedef = load_game(game)
    except GameDefError as exc:
        raise key_error("game", str(exc)) from None

    forms = [k for k in ("seats", "players", "hero") if k in data]
    if len(forms) != 1:
        raise RecipeError(f"{where}: give exactly one of 'seats' (one match), 'players' (a round robin) "
                          f"or 'hero' with 'opponents'; got {', '.join(forms) or 'none'}")
    if "opponents" in data and forms != ["hero"]:
        raise key_error("opponents", "only goes with 'hero'")
    form = forms[0]
    raw: list[tuple[str | None, str | None, str | None]] = []
    keys: list[str] = []
    if form == "hero":
        raw.append(_entry(data["hero"], "hero", key_error))
        keys.append("hero")
        listed = get("opponents", list, required=True)
        list_key = "opponents"
    else:
        listed = get(form, list, required=True)
        list_key = form
    for i, item in enumerate(listed):
        raw.append(_entry(item, f"{list_key}[{i}]", key_error))
        keys.append(f"{list_key}[{i}]")
    try:
        entries = make_entries(raw)
    except RecipeError as exc:
        raise RecipeError(f"{where}: {exc}") from None
    # files are made absolute first, so that the strategies check them where they are;
    # an external program in memory is refused by build_plan, naming the transport
    if base is not None and not (transport == "memory" and any(e.external for e in entries)):
        entries = resolve_entries(entries, keys, base, where)
    for entry, key in zip(entries, keys):
        if entry.strategy is not None:
            check_strategy(entry.strategy, gamedef, f"{where}: key {key!r}")
    hero = entries[0] if form == "hero" else None
    others = entries[1:] if form == "hero" else entries
    mode = "play" if form == "seats" else "tournament"
    return build_plan(name=name, game=game, hands=hands, seed=seed, duplicate=duplicate, mode=mode,
                      entries=others, hero=hero, transport=transport, parallel=parallel, where=where)


_KIND = {"str": "a string", "int": "a whole number", "bool": "true or false", "list": "a list"}


def _entry(item: Any, key: str, key_error: Any) -> tuple[str | None, str | None, str | None]:
    """(name, strategy, external) from a recipe item: a spec string or a table with strategy/external/name."""
    if isinstance(item, str):
        try:
            return parse_player(None, item, "")
        except RecipeError as exc:
            raise key_error(key, str(exc).lstrip(": ")) from None
    if not isinstance(item, dict):
        raise key_error(key, f"must be a strategy spec or a table with 'strategy' or 'external', got {item!r}")
    unknown = sorted(set(item) - {"strategy", "external", "name"})
    if unknown:
        raise key_error(f"{key}.{unknown[0]}", "unknown key (known: strategy, external, name)")
    if ("strategy" in item) == ("external" in item):
        raise key_error(key, "needs exactly one of 'strategy' and 'external'")
    for sub in ("strategy", "external", "name"):
        if sub in item and (not isinstance(item[sub], str) or not item[sub].strip()):
            raise key_error(f"{key}.{sub}", f"must be a non-empty string, got {item[sub]!r}")
    name = item.get("name")
    if name is not None and safe_name(name) != name:
        raise key_error(f"{key}.name", f"may only hold letters, digits, '.', '_' and '-', got {name!r}")
    return name, item.get("strategy"), item.get("external")
