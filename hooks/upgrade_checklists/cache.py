"""A per-repository cache of scan results, keyed by each file's size and mtime.

Like ruff's ``.ruff_cache``: a directory in the repository root (configurable
with ``cache_dir``, disabled with ``--no-cache``) that ignores itself in git.
A warm run stats files instead of reading and parsing them.

Racy entries are never stored: a file modified in the last two seconds could
change again within the filesystem's timestamp granularity without changing
its size, so it is read again next time (git's "racily clean" rule).
"""

from __future__ import annotations

import os
import pickle
import tempfile
import time
from pathlib import Path

from upgrade_checklists import __version__

RACY_NS = 2_000_000_000
_FILE = "scan-v1.pickle"


def _code_stamp() -> int:
    """Changes whenever this package's code does (an editable install, a new release)."""
    here = Path(__file__).parent
    return max(p.stat().st_mtime_ns for p in here.glob("*.py"))


class ScanCache:
    def __init__(self, directory: Path | None, key: str) -> None:
        self.directory = directory
        self.key = f"{__version__}:{_code_stamp()}:{key}"
        self.entries: dict[str, tuple[int, int, object]] = {}
        self.dirty = False
        self.hits = 0
        if directory is not None:
            try:
                with open(directory / _FILE, "rb") as f:
                    stored_key, entries = pickle.load(f)
                if stored_key == self.key:
                    self.entries = entries
            except (OSError, pickle.UnpicklingError, EOFError, ValueError, TypeError, AttributeError, ImportError):
                pass  # no cache, or one from another version: start empty

    def get(self, rel: str, st: os.stat_result) -> tuple[bool, object]:
        entry = self.entries.get(rel)
        if entry is not None and entry[0] == st.st_mtime_ns and entry[1] == st.st_size:
            self.hits += 1
            return True, entry[2]
        return False, None

    def put(self, rel: str, st: os.stat_result, value: object) -> None:
        if self.directory is None or st.st_mtime_ns > time.time_ns() - RACY_NS:
            self.entries.pop(rel, None)
            return
        self.entries[rel] = (st.st_mtime_ns, st.st_size, value)
        self.dirty = True

    def save(self) -> None:
        """Write atomically (temporary file in the same directory, then rename)."""
        if self.directory is None or not self.dirty:
            return
        try:
            self.directory.mkdir(parents=True, exist_ok=True)
            ignore = self.directory / ".gitignore"
            if not ignore.exists():
                ignore.write_text("# Automatically created by upgrade-checklists.\n*\n")
            fd, tmp = tempfile.mkstemp(dir=self.directory, prefix=".scan-", suffix=".tmp")
            with os.fdopen(fd, "wb") as f:
                pickle.dump((self.key, self.entries), f, protocol=pickle.HIGHEST_PROTOCOL)
            os.replace(tmp, self.directory / _FILE)
        except OSError:
            pass  # a read-only checkout still gets its check
