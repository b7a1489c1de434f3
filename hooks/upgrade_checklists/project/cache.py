"""A per-repository cache of what the check learnt about each file, as plain JSON.

Like ruff's ``.ruff_cache``: a directory in the repository root (configurable with
``cache_dir``, disabled with ``--no-cache``) that ignores itself in git, with one
sub-directory per cache format (``v3/``). A warm run stats files instead of reading
and parsing them.

What a repository can put in that directory is data, never code: the cache is JSON
(no pickle), and every entry is keyed like git's index -- path, size, mtime, ctime
and inode -- so an entry written anywhere else (a cache committed to the repository,
restored from another machine) never matches a freshly checked-out file. A cache of
another format, tool build, machine or repository root is discarded silently.

The API is plain data in, plain data out::

    hit, value = cache.get("snippets:" + rel, os.stat(path))
    cache.put("snippets:" + rel, st, value)   # value: dicts, lists, str, int, float, bool, None

Callers convert their dataclasses with :mod:`upgrade_checklists.core.plain` and treat data
that does not convert back as a miss. Racy entries are never stored: a file changed
in the last two seconds could change again within the filesystem's timestamp
granularity without changing its size (git's "racily clean" rule).

The tool build in the key is the package version plus a hash of the package's own
source files, so two installs of the same code (the hook's environment and a
developer's venv) share one cache, and an edited checkout never reads a stale one.
"""

from __future__ import annotations

import itertools
import json
import os
import re
import stat
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING, BinaryIO, Callable, Iterator

from upgrade_checklists import __version__
from upgrade_checklists.core.atomic import clean_stale_temps, write_atomic
from upgrade_checklists.core.atomic import _TEMP_RE
from upgrade_checklists.core.config import ConfigError
from upgrade_checklists.core.files import inside

if TYPE_CHECKING:
    from upgrade_checklists.core.config import Config

FORMAT = 3  # 3: an import is a list, not a dict (scan.facts_to_plain)
DIRECTORY = f"v{FORMAT}"
RACY_NS = 2_000_000_000
clock = time.time_ns  # what the racy rule takes for "now" (a test sets another)
MAX_BYTES = 256 * 1024 * 1024  # a bigger "cache" is not ours: ignored
_FILE = "check.json"
IGNORE = ".gitignore"
IGNORE_TEXT = "# Automatically created by upgrade-checklists.\n*\n"
_FORMAT_DIR = re.compile(r"^v\d+$")
_OLD_FILE = re.compile(r"^scan-v\d+\.pickle$")  # the first format's single file (never read: no pickle is loaded)

_build_id: str | None = None


def build_id() -> str:
    """The package version, a hash of its source files' names, sizes and modification times
    (a stat each: reading and hashing every file cost a warm commit run 15-20 ms), and the
    Python version."""
    global _build_id
    if _build_id is None:
        from upgrade_checklists.core.digest import blake2b

        # every source file of the package, not only this folder's: an audit model cached by an older
        # audit/ (or check/, core/ ...) must not be taken for this build's
        root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
        h = blake2b(digest_size=12)
        files = []
        for folder, dirs, names in os.walk(root):
            dirs[:] = sorted(d for d in dirs if d != "__pycache__")
            files += [os.path.join(folder, n) for n in names if n.endswith(".py")]
        for path in sorted(files):
            st = os.stat(path)
            h.update(f"{os.path.relpath(path, root).replace(os.sep, '/')}\0{st.st_size}\0{st.st_mtime_ns}\0".encode())
        # the Python version too: what ast can parse (and so each file's facts) depends on it
        _build_id = f"{__version__}+{h.hexdigest()}+py{sys.version_info[0]}.{sys.version_info[1]}"
    return _build_id


def cache_directory(cfg: "Config") -> Path | None:
    """The repository's cache directory (``cache_dir``), None when caching is off; checked
    before anything is read or written there. It must resolve inside the repository (a
    committed symlink, as the folder or on the way to it, would lead the writes out:
    :class:`files.Outside`) and hold nothing but the tool's own files, so that its
    ``*`` ``.gitignore`` never hides a folder of the project (``"."``, ``"app"``):
    a ``.gitignore`` the tool wrote (or began to), ``v<N>/`` folders, temporary files and
    the first format's ``scan-v1.pickle``.
    Anything else is a configuration error (exit 2)."""
    if not cfg.cache_dir:
        return None
    path = Path(inside(cfg.root, cfg.cache_dir, record=False))
    try:
        it = os.scandir(path)
    except FileNotFoundError:
        return path  # made by the first save
    except NotADirectoryError:
        raise ConfigError(f"cache_dir {cfg.cache_dir!r} is not a folder") from None
    with it:
        for e in it:
            if not _ours(e):
                raise ConfigError(f"cache_dir {cfg.cache_dir!r} holds {e.name!r}, which is not the tool's: "
                                  "the cache needs a folder of its own (its `*` .gitignore would hide the rest from git)")
    return path


