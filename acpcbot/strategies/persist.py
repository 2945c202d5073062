"""``model=FILE``: what a strategy learnt about its opponents, kept across matches in one JSON file.

The file holds one entry per opponent key (the opponent's name when the
match names it, else its seat), so one file can follow many opponents::

    {"format": "acpcbot-model", "kind": "uc3m", "version": 1,
     "saved": "2024-05-01T12:00:00", "entries": {"alice": {...}, "seat:2": {...}}}

``kind`` says which strategy wrote the file (a file of another kind is
refused, not overwritten) and ``version`` the layout of its entries.
Saving re-reads the file and replaces only the entries this process
changed, so two seats sharing a file (keyed by different opponents) do not
erase each other, then writes a temporary file beside it and renames it
over the old one: a crash leaves either the old file or the new one, never
half a file.  Saves hold an exclusive lock on the file's folder (POSIX
``flock``) from the re-read to the rename, so saves of seats in different
processes do not interleave.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, Iterable, Iterator, Mapping

try:
    import fcntl
except ImportError:  # pragma: no cover - not POSIX: saves are not serialised
    fcntl = None  # type: ignore[assignment]

from ..atomic import atomic_write

if TYPE_CHECKING:  # hints only: the world imports the strategies package
    from ..world import MatchInfo, View

FORMAT = "acpcbot-model"

log = logging.getLogger(__name__)


class ModelFileError(ValueError):
    """A model file that cannot be read or written, with the path and the reason."""


def folder_exists(path: str) -> bool:
    """Whether a file parameter is empty (off) or names a file in an existing folder (for Param checks)."""
    return not path or Path(path).parent.is_dir()


def seat_key(seats: Iterable[int]) -> str:
    """The key of opponents known only by their dealer seats (0-based in, 1-based out): ``seat:2``, ``seat:2+3``."""
    return "seat:" + "+".join(str(s + 1) for s in sorted(seats))


def table_key(info: MatchInfo | None, view: View) -> str:
    """The key of all the other seats together: their names joined by ``+`` when known, else their seats."""
    if info is not None and info.opponent_key:
        return info.opponent_key
    n = view.game.num_players
    return seat_key(s for s in range(n) if s != view.seat)


def opponent_key(info: MatchInfo | None, view: View, position: int) -> str:
    """The key of the opponent at ``position`` in ``view``'s hand: its name when known, else ``seat:N``.

    Seats follow the reference dealer's rotation (position p of hand h is
    seat (p + h) mod N); names are the match's opponents in seat order with
    this seat left out.
    """
    n = view.game.num_players
    seat = view.state.seat_of(position)
    if info is not None and len(info.opponents) == n - 1:
        mine = view.seat
        if seat != mine:
            return info.opponents[seat if seat < mine else seat - 1]
    return seat_key((seat,))


@contextlib.contextmanager
def _folder_lock(folder: Path) -> Iterator[None]:
    """Hold an exclusive flock on ``folder`` (the file itself is replaced on save, so it cannot carry the lock)."""
    if fcntl is None:  # pragma: no cover
        yield
        return
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError as exc:
        raise ModelFileError(f"model folder {folder}: cannot open it to lock it: {exc}") from None
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)  # releases the lock


class ModelFile:
    """The entries of one model file, loaded at once; ``save`` writes them back atomically."""

    def __init__(self, path: str | os.PathLike[str], kind: str, version: int) -> None:
        self.path = Path(path)
        self.kind = kind
        self.version = version
        if not self.path.parent.is_dir():
            raise ModelFileError(f"model file {self.path}: the folder {self.path.parent} does not exist")
        if self.path.is_dir():
            raise ModelFileError(f"model file {self.path}: is a folder, not a file")
        #: entries by opponent key, as read (a missing file has none)
        self.entries: dict[str, Any] = self._read()
        self._changed: set[str] = set()

    def _read(self) -> dict[str, Any]:
        """The file's entries; {} when it does not exist; ModelFileError when it is not a valid model file."""
        where = f"model file {self.path}"
        try:
            text = self.path.read_text(encoding="utf-8")
        except FileNotFoundError:
            return {}
        except (OSError, UnicodeDecodeError) as exc:
            raise ModelFileError(f"{where}: cannot read it: {exc}") from None
        try:
            doc = json.loads(text)
        except json.JSONDecodeError as exc:
            raise ModelFileError(f"{where}: not valid JSON (line {exc.lineno}, column {exc.colno}: {exc.msg}); "
                                 "fix or remove it") from None
        except (ValueError, RecursionError) as exc:  # a number of thousands of digits, nesting past Python's limit
            raise ModelFileError(f"{where}: not readable JSON ({str(exc)[:120]}); fix or remove it") from None
        if not isinstance(doc, dict) or doc.get("format") != FORMAT:
            raise ModelFileError(f"{where}: not an acpcbot model file (no \"format\": \"{FORMAT}\")")
        if doc.get("kind") != self.kind:
            raise ModelFileError(f"{where}: holds a {doc.get('kind')!r} model, not a {self.kind!r} one; "
                                 "use another file")
        if doc.get("version") != self.version:
            raise ModelFileError(f"{where}: {self.kind} model version {doc.get('version')!r} is not supported "
                                 f"(this acpcbot reads version {self.version})")
        entries = doc.get("entries")
        if not isinstance(entries, dict):
            raise ModelFileError(f"{where}: \"entries\" must be an object of opponent entries")
        return entries

    def get(self, key: str) -> Any | None:
        """The entry of an opponent key, or None."""
        return self.entries.get(key)

    def put(self, key: str, value: Any) -> None:
        """Set (replace) the entry of an opponent key; written by the next ``save``."""
        self.entries[key] = value
        self._changed.add(key)

    def save(self) -> None:
        """Merge the changed entries into the file as it is now and write it atomically."""
        if not self._changed:
            return
        with _folder_lock(self.path.parent):
            current = self._read()
            for key in self._changed:
                current[key] = self.entries[key]
            self._write(current)
        self.entries = current
        self._changed.clear()

    def _write(self, entries: dict[str, Any]) -> None:
        """Write the file with ``entries`` through a temporary file renamed over it."""
        doc = {"format": FORMAT, "kind": self.kind, "version": self.version,
               "saved": datetime.now().isoformat(timespec="seconds"), "entries": entries}
        try:
            with atomic_write(self.path, fsync=True) as out:
                json.dump(doc, out, separators=(",", ":"))
        except OSError as exc:
            raise ModelFileError(f"model file {self.path}: cannot write it: {exc}") from None


class ModelSaver:
    """Writes a strategy's per-opponent models that changed to its model file, every ``every`` hands and on ``save``.

    ``models`` is the strategy's own dict (key -> an object with
    ``to_json()``), read at save time so that only saves pay for the JSON.
    A failing write is logged with ``lost`` (``%s`` is the reason) and the
    match goes on: losing a model must not lose the match.
    """

    def __init__(self, store: ModelFile | None, models: Mapping[str, Any], lost: str, every: int = 1000) -> None:
        self.store = store
        self.models = models
        self.lost = lost
        self.every = every
        self._changed: set[str] = set()
        self._hands = 0

    def changed(self, key: str) -> None:
        """Mark the model of ``key`` for the next save."""
        self._changed.add(key)

    def hand_done(self) -> None:
        """Count a hand; save once ``every`` hands have passed since the last save."""
        self._hands += 1
        if self._hands >= self.every:
            self.save()

    def save(self) -> None:
        """Write the changed models (when there is a model file)."""
        self._hands = 0
        if self.store is None or not self._changed:
            return
        for key in self._changed:
            self.store.put(key, self.models[key].to_json())
        self._changed.clear()
        try:
            self.store.save()
        except ModelFileError as exc:
            log.error(self.lost, exc)
