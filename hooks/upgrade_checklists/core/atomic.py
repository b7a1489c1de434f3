"""Atomic file writes, and the clean-up of what a killed write leaves behind.

A file is replaced by writing a temporary file next to it and renaming it over the
old one: a reader (or a run killed half-way) sees the old bytes or the new, never a
mix. A temporary file is named ``.NAME.uc-PID-RANDOM.tmp``; one whose process is
gone (killed before its rename) is removed by the next run that writes or checks
there.
"""

from __future__ import annotations

import os
import re
import stat
import time
from pathlib import Path
from typing import Iterable

_TEMP_RE = re.compile(r"^\..*\.uc-(\d+)-[0-9a-f]+\.tmp$")
STALE_AFTER_S = 3600  # a temporary file this old is stale even if its pid is in use again


def temp_name(name: str) -> str:
    return f".{name}.uc-{os.getpid()}-{os.urandom(4).hex()}.tmp"


def _alive(pid: int) -> bool:
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except (PermissionError, OverflowError, OSError):
        return True
    return True


def clean_stale_temps(directory: Path, name: str | None = None) -> int:
    """Remove the temporary files of killed writes in ``directory`` (only those for
    ``name`` when given); returns how many were removed."""
    removed = 0
    try:
        it = os.scandir(directory)
    except OSError:
        return 0
    now = time.time()
    with it:
        for e in it:
            m = _TEMP_RE.match(e.name)
            if m is None or (name is not None and not e.name.startswith(f".{name}.uc-")):
                continue
            try:
                st = e.stat(follow_symlinks=False)
                if not stat.S_ISREG(st.st_mode):
                    continue
                if _alive(int(m.group(1))) and now - st.st_mtime < STALE_AFTER_S:
                    continue
                os.unlink(e.path)
                removed += 1
            except (OSError, ValueError):
                continue
    return removed


def write_atomic(path: Path, text: str | bytes | Iterable[str]) -> None:
    """Write ``text`` to ``path`` via a temporary file in the same directory and a rename.

    ``text`` is written as it is (a ``str`` as UTF-8, its line endings untouched), or,
    given an iterable of strings (``json.JSONEncoder().iterencode(...)``), piece by piece
    (a big cache is never held twice in memory); the file keeps its permission bits.
    """
    if isinstance(text, (str, bytes)):
        chunks: Iterable[bytes] = [text.encode("utf-8") if isinstance(text, str) else text]
    else:
        chunks = (piece.encode("utf-8") for piece in text)
    clean_stale_temps(path.parent, path.name)
    tmp = path.parent / temp_name(path.name)
    try:
        mode = stat.S_IMODE(path.stat().st_mode)
    except FileNotFoundError:
        mode = 0o644
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    try:
        with os.fdopen(fd, "wb", buffering=1 << 16) as f:
            for data in chunks:
                f.write(data)
        os.chmod(tmp, mode)
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


def write_atomic_any(path: Path, text: str | bytes) -> None:
    """Like :func:`write_atomic`, for a file that may not exist yet."""
    path.parent.mkdir(parents=True, exist_ok=True)
    write_atomic(path, text)