def _ours(e: os.DirEntry) -> bool:
    """An entry the tool writes in its cache directory: its ``.gitignore`` (as it writes
    it, or cut short by a full disk), a format folder, a temporary file of a write."""
    try:
        st = e.stat(follow_symlinks=False)
    except OSError:
        return False
    if e.name == IGNORE:
        if not stat.S_ISREG(st.st_mode) or st.st_size > len(IGNORE_TEXT):
            return False
        try:
            with open(e.path, "rb") as f:
                return IGNORE_TEXT.encode().startswith(f.read(len(IGNORE_TEXT) + 1))
        except OSError:
            return False
    if _FORMAT_DIR.match(e.name):
        return stat.S_ISDIR(st.st_mode)
    return bool(_TEMP_RE.match(e.name) or _OLD_FILE.match(e.name)) and stat.S_ISREG(st.st_mode)


def prepare(root: Path, directory: Path) -> None:
    """Make the cache directory ``root`` ignore itself in git (``.gitignore`` written
    atomically: a full disk leaves the old file or none, never an empty one, and one left
    empty by an older version is written again), and its format folder ``directory``."""
    root.mkdir(parents=True, exist_ok=True)
    ignore = root / IGNORE
    try:
        st = os.lstat(ignore)
        ok = stat.S_ISREG(st.st_mode) and st.st_size == len(IGNORE_TEXT)  # cache_directory checked the content
    except FileNotFoundError:
        ok = False
    if not ok:
        write_atomic(ignore, IGNORE_TEXT)
    directory.mkdir(exist_ok=True)


def _machine() -> str:
    u = os.uname() if hasattr(os, "uname") else None
    return f"{u.nodename if u else os.environ.get('COMPUTERNAME', '')}"


def header(key: str) -> dict:
    """What a cache file must say it was written for: this format, tool build, machine and ``key`` (the root)."""
    return {"format": FORMAT, "build": build_id(), "machine": _machine(), "key": key}


def open_cache_file(path: Path, max_bytes: int = MAX_BYTES) -> BinaryIO | None:
    """``path`` open for reading when it is a regular file of at most ``max_bytes``; None
    otherwise (absent, a symlink, a FIFO, a directory: whatever a repository put there is
    neither followed nor waited on)."""
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOFOLLOW", 0))
    except (OSError, ValueError):
        return None
    f = os.fdopen(fd, "rb")
    try:
        st = os.fstat(f.fileno())
    except OSError:
        st = None
    if st is None or not stat.S_ISREG(st.st_mode) or st.st_size > max_bytes:
        f.close()
        return None
    return f


def changed_ns(st: os.stat_result) -> int:
    """When a file last changed, as far as its stat can tell: the later of its modification
    time and its change time. A write whose modification time was set back (``touch -d``,
    ``cp -p``, ``rsync -t``, an unpacked archive, ``os.utime``) shows only in the change
    time, which nothing but the kernel can set."""
    return max(st.st_mtime_ns, st.st_ctime_ns)


def racy_since(changed: int) -> bool:
    """git's racy rule, the one rule of every cache here (scan entries, run records, the
    audit's uses and tree hashes, extracted pins): a file that changed (:func:`changed_ns`)
    in the last two seconds is not keyed by its stat. On a file system whose timestamps
    have one-second (or two-second, FAT) steps, a second same-size write within that step
    leaves the stat as it was: a record made now could answer for other contents later."""
    return changed > clock() - RACY_NS


def racy(st: os.stat_result) -> bool:
    """:func:`racy_since` for one file's stat."""
    return racy_since(changed_ns(st))


def stamp(st: os.stat_result) -> list[int]:
    """The key parts of a file's stat, as git's index keeps them."""
    return [st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_ino]


def _stream(entries: dict, raw: dict[str, tuple[int, int]], read: Callable[[int, int], str] | None) -> Iterator[str]:
    """``json.dumps(entries)`` entry by entry (each by the C encoder), an entry a line: a
    cache of a large repository is never held a second time as one string, and an entry
    read and not changed is written back as it was read (``read`` its span ``raw`` in the
    file read), not encoded again."""
    dumps = json.dumps
    yield "{"
    sep = "\n"
    for key, value in entries.items():
        span = raw.get(key) if read is not None else None
        yield sep + dumps(key) + ":" + (read(*span) if span is not None else dumps(value, separators=(",", ":")))
        sep = "\n,"
    yield "\n}"


_decoder = json.JSONDecoder()


def _entries_by_line(body: str) -> tuple[dict, dict[str, tuple[int, int]]] | None:
    """The entries of a body :func:`_stream` wrote, and where each one's value is in it;
    None when the body is not laid out an entry a line (then it is read as one JSON value)."""
    if body == "{\n}":
        return {}, {}
    if not (body.startswith("{\n") and body.endswith("\n}")):
        return None
    entries: dict = {}
    raw: dict[str, tuple[int, int]] = {}
    scanstring, decode = json.decoder.scanstring, _decoder.raw_decode
    last = len(body) - 2  # the final line break
    pos = 2
    try:
        while True:
            if pos > 2:
                if body[pos] != ",":
                    return None
                pos += 1
            if body[pos] != '"':
                return None
            key, end = scanstring(body, pos + 1)
            if body[end] != ":":
                return None
            value, stop = decode(body, end + 1)
            if stop != last and body[stop] != "\n":
                return None  # anything after the value, or another entry on its line
            entries[key] = value
            raw[key] = (end + 1, stop)
            if stop == last:
                return entries, raw
            pos = stop + 1
    except (ValueError, IndexError):
        return None


_KEY_AT_START = re.compile(rb'^,?("(?:[^"\\]|\\.)*":)')  # an entry's line: its key, quoted as JSON, then ":"


def peek(directory: Path, key: str, names: list[str], name: str = _FILE) -> dict[str, object]:
    """The entries stored under ``names`` (as ``ScanCache.entries`` holds them) in the cache
    of ``directory`` for root ``key``, found by their lines and decoded alone: for a run
    that needs two entries of a large cache. Nothing when the file is absent, not ours,
    or not laid out an entry a line."""
    f = open_cache_file(directory / DIRECTORY / name)
    if f is None:
        return {}
    try:
        with f:
            if json.loads(f.readline(1 << 16)) != header(key):
                return {}
            body = f.read()
    except (OSError, ValueError, RecursionError, MemoryError):
        return {}
    if not (body.startswith(b"{\n") and body.endswith(b"\n}")):
        return {}
    tags = {json.dumps(n).encode("ascii") + b":": n for n in names}  # ``_stream``: an entry a line, "," past the first
    out: dict[str, object] = {}
    for line in body.split(b"\n"):
        m = _KEY_AT_START.match(line)
        n = tags.get(m.group(1)) if m is not None else None
        if n is not None:
            end = m.end()
            try:
                out[n] = json.loads(line[end:])
            except (ValueError, RecursionError, MemoryError):
                return {}
    return out


class ScanCache:
    """``name``: the file in the format directory (``check.json``; the audit keeps its own,
    ``audit.json``, so the check never reads what only the audit needs)."""

    def __init__(self, directory: Path | None, key: str, name: str = _FILE) -> None:
        self.root = directory
        self.directory = directory / DIRECTORY if directory is not None else None
        self.name = name
        self.header = header(key)
        self.entries: dict[str, list] = {}
        #: the cache file read (kept open: its unchanged entries are copied from it when
        #: saving), where its body starts, and key -> where the entry's JSON is in the body
        self._read: BinaryIO | None = None
        self._body_at = 0
        self.raw: dict[str, tuple[int, int]] = {}
        self.dirty = False
        self.hits = 0
        if self.directory is not None:
            self.entries = self._load(self.directory / name)

    def _load(self, path: Path) -> dict[str, list]:
        """The stored entries, or nothing when the file is absent, not ours or not valid."""
        f = open_cache_file(path)
        if f is None:
            return {}
        keep = False
        try:
            if json.loads(f.readline(1 << 16)) != self.header:
                return {}  # another format, build, machine or repository
            at = f.tell()
            data = f.read()
            by_line = _entries_by_line(data.decode("ascii")) if data.isascii() else None  # json.dumps writes ASCII
            if by_line is not None:
                entries, self.raw = by_line
                self._read, self._body_at, keep = f, at, True
            else:
                entries = json.loads(data)
        except (OSError, ValueError, RecursionError, MemoryError):
            self.raw = {}
            return {}
        finally:
            if not keep:
                f.close()
        return entries if type(entries) is dict else {}

    def _copy(self, start: int, end: int) -> str:
        """An unchanged entry's JSON, as the file read holds it (any doubt: the save is abandoned)."""
        f = self._read
        f.seek(self._body_at + start)
        data = f.read(end - start)
        if len(data) != end - start or not data.isascii():
            raise ValueError("the cache file read has changed")
        return data.decode("ascii")

    def get(self, key: str, st: os.stat_result) -> tuple[bool, object]:
        """``(True, value)`` when ``key`` was stored for a file with exactly this stat."""
        entry = self.entries.get(key)
        if (type(entry) is list and len(entry) == 5 and entry[0] == st.st_size and entry[1] == st.st_mtime_ns
                and entry[2] == st.st_ctime_ns and entry[3] == st.st_ino):
            self.hits += 1
            return True, entry[4]
        return False, None

    def put(self, key: str, st: os.stat_result, value: object) -> None:
        """Remember ``value`` (plain JSON data) for the file with stat ``st``."""
        self.raw.pop(key, None)
        if self.directory is None or racy(st):
            if self.entries.pop(key, None) is not None:
                self.dirty = True
            return
        self.entries[key] = [*stamp(st), value]
        self.dirty = True

    def get_stamped(self, key: str, stamp: str) -> tuple[bool, object]:
        """A value stored under ``key`` for ``stamp`` (not a file's stat: e.g. a digest of git's refs)."""
        entry = self.entries.get(key)
        if type(entry) is list and len(entry) == 3 and entry[0] == "stamped" and entry[1] == stamp:
            return True, entry[2]
        return False, None

    def put_stamped(self, key: str, stamp: str, value: object) -> None:
        """Remember ``value`` (plain JSON data) under ``key`` for ``stamp``."""
        if self.directory is not None:
            self.raw.pop(key, None)
            self.entries[key] = ["stamped", stamp, value]
            self.dirty = True

    def forget(self, key: str) -> None:
        self.raw.pop(key, None)
        if self.entries.pop(key, None) is not None:
            self.dirty = True

    def release(self) -> None:
        """Done with the cache (saved): its entries are let go, a large repository's
        memory with them. Afterwards every ``get`` misses, and ``put`` and ``save`` do nothing."""
        self.entries, self.raw, self.directory, self.dirty = {}, {}, None, False
        if self._read is not None:
            self._read.close()
            self._read = None

    def save(self) -> None:
        """Write atomically (temporary file in the same directory, then rename); clean
        up the temporary files of runs that were killed."""
        if self.directory is None:
            return
        try:
            if self.root is not None and self.root.is_dir():
                clean_stale_temps(self.directory)
            if not self.dirty:
                return
            prepare(self.root, self.directory)
            head = json.dumps(self.header, separators=(",", ":")) + "\n"
            read = self._copy if self._read is not None else None
            write_atomic(self.directory / self.name, itertools.chain([head], _stream(self.entries, self.raw, read)), durable=False)
            self.dirty = False
        except (OSError, ValueError):
            pass  # a read-only checkout still gets its check
        finally:
            if self._read is not None:
                self._read.close()  # a later save encodes every entry
                self._read, self.raw = None, {}


def hash_stats(h, root: str | Path, rels: list[str], follow: bool = False, keep: list[str] | None = None) -> int:
    """Feed ``h`` each file's path and stat as git's index keys them (mode, size, mtime,
    ctime, inode; an absent file marked as such), the link itself unless ``follow``; the
    latest change seen (:func:`changed_ns`: for :func:`racy_since`).
    ``keep``: a list that gets each file's keyed line too."""
    newest = 0
    look = os.stat if follow else os.lstat
    for rel in rels:
        try:
            st = look(os.path.join(root, rel))
        except (OSError, ValueError):
            line = f"{rel}\0-\n"
        else:
            newest = max(newest, changed_ns(st))
            line = f"{rel}\0{st.st_mode}\0{st.st_size}\0{st.st_mtime_ns}\0{st.st_ctime_ns}\0{st.st_ino}\n"
        h.update(line.encode("utf-8", "surrogateescape"))
        if keep is not None:
            keep.append(line)
    return newest
